//! The file manifest of an installed prefix.

use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{META_DIR, StoreError};

/// Kind of a manifest entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
}

/// One path below a prefix (the `.stack/` metadata directory excluded).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ManifestEntry {
    /// Relative to the prefix, `/`-separated.
    pub path: String,
    pub kind: EntryKind,
    /// Permission bits (files and dirs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// Size in bytes (files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Content hash (files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Link target (symlinks), verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The path's bytes in hex when they are not UTF-8 (`path` then holds a
    /// lossy rendering): names are recorded losslessly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_bytes: Option<String>,
    /// The same for a link target that is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_bytes: Option<String>,
}

/// A walk over everything installed below `prefix`, sorted by name, without
/// the prefix itself and without its `.stack` metadata directory.
pub fn walk_prefix(
    prefix: &Path,
) -> walkdir::FilterEntry<walkdir::IntoIter, fn(&walkdir::DirEntry) -> bool> {
    fn installed(e: &walkdir::DirEntry) -> bool {
        !(e.depth() == 1 && e.file_name() == META_DIR)
    }
    walkdir::WalkDir::new(prefix)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(installed as fn(&walkdir::DirEntry) -> bool)
}

/// Walk `prefix` (host path) in sorted order and describe every entry.
pub fn manifest(prefix: &Path) -> Result<Vec<ManifestEntry>, StoreError> {
    manifest_of(prefix, walk_prefix(prefix))
}

/// Describe every entry of `walk`, a walk below `root` (paths relative to
/// it). A FIFO, socket or device, and a file with extended attributes
/// (which no manifest records and no image carries), is an error naming it.
pub fn manifest_of(
    root: &Path,
    walk: impl Iterator<Item = walkdir::Result<walkdir::DirEntry>>,
) -> Result<Vec<ManifestEntry>, StoreError> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    for entry in walk {
        let entry = entry.map_err(|e| {
            let path = e
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            std::io::Error::other(format!("{path}: {e}"))
        })?;
        let rel_path = entry
            .path()
            .strip_prefix(root)
            .expect("walkdir stays below its root");
        let e = describe(&entry, rel_path, &mut buf)?;
        let names = super::xattrs::names(entry.path())?;
        if !names.is_empty() {
            return Err(StoreError::Xattrs {
                path: entry.path().to_path_buf(),
                names,
            });
        }
        out.push(e);
    }
    Ok(out)
}

/// The manifest entry of one walked path (`rel_path` below the root).
fn describe(
    entry: &walkdir::DirEntry,
    rel_path: &Path,
    buf: &mut [u8],
) -> Result<ManifestEntry, StoreError> {
    let rel = rel_path.to_string_lossy().into_owned();
    let path_bytes = raw_hex(rel_path.as_os_str());
    let ft = entry.file_type();
    Ok(if ft.is_symlink() {
        let target = fs_err::read_link(entry.path())?;
        ManifestEntry {
            path: rel,
            kind: EntryKind::Symlink,
            mode: None,
            size: None,
            sha256: None,
            target: Some(target.to_string_lossy().into_owned()),
            path_bytes,
            target_bytes: raw_hex(target.as_os_str()),
        }
    } else if ft.is_dir() {
        let md = fs_err::symlink_metadata(entry.path())?;
        ManifestEntry {
            path: rel,
            kind: EntryKind::Dir,
            mode: Some(md.permissions().mode() & 0o7777),
            size: None,
            sha256: None,
            target: None,
            path_bytes,
            target_bytes: None,
        }
    } else {
        let mut f = open_regular(entry.path(), ft)?;
        let md = f.metadata()?;
        let mut h = Sha256::new();
        loop {
            let n = f.read(buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        ManifestEntry {
            path: rel,
            kind: EntryKind::File,
            mode: Some(md.permissions().mode() & 0o7777),
            size: Some(md.len()),
            sha256: Some(hex::encode(h.finalize())),
            target: None,
            path_bytes,
            target_bytes: None,
        }
    })
}

/// Open a regular file for reading without ever blocking or following a
/// link: a FIFO, socket or device (or a file swapped for one) is an error
/// naming it, never an `open` that waits for a writer.
fn open_regular(path: &Path, ft: std::fs::FileType) -> Result<fs_err::File, StoreError> {
    use std::os::unix::fs::FileTypeExt;
    let special = |ft: std::fs::FileType| {
        let kind = if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_block_device() || ft.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        };
        StoreError::SpecialFile {
            path: path.to_path_buf(),
            kind,
        }
    };
    if !ft.is_file() {
        return Err(special(ft));
    }
    let f = std::fs::File::options()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let f = fs_err::File::from_parts(f, path);
    let md = f.metadata()?;
    if !md.file_type().is_file() {
        return Err(special(md.file_type()));
    }
    Ok(f)
}

/// The bytes of `name` in hex when it is not UTF-8.
fn raw_hex(name: &std::ffi::OsStr) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    name.to_str()
        .is_none()
        .then(|| hex::encode(name.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_utf8_names_are_recorded_losslessly() {
        use std::os::unix::ffi::OsStrExt;
        let d = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9");
        fs_err::write(d.path().join(name), "x").unwrap();
        std::os::unix::fs::symlink(name, d.path().join("link")).unwrap();
        fs_err::write(d.path().join("plain"), "y").unwrap();
        let m = manifest(d.path()).unwrap();
        let by = |p: &str| m.iter().find(|e| e.path == p).unwrap();
        assert_eq!(by("caf\u{fffd}").path_bytes.as_deref(), Some("636166e9"));
        assert_eq!(by("link").target_bytes.as_deref(), Some("636166e9"));
        assert_eq!(by("link").path_bytes, None);
        assert_eq!(by("plain").path_bytes, None);
    }

    #[test]
    fn lists_files_dirs_links_and_skips_meta() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        fs_err::create_dir_all(p.join("lib")).unwrap();
        fs_err::create_dir_all(p.join(".stack")).unwrap();
        fs_err::write(p.join(".stack/x"), "meta").unwrap();
        fs_err::write(p.join("lib/libx.so.1"), "abc").unwrap();
        std::os::unix::fs::symlink("libx.so.1", p.join("lib/libx.so")).unwrap();
        let m = manifest(p).unwrap();
        let paths: Vec<_> = m.iter().map(|e| (e.path.as_str(), e.kind)).collect();
        assert_eq!(
            paths,
            vec![
                ("lib", EntryKind::Dir),
                ("lib/libx.so", EntryKind::Symlink),
                ("lib/libx.so.1", EntryKind::File)
            ]
        );
        assert_eq!(
            m[2].sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        assert_eq!(m[1].target.as_deref(), Some("libx.so.1"));
    }

    /// Issue 13, item 3: a FIFO in a prefix hung the manifest forever (it
    /// was opened blocking); now it is an error naming the file. Runs on a
    /// thread so that the old behaviour fails the test instead of hanging it.
    #[test]
    fn special_files_are_an_error_not_a_hang() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().to_path_buf();
        fs_err::create_dir_all(p.join("share")).unwrap();
        nix::unistd::mkfifo(&p.join("share/fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let q = p.clone();
        std::thread::spawn(move || tx.send(manifest(&q).map_err(|e| e.to_string())));
        let r = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("manifest() hung on a FIFO");
        let err = r.unwrap_err();
        assert!(err.contains("share/fifo") && err.contains("FIFO"), "{err}");
        // Unblock a thread still stuck in open(2) on old code.
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(nix::libc::O_NONBLOCK)
            .open(p.join("share/fifo"));
        drop(d);

        let d = tempfile::tempdir().unwrap();
        let sock = d.path().join("sock");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let err = manifest(d.path()).unwrap_err().to_string();
        assert!(err.contains("sock") && err.contains("socket"), "{err}");
    }
}
