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
//! **Host-local.** `flock` excludes processes of one host; on some shared
//! file systems (NFS without lock daemons, Lustre mounted with `localflock`)
//! processes on two hosts both get it. A build directory shared between
//! machines (a remote executor) needs a cross-machine lock on top.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

use super::StoreError;

/// File name of the lock inside the build directory.
pub const LOCK_FILE: &str = "build.lock";

/// What to do when another process holds the lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LockWait {
    /// Report it and block until the other build ends.
    #[default]
    Wait,
    /// Fail at once with [`StoreError::Locked`].
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
    ) -> Result<BuildLock, StoreError> {
        fs_err::create_dir_all(build_dir)?;
        let path = build_dir.join(LOCK_FILE);
        let file = fs_err::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?
            .into_parts()
            .0;
        let got = file.try_lock_exclusive().map_err(|e| {
            std::io::Error::new(e.kind(), format!("locking {}: {e}", path.display()))
        })?;
        if !got {
            let holder = read_holder(&path);
            match wait {
                LockWait::Fail => {
                    return Err(StoreError::Locked {
                        dir: build_dir.to_path_buf(),
                        holder,
                    });
                }
                LockWait::Wait => {
                    tracing::info!("waiting for the lock on {}", path.display());
                    on_wait(&path);
                    file.lock_exclusive().map_err(|e| {
                        std::io::Error::new(e.kind(), format!("locking {}: {e}", path.display()))
                    })?;
                }
            }
        }
        let mut lock = BuildLock { file, path };
        lock.write_holder()?;
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
        let msg = err.to_string();
        assert!(
            msg.contains("is locked by another `stack` process"),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );

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
