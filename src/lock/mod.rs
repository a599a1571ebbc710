//! Advisory file locks (`flock`, via fs4): the one mechanism behind every
//! lock `stack` takes — a source cache entry ([`EntryLock`]) and the build
//! directory ([`BuildLock`]).
//!
//! A lock is a file that is never deleted (deleting a lock file someone
//! waits on would split the lock in two); holding it is holding an
//! advisory `flock` on an open descriptor of it, shared or exclusive
//! ([`LockMode`]). A guard unlocks on drop, and the kernel unlocks when the
//! process dies (also on kill -9: `flock` locks die with their file
//! descriptors).
//!
//! **Host-local.** `flock` excludes processes of one host; on some shared
//! file systems (NFS without lock daemons, Lustre mounted with `localflock`)
//! processes on two hosts both get it. A cache or build directory shared
//! between machines at once needs a cross-machine lock on top (see
//! `build::executor`).
//!
//! Not to be confused with `stack.lock`, the lock *file* of a resolved plan
//! (`resolve::lockfile`): that one pins versions, it excludes nobody.

mod build_dir;
mod cache_entry;

use std::path::{Path, PathBuf};
use std::time::Duration;

use fs4::fs_std::FileExt;

pub use build_dir::{BuildLock, LOCK_FILE, LockWait};
pub use cache_entry::EntryLock;

/// Shared or exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    Shared,
    Exclusive,
}

/// Why a lock was not taken. The stages turn it into their own errors
/// (`FetchError`, `StoreError`), which say what the lock guards.
#[derive(Debug, thiserror::Error)]
pub enum FileLockError {
    /// Creating, opening or writing the lock file (the error names the
    /// file).
    #[error(transparent)]
    Io(std::io::Error),
    /// The `flock` call itself failed.
    #[error("locking {}: {source}", path.display())]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Another process held the lock for `waited`, longer than allowed.
    #[error("{}: waited {} s for the lock", path.display(), waited.as_secs())]
    Timeout { path: PathBuf, waited: Duration },
    /// Another process holds the build directory `dir` and the caller
    /// does not wait; `holder` is what the holder wrote (its pid).
    #[error("{} is locked by another process", dir.display())]
    Held {
        dir: PathBuf,
        holder: Option<String>,
    },
}

/// Open (creating it and its parent directory) the lock file `path`,
/// without locking it.
fn open(path: &Path) -> Result<std::fs::File, FileLockError> {
    if let Some(parent) = path.parent() {
        fs_err::create_dir_all(parent).map_err(FileLockError::Io)?;
    }
    let file = fs_err::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(FileLockError::Io)?;
    Ok(file.into_parts().0)
}

/// Try to lock `file` (the lock file `path`) in `mode` without blocking:
/// false when another process holds it.
fn try_lock(file: &std::fs::File, path: &Path, mode: LockMode) -> Result<bool, FileLockError> {
    let r = match mode {
        LockMode::Shared => FileExt::try_lock_shared(file),
        LockMode::Exclusive => FileExt::try_lock_exclusive(file),
    };
    r.map_err(|source| FileLockError::Lock {
        path: path.to_path_buf(),
        source,
    })
}
