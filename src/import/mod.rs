//! Importing package recipes from other package managers (`stack import`).
//!
//! [`spack`] reads Spack `package.py` files statically (tree-sitter's Python
//! grammar, no Python at run time) and writes one stack package recipe per
//! package, with an `imported:` block that names the source, the
//! spack-packages commit and every construct it did not translate (with
//! its line in package.py). [`import_spack`] runs it over a checkout of
//! spack-packages in parallel and [`report`] summarises the coverage.
//!
//! This stage produces recipe files: it runs before everything else and
//! uses only [`crate::spec`] (to check that conditions parse).

pub mod report;
pub mod spack;
/// The YAML writer recipes are written with (it lives in [`crate::diag`],
/// beside the reader, since `repo` writes recipes too).
pub use crate::diag::yaml_out;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

pub use report::{CoverageReport, PackageOutcome};

/// Why an import could not run.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(
        "{0}: no Spack package directory here (expected repos/spack_repo/builtin/packages/ or packages/ with <name>/package.py)"
    )]
    NoPackages(PathBuf),
    #[error("no package `{name}` in {dir}")]
    UnknownPackage {
        name: String,
        dir: PathBuf,
        suggestion: Option<String>,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What to import and where to write it.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// A spack-packages checkout (or its `packages/` directory).
    pub from: PathBuf,
    /// Package names (`zlib-ng`); empty: all packages.
    pub packages: Vec<String>,
    /// Where recipes are written (`<out>/<name>.yaml`); patch files go to
    /// `<out>/../patches/<name>/`.
    pub out: PathBuf,
    /// Only convert and report, write no recipe.
    pub dry_run: bool,
}

/// The outcome of an import.
#[derive(Debug)]
pub struct ImportSummary {
    pub report: CoverageReport,
    /// Recipes written.
    pub written: Vec<PathBuf>,
}

/// The directory holding `<name>/package.py` directories.
pub fn packages_dir(from: &Path) -> Result<PathBuf, ImportError> {
    for candidate in [
        from.join("repos/spack_repo/builtin/packages"),
        from.join("packages"),
        from.to_path_buf(),
    ] {
        if candidate.is_dir() && has_package(&candidate) {
            return Ok(candidate);
        }
    }
    Err(ImportError::NoPackages(from.to_path_buf()))
}

fn has_package(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .take(64)
            .any(|e| e.path().join("package.py").is_file())
    })
}

/// Spack's directory name of a package (`zlib-ng` → `zlib_ng`, `7zip` → `_7zip`).
pub fn dir_name(pkg: &str) -> String {
    let d = pkg.replace('-', "_");
    if d.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{d}")
    } else {
        d
    }
}

/// The package name of a directory (`zlib_ng` → `zlib-ng`).
pub fn package_name(dir: &str) -> String {
    let d = match dir.strip_prefix('_') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest,
        _ => dir,
    };
    d.replace('_', "-")
}

/// The file naming the commit a tree was exported from (`stack`'s export
/// of a pinned spack-packages commit has no `.git`).
pub const EXPORTED_COMMIT_FILE: &str = ".stack-commit";

/// The commit of the git checkout at `dir` (or of the tree exported there
/// from one, see [`EXPORTED_COMMIT_FILE`]), if it is one.
pub fn checkout_commit(dir: &Path) -> Option<String> {
    if let Ok(sha) = fs_err::read_to_string(dir.join(EXPORTED_COMMIT_FILE)) {
        return Some(sha.trim().to_string());
    }
    let repo = git2::Repository::discover(dir).ok()?;
    let head = repo.head().ok()?;
    head.peel_to_commit().ok().map(|c| c.id().to_string())
}

/// Import packages from a spack-packages checkout.
pub fn import_spack(opts: &ImportOptions) -> Result<ImportSummary, ImportError> {
    let started = Instant::now();
    let dir = packages_dir(&opts.from)?;
    let commit = checkout_commit(&opts.from);
    let names = select(&dir, &opts.packages)?;
    let root = git2::Repository::discover(&opts.from)
        .ok()
        .and_then(|r| r.workdir().map(Path::to_path_buf))
        .unwrap_or_else(|| opts.from.clone());
    if !opts.dry_run {
        #[allow(clippy::disallowed_methods)] // the error names the path itself
        std::fs::create_dir_all(&opts.out).map_err(|source| ImportError::Write {
            path: opts.out.clone(),
            source,
        })?;
    }
    let results: Vec<Result<(PackageOutcome, Option<PathBuf>), ImportError>> = names
        .par_iter()
        .map(|name| import_one(name, &dir, &root, commit.as_deref(), opts))
        .collect();
    let mut outcomes = Vec::new();
    let mut written = Vec::new();
    for r in results {
        let (o, w) = r?;
        outcomes.push(o);
        written.extend(w);
    }
    let report = CoverageReport::new(outcomes, commit, started.elapsed());
    Ok(ImportSummary { report, written })
}

fn select(dir: &Path, wanted: &[String]) -> Result<Vec<String>, ImportError> {
    let mut all: Vec<String> = std::fs::read_dir(dir)
        .map_err(|source| ImportError::Read {
            path: dir.to_path_buf(),
            source,
        })?
        .flatten()
        .filter(|e| e.path().join("package.py").is_file())
        .map(|e| package_name(&e.file_name().to_string_lossy()))
        .collect();
    all.sort();
    if wanted.is_empty() {
        return Ok(all);
    }
    wanted
        .iter()
        .map(|w| {
            if dir.join(dir_name(w)).join("package.py").is_file() {
                Ok(w.clone())
            } else {
                Err(ImportError::UnknownPackage {
                    name: w.clone(),
                    dir: dir.to_path_buf(),
                    suggestion: crate::diag::nearest(w, all.iter()).map(str::to_string),
                })
            }
        })
        .collect()
}

fn import_one(
    name: &str,
    dir: &Path,
    root: &Path,
    commit: Option<&str>,
    opts: &ImportOptions,
) -> Result<(PackageOutcome, Option<PathBuf>), ImportError> {
    let pkg_dir = dir.join(dir_name(name));
    let file = pkg_dir.join("package.py");
    #[allow(clippy::disallowed_methods)] // the error names the path itself
    let src = std::fs::read_to_string(&file).map_err(|source| ImportError::Read {
        path: file.clone(),
        source,
    })?;
    let origin = spack::Origin {
        file: file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string(),
        commit: commit.map(str::to_string),
    };
    let converted = spack::convert(name, &src, &pkg_dir, &origin);
    let mut written = None;
    if !opts.dry_run {
        written = Some(write_recipe(&converted, &opts.out)?);
    }
    Ok((PackageOutcome::of(&converted), written))
}

fn write_recipe(c: &spack::Converted, out: &Path) -> Result<PathBuf, ImportError> {
    let write = |path: &Path, bytes: &[u8]| {
        if let Some(parent) = path.parent() {
            #[allow(clippy::disallowed_methods)] // the error names the path itself
            std::fs::create_dir_all(parent).map_err(|source| ImportError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        #[allow(clippy::disallowed_methods)] // the error names the path itself
        std::fs::write(path, bytes).map_err(|source| ImportError::Write {
            path: path.to_path_buf(),
            source,
        })
    };
    let path = out.join(format!("{}.yaml", c.name));
    write(&path, c.to_yaml().as_bytes())?;
    let patches = out
        .parent()
        .unwrap_or(Path::new("."))
        .join("patches")
        .join(&c.name);
    for (src, rel) in &c.patch_files {
        let bytes = std::fs::read(src).map_err(|source| ImportError::Read {
            path: src.clone(),
            source,
        })?;
        write(&patches.join(rel), &bytes)?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_map_to_package_names() {
        assert_eq!(dir_name("zlib-ng"), "zlib_ng");
        assert_eq!(dir_name("7zip"), "_7zip");
        assert_eq!(package_name("_7zip"), "7zip");
        assert_eq!(package_name("py_numpy"), "py-numpy");
    }
}
