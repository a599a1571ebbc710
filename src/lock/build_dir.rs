//! The build directory lock.
//!
//! One exclusive advisory lock (`flock`, via fs4) on `<build>/build.lock`
//! guards everything below the build directory — stages, logs, the store —
//! for the whole run. The holder writes its pid into the file so a contender
//! can say who holds it. The lock is released when the [`BuildLock`] is
//! dropped or the process dies (also on kill -9: the kernel drops flocks).
//!
//! Upper layers acquire, lower layers assume: [`run_plan`](crate::build::run_plan)
//! takes the lock before it inspects any prefix.
//!
//! **Host-local** (see [the module](super)): a build directory shared
//! between machines (a remote executor) needs a cross-machine lock on top.
//! The store turns a [`FileLockError::Held`] into its `Locked` error.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

use super::{FileLockError, LockMode, open, try_lock};

/// File name of the lock inside the build directory.
pub const LOCK_FILE: &str = "build.lock";

/// What to do when another process holds the lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockWait {
    /// Report it and block until the other build ends.
    #[default]
    Wait,
    /// Fail at once with [`FileLockError::Held`].
    Fail,
}

/// A held build directory lock.
#[derive(Debug)]
pub struct BuildLock {
    file: std::fs::File,
    path: PathBuf,
}

impl BuildLock {
    /// Lock `build_dir` (created if missing). `on_wait` is called once before
    /// blocking when the lock is held elsewhere and `wait` is [`LockWait::Wait`].
    pub fn acquire(
        build_dir: &Path,
        wait: LockWait,
        on_wait: &dyn Fn(&Path),
    ) -> Result<BuildLock, FileLockError> {
        let path = build_dir.join(LOCK_FILE);
        let file = open(&path)?;
        if !try_lock(&file, &path, LockMode::Exclusive)? {
            let holder = read_holder(&path);
            match wait {
                LockWait::Fail => {
                    return Err(FileLockError::Held {
                        dir: build_dir.to_path_buf(),
                        holder,
                    });
                }
                LockWait::Wait => {
                    tracing::info!("waiting for the lock on {}", path.display());
                    on_wait(&path);
                    file.lock_exclusive()
                        .map_err(|source| FileLockError::Lock {
                            path: path.clone(),
                            source,
                        })?;
                }
            }
        }
        let mut lock = BuildLock { file, path };
        lock.write_holder().map_err(FileLockError::Io)?;
        Ok(lock)
    }

    fn write_holder(&mut self) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.rewind()?;
        writeln!(self.file, "pid {}", std::process::id())?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = FileExt::unlock(&self.file);
    }
}

fn read_holder(path: &Path) -> Option<String> {
    let mut s = String::new();
    std::fs::File::open(path)
        .ok()?
        .read_to_string(&mut s)
        .ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_fails_or_waits() {
        let d = tempfile::tempdir().unwrap();
        let first = BuildLock::acquire(d.path(), LockWait::Fail, &|_| {}).unwrap();
        let err = BuildLock::acquire(d.path(), LockWait::Fail, &|_| {}).unwrap_err();
        let FileLockError::Held { dir, holder } = err else {
            panic!("{err}");
        };
        assert_eq!(dir, d.path());
        assert_eq!(holder, Some(format!("pid {}", std::process::id())));

        let dir = d.path().to_path_buf();
        let waited = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let w2 = waited.clone();
        let t = std::thread::spawn(move || {
            let _l = BuildLock::acquire(&dir, LockWait::Wait, &|_| {
                w2.store(true, std::sync::atomic::Ordering::SeqCst)
            })
            .unwrap();
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        drop(first);
        t.join().unwrap();
        assert!(waited.load(std::sync::atomic::Ordering::SeqCst));
    }
}
