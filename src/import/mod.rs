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

pub mod confined;
pub mod differential;
pub mod git_tree;
pub mod report;
pub mod repos;
pub mod spack;
/// The YAML writer recipes are written with (it lives in [`crate::diag`],
/// beside the reader, since `repo` writes recipes too).
pub use crate::diag::yaml_out;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

pub use report::{CoverageReport, PackageOutcome};
pub use repos::{Repos, SpackRepo};

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
    /// `<out>/../patches/<name>/`, package.py files to `<out>/../spack/`.
    pub out: PathBuf,
    /// Other Spack repositories (checkouts or package directories) whose
    /// packages the imported ones import (`from
    /// spack_repo.builtin.packages.mpich.package import …` in a site
    /// repository), found by namespace.
    pub with_repos: Vec<PathBuf>,
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
        if git_tree::is_dir(&candidate) && has_package(&candidate) {
            return Ok(candidate);
        }
    }
    Err(ImportError::NoPackages(from.to_path_buf()))
}

fn has_package(dir: &Path) -> bool {
    git_tree::names(dir).is_ok_and(|names| {
        names
            .iter()
            .take(64)
            .any(|n| git_tree::is_file(&dir.join(n).join("package.py")))
    })
}

/// Python's keywords: Spack puts packages named like one (`global`,
/// `pass`) in a directory with a leading underscore, as it does for names
/// starting with a digit (a directory must be a valid module name).
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Spack's directory name of a package (`zlib-ng` → `zlib_ng`, `7zip` →
/// `_7zip`, `global` → `_global`).
pub fn dir_name(pkg: &str) -> String {
    let d = pkg.replace('-', "_");
    if d.starts_with(|c: char| c.is_ascii_digit()) || PYTHON_KEYWORDS.contains(&d.as_str()) {
        format!("_{d}")
    } else {
        d
    }
}

/// The package name of a directory (`zlib_ng` → `zlib-ng`, `_global` →
/// `global`).
pub fn package_name(dir: &str) -> String {
    let d = match dir.strip_prefix('_') {
        Some(rest)
            if rest.starts_with(|c: char| c.is_ascii_digit())
                || PYTHON_KEYWORDS.contains(&rest) =>
        {
            rest
        }
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
    import(opts, false)
}

/// [`import_spack`] into a `--out` repository that does not exist yet and
/// that nothing reads before the import ends (the on-the-fly translation,
/// whose directory is renamed into place once): its files are written in
/// place ([`confined::Destination::create_new`]).
pub fn import_spack_new(opts: &ImportOptions) -> Result<ImportSummary, ImportError> {
    import(opts, true)
}

fn import(opts: &ImportOptions, new: bool) -> Result<ImportSummary, ImportError> {
    let started = Instant::now();
    let dir = packages_dir(&opts.from)?;
    let repos = Repos {
        own: SpackRepo::at(&dir),
        others: opts
            .with_repos
            .iter()
            .map(|r| packages_dir(r).map(|p| SpackRepo::at(&p)))
            .collect::<Result<_, _>>()?,
    };
    let commit = checkout_commit(&opts.from);
    let names = select(&dir, &opts.packages)?;
    let root = git2::Repository::discover(&opts.from)
        .ok()
        .and_then(|r| r.workdir().map(Path::to_path_buf))
        .unwrap_or_else(|| opts.from.clone());
    let out = match opts.dry_run {
        true => None,
        false => Some(Output::create(&opts.out, new)?),
    };
    let results: Vec<Result<(PackageOutcome, Option<PathBuf>), ImportError>> = names
        .par_iter()
        .map(|name| import_one(name, &repos, &root, commit.as_deref(), out.as_ref()))
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
    let mut all: Vec<String> = git_tree::names(dir)
        .map_err(|source| ImportError::Read {
            path: dir.to_path_buf(),
            source,
        })?
        .iter()
        .filter(|n| git_tree::is_file(&dir.join(n).join("package.py")))
        .map(|n| package_name(&n.to_string_lossy()))
        .collect();
    all.sort();
    if wanted.is_empty() {
        return Ok(all);
    }
    wanted
        .iter()
        .map(|w| {
            // A name is one directory of the repository: `../x` or `a/b`
            // names none.
            let d = dir_name(w);
            if confined::plain_name(&d) && confined::is_dir_below(dir, &d) {
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
    repos: &Repos,
    root: &Path,
    commit: Option<&str>,
    out: Option<&Output>,
) -> Result<(PackageOutcome, Option<PathBuf>), ImportError> {
    let converted = match convert_one(name, repos, root, commit) {
        Ok(c) => c,
        Err(why) => return Ok((PackageOutcome::failed(name, why), None)),
    };
    let mut written = None;
    if let (Some(out), None) = (out, &converted.not_written) {
        written = Some(out.write(&converted)?);
    }
    Ok((PackageOutcome::of(&converted), written))
}

/// Read and convert package `name` of `repos.own` as `stack import spack`
/// does (a recipe whose build logic runs from package.py names its files),
/// or say why it cannot be read. `root` is the checkout the recipe's
/// `imported.file` is relative to.
pub fn convert_one(
    name: &str,
    repos: &Repos,
    root: &Path,
    commit: Option<&str>,
) -> Result<spack::Converted, String> {
    let own = &repos.own;
    let dir = dir_name(name);
    let pkg_dir = own.packages.join(&dir);
    let file = pkg_dir.join("package.py");
    let bytes = own
        .read(&dir, "package.py")
        .map_err(|why| format!("{}: {why}", file.display()))?;
    let src = String::from_utf8_lossy(&bytes).into_owned();
    let origin = spack::Origin {
        file: file
            .strip_prefix(root)
            .unwrap_or(&file)
            .display()
            .to_string(),
        commit: commit.map(str::to_string),
    };
    let mut converted = spack::convert_in(name, &src, &pkg_dir, &origin, Some(repos));
    if spack::build_logic::needs_package_py(&converted) {
        let (imports, problems) =
            spack::package_files::imported_files(&own.namespace, &dir, &src, repos);
        let package = spack::package_files::PackageFile::new(&own.namespace, &dir, bytes);
        spack::build_logic::apply(&mut converted, package, imports, problems);
    }
    Ok(converted)
}

/// Where an import writes: recipes in `--out`, patch files and package.py
/// copies in `--out`'s repository (its parent), never outside them
/// ([`confined`]).
struct Output {
    recipes: confined::Destination,
    repo: confined::Destination,
}

impl Output {
    fn create(out: &Path, new: bool) -> Result<Output, ImportError> {
        let repo = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dest = |path: &Path| {
            let made = match new {
                true => confined::Destination::create_new(path),
                false => confined::Destination::create(path),
            };
            made.map_err(|source| ImportError::Write {
                path: path.to_path_buf(),
                source,
            })
        };
        Ok(Output {
            recipes: dest(out)?,
            repo: dest(repo)?,
        })
    }

    fn write(&self, c: &spack::Converted) -> Result<PathBuf, ImportError> {
        let write = |dest: &confined::Destination, rel: &str, bytes: &[u8]| {
            dest.write(rel, bytes).map_err(|source| ImportError::Write {
                path: dest.root().join(rel),
                source,
            })
        };
        let path = write(
            &self.recipes,
            &format!("{}.yaml", c.name),
            c.to_yaml().as_bytes(),
        )?;
        for (rel, bytes) in &c.patch_files {
            write(&self.repo, &format!("patches/{}/{rel}", c.name), bytes)?;
        }
        for f in &c.package_files {
            write(&self.repo, &format!("spack/{}", f.file), &f.bytes)?;
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests;
