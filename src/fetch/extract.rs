//! Writing an untrusted tree (archive entries, a git commit) into a directory safely.
//!
//! [`SafeTree`] is the only code that creates files in a stage. It refuses, naming the entry:
//! absolute paths, `..` components, writing through a symlink or into a file, symlinks whose
//! target is absolute or leaves the tree, hard links to anything but a regular file already in
//! the tree, and device files/FIFOs. Files are created with `O_EXCL` (never following a symlink
//! at the final component), setuid/setgid/sticky bits are dropped, and the owner can always
//! read and write. After the last entry, [`SafeTree::finish`] resolves every symlink for real
//! (following links in the tree, not just lexically) against the final root, because a link
//! that is harmless in the archive root may escape once the single top-level directory is
//! stripped.

use std::collections::{HashSet, VecDeque};
use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use super::error::FetchError;

/// Longest chain of symlinks followed while checking a link (like the kernel's limit).
const MAX_LINK_HOPS: usize = 40;

/// A directory being filled from an untrusted source.
pub(crate) struct SafeTree {
    root: PathBuf,
    label: String,
    known_dirs: HashSet<PathBuf>,
    symlinks: Vec<PathBuf>,
    dir_times: Vec<(PathBuf, SystemTime)>,
    entries: u64,
    /// Bytes written so far, and the most an archive may expand to (a
    /// sparse member or a compression bomb must not fill the disk).
    written: u64,
    max_bytes: u64,
    /// Whether `max_bytes` is the recipe's `max_size:` (else the default).
    max_from_recipe: bool,
}

/// The most one source archive may expand to: 64 GiB.
pub(crate) const MAX_EXTRACTED_BYTES: u64 = 64 << 30;

impl SafeTree {
    /// Fill `root` (an existing, empty directory); `label` names the source in errors.
    pub(crate) fn new(root: &Path, label: &str) -> SafeTree {
        SafeTree {
            root: root.to_path_buf(),
            label: label.to_string(),
            known_dirs: HashSet::new(),
            symlinks: Vec::new(),
            dir_times: Vec::new(),
            entries: 0,
            written: 0,
            max_bytes: MAX_EXTRACTED_BYTES,
            max_from_recipe: false,
        }
    }

    /// Sets the limit on the bytes extracted (`from_recipe`: it is the
    /// recipe's `max_size:`, which the error then names).
    pub(crate) fn with_max_bytes(mut self, max: u64, from_recipe: bool) -> SafeTree {
        self.max_bytes = max;
        self.max_from_recipe = from_recipe;
        self
    }

    pub(crate) fn refuse(&self, entry: &[u8], reason: impl Into<String>) -> FetchError {
        FetchError::UnsafeArchive {
            archive: self.label.clone(),
            entry: String::from_utf8_lossy(entry).into_owned(),
            reason: reason.into(),
        }
    }

    /// Check an entry name and turn it into a relative path (empty for the root itself).
    pub(crate) fn entry_path(&self, raw: &[u8]) -> Result<PathBuf, FetchError> {
        normalize(raw).map_err(|reason| self.refuse(raw, reason))
    }

    /// A directory entry.
    pub(crate) fn dir(
        &mut self,
        raw: &[u8],
        mode: u32,
        mtime: Option<SystemTime>,
    ) -> Result<(), FetchError> {
        let rel = self.entry_path(raw)?;
        if rel.as_os_str().is_empty() {
            return Ok(());
        }
        self.ensure_dir(raw, &rel)?;
        let abs = self.root.join(&rel);
        fs_err::set_permissions(
            &abs,
            std::fs::Permissions::from_mode((mode & 0o777) | 0o700),
        )?;
        if let Some(t) = mtime {
            self.dir_times.push((rel, t));
        }
        self.entries += 1;
        Ok(())
    }

    /// A regular file whose content is read from `data`.
    pub(crate) fn file(
        &mut self,
        raw: &[u8],
        mode: u32,
        mtime: Option<SystemTime>,
        data: &mut dyn Read,
    ) -> Result<(), FetchError> {
        let rel = self.entry_path(raw)?;
        let abs = self.prepare_leaf(raw, &rel)?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode((mode & 0o777) | 0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&abs)
            .map_err(|source| FetchError::LocalFile {
                path: abs.clone(),
                source,
            })?;
        let budget = self.max_bytes.saturating_sub(self.written);
        let n = io::copy(&mut data.take(budget.saturating_add(1)), &mut f).map_err(|source| {
            FetchError::BadArchive {
                archive: self.label.clone(),
                reason: format!("reading `{}`: {source}", rel.display()),
            }
        })?;
        if n > budget {
            drop(f);
            let _ = std::fs::remove_file(&abs);
            return Err(FetchError::BadArchive {
                archive: self.label.clone(),
                reason: format!(
                    "`{}` expands the archive beyond {} bytes, {}",
                    rel.display(),
                    self.max_bytes,
                    if self.max_from_recipe {
                        "the recipe's `max_size:` for this source (raise it if the archive is \
                         really that large)"
                    } else {
                        "the most a source may extract to by default (a sparse member or a \
                         compression bomb? a larger `max_size:` on the version in its recipe \
                         raises it)"
                    }
                ),
            });
        }
        self.written += n;
        // `mode` on create is filtered by the umask; set it exactly.
        f.set_permissions(std::fs::Permissions::from_mode((mode & 0o777) | 0o600))
            .map_err(|source| FetchError::LocalFile {
                path: abs.clone(),
                source,
            })?;
        if let Some(t) = mtime {
            f.set_modified(t).map_err(|source| FetchError::LocalFile {
                path: abs.clone(),
                source,
            })?;
        }
        self.entries += 1;
        Ok(())
    }

    /// A symbolic link to `target`.
    pub(crate) fn symlink(&mut self, raw: &[u8], target: &[u8]) -> Result<(), FetchError> {
        let rel = self.entry_path(raw)?;
        if rel.as_os_str().is_empty() {
            return Err(self.refuse(raw, "a symlink as the archive root"));
        }
        let shown = String::from_utf8_lossy(target);
        if target.is_empty() || target.contains(&0) {
            return Err(self.refuse(raw, "symlink with an empty or invalid target"));
        }
        let target_path = Path::new(OsStr::from_bytes(target));
        if target_path.is_absolute() {
            return Err(self.refuse(
                raw,
                format!("symlink to the absolute path `{shown}` points outside the stage"),
            ));
        }
        // Lexical check now (early, precise error); the real check runs in `finish`.
        let parent = rel.parent().unwrap_or(Path::new(""));
        if lexical_escape(parent, target_path) {
            return Err(self.refuse(
                raw,
                format!("symlink to `{shown}` points outside the stage"),
            ));
        }
        let abs = self.prepare_leaf(raw, &rel)?;
        std::os::unix::fs::symlink(target_path, &abs).map_err(|source| FetchError::LocalFile {
            path: abs.clone(),
            source,
        })?;
        self.symlinks.push(rel);
        self.entries += 1;
        Ok(())
    }

    /// A hard link to `target`, an earlier entry of the same archive.
    pub(crate) fn hardlink(&mut self, raw: &[u8], target: &[u8]) -> Result<(), FetchError> {
        let rel = self.entry_path(raw)?;
        let target_rel = normalize(target).map_err(|reason| {
            self.refuse(
                raw,
                format!(
                    "hard link to `{}`: {reason}",
                    String::from_utf8_lossy(target)
                ),
            )
        })?;
        let shown = target_rel.display().to_string();
        // The target's directories must be real directories of the tree (no symlink hops).
        self.check_real_dirs(raw, target_rel.parent().unwrap_or(Path::new("")))?;
        let target_abs = self.root.join(&target_rel);
        match std::fs::symlink_metadata(&target_abs) {
            Ok(m) if m.file_type().is_file() => {}
            Ok(_) => {
                return Err(self.refuse(
                    raw,
                    format!("hard link to `{shown}`, which is not a regular file"),
                ));
            }
            Err(_) => {
                return Err(self.refuse(
                    raw,
                    format!("hard link to `{shown}`, which is not an earlier entry of the archive"),
                ));
            }
        }
        let abs = self.prepare_leaf(raw, &rel)?;
        std::fs::hard_link(&target_abs, &abs).map_err(|source| FetchError::LocalFile {
            path: abs.clone(),
            source,
        })?;
        self.entries += 1;
        Ok(())
    }

    /// Refuse a special file (device, FIFO, socket).
    pub(crate) fn special(&self, raw: &[u8], kind: &str) -> FetchError {
        self.refuse(
            raw,
            format!("{kind} entries are not allowed in a source archive"),
        )
    }

    /// Verify every symlink against `boundary` (the root that will become the stage: the root
    /// itself, or the single top-level directory that is stripped) and set directory times.
    pub(crate) fn finish(mut self, boundary: &Path) -> Result<u64, FetchError> {
        for rel in &self.symlinks {
            let abs = self.root.join(rel);
            if !abs.starts_with(boundary) {
                continue;
            }
            // A later entry replaced the link (GNU tar extracts that too).
            if !std::fs::symlink_metadata(&abs).is_ok_and(|m| m.file_type().is_symlink()) {
                continue;
            }
            if !resolves_inside(boundary, &abs) {
                let target = std::fs::read_link(&abs).unwrap_or_default();
                return Err(self.refuse(
                    rel.as_os_str().as_bytes(),
                    format!("symlink to `{}` points outside the stage", target.display()),
                ));
            }
        }
        // Deepest first, so setting a child's time does not disturb its parent's.
        self.dir_times
            .sort_by_key(|(p, _)| std::cmp::Reverse(p.components().count()));
        for (rel, t) in std::mem::take(&mut self.dir_times) {
            let abs = self.root.join(&rel);
            if let Ok(d) = std::fs::File::open(&abs) {
                let _ = d.set_modified(t);
            }
        }
        Ok(self.entries)
    }

    /// Make sure `rel` is a real directory of the tree, creating missing parts.
    fn ensure_dir(&mut self, raw: &[u8], rel: &Path) -> Result<(), FetchError> {
        let mut cur = PathBuf::new();
        for c in rel.components() {
            cur.push(c);
            if self.known_dirs.contains(&cur) {
                continue;
            }
            let abs = self.root.join(&cur);
            match std::fs::symlink_metadata(&abs) {
                Ok(m) if m.file_type().is_dir() => {}
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(self.refuse(
                        raw,
                        format!(
                            "it would be written through the symlink `{}`",
                            cur.display()
                        ),
                    ));
                }
                Ok(_) => {
                    return Err(self.refuse(
                        raw,
                        format!("`{}` is a file, not a directory", cur.display()),
                    ));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs_err::create_dir(&abs)?;
                }
                Err(source) => return Err(FetchError::LocalFile { path: abs, source }),
            }
            self.known_dirs.insert(cur.clone());
        }
        Ok(())
    }

    /// Like [`ensure_dir`](Self::ensure_dir) but never creates anything.
    fn check_real_dirs(&self, raw: &[u8], rel: &Path) -> Result<(), FetchError> {
        let mut cur = PathBuf::new();
        for c in rel.components() {
            cur.push(c);
            if self.known_dirs.contains(&cur) {
                continue;
            }
            match std::fs::symlink_metadata(self.root.join(&cur)) {
                Ok(m) if m.file_type().is_dir() => {}
                _ => {
                    return Err(self.refuse(
                        raw,
                        format!(
                            "hard link through `{}`, which is not a directory",
                            cur.display()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Create the parent directories of a leaf entry and clear the leaf's place: a later entry
    /// replaces an earlier file or link (as tar does), but never a directory.
    fn prepare_leaf(&mut self, raw: &[u8], rel: &Path) -> Result<PathBuf, FetchError> {
        if rel.as_os_str().is_empty() {
            return Err(self.refuse(raw, "entry names the archive root"));
        }
        if let Some(parent) = rel.parent() {
            self.ensure_dir(raw, parent)?;
        }
        let abs = self.root.join(rel);
        match std::fs::symlink_metadata(&abs) {
            Ok(m) if m.file_type().is_dir() => {
                Err(self.refuse(raw, "a file entry would replace a directory"))
            }
            Ok(_) => {
                fs_err::remove_file(&abs)?;
                Ok(abs)
            }
            Err(_) => Ok(abs),
        }
    }
}

/// Entry name → relative path: no absolute paths, no `..`, `.` and empty parts dropped.
pub(crate) fn normalize(raw: &[u8]) -> Result<PathBuf, String> {
    if raw.contains(&0) {
        return Err("NUL byte in the name".into());
    }
    if raw.first() == Some(&b'/') {
        return Err("absolute path".into());
    }
    let mut out = PathBuf::new();
    for part in raw.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => return Err("`..` component escapes the stage".into()),
            p => out.push(OsStr::from_bytes(p)),
        }
    }
    Ok(out)
}

/// Whether `target`, read relative to directory `parent` (relative to the root), leaves the root
/// when resolved lexically.
fn lexical_escape(parent: &Path, target: &Path) -> bool {
    let mut depth = parent.components().count() as isize;
    for c in target.components() {
        match c {
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return true,
        }
    }
    false
}

/// Resolve the symlink `link` for real (following symlinks inside `boundary`) and report whether
/// it stays inside `boundary`. Missing components are resolved lexically.
fn resolves_inside(boundary: &Path, link: &Path) -> bool {
    let Ok(parent) = link.parent().unwrap_or(link).strip_prefix(boundary) else {
        return false;
    };
    let mut stack: Vec<OsString> = parent
        .components()
        .map(|c| c.as_os_str().to_os_string())
        .collect();
    let Ok(target) = std::fs::read_link(link) else {
        return false;
    };
    if target.is_absolute() {
        return false;
    }
    let mut queue: VecDeque<OsString> = target
        .components()
        .map(|c| c.as_os_str().to_os_string())
        .collect();
    let mut hops = 0;
    while let Some(part) = queue.pop_front() {
        if part == "." {
            continue;
        }
        if part == ".." {
            if stack.pop().is_none() {
                return false;
            }
            continue;
        }
        stack.push(part);
        let here: PathBuf = boundary.join(stack.iter().collect::<PathBuf>());
        if let Ok(m) = std::fs::symlink_metadata(&here)
            && m.file_type().is_symlink()
        {
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return false;
            }
            let Ok(t) = std::fs::read_link(&here) else {
                return false;
            };
            if t.is_absolute() {
                return false;
            }
            stack.pop();
            for c in t.components().rev() {
                queue.push_front(c.as_os_str().to_os_string());
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_names() {
        assert_eq!(normalize(b"./a//b/./c").unwrap(), PathBuf::from("a/b/c"));
        assert_eq!(normalize(b"./").unwrap(), PathBuf::new());
        assert!(normalize(b"/etc/passwd").is_err());
        assert!(normalize(b"a/../../b").is_err());
        assert!(normalize(b"a/..").is_err());
        assert!(normalize(b"a\0b").is_err());
    }

    #[test]
    fn lexical_escapes() {
        assert!(!lexical_escape(Path::new("a/b"), Path::new("../c")));
        assert!(!lexical_escape(Path::new("a"), Path::new("..")));
        assert!(lexical_escape(Path::new("a"), Path::new("../..")));
        assert!(lexical_escape(Path::new(""), Path::new("x/../../y")));
    }

    #[test]
    fn extraction_is_bounded() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("root");
        fs_err::create_dir(&root).unwrap();
        let mut t = SafeTree::new(&root, "bomb.tar").with_max_bytes(1 << 20, false);
        t.file(b"top/small", 0o644, None, &mut io::repeat(0).take(1 << 19))
            .unwrap();
        // What a sparse member of any declared size reads as: zeros.
        let err = t
            .file(b"top/sparse", 0o644, None, &mut io::repeat(0).take(1 << 30))
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("`top/sparse` expands the archive beyond 1048576 bytes"),
            "{err}"
        );
        assert!(!root.join("top/sparse").exists());
    }

    #[test]
    fn refuses_escapes_and_writes_through_links() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("root");
        fs_err::create_dir(&root).unwrap();
        let mut t = SafeTree::new(&root, "test.tar");
        t.file(b"top/a.txt", 0o644, None, &mut &b"hi"[..]).unwrap();
        t.symlink(b"top/link", b"a.txt").unwrap();
        t.symlink(b"top/up", b"..").unwrap();
        assert!(t.symlink(b"top/out", b"../..").is_err());
        assert!(t.symlink(b"top/abs", b"/etc").is_err());
        t.symlink(b"top/dirlink", b".").unwrap();
        let e = t
            .file(b"top/dirlink/x", 0o644, None, &mut &b""[..])
            .unwrap_err();
        assert!(e.to_string().contains("through the symlink"), "{e}");
        assert!(t.hardlink(b"top/h", b"../x").is_err());
        assert!(t.hardlink(b"top/h", b"top/link").is_err());
        t.hardlink(b"top/h", b"top/a.txt").unwrap();
        // `top/up -> ..` is inside the root, but not inside `top` once it is stripped.
        let top = root.join("top");
        let e = t.finish(&top).unwrap_err();
        assert!(e.to_string().contains("top/up"), "{e}");
    }

    #[test]
    fn chained_links_resolve_for_real() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("r");
        fs_err::create_dir(&root).unwrap();
        let mut t = SafeTree::new(&root, "x");
        // r -> . (the root); a -> r/.. is lexically the root but really its parent.
        t.symlink(b"r", b".").unwrap();
        t.symlink(b"a", b"r/..").unwrap();
        let e = t.finish(&root).unwrap_err();
        assert!(e.to_string().contains("`a`"), "{e}");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// Path-ish byte strings from a small alphabet that includes the dangerous parts.
        fn name() -> impl Strategy<Value = Vec<u8>> {
            prop::collection::vec(
                prop_oneof![
                    Just(&b"a"[..]),
                    Just(&b"b"[..]),
                    Just(&b".."[..]),
                    Just(&b"."[..]),
                    Just(&b""[..]),
                ],
                1..5,
            )
            .prop_flat_map(|parts| {
                (Just(parts), any::<bool>()).prop_map(|(parts, abs)| {
                    let mut v = if abs { b"/".to_vec() } else { Vec::new() };
                    v.extend(parts.join(&b'/'));
                    v
                })
            })
        }

        #[derive(Debug, Clone)]
        enum Op {
            Dir(Vec<u8>),
            File(Vec<u8>),
            Symlink(Vec<u8>, Vec<u8>),
            Hardlink(Vec<u8>, Vec<u8>),
        }

        fn op() -> impl Strategy<Value = Op> {
            prop_oneof![
                name().prop_map(Op::Dir),
                name().prop_map(Op::File),
                (name(), name()).prop_map(|(a, b)| Op::Symlink(a, b)),
                (name(), name()).prop_map(|(a, b)| Op::Hardlink(a, b)),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            /// Whatever the entries, nothing appears outside the root, and once `finish`
            /// accepts the tree every symlink in it resolves inside the root.
            #[test]
            fn nothing_escapes(ops in prop::collection::vec(op(), 1..12)) {
                let outer = tempfile::tempdir().unwrap();
                let root = outer.path().join("root");
                fs_err::create_dir(&root).unwrap();
                let mut t = SafeTree::new(&root, "prop");
                let mut failed = false;
                for op in &ops {
                    let r = match op {
                        Op::Dir(n) => t.dir(n, 0o755, None),
                        Op::File(n) => t.file(n, 0o644, None, &mut &b"x"[..]),
                        Op::Symlink(n, target) => t.symlink(n, target),
                        Op::Hardlink(n, target) => t.hardlink(n, target),
                    };
                    failed |= r.is_err();
                    let outside: Vec<_> = std::fs::read_dir(outer.path()).unwrap().collect();
                    prop_assert_eq!(outside.len(), 1);
                }
                if !failed && t.finish(&root).is_ok() {
                    let real_root = root.canonicalize().unwrap();
                    for e in walkdir::WalkDir::new(&root).into_iter().flatten() {
                        if e.file_type().is_symlink() {
                            if let Ok(real) = e.path().canonicalize() {
                                prop_assert!(real.starts_with(&real_root), "{:?} -> {:?}", e.path(), real);
                            }
                        }
                    }
                }
            }
        }
    }
}
