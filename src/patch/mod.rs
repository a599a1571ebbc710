//! The `patch` stage: apply a package's patches to its staged source tree, in declaration
//! order, each checked against its sha256 first, with the real GNU `patch` program.
//!
//! Every patch is tried with `--dry-run` before it touches the tree, so a patch that does not
//! apply changes nothing, and the error names the package, the patch file and each rejected
//! hunk as written in the patch (file, hunk number, patch line, text). URL patches are fetched
//! like sources (an `expand: false` [`SourceRequest`](crate::fetch::SourceRequest)) and passed
//! here by their cache path.

mod diff;
mod error;
mod run;

use std::path::{Path, PathBuf};

pub use error::{PatchError, Rejection};

use crate::fetch::Sha256Hex;

/// A patch to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile {
    /// The patch file (a file under `patches/`, or a fetched URL patch in the cache).
    pub path: PathBuf,
    /// Its expected sha256.
    pub sha256: String,
    /// Strip level (`patch -p<level>`; recipes default to 1).
    pub level: u32,
    /// The directory of the stage the patch applies in (`patch -d`),
    /// relative, without `..`; `None`: the stage's top.
    pub working_dir: Option<String>,
}

/// A patch that was applied (what the build records).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedPatch {
    pub path: PathBuf,
    pub sha256: Sha256Hex,
    pub level: u32,
    /// Files it changed (relative to the stage).
    pub files: Vec<String>,
    /// Hunks that applied only at an offset or with fuzz.
    pub inexact: Vec<String>,
}

/// Apply `patches` in order to the source tree `stage`. `package` (e.g. `libfoo@1.2`) names the
/// package in errors. Stops at the first patch that fails; the tree then has the earlier patches
/// applied and the failing one not at all.
pub fn apply(
    package: &str,
    stage: &Path,
    patches: &[PatchFile],
) -> Result<Vec<AppliedPatch>, PatchError> {
    let mut applied = Vec::with_capacity(patches.len());
    for p in patches {
        applied.push(apply_one(package, stage, p)?);
    }
    Ok(applied)
}

/// The directory `p` applies in: its `working_dir` below `stage`, an
/// existing directory reached without symbolic links.
fn working_dir(package: &str, stage: &Path, p: &PatchFile) -> Result<PathBuf, PatchError> {
    let Some(rel) = &p.working_dir else {
        return Ok(stage.to_path_buf());
    };
    let bad = |why: &str| PatchError::WorkingDir {
        package: package.to_string(),
        patch: p.path.clone(),
        dir: rel.clone(),
        why: why.to_string(),
    };
    let mut at = stage.to_path_buf();
    for c in Path::new(rel).components() {
        match c {
            std::path::Component::Normal(c) => at.push(c),
            std::path::Component::CurDir => {}
            _ => return Err(bad("it is not a relative path inside the source tree")),
        }
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(bad("it goes through a symbolic link of the source tree"));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(bad("it is not a directory of the source tree")),
            Err(_) => return Err(bad("the source tree has no such directory")),
        }
    }
    Ok(at)
}

fn apply_one(package: &str, stage: &Path, p: &PatchFile) -> Result<AppliedPatch, PatchError> {
    let expected = Sha256Hex::parse(&p.sha256).ok_or_else(|| PatchError::InvalidChecksum {
        package: package.to_string(),
        patch: p.path.clone(),
        value: p.sha256.clone(),
    })?;
    let bytes = fs_err::read(&p.path).map_err(|source| PatchError::Read {
        package: package.to_string(),
        patch: p.path.clone(),
        source,
    })?;
    let actual = {
        use sha2::Digest;
        Sha256Hex::parse(&hex::encode(sha2::Sha256::digest(&bytes))).expect("64 hex digits")
    };
    if actual != expected {
        return Err(PatchError::Checksum {
            package: package.to_string(),
            patch: p.path.clone(),
            expected: expected.to_string(),
            actual: actual.to_string(),
        });
    }
    let patch_path = std::path::absolute(&p.path).map_err(|source| PatchError::Io {
        package: package.to_string(),
        source,
    })?;
    let diffs = diff::parse(&String::from_utf8_lossy(&bytes));
    let stage = &working_dir(package, stage, p)?;
    let launch = |dry| {
        run::run(stage, &patch_path, p.level, dry).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                PatchError::ProgramMissing { source }
            } else {
                PatchError::Io {
                    package: package.to_string(),
                    source,
                }
            }
        })
    };
    let text = |o: &std::process::Output| {
        let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
        s.push_str(&String::from_utf8_lossy(&o.stderr));
        s
    };

    let dry = launch(true)?;
    let dry_out = text(&dry);
    if !dry.status.success() {
        let report = run::parse_output(&dry_out, &diffs, p.level);
        tracing::debug!(
            "patch --dry-run output for {}:\n{dry_out}",
            p.path.display()
        );
        return Err(PatchError::DoesNotApply {
            package: package.to_string(),
            patch: p.path.clone(),
            level: p.level,
            stage: stage.to_path_buf(),
            rejections: report.rejections,
            output: dry_out,
        });
    }
    let real = launch(false)?;
    let out = text(&real);
    if !real.status.success() {
        return Err(PatchError::Failed {
            package: package.to_string(),
            patch: p.path.clone(),
            level: p.level,
            status: real.status.code().unwrap_or(-1),
            output: out,
        });
    }
    let report = run::parse_output(&out, &diffs, p.level);
    for note in &report.inexact {
        tracing::warn!("{package}: {}: {note}", p.path.display());
    }
    Ok(AppliedPatch {
        path: p.path.clone(),
        sha256: actual,
        level: p.level,
        files: report.files,
        inexact: report.inexact,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_dir(dir: &str) -> PatchFile {
        PatchFile {
            path: PathBuf::from("fix.patch"),
            sha256: String::new(),
            level: 1,
            working_dir: Some(dir.to_string()),
        }
    }

    #[test]
    fn a_working_dir_is_a_directory_inside_the_stage() {
        let t = tempfile::tempdir().unwrap();
        let stage = t.path();
        fs_err::create_dir_all(stage.join("third_party/lib")).unwrap();
        fs_err::write(stage.join("README"), "r").unwrap();
        std::os::unix::fs::symlink("/etc", stage.join("out")).unwrap();
        let at = working_dir("p@1", stage, &in_dir("third_party/lib")).unwrap();
        assert_eq!(at, stage.join("third_party/lib"));
        let errors: Vec<String> = ["missing", "README", "out", "../x"]
            .iter()
            .map(|d| {
                working_dir("p@1", stage, &in_dir(d))
                    .unwrap_err()
                    .to_string()
            })
            .collect();
        insta::assert_snapshot!(errors.join("\n"), @r"
        p@1: patch fix.patch applies in `missing` (its `working_dir`), but the source tree has no such directory
        p@1: patch fix.patch applies in `README` (its `working_dir`), but it is not a directory of the source tree
        p@1: patch fix.patch applies in `out` (its `working_dir`), but it goes through a symbolic link of the source tree
        p@1: patch fix.patch applies in `../x` (its `working_dir`), but it is not a relative path inside the source tree
        ");
    }
}
