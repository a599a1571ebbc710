//! Opening a path below a directory without following a link, on every
//! kernel.
//!
//! The importer's reads and writes ([`import`](crate::import)) and the
//! install steps and records ([`store`](crate::store)) open paths relative
//! to a descriptor of their root with `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS)`: the kernel refuses `..` out of the root
//! (`EXDEV`) and any link on the way (`ELOOP`), with no window between a
//! check and the open. Kernels before Linux 5.6 (RHEL 8's 4.18 among
//! them), some container seccomp profiles and valgrind answer `ENOSYS`;
//! there each component is opened from the descriptor of the one before
//! with `O_NOFOLLOW`, which gives the same answers and the same guarantee.

use std::ffi::OsStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Component, Path};
use std::sync::atomic::{AtomicBool, Ordering};

use nix::errno::Errno;
use nix::fcntl::{OFlag, OpenHow, ResolveFlag, openat2};
use nix::sys::stat::Mode;

/// Set once `openat2` answered that the kernel does not have it.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

#[cfg(test)]
thread_local! {
    /// Tests walk component by component as on a kernel without `openat2`.
    static WALK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` as on a kernel without `openat2` (tests of the modules that open
/// through this one).
#[cfg(test)]
pub(crate) fn without_openat2<T>(f: impl FnOnce() -> T) -> T {
    WALK.with(|w| w.set(true));
    let out = f();
    WALK.with(|w| w.set(false));
    out
}

fn walk_only() -> bool {
    #[cfg(test)]
    if WALK.with(std::cell::Cell::get) {
        return true;
    }
    NO_OPENAT2.load(Ordering::Relaxed)
}

/// Open the relative path `rel` (or `.`) below the directory `dir`, never
/// through a link and never out of it: `ELOOP` for a link on the way,
/// `EXDEV` for `..` or an absolute path. `flags` get `O_CLOEXEC`; `mode`
/// is used with `O_CREAT`.
pub fn open(dir: RawFd, rel: &Path, flags: OFlag, mode: Mode) -> Result<OwnedFd, Errno> {
    let raw = open_raw(dir, rel, flags, mode)?;
    // SAFETY: the open returned a fresh descriptor that we now own.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

fn open_raw(dir: RawFd, rel: &Path, flags: OFlag, mode: Mode) -> Result<RawFd, Errno> {
    if !walk_only() {
        let how = OpenHow::new()
            .flags(flags | OFlag::O_CLOEXEC)
            .mode(mode)
            .resolve(ResolveFlag::RESOLVE_BENEATH | ResolveFlag::RESOLVE_NO_SYMLINKS);
        match openat2(dir, rel, how) {
            Err(Errno::ENOSYS) => {
                tracing::debug!("no openat2 here: paths are opened one component at a time");
                NO_OPENAT2.store(true, Ordering::Relaxed);
            }
            other => return other,
        }
    }
    walk(dir, rel, flags, mode)
}

/// [`open`] without `openat2`.
fn walk(dir: RawFd, rel: &Path, flags: OFlag, mode: Mode) -> Result<RawFd, Errno> {
    let parts = rel
        .components()
        .map(|c| match c {
            Component::Normal(name) => Ok(name),
            Component::CurDir => Ok(OsStr::new(".")),
            _ => Err(Errno::EXDEV),
        })
        .collect::<Result<Vec<&OsStr>, Errno>>()?;
    let mut held: Option<OwnedFd> = None;
    for (i, name) in parts.iter().enumerate() {
        let at = held.as_ref().map_or(dir, AsRawFd::as_raw_fd);
        let last = i + 1 == parts.len();
        let how = match last {
            true => flags | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW,
            false => OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW,
        };
        let opened = nix::fcntl::openat(Some(at), *name, how, mode);
        let raw = match opened {
            // A link opened as a directory reads as "not a directory".
            Err(e) => return Err(if is_link(at, name) { Errno::ELOOP } else { e }),
            Ok(raw) => raw,
        };
        // SAFETY: openat returned a fresh descriptor that we now own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        if last {
            // `O_PATH | O_NOFOLLOW` opens a link itself: refused as well
            // (asked of the descriptor opened, not of the name again).
            if flags.contains(OFlag::O_PATH) && is_link_fd(&fd) {
                return Err(Errno::ELOOP);
            }
            return Ok(std::os::fd::IntoRawFd::into_raw_fd(fd));
        }
        held = Some(fd);
    }
    Err(Errno::ENOENT)
}

/// Whether the entry `name` of the directory `dir` is a symbolic link.
pub(crate) fn is_link(dir: RawFd, name: &OsStr) -> bool {
    let flags = nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW;
    nix::sys::stat::fstatat(Some(dir), name, flags)
        .is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFLNK)
}

fn is_link_fd(fd: &OwnedFd) -> bool {
    nix::sys::stat::fstat(fd.as_raw_fd()).is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFLNK)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's answers and the walk's agree: a file, a directory,
    /// `.`, a link as a component or at the end, `..`, a missing name.
    #[test]
    fn the_walk_answers_as_openat2_does() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("root");
        fs_err::create_dir_all(root.join("a/b")).unwrap();
        fs_err::write(root.join("a/b/f"), "x").unwrap();
        std::os::unix::fs::symlink(d.path(), root.join("l")).unwrap();
        std::os::unix::fs::symlink(root.join("a/b/f"), root.join("a/lf")).unwrap();
        let dir =
            nix::fcntl::open(&root, OFlag::O_RDONLY | OFlag::O_DIRECTORY, Mode::empty()).unwrap();
        let cases = [
            ("a/b/f", OFlag::O_RDONLY),
            ("a/b", OFlag::O_RDONLY | OFlag::O_DIRECTORY),
            ("a/b", OFlag::O_PATH | OFlag::O_DIRECTORY),
            (".", OFlag::O_RDONLY | OFlag::O_DIRECTORY),
            ("l/x", OFlag::O_RDONLY),
            ("l", OFlag::O_PATH | OFlag::O_DIRECTORY),
            ("a/lf", OFlag::O_RDONLY),
            ("a/lf", OFlag::O_PATH),
            ("a/../../x", OFlag::O_RDONLY),
            ("a/nope", OFlag::O_RDONLY),
        ];
        for (rel, flags) in cases {
            let rel = Path::new(rel);
            let kernel = open(dir, rel, flags, Mode::empty()).map(|_| ());
            let walked = without_openat2(|| open(dir, rel, flags, Mode::empty()).map(|_| ()));
            assert_eq!(kernel, walked, "{} {flags:?}", rel.display());
        }
        let _ = nix::unistd::close(dir);
    }
}
