//! Writing strictly beneath a directory: no symlink, no `..`, no escape.
//!
//! A build controls what its prefix (and, in direct mode, the store) holds
//! when the host-side code writes there afterwards: install steps, the
//! manifest, `meta/`. A symlink planted by the build (`out -> /home/me`)
//! would make a plain `create_dir_all` + `copy` write wherever it points.
//! Every host-side destination below a prefix or the store is therefore
//! resolved with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` relative
//! to an fd of the root (itself opened with `O_NOFOLLOW`; without `openat2`,
//! one component at a time: [`crate::beneath`]), and directories
//! are created one component at a time with `mkdirat` on those fds. Anything
//! that would leave the root is refused with a clear error.
//!
//! Once a directory is verified, callers may use its path: no process of
//! the build survives it (the build's PID namespace), so nothing can swap
//! a component afterwards.

use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::stat::Mode;

/// An open directory that destinations are resolved beneath.
#[derive(Debug)]
pub struct Beneath {
    root: PathBuf,
    fd: OwnedFd,
}

fn escape_error(root: &Path, rel: &Path, errno: Errno) -> io::Error {
    let why = match errno {
        Errno::ELOOP => "a component is a symbolic link",
        Errno::EXDEV => "it leads outside",
        Errno::ENOTDIR => "a component is not a directory",
        _ => return io::Error::from(errno),
    };
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "{}: refusing to write there: {why} (destinations must stay inside {})",
            root.join(rel).display(),
            root.display()
        ),
    )
}

fn with_path(path: &Path, e: Errno) -> io::Error {
    let e = io::Error::from(e);
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Reject absolute paths and `..`: destinations are relative to the root.
fn relative(root: &Path, rel: &Path) -> io::Result<()> {
    let bad = rel.components().any(|c| {
        matches!(
            c,
            Component::ParentDir | Component::RootDir | Component::Prefix(_)
        )
    });
    if bad {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}: destinations must be relative paths inside {}",
                rel.display(),
                root.display()
            ),
        ));
    }
    Ok(())
}

impl Beneath {
    /// Open `root`, a real directory (a symlink in its place is refused).
    pub fn open(root: &Path) -> io::Result<Beneath> {
        let raw = nix::fcntl::open(
            root,
            OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            Errno::ELOOP | Errno::ENOTDIR => io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{}: refusing to write there: it is not a real directory (a symbolic link or a file)",
                    root.display()
                ),
            ),
            e => with_path(root, e),
        })?;
        // SAFETY: `open` returned a fresh descriptor that we now own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        Ok(Beneath {
            root: root.to_path_buf(),
            fd,
        })
    }

    /// The root's path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn open_rel(&self, rel: &Path, flags: OFlag) -> Result<OwnedFd, Errno> {
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        crate::beneath::open(self.fd.as_raw_fd(), rel, flags, Mode::empty())
    }

    /// The directory `rel` (relative to the root), which must exist and be
    /// reached without symlinks.
    pub fn dir(&self, rel: &Path) -> io::Result<OwnedFd> {
        relative(&self.root, rel)?;
        self.open_rel(rel, OFlag::O_PATH | OFlag::O_DIRECTORY)
            .map_err(|e| match e {
                Errno::ENOENT => with_path(&self.root.join(rel), e),
                e => escape_error(&self.root, rel, e),
            })
    }

    /// Create the directory `rel` and its missing parents below the root,
    /// one component at a time, never through a symlink; returns its path.
    pub fn create_dir_all(&self, rel: &Path) -> io::Result<PathBuf> {
        relative(&self.root, rel)?;
        let mut so_far = PathBuf::new();
        for c in rel.components() {
            let Component::Normal(name) = c else { continue };
            // O_PATH fds cannot be used for mkdirat: open the parent for reading.
            let dirfd = self
                .open_rel(&so_far, OFlag::O_RDONLY | OFlag::O_DIRECTORY)
                .map_err(|e| escape_error(&self.root, &so_far, e))?;
            so_far.push(name);
            let mode = Mode::from_bits_truncate(0o755);
            match nix::sys::stat::mkdirat(Some(dirfd.as_fd().as_raw_fd()), name, mode) {
                Ok(()) | Err(Errno::EEXIST) => {}
                Err(e) => return Err(with_path(&self.root.join(&so_far), e)),
            }
        }
        self.dir(rel)?;
        Ok(self.root.join(rel))
    }

    /// Make sure the parent directory of `rel` exists below the root
    /// (created if missing) and that `rel` itself is not a symlink to write
    /// through: an existing symlink or file at `rel` is removed, an existing
    /// directory is kept. Returns the path of `rel`.
    pub fn prepare_entry(&self, rel: &Path) -> io::Result<PathBuf> {
        relative(&self.root, rel)?;
        let parent = rel.parent().unwrap_or(Path::new(""));
        self.create_dir_all(parent)?;
        let path = self.root.join(rel);
        if let Ok(md) = std::fs::symlink_metadata(&path)
            && !md.is_dir()
        {
            fs_err::remove_file(&path)?;
        }
        Ok(path)
    }
}

impl Beneath {
    /// Make `rel` a real directory below the root: a symlink or file in its
    /// place (left by a build) is removed, never followed. Returns its path.
    pub fn ensure_real_dir(&self, rel: &Path) -> io::Result<PathBuf> {
        relative(&self.root, rel)?;
        let path = self.root.join(rel);
        if let Ok(md) = std::fs::symlink_metadata(&path)
            && !md.is_dir()
        {
            fs_err::remove_file(&path)?;
        }
        self.create_dir_all(rel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers on a kernel without `openat2`.
    #[test]
    fn without_openat2_the_same_is_created_and_refused() {
        crate::beneath::without_openat2(creates_below_and_refuses_links_and_escapes);
    }

    #[test]
    fn creates_below_and_refuses_links_and_escapes() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("prefix");
        let victim = d.path().join("victim");
        fs_err::create_dir_all(&root).unwrap();
        fs_err::create_dir_all(&victim).unwrap();
        std::os::unix::fs::symlink(&victim, root.join("out")).unwrap();
        std::os::unix::fs::symlink("../victim", root.join("rel")).unwrap();
        let b = Beneath::open(&root).unwrap();

        let p = b.create_dir_all(Path::new("a/b/c")).unwrap();
        assert!(p.is_dir() && p.starts_with(&root));
        for bad in ["out/x", "rel/x", "out"] {
            let e = b.create_dir_all(Path::new(bad)).unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{bad}: {e}");
        }
        let e = b.create_dir_all(Path::new("../x")).unwrap_err();
        assert!(e.to_string().contains("relative paths inside"), "{e}");
        let e = b.prepare_entry(Path::new("out/file")).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        // A link at the destination itself is replaced, not written through.
        let p = b.prepare_entry(Path::new("out")).unwrap();
        assert!(fs_err::symlink_metadata(&p).is_err());
        assert_eq!(fs_err::read_dir(&victim).unwrap().count(), 0);

        // meta/ replaced by a link to a host directory: replaced back.
        std::os::unix::fs::symlink(&victim, root.join("meta")).unwrap();
        let meta = b.ensure_real_dir(Path::new("meta")).unwrap();
        assert!(fs_err::symlink_metadata(&meta).unwrap().is_dir());
        fs_err::write(meta.join("env.json"), "{}").unwrap();
        assert_eq!(fs_err::read_dir(&victim).unwrap().count(), 0);

        let e = Beneath::open(&root.join("rel")).unwrap_err();
        assert!(e.to_string().contains("not a real directory"), "{e}");
    }
}
