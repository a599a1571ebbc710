//! Reading package-file keys (`package: {file, sha256}`, `imports: [...]`
//! of `system: spack`): each `file` is below the repository's `spack/`
//! directory (beside `recipes/`, as patches are below `patches/`), has
//! Spack's layout (`<namespace>/<dir>/package.py`), exists there (also
//! after following links) and has the stated sha256.

use std::path::Path;

use crate::build_logic::files::{SPACK_DIR, layout_problem, sha256_hex};
use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Spanned, display_path};

use super::super::build::PackageFileRef;
use super::super::located::absolutize;
use super::super::read;

/// The `spack/` directory beside the repository directory `repo_dir`.
pub fn spack_dir(repo_dir: &Path) -> std::path::PathBuf {
    absolutize(&Path::new("..").join(SPACK_DIR), repo_dir)
}

/// One `{file, sha256}` entry.
pub fn package_file(cx: &mut Cx, node: &Node, repo_dir: &Path) -> Option<PackageFileRef> {
    let what = "a package file";
    let m = cx.map(node, what, &["file", "sha256"])?;
    let file = cx
        .required(&m, "file", what)
        .and_then(|n| cx.nonempty_string(n, "`file`"));
    let sha = cx
        .required(&m, "sha256", what)
        .and_then(|n| read::sha256(cx, n, "the package file's `sha256`"));
    let file = file?;
    let dir = spack_dir(repo_dir);
    let path = absolutize(Path::new(&file.value), &dir);
    if !check(cx, &file, &path, &dir, sha.as_deref()) {
        return None;
    }
    Some(PackageFileRef {
        file: file.value,
        path,
        sha256: sha?,
        loc: m.loc.clone(),
    })
}

/// A list of `{file, sha256}` entries.
pub fn package_files(cx: &mut Cx, node: &Node, repo_dir: &Path, what: &str) -> Vec<PackageFileRef> {
    let Some(items) = cx.seq(node, what) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| package_file(cx, item, repo_dir))
        .collect()
}

/// Layout, place, existence and checksum; `false` after an error.
fn check(cx: &mut Cx, file: &Spanned<String>, path: &Path, dir: &Path, sha: Option<&str>) -> bool {
    let hint = || {
        format!(
            "`file:` is relative to {}/, the `spack/` directory beside the repository, \
             as `<namespace>/<directory>/package.py`",
            display_path(dir)
        )
    };
    if let Some(problem) = layout_problem(&file.value) {
        cx.error(
            Code::InvalidValue,
            &file.loc,
            format!("package file `{}` is {problem}", file.value),
            "not a package file path",
            Some(hint()),
        );
        return false;
    }
    // Below spack/, also after following links: a recipe must not make
    // `stack check` read (or a build run) any file it likes.
    let inside = super::below::stays_below(path, dir);
    if !inside {
        cx.error(
            Code::InvalidValue,
            &file.loc,
            format!(
                "package file `{}` leads outside the repository's `spack/` directory",
                file.value
            ),
            "not below spack/",
            Some(hint()),
        );
        return false;
    }
    match fs_err::read(path) {
        Err(_) => {
            cx.error(
                Code::PackageFileMissing,
                &file.loc,
                format!("package file `{}` not found", file.value),
                format!("expected {}", display_path(path)),
                Some(hint()),
            );
            false
        }
        Ok(bytes) => {
            let actual = sha256_hex(&bytes);
            match sha {
                Some(expected) if actual != expected => {
                    cx.error(
                        Code::PackageFileChecksum,
                        &file.loc,
                        format!("sha256 mismatch for package file `{}`", file.value),
                        "this file's checksum differs from `sha256`",
                        Some(format!(
                            "the file's sha256 is {actual}; if the file changed on purpose, put that in the recipe"
                        )),
                    );
                    false
                }
                _ => true,
            }
        }
    }
}
