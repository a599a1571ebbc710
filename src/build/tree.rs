//! Copying trees: the source into the stage, install steps into the prefix.
//!
//! Copies keep symlinks as symlinks, permission bits, and modification times
//! (autotools decides from mtimes whether `configure` is older than
//! `configure.ac`; a copy that reorders them would try to re-run automake).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Copy the contents of `src` into `dst` (created if missing).
pub fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    fs_err::create_dir_all(dst)?;
    let mut dirs = Vec::new();
    for entry in walkdir::WalkDir::new(src).min_depth(1) {
        let entry = entry.map_err(|e| {
            let p = e
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            std::io::Error::other(format!("{p}: {e}"))
        })?;
        let rel = entry.path().strip_prefix(src).expect("below root");
        let to = dst.join(rel);
        copy_entry(entry.path(), &to, entry.file_type())?;
        if entry.file_type().is_dir() {
            dirs.push((entry.path().to_path_buf(), to));
        }
    }
    // Directory mtimes last: filling a directory changes its mtime.
    for (from, to) in dirs.iter().rev() {
        let md = fs_err::metadata(from)?;
        set_times(to, &md)?;
    }
    Ok(())
}

/// Copy one entry (file, symlink, or an empty directory) from `from` to `to`.
pub fn copy_entry(from: &Path, to: &Path, ft: std::fs::FileType) -> std::io::Result<()> {
    if ft.is_symlink() {
        let target = fs_err::read_link(from)?;
        if fs_err::symlink_metadata(to).is_ok() {
            fs_err::remove_file(to)?;
        }
        fs_err::os::unix::fs::symlink(&target, to)?;
    } else if ft.is_dir() {
        fs_err::create_dir_all(to)?;
        let md = fs_err::metadata(from)?;
        fs_err::set_permissions(
            to,
            std::fs::Permissions::from_mode(md.permissions().mode() | 0o700),
        )?;
    } else if ft.is_file() {
        let md = fs_err::metadata(from)?;
        if fs_err::symlink_metadata(to).is_ok() {
            fs_err::remove_file(to)?;
        }
        fs_err::copy(from, to)?;
        set_times(to, &md)?;
    }
    // Sockets, fifos, devices: skipped.
    Ok(())
}

fn set_times(path: &Path, md: &std::fs::Metadata) -> std::io::Result<()> {
    use nix::sys::stat::{UtimensatFlags, utimensat};
    use nix::sys::time::TimeSpec;
    use std::os::unix::fs::MetadataExt;
    let at = TimeSpec::new(md.atime(), md.atime_nsec());
    let mt = TimeSpec::new(md.mtime(), md.mtime_nsec());
    utimensat(None, path, &at, &mt, UtimensatFlags::NoFollowSymlink).map_err(|e| {
        std::io::Error::new(
            std::io::Error::from(e).kind(),
            format!("{}: setting times: {e}", path.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_links_modes_and_mtimes() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        fs_err::create_dir_all(src.join("sub")).unwrap();
        fs_err::write(src.join("sub/configure"), "#!/bin/sh\n").unwrap();
        fs_err::set_permissions(
            src.join("sub/configure"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("sub/configure", src.join("link")).unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(src.join("sub/configure"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let dst = d.path().join("dst");
        copy_tree(&src, &dst).unwrap();
        let md = fs_err::metadata(dst.join("sub/configure")).unwrap();
        assert_eq!(md.permissions().mode() & 0o777, 0o755);
        assert_eq!(md.modified().unwrap(), old);
        assert_eq!(
            fs_err::read_link(dst.join("link")).unwrap(),
            Path::new("sub/configure")
        );
    }
}
