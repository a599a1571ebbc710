//! Atomic file writes: a temporary sibling, then one rename.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` so that readers see either the old file (or none)
/// or the complete new one, also when the process is killed midway.
///
/// No `fsync`: the guarantee is against the process dying (kill -9, OOM),
/// which is what interrupts builds; a sync per file would cost ~10 ms each on
/// a busy disk. [`sync_filesystem`] flushes once at the end of a build.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Mode 0666 less the umask, as for any file the user creates (the
    // temporary file's default 0600 would survive the rename).
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| {
        std::io::Error::new(e.error.kind(), format!("{}: {}", path.display(), e.error))
    })?;
    Ok(())
}

/// Flush the filesystem holding `path` to disk (`syncfs`), once per build.
pub fn sync_filesystem(path: &Path) -> std::io::Result<()> {
    let f = fs_err::File::open(path)?;
    nix::unistd::syncfs(std::os::fd::AsRawFd::as_raw_fd(f.file())).map_err(|e| {
        std::io::Error::new(
            std::io::Error::from(e).kind(),
            format!("syncfs {}: {e}", path.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_leaves_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs_err::read_to_string(&p).unwrap(), "two");
        assert_eq!(fs_err::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn files_get_the_users_umask_not_0600() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("audit.json");
        write_atomic(&p, b"{}").unwrap();
        let mode = fs_err::metadata(&p).unwrap().permissions().mode() & 0o777;
        let umask = current_umask();
        assert_eq!(mode, 0o666 & !umask, "mode {mode:o}, umask {umask:o}");
        assert_ne!(mode, 0o600, "umask {umask:o}");
    }

    /// The process umask, read without changing it (from /proc).
    fn current_umask() -> u32 {
        let status = fs_err::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
        u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
    }
}
