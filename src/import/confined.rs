//! Files read and written by the importer, confined to one directory.
//!
//! A package.py names files by relative path (`patch("fix.patch")`,
//! `patch("s/../../../../TARGET")`), and the repository it lives in is
//! input we do not trust: a component may be a symbolic link to anywhere
//! (`s -> $HOME`). Everything the importer reads for a package (its
//! package.py, patch files, the package.py files it imports) is read
//! strictly below the package directory of its repository, and everything
//! it writes (recipes, patch files, package.py copies) strictly below the
//! repository `--out` names (for the on-the-fly translation: below the
//! cache). A name that is absolute, has a `..` or a `.` component, or
//! passes through a symbolic link is refused — never followed. Paths are
//! resolved by the kernel (`openat2` with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS`) relative to a descriptor of the root, so a
//! component swapped for a link between a check and the open changes
//! nothing ([`crate::beneath`], which also works on kernels without
//! `openat2`).

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::stat::Mode;

/// Why a relative name was not read or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `/etc/passwd`.
    Absolute,
    /// A `..`, `.` or empty component (`s/../../x`, `a//b`).
    NotPlain,
    /// A component (or the file) is a symbolic link.
    Link,
    /// The name does not exist.
    Missing,
    /// Not a regular file (a directory, a device) or a component that is
    /// not a directory.
    NotAFile,
    /// Any other error of the system.
    Io(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Absolute => f.write_str("an absolute path"),
            Refusal::NotPlain => f.write_str("a path with `..`, `.` or an empty component"),
            Refusal::Link => f.write_str("a path through a symbolic link"),
            Refusal::Missing => f.write_str("no such file"),
            Refusal::NotAFile => f.write_str("not a regular file"),
            Refusal::Io(e) => f.write_str(e),
        }
    }
}

/// Check that `rel` is a plain relative path: components that are names,
/// none `..`, `.` or empty, not absolute.
pub fn plain(rel: &str) -> Result<(), Refusal> {
    if rel.starts_with('/') {
        return Err(Refusal::Absolute);
    }
    if rel.is_empty() || rel.contains('\0') {
        return Err(Refusal::NotPlain);
    }
    if rel
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err(Refusal::NotPlain);
    }
    Ok(())
}

/// Whether `name` may be a single component (a package or directory name).
pub fn plain_name(name: &str) -> bool {
    plain(name).is_ok() && !name.contains('/')
}

fn refusal(e: Errno) -> Refusal {
    match e {
        Errno::ELOOP => Refusal::Link,
        Errno::EXDEV => Refusal::NotPlain,
        Errno::ENOENT => Refusal::Missing,
        Errno::ENOTDIR | Errno::EISDIR => Refusal::NotAFile,
        e => Refusal::Io(e.desc().to_string()),
    }
}

fn open_dir(path: &Path) -> Result<OwnedFd, Refusal> {
    let raw = nix::fcntl::open(
        path,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(refusal)?;
    // SAFETY: `open` returned a fresh descriptor that we now own.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

fn open_beneath(dir: &OwnedFd, rel: &str, flags: OFlag) -> Result<OwnedFd, Refusal> {
    let flags = flags | OFlag::O_NOFOLLOW;
    crate::beneath::open(dir.as_raw_fd(), Path::new(rel), flags, Mode::empty()).map_err(refusal)
}

/// Read the regular file `rel` below `root` (itself given by the user and
/// followed as it is), never through a link or out of `root`.
/// Below a root registered in [`super::git_tree`] (a pinned commit read
/// from git objects), the blob is read instead, with the same refusals.
pub fn read_below(root: &Path, rel: &str) -> Result<Vec<u8>, Refusal> {
    plain(rel)?;
    if let Some((tree, base)) = super::git_tree::find(root) {
        return tree.read(&joined(&base, rel));
    }
    let dir = open_dir(root)?;
    let fd = open_beneath(&dir, rel, OFlag::O_RDONLY)?;
    let stat = nix::sys::stat::fstat(fd.as_raw_fd()).map_err(refusal)?;
    if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(Refusal::NotAFile);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(stat.st_size).unwrap_or(0));
    std::fs::File::from(fd)
        .read_to_end(&mut bytes)
        .map_err(|e| Refusal::Io(e.to_string()))?;
    Ok(bytes)
}

/// Whether the directory `rel` exists below `root`, reached without links.
pub fn is_dir_below(root: &Path, rel: &str) -> bool {
    if let (Ok(()), Some(_)) = (plain(rel), super::git_tree::find(root)) {
        return super::git_tree::is_dir(&root.join(rel));
    }
    plain(rel).is_ok()
        && open_dir(root)
            .and_then(|dir| open_beneath(&dir, rel, OFlag::O_PATH | OFlag::O_DIRECTORY))
            .is_ok()
}

/// `base/rel`, or `rel` when `base` is the root (`""`).
fn joined(base: &str, rel: &str) -> String {
    match base.is_empty() {
        true => rel.to_string(),
        false => format!("{base}/{rel}"),
    }
}

/// A directory the importer writes below (`--out`'s repository).
#[derive(Debug)]
pub struct Destination {
    root: PathBuf,
    fd: OwnedFd,
    /// Made by [`Destination::create_new`] (nothing else writes or reads
    /// below it until it is complete): the directories made so far, by
    /// their path below the root, opened once. A translation writes 14,000
    /// files into a few thousand directories, and making and opening each
    /// file's directories again (two directory operations per component,
    /// each taking a lock the other writers wait on) cost more system time
    /// on ext4 than the writes. Sound because nothing else writes below a
    /// new destination until it is complete.
    made: Option<MadeDirs>,
}

/// The directories a new destination made, by their path below its root.
type MadeDirs = Mutex<HashMap<String, Arc<OwnedFd>>>;

impl Destination {
    /// Create `root` if needed (the user names it; it is followed as it is).
    pub fn create(root: &Path) -> io::Result<Destination> {
        fs_err::create_dir_all(root)?;
        let fd = open_dir(root).map_err(|r| refused(root, &r))?;
        Ok(Destination {
            root: root.to_path_buf(),
            fd,
            made: None,
        })
    }

    /// Like [`Destination::create`], for a directory this process makes
    /// and nothing reads before it is complete (the on-the-fly translation,
    /// which renames its whole directory into place once): a file that
    /// does not exist yet is written in place, without the temporary name
    /// and the rename (two directory operations per file, each taking the
    /// directory's lock that the other writers wait on).
    pub fn create_new(root: &Path) -> io::Result<Destination> {
        let mut dest = Destination::create(root)?;
        dest.made = Some(Mutex::default());
        Ok(dest)
    }

    /// The root's path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Write `bytes` to `rel` below the root, creating its directories one
    /// component at a time and never through a link; the file is replaced
    /// atomically (written beside it under a temporary name, then renamed:
    /// two packages that copy the same imported package.py do not see each
    /// other's half-written file). Returns the written path.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> io::Result<PathBuf> {
        plain(rel).map_err(|r| refused(&self.root.join(rel), &r))?;
        let (dir_rel, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let dir = match &self.made {
            Some(made) => self.made_dir(made, dir_rel)?,
            None => Arc::new(self.create_dirs(dir_rel)?),
        };
        let path = self.root.join(rel);
        if self.made.is_some() && self.write_new(&dir, name, bytes, &path)? {
            return Ok(path);
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let tmp = format!(
            ".{name}.tmp-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL;
        let mode = Mode::from_bits_truncate(0o644);
        let fd = crate::beneath::open(dir.as_raw_fd(), Path::new(&tmp), flags, mode)
            .map_err(|e| refused(&path, &refusal(e)))?;
        let mut file = std::fs::File::from(fd);
        let written = file.write_all(bytes).and_then(|()| file.flush());
        let renamed = written.and_then(|()| {
            let fd = Some(dir.as_raw_fd());
            nix::fcntl::renameat(fd, tmp.as_str(), fd, name).map_err(io::Error::from)
        });
        if let Err(e) = renamed {
            let _ = nix::unistd::unlinkat(
                Some(dir.as_raw_fd()),
                tmp.as_str(),
                nix::unistd::UnlinkatFlags::NoRemoveDir,
            );
            return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
        }
        Ok(path)
    }

    /// Write `bytes` to the new file `name` of `dir`; `false` when it
    /// exists (another package wrote the same imported package.py: it is
    /// then replaced atomically, as in any destination).
    fn write_new(&self, dir: &OwnedFd, name: &str, bytes: &[u8], path: &Path) -> io::Result<bool> {
        let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL;
        let mode = Mode::from_bits_truncate(0o644);
        let fd = match crate::beneath::open(dir.as_raw_fd(), Path::new(name), flags, mode) {
            Ok(fd) => fd,
            Err(Errno::EEXIST) => return Ok(false),
            Err(e) => return Err(refused(path, &refusal(e))),
        };
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)
            .and_then(|()| file.flush())
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        Ok(true)
    }

    /// The directory `rel` below a new destination's root, made and opened
    /// once (its parent first), then taken from `made`.
    fn made_dir(&self, made: &MadeDirs, rel: &str) -> io::Result<Arc<OwnedFd>> {
        if let Some(dir) = made.lock().unwrap().get(rel) {
            return Ok(dir.clone());
        }
        let dir = match rel.rsplit_once('/') {
            None => self.made_below(&self.fd, rel, rel)?,
            Some((parent, name)) => self.made_below(&*self.made_dir(made, parent)?, rel, name)?,
        };
        let dir = Arc::new(dir);
        let mut made = made.lock().unwrap();
        Ok(made.entry(rel.to_string()).or_insert(dir).clone())
    }

    /// Make (or find) the directory `name` of `parent` and open it, never
    /// through a link; `rel` is its path below the root (for errors).
    fn made_below(&self, parent: &OwnedFd, rel: &str, name: &str) -> io::Result<OwnedFd> {
        if name.is_empty() {
            return open_beneath(parent, ".", OFlag::O_RDONLY | OFlag::O_DIRECTORY)
                .map_err(|r| refused(&self.root, &r));
        }
        let path = self.root.join(rel);
        let mode = Mode::from_bits_truncate(0o755);
        match nix::sys::stat::mkdirat(Some(parent.as_raw_fd()), name, mode) {
            Ok(()) | Err(Errno::EEXIST) => {}
            Err(e) => return Err(refused(&path, &refusal(e))),
        }
        open_beneath(parent, name, OFlag::O_RDONLY | OFlag::O_DIRECTORY)
            .map_err(|r| refused(&path, &link_or(parent, name, r)))
    }

    /// The directory `rel` below the root, created one component at a time.
    fn create_dirs(&self, rel: &str) -> io::Result<OwnedFd> {
        let mut dir = self.made_below(&self.fd, "", "")?;
        let mut so_far = String::new();
        for name in rel.split('/').filter(|c| !c.is_empty()) {
            so_far = joined(&so_far, name);
            dir = self.made_below(&dir, &so_far, name)?;
        }
        Ok(dir)
    }
}

/// `why`, or [`Refusal::Link`] when the entry `name` of `dir` is a link
/// (opened as a directory without following it, a link reads as "not a
/// directory").
fn link_or(dir: &OwnedFd, name: &str, why: Refusal) -> Refusal {
    match crate::beneath::is_link(dir.as_raw_fd(), name.as_ref()) {
        true => Refusal::Link,
        false => why,
    }
}

fn refused(path: &Path, why: &Refusal) -> io::Error {
    let kind = match why {
        Refusal::Missing => io::ErrorKind::NotFound,
        Refusal::Io(_) => io::ErrorKind::Other,
        _ => io::ErrorKind::PermissionDenied,
    };
    io::Error::new(
        kind,
        format!("{}: refusing to write there: {why}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_dots_or_absolute_are_not_plain() {
        assert_eq!(plain("fix.patch"), Ok(()));
        assert_eq!(plain("sub/fix.patch"), Ok(()));
        assert_eq!(plain("/etc/passwd"), Err(Refusal::Absolute));
        for bad in ["s/../../x", "..", "./x", "a//b", "", "a/"] {
            assert_eq!(plain(bad), Err(Refusal::NotPlain), "{bad}");
        }
        assert!(plain_name("zlib_ng"));
        assert!(!plain_name("a/b"));
        assert!(!plain_name(".."));
    }

    /// The same refusals without `openat2` (one component at a time).
    #[test]
    fn without_openat2_reads_and_writes_refuse_the_same() {
        crate::beneath::without_openat2(|| {
            reads_stay_below_and_never_follow_links();
            writes_stay_below_and_never_follow_links();
        });
    }

    #[test]
    fn reads_stay_below_and_never_follow_links() {
        let d = tempfile::tempdir().unwrap();
        let pkg = d.path().join("pkg");
        let home = d.path().join("home");
        fs_err::create_dir_all(pkg.join("sub")).unwrap();
        fs_err::create_dir_all(&home).unwrap();
        fs_err::write(pkg.join("sub/fix.patch"), "ok").unwrap();
        fs_err::write(home.join(".bashrc"), "secret").unwrap();
        std::os::unix::fs::symlink(&home, pkg.join("s")).unwrap();
        std::os::unix::fs::symlink(home.join(".bashrc"), pkg.join("l.patch")).unwrap();
        assert_eq!(read_below(&pkg, "sub/fix.patch").unwrap(), b"ok");
        assert_eq!(read_below(&pkg, "s/.bashrc"), Err(Refusal::Link));
        assert_eq!(read_below(&pkg, "l.patch"), Err(Refusal::Link));
        assert_eq!(
            read_below(&pkg, "s/../../home/.bashrc"),
            Err(Refusal::NotPlain)
        );
        assert_eq!(read_below(&pkg, "nope"), Err(Refusal::Missing));
        assert_eq!(read_below(&pkg, "sub"), Err(Refusal::NotAFile));
        assert!(is_dir_below(&pkg, "sub"));
        assert!(!is_dir_below(&pkg, "s"));
    }

    #[test]
    fn writes_stay_below_and_never_follow_links() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        let home = d.path().join("home");
        fs_err::create_dir_all(&home).unwrap();
        let dest = Destination::create(&repo).unwrap();
        let p = dest.write("patches/p/fix.patch", b"x").unwrap();
        assert_eq!(fs_err::read(&p).unwrap(), b"x");
        dest.write("patches/p/fix.patch", b"y").unwrap();
        assert_eq!(fs_err::read(&p).unwrap(), b"y");
        std::os::unix::fs::symlink(&home, repo.join("spack")).unwrap();
        let e = dest.write("spack/builtin/x/package.py", b"z").unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(dest.write("../outside", b"z").is_err());
        // A link at the destination itself is replaced, not written through.
        std::os::unix::fs::symlink(home.join("victim"), repo.join("r.yaml")).unwrap();
        dest.write("r.yaml", b"r").unwrap();
        assert_eq!(fs_err::read_dir(&home).unwrap().count(), 0);
        assert_eq!(fs_err::read(repo.join("r.yaml")).unwrap(), b"r");
    }

    /// A new destination writes files in place; a name that exists (the
    /// same imported package.py copied twice, a link) is replaced
    /// atomically as in any destination, never written through.
    #[test]
    fn a_new_destination_writes_in_place_and_replaces_what_exists() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        let home = d.path().join("home");
        fs_err::create_dir_all(&home).unwrap();
        let dest = Destination::create_new(&repo).unwrap();
        let p = dest.write("spack/builtin/x/package.py", b"x").unwrap();
        assert_eq!(fs_err::read(&p).unwrap(), b"x");
        dest.write("spack/builtin/x/package.py", b"y").unwrap();
        assert_eq!(fs_err::read(&p).unwrap(), b"y");
        std::os::unix::fs::symlink(home.join("victim"), repo.join("r.yaml")).unwrap();
        dest.write("r.yaml", b"r").unwrap();
        assert_eq!(fs_err::read_dir(&home).unwrap().count(), 0);
        assert_eq!(fs_err::read(repo.join("r.yaml")).unwrap(), b"r");
        std::os::unix::fs::symlink(&home, repo.join("patches")).unwrap();
        let e = dest.write("patches/p/fix.patch", b"z").unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        // No temporary file is left behind.
        let names: Vec<_> = fs_err::read_dir(repo.join("spack/builtin/x"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["package.py"]);
    }
}
