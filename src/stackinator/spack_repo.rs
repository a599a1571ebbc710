//! Spack package repositories named by a stackinator recipe (its `repo/`,
//! the cluster's site repositories, spack-packages) read through `stack
//! import spack`'s translation, on the fly, with an on-disk cache: one
//! directory of translated recipes per repository content.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::import::{ImportOptions, import_spack_new, packages_dir};
use crate::recipes::PackageRecipe;
use crate::recipes::index::RepoIndex;

/// The translated recipes of the Spack repository at `dir` (a directory
/// holding `packages/<name>/package.py`, or a spack-packages checkout),
/// from the cache under `cache` when the content is unchanged. `with` are
/// the repositories its packages may import package.py files from (a site
/// repository's `cray_mpich` imports spack-packages' `mpich`): part of the
/// key, since their files are copied beside the translation.
///
/// The cache key is the sha256 of every `package.py` (path and bytes) for
/// small repositories, and the git commit for a checkout of more than
/// 500 packages (whose files are not re-read on every command), with the
/// fingerprint of the translator's sources (`STACK_TRANSLATOR_HASH`,
/// build.rs).
pub fn translated(
    dir: &Path,
    with: &[PathBuf],
    cache: &Path,
    diags: &mut Diagnostics,
) -> Option<PathBuf> {
    let mut key = match key_of(dir) {
        Ok(k) => k,
        Err(e) => {
            diags.push(
                Diagnostic::error(Code::BadPath, format!("Spack repository: {e}"))
                    .with_help("a Spack repository holds packages/<name>/package.py"),
            );
            return None;
        }
    };
    for other in with {
        if let Ok(k) = key_of(other) {
            key = format!("{:x}", Sha256::digest(format!("{key}\0{k}")));
        }
    }
    let out = cache.join(&key[..16]);
    let recipes = out.join("recipes");
    if out.join("done").is_file() {
        return Some(recipes);
    }
    tracing::info!(
        "translating the Spack repository {} into {}",
        dir.display(),
        recipes.display()
    );
    let tmp = cache.join(format!("{}.tmp-{}", &key[..16], std::process::id()));
    let _ = fs_err::remove_dir_all(&tmp);
    let opts = ImportOptions {
        from: dir.to_path_buf(),
        packages: Vec::new(),
        out: tmp.join("recipes"),
        with_repos: with.to_vec(),
        dry_run: false,
    };
    let started = std::time::Instant::now();
    let index = match import_spack_new(&opts) {
        Ok(summary) if nothing_written(&summary) => {
            let _ = fs_err::remove_dir_all(&tmp);
            diags.push(nothing_translated(dir, &summary.report));
            return None;
        }
        Ok(summary) => {
            let imported = started.elapsed();
            not_written(&summary.report, &tmp);
            let (rejected, index) = reject_broken(&summary.written, &tmp);
            tracing::info!(
                "{} packages translated, {rejected} set aside (their recipes do not load)",
                summary.written.len()
            );
            tracing::debug!(
                "translation {:.2?}, loading its recipes {:.2?}",
                imported,
                started.elapsed() - imported
            );
            index
        }
        Err(e) => {
            diags.push(Diagnostic::error(
                Code::Io,
                format!(
                    "cannot translate the Spack repository {}: {e}",
                    dir.display()
                ),
            ));
            return None;
        }
    };
    // Which recipes provide virtuals, so a command reads only the recipes
    // it needs (recipes/index.rs); without it everything still works, slower.
    if let Err(e) = crate::recipes::index::write(&tmp.join("recipes"), &index) {
        tracing::warn!("no index for the translation of {}: {e}", dir.display());
    }
    let marker = fs_err::write(tmp.join("done"), dir.display().to_string());
    let moved = marker.and_then(|()| fs_err::rename(&tmp, &out));
    if moved.is_err() && !out.join("done").is_file() {
        diags.push(Diagnostic::error(
            Code::Io,
            format!("cannot write the translation cache {}", out.display()),
        ));
        return None;
    }
    let _ = fs_err::remove_dir_all(&tmp);
    Some(recipes)
}

/// Whether a translation wrote no recipe of a repository that has
/// packages: every package failed the same way (a system that refuses
/// the importer's reads, a repository of another layout), which must not
/// be kept as the repository's translation.
fn nothing_written(summary: &crate::import::ImportSummary) -> bool {
    summary.written.is_empty() && summary.report.packages > 0
}

fn nothing_translated(dir: &Path, report: &crate::import::CoverageReport) -> Diagnostic {
    let why = report
        .failed
        .first()
        .map(|(name, why)| format!("; the first, `{name}`: {why}"))
        .unwrap_or_default();
    Diagnostic::error(
        Code::Io,
        format!(
            "the translation of the Spack repository {} wrote none of its {} packages{why}",
            dir.display(),
            report.packages
        ),
    )
    .with_help("nothing was cached; `stack -v import spack --from DIR --all --out OUT` shows each package's outcome")
}

/// Move translated recipes that do not load (an untranslated construct
/// left them without versions, with a variant the package does not define,
/// …) to `<out>/rejected/`, each with `<name>.txt` naming the problems: the
/// package is then missing (a clear "unknown package" where it is used)
/// instead of every command failing on a recipe it may not need. Returns
/// how many were set aside and the index of the others (what each
/// provides), from this one load of every recipe.
fn reject_broken(written: &[PathBuf], out: &Path) -> (usize, RepoIndex) {
    use rayon::prelude::*;
    let recipes = out.join("recipes");
    let rejected = out.join("rejected");
    let loaded: Vec<Result<Option<PackageRecipe>, (&PathBuf, String)>> = written
        .par_iter()
        .map(|f| {
            let (recipe, diags) = crate::recipes::load_package(f, &recipes);
            match diags.has_errors() {
                true => Err((f, rejection_text(&diags))),
                false => Ok(recipe.filter(|r| !r.provides.is_empty())),
            }
        })
        .collect();
    let mut index = RepoIndex::default();
    let mut broken = Vec::new();
    for l in loaded {
        match l {
            Ok(Some(recipe)) => index.add(&recipe),
            Ok(None) => {}
            Err(b) => broken.push(b),
        }
    }
    if !broken.is_empty() {
        let _ = fs_err::create_dir_all(&rejected);
    }
    for (f, why) in &broken {
        let Some(name) = f.file_name() else { continue };
        let _ = fs_err::rename(f, rejected.join(name));
        let _ = fs_err::write(rejected.join(name).with_extension("txt"), why);
    }
    (broken.len(), index)
}

/// Packages the importer wrote no recipe for because they cannot be
/// expressed (no version the stack can fetch) get their reason in
/// `<out>/rejected/<name>.txt`, like recipes that do not load; virtual
/// placeholders (`mpi`) are no package at all.
fn not_written(report: &crate::import::CoverageReport, out: &Path) {
    let rejected = out.join("rejected");
    for o in report.outcomes.iter().filter(|o| !o.virtual_package) {
        let Some(why) = &o.not_written else { continue };
        let _ = fs_err::create_dir_all(&rejected);
        let _ = fs_err::write(
            rejected.join(format!("{}.txt", o.name)),
            format!("error: {why}\n"),
        );
    }
}

/// The `rejected/<name>.txt` text: one diagnostic per paragraph, each
/// `error: FILE:LINE:COL: message` with its help below, ending in a newline.
fn rejection_text(diags: &crate::diag::Diagnostics) -> String {
    let mut out = String::new();
    for d in diags.iter() {
        let severity = if d.is_error() { "error" } else { "warning" };
        match d.loc() {
            Some(loc) => out.push_str(&format!("{severity}: {loc}: {}\n", d.message)),
            None => out.push_str(&format!("{severity}: {}\n", d.message)),
        }
        if let Some(help) = &d.help {
            out.push_str(&format!("  help: {help}\n"));
        }
    }
    out
}

/// The cache key of the repository at `dir`. A pinned commit's tree
/// (`pinned.rs`: its directory holds the commit marker, and its files are
/// read from git objects) is keyed by the commit before its packages are
/// listed, so that a cached translation needs neither libgit2 nor the
/// listing.
fn key_of(dir: &Path) -> Result<String, crate::import::ImportError> {
    if dir.join(crate::import::EXPORTED_COMMIT_FILE).is_file() {
        if let Some(c) = crate::import::checkout_commit(dir) {
            return Ok(key(dir, None, Some(c)));
        }
    }
    let pkgs = packages_dir(dir)?;
    // A checkout of many packages is keyed by its commit: counting the
    // directory entries needs no stat of each package.py.
    let entries = std::fs::read_dir(&pkgs).map_or(0, |rd| rd.count());
    let commit = (entries > 500)
        .then(|| crate::import::checkout_commit(dir))
        .flatten();
    Ok(key(dir, Some(&pkgs), commit))
}

/// The key of `dir` by its `commit`, else by the files below `pkgs`.
fn key(dir: &Path, pkgs: Option<&Path>, commit: Option<String>) -> String {
    let mut h = Sha256::new();
    h.update(b"stackinator-spack-repo-v4\0");
    // The translator's own sources (build.rs): a changed importer or
    // recipe loader translates again.
    h.update(env!("STACK_TRANSLATOR_HASH").as_bytes());
    let pkgs = pkgs.unwrap_or(dir);
    let files = || {
        let mut files: Vec<PathBuf> = std::fs::read_dir(pkgs)
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path().join("package.py"))
                    .filter(|p| p.is_file())
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    };
    match commit {
        Some(c) => {
            h.update(dir.display().to_string().as_bytes());
            h.update(c.as_bytes());
        }
        None => {
            for f in &files() {
                h.update(
                    f.strip_prefix(pkgs)
                        .unwrap_or(f)
                        .as_os_str()
                        .as_encoded_bytes(),
                );
                h.update(std::fs::read(f).unwrap_or_default());
                // Patches and other files beside package.py.
                if let Ok(rd) = std::fs::read_dir(f.parent().unwrap_or(pkgs)) {
                    let mut names: Vec<_> = rd.flatten().map(|e| e.file_name()).collect();
                    names.sort();
                    for n in names {
                        h.update(n.as_encoded_bytes());
                    }
                }
            }
        }
    }
    format!("{:x}", h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_lists_each_problem_on_its_own_line() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("p.yaml");
        fs_err::write(&f, "name: p\ndescription: d\nversions: []\nbogus: 1\n").unwrap();
        let (_, diags) = crate::recipes::load_package(&f, tmp.path());
        let text = rejection_text(&diags);
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("error: ")).collect();
        assert!(lines.len() >= 2, "{text}");
        assert!(text.contains("p.yaml:3:"), "{text}");
        assert!(text.contains("`versions` is empty"), "{text}");
        assert!(text.ends_with('\n'), "{text}");
    }

    /// A repository none of whose packages could be translated (here every
    /// package.py is a link, which the importer never follows) is an error,
    /// and nothing is cached: the next command tries again.
    #[test]
    fn a_translation_that_writes_nothing_is_an_error_and_not_cached() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("spack");
        let elsewhere = tmp.path().join("elsewhere.py");
        fs_err::write(&elsewhere, "class Zlib(Package):\n    pass\n").unwrap();
        for name in ["zlib", "bzip2"] {
            fs_err::create_dir_all(repo.join("packages").join(name)).unwrap();
            std::os::unix::fs::symlink(
                &elsewhere,
                repo.join("packages").join(name).join("package.py"),
            )
            .unwrap();
        }
        let cache = tmp.path().join("cache");
        let mut diags = Diagnostics::new();
        assert_eq!(translated(&repo, &[], &cache, &mut diags), None);
        let text = diags
            .iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(diags.has_errors(), "{text}");
        assert!(text.contains("wrote none of its 2 packages"), "{text}");
        assert!(text.contains("symbolic link"), "{text}");
        let cached: Vec<_> = fs_err::read_dir(&cache)
            .map(|d| d.count())
            .into_iter()
            .collect();
        assert!(
            cached.iter().all(|&n| n == 0),
            "something was cached: {cached:?}"
        );
    }
}
