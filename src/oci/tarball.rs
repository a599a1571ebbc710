//! Reproducible tarballs of directory trees, and their safe unpacking.
//!
//! Entries are written in sorted order with owner 0:0, no user or group
//! names, and one fixed mtime; only the permission bits of each file are
//! kept. The same tree gives the same bytes on every machine.

use std::io::{Read, Write};
use std::path::Path;

/// The mtime of every entry (1980-01-01, as zip and our images use).
pub const FIXED_MTIME: u64 = 315_532_800;

/// Write the tree at `dir` as a tar stream into `out`, every entry named
/// `<root>/<relative path>` (or the bare relative path when `root` is
/// empty). Hard links are stored as regular files; sockets and devices are
/// an error.
pub fn write_tree<W: Write>(dir: &Path, root: &str, out: W) -> std::io::Result<W> {
    let mut b = tar::Builder::new(out);
    b.mode(tar::HeaderMode::Deterministic);
    b.follow_symlinks(false);
    let walk = walkdir::WalkDir::new(dir)
        .min_depth(if root.is_empty() { 1 } else { 0 })
        .sort_by_file_name();
    for entry in walk {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry.path().strip_prefix(dir).expect("below the root");
        let name = match (root.is_empty(), rel.as_os_str().is_empty()) {
            (true, _) => rel.to_path_buf(),
            (false, true) => Path::new(root).to_path_buf(),
            (false, false) => Path::new(root).join(rel),
        };
        let md = fs_err::symlink_metadata(entry.path())?;
        let mut h = tar::Header::new_gnu();
        h.set_mtime(FIXED_MTIME);
        h.set_uid(0);
        h.set_gid(0);
        let ft = md.file_type();
        use std::os::unix::fs::PermissionsExt;
        let mode = md.permissions().mode() & 0o7777;
        if ft.is_symlink() {
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_mode(0o777);
            h.set_size(0);
            let target = fs_err::read_link(entry.path())?;
            b.append_link(&mut h, &name, &target)?;
        } else if ft.is_dir() {
            h.set_entry_type(tar::EntryType::Directory);
            h.set_mode(mode);
            h.set_size(0);
            b.append_data(&mut h, &name, std::io::empty())?;
        } else if ft.is_file() {
            h.set_entry_type(tar::EntryType::Regular);
            h.set_mode(mode);
            h.set_size(md.len());
            let f = fs_err::File::open(entry.path())?;
            b.append_data(&mut h, &name, f)?;
        } else {
            return Err(std::io::Error::other(format!(
                "{}: not a file, directory or symbolic link",
                entry.path().display()
            )));
        }
    }
    b.into_inner()
}

/// The most an unpack may write: bytes of file content and entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnpackLimits {
    pub bytes: u64,
    pub entries: u64,
}

impl UnpackLimits {
    /// A uenv image's `meta/`: recipe, lock file, reports (a few MiB).
    pub const META: UnpackLimits = UnpackLimits {
        bytes: 1 << 30,
        entries: 100_000,
    };
    /// An installed prefix of the binary cache (a CUDA toolkit is ~10 GiB).
    pub const PREFIX: UnpackLimits = UnpackLimits {
        bytes: 64 << 30,
        entries: 10_000_000,
    };
}

/// Unpack a tar stream into `dest` (which must exist), within `limits`.
///
/// Only regular files, directories and symbolic links are unpacked; any
/// other entry (hard link, device, FIFO, sparse file) is an error naming
/// it, never skipped. Absolute paths and `..` are refused, as are links
/// that would let a later entry write outside `dest`. Files and
/// directories keep their permission bits without setuid, setgid, sticky
/// and group/world write (`mode & 0o755`); owners, mtimes and extended
/// attributes are not restored.
pub fn unpack<R: Read>(input: R, dest: &Path, limits: UnpackLimits) -> std::io::Result<()> {
    let mut a = tar::Archive::new(input);
    a.set_preserve_permissions(false);
    a.set_mask(0o022);
    a.set_preserve_mtime(false);
    a.set_unpack_xattrs(false);
    a.set_overwrite(false);
    let (mut bytes, mut entries) = (0u64, 0u64);
    for entry in a.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.into_owned();
        let refuse = |why: &str| {
            std::io::Error::other(format!(
                "refusing tar entry `{}` ({why})",
                path.display().to_string().escape_debug()
            ))
        };
        if path.is_absolute()
            || path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(refuse("outside the destination"));
        }
        use tar::EntryType as T;
        match entry.header().entry_type() {
            T::Regular | T::Continuous | T::Directory | T::Symlink => {}
            T::Link => return Err(refuse("a hard link")),
            T::Char | T::Block => return Err(refuse("a device")),
            T::Fifo => return Err(refuse("a FIFO")),
            T::GNUSparse => return Err(refuse("a sparse file")),
            other => {
                return Err(refuse(&format!(
                    "entry type {}, not a file, directory or symbolic link",
                    other.as_byte()
                )));
            }
        }
        bytes = bytes.saturating_add(entry.header().size()?);
        entries += 1;
        if bytes > limits.bytes || entries > limits.entries {
            return Err(refuse(&format!(
                "more than {} bytes or {} entries in the archive",
                limits.bytes, limits.entries
            )));
        }
        if !entry.unpack_in(dest)? {
            return Err(refuse("outside the destination"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(d: &Path) {
        fs_err::create_dir_all(d.join("lib")).unwrap();
        fs_err::write(d.join("lib/libx.so.1"), "abc").unwrap();
        std::os::unix::fs::symlink("libx.so.1", d.join("lib/libx.so")).unwrap();
        fs_err::write(d.join("a"), "a").unwrap();
    }

    #[test]
    fn same_tree_same_bytes_and_round_trip() {
        let one = tempfile::tempdir().unwrap();
        let two = tempfile::tempdir().unwrap();
        tree(one.path());
        tree(two.path());
        // A different mtime must not matter.
        let f = fs_err::File::options()
            .write(true)
            .open(two.path().join("a"))
            .unwrap();
        f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
        let a = write_tree(one.path(), "meta", Vec::new()).unwrap();
        let b = write_tree(two.path(), "meta", Vec::new()).unwrap();
        assert_eq!(a, b);
        let out = tempfile::tempdir().unwrap();
        unpack(&a[..], out.path(), UnpackLimits::META).unwrap();
        assert_eq!(
            fs_err::read_to_string(out.path().join("meta/lib/libx.so.1")).unwrap(),
            "abc"
        );
        assert_eq!(
            fs_err::read_link(out.path().join("meta/lib/libx.so")).unwrap(),
            Path::new("libx.so.1")
        );
    }

    #[test]
    fn refuses_entries_outside_the_destination() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(1);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        // `set_path` refuses `..`, so write the name bytes directly.
        h.as_old_mut().name[..10].copy_from_slice(b"../evil.tx");
        h.set_cksum();
        b.append(&h, &b"x"[..]).unwrap();
        let bytes = b.into_inner().unwrap();
        let out = tempfile::tempdir().unwrap();
        assert!(unpack(&bytes[..], out.path(), UnpackLimits::META).is_err());
        assert!(!out.path().parent().unwrap().join("evil.tx").exists());
    }

    /// A tar with one entry `name` of `kind` and `mode` (content "x").
    fn one_entry(name: &str, kind: tar::EntryType, mode: u32) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(kind);
        h.set_mode(mode);
        let data: &[u8] = if kind == tar::EntryType::Regular {
            b"x"
        } else {
            b""
        };
        h.set_size(data.len() as u64);
        if kind == tar::EntryType::Char || kind == tar::EntryType::Block {
            h.set_device_major(1).unwrap();
            h.set_device_minor(3).unwrap();
        }
        if kind == tar::EntryType::Link {
            h.set_link_name("meta/a").unwrap();
        }
        b.append_data(&mut h, name, data).unwrap();
        b.into_inner().unwrap()
    }

    /// Issue 40, item 3: no setuid/setgid/sticky bit survives an unpack,
    /// and a special entry is an error, not skipped.
    #[test]
    fn strips_special_mode_bits_and_refuses_special_entries() {
        use std::os::unix::fs::PermissionsExt;
        let out = tempfile::tempdir().unwrap();
        let mut b = tar::Builder::new(Vec::new());
        for (name, kind, mode) in [
            ("meta", tar::EntryType::Directory, 0o1777),
            ("meta/suid", tar::EntryType::Regular, 0o4755),
            ("meta/sgid", tar::EntryType::Regular, 0o2775),
            ("meta/plain", tar::EntryType::Regular, 0o644),
        ] {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(kind);
            h.set_mode(mode);
            let data: &[u8] = if kind == tar::EntryType::Regular {
                b"x"
            } else {
                b""
            };
            h.set_size(data.len() as u64);
            b.append_data(&mut h, name, data).unwrap();
        }
        unpack(&b.into_inner().unwrap()[..], out.path(), UnpackLimits::META).unwrap();
        let mode = |p: &str| {
            fs_err::symlink_metadata(out.path().join(p))
                .unwrap()
                .permissions()
                .mode()
                & 0o7777
        };
        assert_eq!(mode("meta"), 0o755);
        assert_eq!(mode("meta/suid"), 0o755);
        assert_eq!(mode("meta/sgid"), 0o755);
        assert_eq!(mode("meta/plain"), 0o644);

        for (kind, why) in [
            (tar::EntryType::Char, "a device"),
            (tar::EntryType::Block, "a device"),
            (tar::EntryType::Fifo, "a FIFO"),
            (tar::EntryType::Link, "a hard link"),
        ] {
            let out = tempfile::tempdir().unwrap();
            let err = unpack(
                &one_entry("meta/x", kind, 0o644)[..],
                out.path(),
                UnpackLimits::META,
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains(why) && err.contains("meta/x"), "{err}");
            assert!(!out.path().join("meta/x").exists());
        }
    }

    #[test]
    fn stops_at_the_limits() {
        let out = tempfile::tempdir().unwrap();
        let tar = one_entry("a", tar::EntryType::Regular, 0o644);
        let tiny = UnpackLimits {
            bytes: 0,
            entries: 10,
        };
        let err = unpack(&tar[..], out.path(), tiny).unwrap_err().to_string();
        assert!(err.contains("more than 0 bytes"), "{err}");
        assert!(!out.path().join("a").exists());
    }
}
