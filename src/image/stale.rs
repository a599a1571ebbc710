//! Temporary images left by a killed run (`.<name>.tmp-<pid>` beside the
//! image): removed before a new image is written, unless the process that
//! writes them is still alive.

use std::path::Path;

/// Removes `.<file_name>.tmp-<pid>` files in `dir` whose process is gone
/// (or is this one: a pid is reused). Returns how many were removed.
pub(crate) fn remove_stale_temps(dir: &Path, file_name: &str) -> usize {
    let prefix = format!(".{file_name}.tmp-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = pid != std::process::id() && Path::new(&format!("/proc/{pid}")).exists();
        if alive {
            continue;
        }
        match std::fs::remove_file(entry.path()) {
            Ok(()) => {
                tracing::info!("removed {} (left by a killed run)", entry.path().display());
                removed += 1;
            }
            Err(e) => tracing::warn!("cannot remove {}: {e}", entry.path().display()),
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_temps_of_dead_processes_only() {
        let t = tempfile::tempdir().unwrap();
        // A pid above the kernel's maximum (4194304) is never alive.
        let dead = t.path().join(".store.squashfs.tmp-99999999");
        let mine = t
            .path()
            .join(format!(".store.squashfs.tmp-{}", std::process::id()));
        // PID 1 is always alive.
        let live = t.path().join(".store.squashfs.tmp-1");
        let other = t.path().join(".other.squashfs.tmp-99999999");
        for p in [&dead, &mine, &live, &other] {
            fs_err::write(p, b"partial").unwrap();
        }
        assert_eq!(remove_stale_temps(t.path(), "store.squashfs"), 2);
        assert!(!dead.exists() && !mine.exists());
        assert!(live.exists() && other.exists());
    }
}
