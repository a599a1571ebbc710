//! Permission bits of an installed prefix, normalised for a read-only image.
//!
//! An installer may leave world-writable directories (`chmod 1777`, as for
//! a spool directory), group-writable files, or setuid/setgid bits. None of
//! them means anything in a read-only squashfs image except risk (a setuid
//! binary in a user-mounted image, a writable-looking directory copied out
//! of it), and they would make two stores differ by the installer's umask.
//! Before a prefix is recorded, every file and directory loses the group
//! and world write bits, the sticky bit and setuid/setgid; symlinks are
//! left alone (their mode means nothing).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::manifest::walk_prefix;

/// The bits removed from every mode.
pub const STRIPPED_BITS: u32 = 0o7022;

/// Normalise the modes below `prefix` (its `.stack` directory excluded);
/// returns how many entries changed.
pub fn normalize_modes(prefix: &Path) -> std::io::Result<usize> {
    let mut changed = 0;
    let mut entries = vec![(prefix.to_path_buf(), fs_err::symlink_metadata(prefix)?)];
    for entry in walk_prefix(prefix) {
        let entry = entry.map_err(|e| std::io::Error::other(e.to_string()))?;
        if entry.file_type().is_symlink() {
            continue;
        }
        let md = fs_err::symlink_metadata(entry.path())?;
        entries.push((entry.path().to_path_buf(), md));
    }
    for (path, md) in entries {
        let mode = md.permissions().mode() & 0o7777;
        if mode & STRIPPED_BITS != 0 {
            let new = mode & !STRIPPED_BITS;
            fs_err::set_permissions(&path, std::fs::Permissions::from_mode(new))?;
            changed += 1;
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13 (minor): a 1777 directory and a setuid, group-writable
    /// file were kept in the store and the image.
    #[test]
    fn strips_world_write_sticky_and_setuid() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("prefix");
        fs_err::create_dir_all(p.join("var/spool")).unwrap();
        fs_err::write(p.join("bin"), "x").unwrap();
        let set = |rel: &str, mode: u32| {
            fs_err::set_permissions(p.join(rel), std::fs::Permissions::from_mode(mode)).unwrap()
        };
        set("var/spool", 0o1777);
        set("bin", 0o6775);
        std::os::unix::fs::symlink("bin", p.join("link")).unwrap();
        assert_eq!(normalize_modes(&p).unwrap(), 2);
        let mode = |rel: &str| {
            fs_err::symlink_metadata(p.join(rel))
                .unwrap()
                .permissions()
                .mode()
                & 0o7777
        };
        assert_eq!(mode("var/spool"), 0o755);
        assert_eq!(mode("bin"), 0o755);
        assert_eq!(normalize_modes(&p).unwrap(), 0, "idempotent");
    }
}
