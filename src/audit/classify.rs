//! Where a resolution lands: inside the stack, in an allowed system library,
//! outside (a leak), or nowhere.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;

use super::error::AuditError;

/// Libraries a stack may take from the host by default: glibc and its
/// loader, the GCC runtime, and the CUDA driver with the NVIDIA driver
/// libraries (they must match the kernel driver, so they always come from
/// the host).
pub const DEFAULT_ALLOW: &[&str] = &[
    // glibc and the loader
    "ld-linux*.so*",
    "ld64.so*",
    "libc.so*",
    "libm.so*",
    "libmvec.so*",
    "libpthread.so*",
    "libdl.so*",
    "librt.so*",
    "libutil.so*",
    "libresolv.so*",
    "libnsl.so*",
    "libanl.so*",
    "libcrypt.so*",
    "libBrokenLocale.so*",
    "libthread_db.so*",
    "libnss_*.so*",
    "libc_malloc_debug.so*",
    // GCC runtime
    "libgcc_s.so*",
    "libstdc++.so*",
    "libgfortran.so*",
    "libgomp.so*",
    "libatomic.so*",
    "libquadmath.so*",
    // CUDA driver and NVIDIA driver libraries
    "libcuda.so*",
    "libnvidia-*.so*",
    "libnvidia-ml.so*",
];

/// Classification of one resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Resolves inside the audited tree.
    Stack,
    /// Resolves outside, to an allowed system library.
    Allowed,
    /// Not found, but the name is allowed (e.g. `libcuda.so.1` on a build
    /// machine without a GPU driver).
    AllowedMissing,
    /// Resolves outside the tree to a library that is not allowed.
    Leak,
    /// Found nowhere.
    Unresolved,
    /// The loader stops with an error at this name.
    LoaderError,
}

/// Glob patterns matched against library names and paths.
#[derive(Clone, Debug)]
pub struct AllowList {
    patterns: Vec<String>,
    set: GlobSet,
}

impl AllowList {
    /// `extra` globs, plus [`DEFAULT_ALLOW`] when `defaults` is set.
    pub fn new(extra: &[String], defaults: bool) -> Result<AllowList, AuditError> {
        let mut patterns: Vec<String> = Vec::new();
        if defaults {
            patterns.extend(DEFAULT_ALLOW.iter().map(|s| s.to_string()));
        }
        patterns.extend(extra.iter().cloned());
        let mut b = GlobSetBuilder::new();
        for p in &patterns {
            let g = Glob::new(p).map_err(|e| AuditError::InvalidGlob {
                glob: p.clone(),
                message: e.kind().to_string(),
            })?;
            b.add(g);
        }
        let set = b.build().map_err(|e| AuditError::InvalidGlob {
            glob: patterns.join(" "),
            message: e.to_string(),
        })?;
        Ok(AllowList { patterns, set })
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether a name or path (or its last component) matches.
    pub fn allows(&self, s: &str) -> bool {
        if s.is_empty() {
            return false;
        }
        if self.set.is_match(s) {
            return true;
        }
        match s.rsplit_once('/') {
            Some((_, base)) if !base.is_empty() => self.set.is_match(base),
            _ => false,
        }
    }

    /// Whether any of the strings matches.
    pub fn allows_any<'a>(&self, items: impl IntoIterator<Item = &'a str>) -> bool {
        items.into_iter().any(|s| self.allows(s))
    }
}

/// The audited tree(s), as mount points in the virtual file system.
#[derive(Clone, Debug)]
pub struct Stack {
    pub prefixes: Vec<PathBuf>,
}

impl Stack {
    pub fn contains(&self, p: &Path) -> bool {
        self.prefixes.iter().any(|m| under(p, m))
    }

    /// The package or prefix a file belongs to, for grouping: the path below
    /// the mount point up to the first `bin`, `lib`, `lib64`, … component.
    pub fn group(&self, p: &Path) -> String {
        use std::os::unix::ffi::OsStrExt;
        const STOP: &[&[u8]] = &[
            b"bin", b"sbin", b"lib", b"lib64", b"lib32", b"libexec", b"share", b"include", b"etc",
            b"plugins",
        ];
        let mount = self
            .prefixes
            .iter()
            .find(|m| under(p, m))
            .unwrap_or(&self.prefixes[0]);
        let bytes = p.as_os_str().as_bytes();
        let m = mount.as_os_str().as_bytes();
        let rest = if under(p, mount) {
            &bytes[m.len().min(bytes.len())..]
        } else {
            bytes
        };
        let rest = rest.strip_prefix(b"/").unwrap_or(rest);
        // Directory components only (the last one is the file name).
        let dir = match rest.iter().rposition(|&b| b == b'/') {
            Some(i) => &rest[..i],
            None => &rest[..0],
        };
        let mut end = 0;
        for comp in dir.split(|&b| b == b'/') {
            if comp.is_empty() || STOP.contains(&comp) {
                break;
            }
            end += comp.len() + 1;
        }
        let group = &dir[..end.saturating_sub(1).min(dir.len())];
        let m = String::from_utf8_lossy(m);
        if group.is_empty() {
            m.into_owned()
        } else if m.ends_with('/') {
            format!("{m}{}", String::from_utf8_lossy(group))
        } else {
            format!("{m}/{}", String::from_utf8_lossy(group))
        }
    }
}

/// Whether `p` is `dir` or below it (byte comparison on normalised paths;
/// `Path::starts_with` compares component by component and is much slower).
pub fn under(p: &Path, dir: &Path) -> bool {
    let (p, d) = (
        p.as_os_str().as_encoded_bytes(),
        dir.as_os_str().as_encoded_bytes(),
    );
    let d = if d.len() > 1 && d.ends_with(b"/") {
        &d[..d.len() - 1]
    } else {
        d
    };
    p.starts_with(d) && (p.len() == d.len() || p[d.len()] == b'/' || d == b"/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_is_component_wise() {
        assert!(under(Path::new("/a/b/c"), Path::new("/a/b")));
        assert!(under(Path::new("/a/b"), Path::new("/a/b")));
        assert!(under(Path::new("/a/b"), Path::new("/a/b/")));
        assert!(!under(Path::new("/a/bc"), Path::new("/a/b")));
        assert!(under(Path::new("/x"), Path::new("/")));
    }

    #[test]
    fn default_list_matches_names_and_paths() {
        let a = AllowList::new(&[], true).unwrap();
        assert!(a.allows("libc.so.6"));
        assert!(a.allows("/lib/x86_64-linux-gnu/libc.so.6"));
        assert!(a.allows("ld-linux-x86-64.so.2"));
        assert!(a.allows("libnvidia-ml.so.1"));
        assert!(a.allows("libstdc++.so.6"));
        assert!(!a.allows("libcurl.so.4"));
        assert!(!a.allows("libcrypto.so.3"));
        assert!(!a.allows(""));
        let b = AllowList::new(&["/usr/lib64/libcurl.so*".into()], false).unwrap();
        assert!(b.allows("/usr/lib64/libcurl.so.4"));
        assert!(!b.allows("libc.so.6"));
        assert!(matches!(
            AllowList::new(&["lib[".into()], false),
            Err(AuditError::InvalidGlob { .. })
        ));
    }

    #[test]
    fn groups_by_prefix() {
        let s = Stack {
            prefixes: vec!["/user-environment".into()],
        };
        assert_eq!(
            s.group(Path::new(
                "/user-environment/linux-zen3/gcc-12/libfabric-2.0-abc/lib/libfabric.so.1"
            )),
            "/user-environment/linux-zen3/gcc-12/libfabric-2.0-abc"
        );
        assert_eq!(
            s.group(Path::new("/user-environment/bin/x")),
            "/user-environment"
        );
        assert_eq!(
            s.group(Path::new("/user-environment/x")),
            "/user-environment"
        );
        assert!(s.contains(Path::new("/user-environment/a")));
        assert!(!s.contains(Path::new("/user-environment2/a")));
    }
}
