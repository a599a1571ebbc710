//! Per-entry locks on the source cache, so several `stack` processes (and several threads
//! of one process) can share a cache.
//!
//! # Lock protocol
//!
//! - Every cache entry `E` (an archive `archive/<sha[:2]>/<sha>` or a bare git repository
//!   `git/<key>.git`) has its own lock file `.locks/<kind>-<key>.lock`. Lock files are never
//!   deleted (deleting a lock file someone waits on would split the lock in two).
//! - **Exclusive** while the entry may change: checking and re-verifying an archive, downloading
//!   and renaming it into place, creating or fetching into a git repository.
//! - **Shared** while only reading a git repository (exporting a commit into a stage). Archive
//!   entries are read without a lock: they only ever change by an atomic rename, and an open
//!   file keeps the old contents.
//! - A thread holds at most one entry lock at a time (submodules are fetched after the parent's
//!   lock is released), so there is no lock order to get wrong.
//! - Acquisition tries without blocking first; when contended it reports "waiting" once and
//!   polls with backoff until `FetchOptions::lock_timeout`, then fails
//!   with an error naming the lock file. The guard unlocks on drop (and the kernel unlocks if the
//!   process dies: `flock` locks die with their file descriptors).
//! - **Host-local**: `flock` excludes processes of one host only on some shared file systems
//!   (NFS without lock daemons, Lustre with `localflock`); a source cache shared by several
//!   machines at once needs a cross-machine lock on top (see `build::executor`).
//!
//! The source cache (`fetch`) names the lock files and turns a
//! [`FileLockError`] into its own error.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fs4::fs_std::FileExt;

use super::{FileLockError, LockMode, open, try_lock};

/// A held lock on one cache entry; released on drop.
#[must_use = "the lock is released when the guard is dropped"]
#[derive(Debug)]
pub struct EntryLock {
    file: std::fs::File,
    path: PathBuf,
}

impl EntryLock {
    /// Acquire `path` in `mode`, waiting up to `timeout`; `on_wait` runs once if the lock is busy.
    pub fn acquire(
        path: &Path,
        mode: LockMode,
        timeout: Duration,
        mut on_wait: impl FnMut(),
    ) -> Result<EntryLock, FileLockError> {
        let file = open(path)?;
        let held = |file| EntryLock {
            file,
            path: path.to_path_buf(),
        };
        if try_lock(&file, path, mode)? {
            return Ok(held(file));
        }
        tracing::info!("waiting for lock on {}", path.display());
        on_wait();
        let start = Instant::now();
        let mut delay = Duration::from_millis(5);
        loop {
            std::thread::sleep(delay);
            if try_lock(&file, path, mode)? {
                tracing::debug!(
                    "acquired lock on {} after {:?}",
                    path.display(),
                    start.elapsed()
                );
                return Ok(held(file));
            }
            if start.elapsed() >= timeout {
                return Err(FileLockError::Timeout {
                    path: path.to_path_buf(),
                    waited: start.elapsed(),
                });
            }
            delay = (delay * 2).min(Duration::from_millis(200));
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for EntryLock {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusive_excludes_and_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("locks/x.lock");
        let held = EntryLock::acquire(&p, LockMode::Exclusive, Duration::ZERO, || {}).unwrap();
        let mut waited = false;
        let err = EntryLock::acquire(&p, LockMode::Shared, Duration::from_millis(50), || {
            waited = true
        })
        .unwrap_err();
        assert!(waited);
        assert!(matches!(err, FileLockError::Timeout { .. }), "{err}");
        drop(held);
        let a = EntryLock::acquire(&p, LockMode::Shared, Duration::ZERO, || {}).unwrap();
        let b = EntryLock::acquire(&p, LockMode::Shared, Duration::ZERO, || {}).unwrap();
        drop((a, b));
    }

    #[test]
    fn waiter_gets_lock_after_release() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("y.lock");
        let held = EntryLock::acquire(&p, LockMode::Exclusive, Duration::ZERO, || {}).unwrap();
        let p2 = p.clone();
        let t = std::thread::spawn(move || {
            EntryLock::acquire(&p2, LockMode::Exclusive, Duration::from_secs(10), || {}).is_ok()
        });
        std::thread::sleep(Duration::from_millis(50));
        drop(held);
        assert!(t.join().unwrap());
    }
}
