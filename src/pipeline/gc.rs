//! `stack gc BUILD`: remove the source trees and stage directories of a
//! build directory that its current plan (`BUILD/stack.lock`) does not use.
//!
//! A build prunes the trees of older hashes of the packages it builds; what
//! packages dropped from the recipe, killed runs and `--keep-stage` leave
//! behind stays until `stack gc`. The build directory's lock is held, so a
//! running build is never collected under its feet.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::build::{NoopReporter, Workspace};
use crate::lock::LockWait;
use crate::resolve::{LOCK_FILE, Lock};

use super::PipelineError;

/// What `stack gc` removed (or would remove, with `dry_run`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GcReport {
    /// Removed directories and files, sorted, with their sizes in bytes.
    pub removed: Vec<(PathBuf, u64)>,
    /// Entries kept (this plan's).
    pub kept: usize,
    pub dry_run: bool,
}

impl GcReport {
    /// Bytes freed (or that would be).
    pub fn freed(&self) -> u64 {
        self.removed.iter().map(|(_, n)| n).sum()
    }
}

/// Collect `<build>/sources/` and `<build>/stage/`: every entry but the
/// `<name>-<version>-<hash8>` trees of the non-external nodes of
/// `<build>/stack.lock`.
pub fn gc(build_dir: &Path, dry_run: bool) -> Result<GcReport, PipelineError> {
    let lock_path = build_dir.join(LOCK_FILE);
    if !lock_path.is_file() {
        return Err(PipelineError::NotABuildDir(build_dir.to_path_buf()));
    }
    let _held = Workspace::lock(build_dir, LockWait::Fail, &NoopReporter)?;
    let lock = Lock::read(&lock_path)?;
    let keep: BTreeSet<String> = lock
        .nodes
        .iter()
        .filter(|n| !n.external)
        .map(|n| {
            let short: String = n.hash.chars().take(8).collect();
            format!("{}-{}-{short}", n.name, n.version)
        })
        .collect();
    let mut report = GcReport {
        dry_run,
        ..GcReport::default()
    };
    for sub in ["sources", "stage"] {
        let Ok(entries) = fs_err::read_dir(build_dir.join(sub)) else {
            continue;
        };
        for entry in entries {
            let entry = entry?;
            if entry.file_name().to_str().is_some_and(|n| keep.contains(n)) {
                report.kept += 1;
                continue;
            }
            let path = entry.path();
            let size = tree_size(&path);
            if !dry_run {
                if entry.file_type()?.is_dir() {
                    crate::store::wipe(&path)?;
                } else {
                    fs_err::remove_file(&path)?;
                }
            }
            report.removed.push((path, size));
        }
    }
    report.removed.sort();
    Ok(report)
}

/// Bytes of the files below `path` (symlinks not followed; what cannot be
/// read counts 0).
fn tree_size(path: &Path) -> u64 {
    walkdir::WalkDir::new(path)
        .into_iter()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| !m.is_dir())
        .map(|m| m.len())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_lock_file_it_is_not_a_build_directory() {
        let d = tempfile::tempdir().unwrap();
        let e = gc(d.path(), true).unwrap_err();
        assert!(e.to_string().contains("is not a build directory"), "{e}");
        assert_eq!(e.class(), super::super::ErrorClass::Input);
    }
}
