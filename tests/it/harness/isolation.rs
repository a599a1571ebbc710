//! The `HOME` of every command the harness runs: one directory per run of
//! the test binary, so the default cache (`~/.cache/stack`), git's and
//! Docker's configuration never come from the developer's home.
//!
//! It lives below cargo's `CARGO_TARGET_TMPDIR` as `home-<pid>` (or the
//! system temporary directory where that is not writable, e.g. for the
//! unprivileged re-run of the sandbox tests); directories of runs whose
//! process is gone are removed when the next run starts.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The run's home directory (created on first use).
pub fn home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let base = if writable(target) {
            target.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        remove_stale(&base);
        let dir = base.join(format!("stack-it-home-{}", std::process::id()));
        fs_err::create_dir_all(&dir).unwrap();
        dir
    })
}

fn writable(dir: &Path) -> bool {
    fs_err::create_dir_all(dir).is_ok()
        && tempfile::Builder::new()
            .prefix(".probe")
            .tempfile_in(dir)
            .is_ok()
}

/// Removes `stack-it-home-<pid>` of processes that have ended.
fn remove_stale(base: &Path) {
    let Ok(entries) = fs_err::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("stack-it-home-") else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}
