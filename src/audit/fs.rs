//! The file system as the target's loader sees it.
//!
//! Paths here are *virtual*: absolute paths on the target machine. A [`Vfs`]
//! maps them onto backends: the audited tree (a host directory or a squashfs
//! image) at its mount point, and everything else onto the target's system
//! root (`/` by default, or a `--sysroot`). Symbolic links are resolved in
//! the virtual space, so an absolute link inside an image that points to
//! `/user-environment/...` stays inside the image, and one that points to
//! `/usr/lib64/...` leaves it. Directory listings and lookups are cached, so
//! each directory is read once per audit whatever the number of searches.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::elf::ELF_MAGIC;
use super::memo::Memo;
use super::source::{Contents, FileSource, ReadPolicy};

/// How many symbolic links one lookup may follow (Linux: 40).
const MAX_LINKS: u32 = 40;

/// The type of a directory entry (not following symbolic links).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NodeKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// A file opened for the loader: its bytes on demand if it starts with the
/// ELF magic, otherwise only its first bytes (enough for `open_verify`).
pub struct Loaded {
    pub data: Contents,
    /// Full length of the file.
    pub len: u64,
    /// `st_mode` (permission and set-id bits).
    pub mode: u32,
    /// (device, inode) when the backend has them: hard links are one file.
    pub id: Option<(u64, u64)>,
}

/// Where the bytes of a part of the virtual tree come from.
pub trait Backend: Send + Sync {
    /// Entries of the directory `rel` (relative to the backend root).
    fn list(&self, rel: &Path) -> io::Result<Vec<(OsString, NodeKind)>>;
    fn read_link(&self, rel: &Path) -> io::Result<PathBuf>;
    fn load(&self, rel: &Path) -> io::Result<Loaded>;
    /// The whole contents of a (small) file.
    fn read_all(&self, rel: &Path) -> io::Result<Vec<u8>>;
    /// A human-readable location of `rel` (for messages).
    fn describe(&self, rel: &Path) -> String;
}

/// A directory of the host used as a backend root.
pub struct HostDir {
    root: PathBuf,
}

impl HostDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        HostDir { root: root.into() }
    }

    fn path(&self, rel: &Path) -> PathBuf {
        if rel.as_os_str().is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }
}

/// How many leading bytes are kept of a file that is not ELF.
pub const HEAD: usize = 64;

impl Backend for HostDir {
    fn list(&self, rel: &Path) -> io::Result<Vec<(OsString, NodeKind)>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(self.path(rel))? {
            let entry = entry?;
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => NodeKind::Symlink,
                Ok(t) if t.is_dir() => NodeKind::Dir,
                Ok(t) if t.is_file() => NodeKind::File,
                _ => NodeKind::Other,
            };
            out.push((entry.file_name(), kind));
        }
        Ok(out)
    }

    fn read_link(&self, rel: &Path) -> io::Result<PathBuf> {
        std::fs::read_link(self.path(rel))
    }

    fn load(&self, rel: &Path) -> io::Result<Loaded> {
        use std::os::unix::fs::MetadataExt;
        // Most files are not ELF: read the first bytes before anything else
        // (reading a directory fails with EISDIR, as the loader sees it).
        let file = std::fs::File::open(self.path(rel))?;
        let mut src = FileSource::open(file, ReadPolicy::default())?;
        let head = src.head();
        if head.len() < HEAD || &head[..4] != ELF_MAGIC {
            // Only the length class matters for a non-ELF candidate
            // ("file too short" below 64 bytes, else "invalid ELF header").
            let n = head.len().min(HEAD);
            src.truncate(n);
            return Ok(Loaded {
                data: Contents::File(src),
                len: n as u64,
                mode: 0,
                id: None,
            });
        }
        let meta = src.metadata()?;
        src.set_size(meta.len());
        Ok(Loaded {
            data: Contents::File(src),
            len: meta.len(),
            mode: meta.mode(),
            id: Some((meta.dev(), meta.ino())),
        })
    }

    fn read_all(&self, rel: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(self.path(rel))
    }

    fn describe(&self, rel: &Path) -> String {
        self.path(rel).display().to_string()
    }
}

/// Result of looking up a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// A regular file, at this canonical virtual path.
    File(PathBuf),
    /// A directory, at this canonical virtual path.
    Dir(PathBuf),
    /// Something else (device, socket, …).
    Other(PathBuf),
    /// Does not exist (ENOENT, ENOTDIR, dangling link).
    Missing,
    /// Too many symbolic links (ELOOP).
    Loop,
}

type Listing =
    Arc<HashMap<OsString, NodeKind, std::hash::BuildHasherDefault<super::memo::FxHasher>>>;

/// The target's file system: backends at mount points over a system root.
pub struct Vfs {
    system: Box<dyn Backend>,
    /// Mount points (absolute, normalised), longest first.
    mounts: Vec<(PathBuf, Box<dyn Backend>)>,
    // Keyed by the path's bytes (hashing a `Path` walks its components).
    listings: Memo<OsString, Option<Listing>>,
    dirs: Memo<OsString, Lookup>,
    paths: Memo<OsString, Lookup>,
}

/// Normalises an absolute path lexically (`//`, `.`, trailing slashes), not
/// touching `..` (which must be resolved against the real tree).
pub fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => out.push(".."),
            _ => {}
        }
    }
    out
}

impl Vfs {
    /// A file system whose every path lives in `system`.
    pub fn new(system: Box<dyn Backend>) -> Self {
        Vfs {
            system,
            mounts: Vec::new(),
            listings: Memo::default(),
            dirs: Memo::default(),
            paths: Memo::default(),
        }
    }

    /// Mounts `backend` at the absolute virtual path `at`.
    pub fn mount(mut self, at: &Path, backend: Box<dyn Backend>) -> Self {
        self.mounts.push((clean(at), backend));
        self.mounts
            .sort_by_key(|(p, _)| std::cmp::Reverse(p.as_os_str().len()));
        self
    }

    pub fn mount_points(&self) -> impl Iterator<Item = &Path> {
        self.mounts.iter().map(|(p, _)| p.as_path())
    }

    fn backend(&self, vpath: &Path) -> (&dyn Backend, PathBuf) {
        use std::os::unix::ffi::OsStrExt;
        let bytes = vpath.as_os_str().as_bytes();
        for (at, b) in &self.mounts {
            if super::classify::under(vpath, at) {
                let rest = &bytes[at.as_os_str().len().min(bytes.len())..];
                let rest = rest.strip_prefix(b"/").unwrap_or(rest);
                return (b.as_ref(), PathBuf::from(OsStr::from_bytes(rest)));
            }
        }
        let rest = bytes.strip_prefix(b"/").unwrap_or(bytes);
        (self.system.as_ref(), PathBuf::from(OsStr::from_bytes(rest)))
    }

    /// Where a virtual path really is (for messages).
    pub fn describe(&self, vpath: &Path) -> String {
        let (b, rel) = self.backend(vpath);
        b.describe(&rel)
    }

    /// The entries of the canonical directory `dir`, or `None`.
    fn listing(&self, dir: &Path) -> Option<Listing> {
        self.listings.get_or_insert_with(dir.as_os_str(), || {
            let (b, rel) = self.backend(dir);
            let listed = b.list(&rel).ok();
            // Ancestors of mount points exist, whatever the system root says.
            let mut extra = Vec::new();
            for (at, _) in &self.mounts {
                if at != dir {
                    if let Ok(rest) = at.strip_prefix(dir) {
                        if let Some(Component::Normal(n)) = rest.components().next() {
                            extra.push(n.to_os_string());
                        }
                    }
                }
            }
            if listed.is_none() && extra.is_empty() {
                return None;
            }
            let mut map: HashMap<OsString, NodeKind, _> =
                listed.unwrap_or_default().into_iter().collect();
            for n in extra {
                map.insert(n, NodeKind::Dir);
            }
            Some(Arc::new(map))
        })
    }

    /// The kind of the entry `name` in the canonical directory `dir`.
    pub fn entry(&self, dir: &Path, name: &OsStr) -> Option<NodeKind> {
        self.listing(dir)?.get(name).copied()
    }

    /// Entries of a canonical directory (sorted by name).
    pub fn read_dir(&self, dir: &Path) -> Vec<(OsString, NodeKind)> {
        let mut v: Vec<_> = self
            .listing(dir)
            .map(|l| l.iter().map(|(k, v)| (k.clone(), *v)).collect())
            .unwrap_or_default();
        v.sort();
        v
    }

    fn read_link(&self, vpath: &Path) -> Option<PathBuf> {
        let (b, rel) = self.backend(vpath);
        b.read_link(&rel).ok()
    }

    /// Resolves an absolute virtual path, following symbolic links.
    pub fn lookup(&self, path: &Path) -> Lookup {
        self.paths
            .get_or_insert_with(path.as_os_str(), || self.walk(path))
    }

    /// Resolves a directory path (memoised separately: directories are
    /// looked up many times with different file names).
    pub fn lookup_dir(&self, dir: &Path) -> Lookup {
        self.dirs
            .get_or_insert_with(dir.as_os_str(), || self.walk(dir))
    }

    /// Looks up `name` (one component) inside the directory `dir`.
    pub fn lookup_in(&self, dir: &Path, name: &str) -> Lookup {
        let Lookup::Dir(cdir) = self.lookup_dir(dir) else {
            return Lookup::Missing;
        };
        match self.entry(&cdir, OsStr::new(name)) {
            None => Lookup::Missing,
            Some(NodeKind::File) => Lookup::File(cdir.join(name)),
            Some(NodeKind::Dir) => Lookup::Dir(cdir.join(name)),
            Some(NodeKind::Other) => Lookup::Other(cdir.join(name)),
            Some(NodeKind::Symlink) => self.lookup(&cdir.join(name)),
        }
    }

    fn walk(&self, path: &Path) -> Lookup {
        // Fast path: borrowed components until the first symbolic link.
        let mut cur = PathBuf::with_capacity(path.as_os_str().len() + 1);
        cur.push("/");
        let mut comps = path.components();
        while let Some(c) = comps.next() {
            let name = match c {
                Component::Normal(n) => n,
                Component::ParentDir => {
                    cur.pop();
                    continue;
                }
                _ => continue,
            };
            let Some(listing) = self.listing(&cur) else {
                return Lookup::Missing;
            };
            match listing.get(name) {
                None => return Lookup::Missing,
                Some(NodeKind::Dir) => cur.push(name),
                Some(kind @ (NodeKind::File | NodeKind::Other)) => {
                    cur.push(name);
                    if comps.next().is_some() {
                        return Lookup::Missing; // ENOTDIR
                    }
                    return if *kind == NodeKind::File {
                        Lookup::File(cur)
                    } else {
                        Lookup::Other(cur)
                    };
                }
                Some(NodeKind::Symlink) => {
                    let mut todo: Vec<OsString> = Vec::new();
                    push_components(&mut todo, comps.as_path());
                    todo.push(name.to_os_string());
                    return self.walk_slow(cur, todo);
                }
            }
        }
        Lookup::Dir(cur)
    }

    /// The general walk, following symbolic links (`todo`: components still
    /// to resolve, the next one on top).
    fn walk_slow(&self, mut cur: PathBuf, mut todo: Vec<OsString>) -> Lookup {
        let mut links = 0;
        while let Some(comp) = todo.pop() {
            if comp == "." || comp.is_empty() {
                continue;
            }
            if comp == ".." {
                cur.pop();
                continue;
            }
            let Some(listing) = self.listing(&cur) else {
                return Lookup::Missing;
            };
            match listing.get(&comp) {
                None => return Lookup::Missing,
                Some(NodeKind::Dir) => cur.push(&comp),
                Some(kind @ (NodeKind::File | NodeKind::Other)) => {
                    cur.push(&comp);
                    if !todo.is_empty() {
                        return Lookup::Missing; // ENOTDIR
                    }
                    return if *kind == NodeKind::File {
                        Lookup::File(cur)
                    } else {
                        Lookup::Other(cur)
                    };
                }
                Some(NodeKind::Symlink) => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Lookup::Loop;
                    }
                    let Some(target) = self.read_link(&cur.join(&comp)) else {
                        return Lookup::Missing;
                    };
                    if target.is_absolute() {
                        cur = PathBuf::from("/");
                    }
                    push_components(&mut todo, &target);
                }
            }
        }
        Lookup::Dir(cur)
    }

    /// Reads the file at the canonical virtual path `path`.
    pub fn load(&self, path: &Path) -> io::Result<Loaded> {
        let (b, rel) = self.backend(path);
        b.load(&rel)
    }

    /// The whole contents of the file at the canonical virtual path `path`.
    pub fn read_all(&self, path: &Path) -> io::Result<Vec<u8>> {
        let (b, rel) = self.backend(path);
        b.read_all(&rel)
    }

    /// Every regular file below the canonical directory `root` (not following
    /// symbolic links), sorted.
    pub fn files_below(&self, root: &Path) -> Vec<PathBuf> {
        self.walk_below(root).0
    }

    /// Every regular file below the canonical directory `root` (not following
    /// symbolic links), sorted; and the directories below it that could not
    /// be listed, with the reason (sorted).
    pub fn walk_below(&self, root: &Path) -> (Vec<PathBuf>, Vec<Unlisted>) {
        let mut level = vec![root.to_path_buf()];
        let mut files = Vec::new();
        let mut unlisted = Vec::new();
        while !level.is_empty() {
            use rayon::prelude::*;
            let listed: Vec<Result<Vec<(PathBuf, NodeKind)>, Unlisted>> = level
                .par_iter()
                .map(|d| match self.listing(d) {
                    Some(l) => Ok(l.iter().map(|(n, k)| (d.join(n), *k)).collect()),
                    None => Err((d.clone(), self.list_error(d))),
                })
                .collect();
            level = Vec::new();
            for r in listed {
                let entries = match r {
                    Ok(entries) => entries,
                    Err(e) => {
                        unlisted.push(e);
                        continue;
                    }
                };
                for (p, k) in entries {
                    match k {
                        NodeKind::Dir => level.push(p),
                        NodeKind::File => files.push(p),
                        _ => {}
                    }
                }
            }
        }
        // Byte order (comparing paths component-wise is much slower).
        files.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        unlisted.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
        (files, unlisted)
    }

    /// Why the directory `dir` could not be listed (asked again: listings
    /// are memoised without their errors, and failures are rare).
    fn list_error(&self, dir: &Path) -> io::Error {
        let (b, rel) = self.backend(dir);
        match b.list(&rel) {
            Err(e) => e,
            Ok(_) => io::Error::other("the directory changed while it was read"),
        }
    }
}

/// A directory that could not be listed, and why.
pub type Unlisted = (PathBuf, io::Error);

/// Pushes the components of `p` onto `todo` so that the first one is on top.
fn push_components(todo: &mut Vec<OsString>, p: &Path) {
    let comps: Vec<OsString> = p
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect();
    todo.extend(comps.into_iter().rev());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn resolves_links_in_virtual_space() {
        let t = tempfile::tempdir().unwrap();
        let tree = t.path().join("tree");
        let sys = t.path().join("sys");
        fs_err::create_dir_all(tree.join("lib")).unwrap();
        fs_err::create_dir_all(sys.join("usr/lib")).unwrap();
        fs_err::write(sys.join("usr/lib/libz.so.1"), b"x").unwrap();
        fs_err::write(tree.join("lib/libfoo.so.1"), b"y").unwrap();
        symlink("/usr/lib/libz.so.1", tree.join("lib/libz.so.1")).unwrap();
        symlink("/mnt/stack/lib/libfoo.so.1", tree.join("lib/abs.so")).unwrap();
        symlink("libfoo.so.1", tree.join("lib/rel.so")).unwrap();
        symlink("loop", tree.join("lib/loop")).unwrap();
        symlink("usr/lib", sys.join("lib")).unwrap();
        let vfs = Vfs::new(Box::new(HostDir::new(&sys)))
            .mount(Path::new("/mnt/stack"), Box::new(HostDir::new(&tree)));
        assert_eq!(
            vfs.lookup(Path::new("/mnt/stack/lib/libz.so.1")),
            Lookup::File("/usr/lib/libz.so.1".into())
        );
        assert_eq!(
            vfs.lookup(Path::new("/mnt/stack/lib/abs.so")),
            Lookup::File("/mnt/stack/lib/libfoo.so.1".into())
        );
        assert_eq!(
            vfs.lookup(Path::new("/mnt/stack/lib/rel.so")),
            Lookup::File("/mnt/stack/lib/libfoo.so.1".into())
        );
        assert_eq!(vfs.lookup(Path::new("/mnt/stack/lib/loop")), Lookup::Loop);
        assert_eq!(
            vfs.lookup_in(Path::new("/lib"), "libz.so.1"),
            Lookup::File("/usr/lib/libz.so.1".into())
        );
        assert_eq!(
            vfs.lookup(Path::new("/mnt/stack/lib/../lib/rel.so")),
            Lookup::File("/mnt/stack/lib/libfoo.so.1".into())
        );
        assert_eq!(
            vfs.lookup(Path::new("/mnt/stack/lib/libfoo.so.1/x")),
            Lookup::Missing
        );
        assert_eq!(vfs.lookup(Path::new("/mnt")), Lookup::Dir("/mnt".into()));
        assert_eq!(
            vfs.files_below(Path::new("/mnt/stack")),
            vec![PathBuf::from("/mnt/stack/lib/libfoo.so.1")]
        );
        let l = vfs.load(Path::new("/mnt/stack/lib/libfoo.so.1")).unwrap();
        assert_eq!(l.data.head(), b"y");
    }
}
