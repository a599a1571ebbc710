//! The link guard: a link that would take a library from the host's system
//! directories fails, unless the library is glibc's, the compiler's runtime
//! or one that a declared external provides.
//!
//! The compiler searches the host's `/usr/lib/<arch>-linux-gnu` (and `/lib`,
//! `/usr/lib64`, …) after the directories it is given, so a configure check
//! such as `AC_CHECK_LIB(bz2, …)` in a build that does not declare bzip2
//! finds the host's `libbz2.so` and the installed program needs the host's
//! library at run time: a leak the audit reports only at the end. The
//! wrapper resolves each `-l<name>` (and each library named by its path) the
//! way the linker does — the `-L` directories in order, then the system
//! directories; `.so` before `.a` in each, `.a` only after `-static` or
//! `-Wl,-Bstatic` — and when the first match is in a system directory and
//! the library is not allowed, it stops with an error instead of running the
//! compiler. A configure check then sees the library as missing, as it would
//! on a system without it, and the package builds without it or says that
//! it needs it.
//!
//! Allowed from the host: glibc's libraries, the GCC runtime and the CUDA
//! driver ([`ALWAYS`], the same families the linkage audit allows by
//! default) and the `libraries:` of the externals in system prefixes the
//! package depends on (`STACK_WRAP_HOST_LIBS`, written by the build).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Libraries every build may link from the host, by the file name before
/// `.so`: glibc (and libxcrypt's `libcrypt`), the GCC runtime, the CUDA
/// driver and NVML (they must match the kernel's driver).
pub const ALWAYS: &[&str] = &[
    "libc",
    "libm",
    "libmvec",
    "libpthread",
    "libdl",
    "librt",
    "libutil",
    "libresolv",
    "libnsl",
    "libanl",
    "libcrypt",
    "libBrokenLocale",
    "libthread_db",
    "libc_malloc_debug",
    "libc_nonshared",
    "libgcc",
    "libgcc_s",
    "libgcc_eh",
    "libstdc++",
    "libsupc++",
    "libgfortran",
    "libgomp",
    "libatomic",
    "libquadmath",
    "libssp",
    "libssp_nonshared",
    "libcuda",
    "libnvidia-ml",
];

/// The host directories the linker searches after the `-L` ones.
pub fn system_lib_dirs() -> Vec<PathBuf> {
    let multiarch = format!("{}-linux-gnu", std::env::consts::ARCH);
    [
        format!("/usr/local/lib/{multiarch}"),
        "/usr/local/lib".into(),
        format!("/lib/{multiarch}"),
        format!("/usr/lib/{multiarch}"),
        "/lib64".into(),
        "/usr/lib64".into(),
        "/lib".into(),
        "/usr/lib".into(),
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect()
}

/// A host library a link would take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The argument as given (`-lbz2`, `/usr/lib/…/libbz2.so`).
    pub arg: String,
    /// The file the linker would use.
    pub file: PathBuf,
}

/// What the guard needs to know: the system directories and the allowed
/// library names beyond [`ALWAYS`].
pub struct Guard<'a> {
    pub system_dirs: &'a [PathBuf],
    pub allowed: &'a [String],
}

impl Guard<'_> {
    /// The first library of a link's final argument list that resolves in a
    /// system directory and is not allowed.
    pub fn refused(&self, args: &[OsString]) -> Option<Refused> {
        // Every -L applies to every -l, wherever it appears (GNU ld).
        let dirs = lib_dirs(args);
        let mut is_static = false;
        let mut i = 0;
        while i < args.len() {
            let b = args[i].as_bytes();
            let mut next = || {
                i += 1;
                args.get(i).map(|a| a.as_bytes()).unwrap_or_default()
            };
            let lib = match b {
                b"-L" => {
                    next();
                    None
                }
                b"-l" => Some(next()),
                b"-static" => {
                    is_static = true;
                    None
                }
                b"-Wl,-Bstatic" | b"-Wl,-Bstatic,-Bdynamic" => {
                    is_static = b == b"-Wl,-Bstatic";
                    None
                }
                b"-Wl,-Bdynamic" => {
                    is_static = false;
                    None
                }
                _ if b.starts_with(b"-l") => Some(&b[2..]),
                _ if !b.starts_with(b"-") && is_library_file(b) => {
                    if let Some(r) = self.check_file(&args[i], Path::new(OsStr::from_bytes(b))) {
                        return Some(r);
                    }
                    None
                }
                _ => None,
            };
            if let Some(name) = lib {
                let arg = format!("-l{}", String::from_utf8_lossy(name));
                if let Some(file) = self.resolve(&dirs, name, is_static) {
                    if let Some(r) = self.check_file(OsStr::new(&arg), &file) {
                        return Some(r);
                    }
                }
            }
            i += 1;
        }
        None
    }

    /// Where the linker finds `-l<name>`: the `-L` directories, then the
    /// system ones.
    fn resolve(&self, dirs: &[PathBuf], name: &[u8], is_static: bool) -> Option<PathBuf> {
        let files: Vec<OsString> = match name.strip_prefix(b":") {
            Some(exact) => vec![OsStr::from_bytes(exact).to_owned()],
            None => {
                let n = OsStr::from_bytes(name).to_string_lossy();
                if is_static {
                    vec![format!("lib{n}.a").into()]
                } else {
                    vec![format!("lib{n}.so").into(), format!("lib{n}.a").into()]
                }
            }
        };
        dirs.iter()
            .chain(self.system_dirs)
            .flat_map(|d| files.iter().map(move |f| d.join(f)))
            .find(|p| p.is_file())
    }

    /// `file` is refused if it lies in a system directory and its library
    /// name is not allowed.
    fn check_file(&self, arg: &OsStr, file: &Path) -> Option<Refused> {
        let dir = file.parent()?;
        if !self.system_dirs.iter().any(|s| dir == s) {
            return None;
        }
        let name = file.file_name()?.to_string_lossy();
        let stem = library_stem(&name);
        let allowed = ALWAYS.contains(&stem) || self.allowed.iter().any(|a| a == stem);
        (!allowed).then(|| Refused {
            arg: arg.to_string_lossy().into_owned(),
            file: file.to_path_buf(),
        })
    }
}

/// The `-L` directories of a link, in order.
fn lib_dirs(args: &[OsString]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut it = args.iter().map(|a| a.as_bytes());
    while let Some(b) = it.next() {
        let dir = match b {
            b"-L" => it.next(),
            _ => b.strip_prefix(b"-L").filter(|d| !d.is_empty()),
        };
        if let Some(d) = dir {
            dirs.push(PathBuf::from(OsStr::from_bytes(d)));
        }
    }
    dirs
}

/// A path naming a library: `….so`, `….so.N…` or `….a`.
fn is_library_file(b: &[u8]) -> bool {
    let name = b.rsplit(|&c| c == b'/').next().unwrap_or(b);
    name.starts_with(b"lib")
        && (name.ends_with(b".so") || name.ends_with(b".a") || contains(name, b".so."))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `libbz2.so.1.0` → `libbz2`; `libfoo.a` → `libfoo`.
pub fn library_stem(file: &str) -> &str {
    let end = file
        .find(".so")
        .or_else(|| file.strip_suffix(".a").map(str::len))
        .unwrap_or(file.len());
    &file[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    /// A fake host: `sys` holds libbz2.so, libm.so, libz.a; `dep` libbz2.so.
    fn host() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let (sys, dep) = (t.path().join("sys"), t.path().join("dep"));
        for (d, f) in [
            (&sys, "libbz2.so"),
            (&sys, "libm.so"),
            (&sys, "libz.a"),
            (&sys, "libffi.so.8"),
            (&dep, "libbz2.so"),
        ] {
            fs_err::create_dir_all(d).unwrap();
            fs_err::write(d.join(f), "").unwrap();
        }
        (t, sys, dep)
    }

    #[test]
    fn a_host_library_nobody_declared_is_refused() {
        let (_t, sys, _) = host();
        let dirs = [sys.clone()];
        let g = Guard {
            system_dirs: &dirs,
            allowed: &[],
        };
        let r = g.refused(&v(&["x.o", "-lm", "-lbz2", "-o", "x"])).unwrap();
        assert_eq!(r.arg, "-lbz2");
        assert_eq!(r.file, sys.join("libbz2.so"));
        // split form, static archives, exact names and paths
        assert!(g.refused(&v(&["-l", "bz2"])).is_some());
        assert!(g.refused(&v(&["-lz"])).is_some(), "libz.a when no .so");
        assert!(g.refused(&v(&["-l:libffi.so.8"])).is_some());
        let direct = sys.join("libffi.so.8").to_string_lossy().into_owned();
        assert_eq!(g.refused(&v(&["x.o", &direct])).unwrap().arg, direct);
    }

    #[test]
    fn glibc_declared_externals_and_dependencies_are_allowed() {
        let (_t, sys, dep) = host();
        let dirs = [sys.clone()];
        let none = Guard {
            system_dirs: &dirs,
            allowed: &[],
        };
        assert_eq!(none.refused(&v(&["-lm", "-lstdc++", "-lnotthere"])), None);
        // a dependency's -L directory comes first
        let l = format!("-L{}", dep.display());
        assert_eq!(none.refused(&v(&[&l, "-lbz2"])), None);
        assert!(
            none.refused(&v(&["-lbz2", &l])).is_none(),
            "-L applies to all -l"
        );
        // an external's `libraries:`
        let ext = ["libbz2".to_string(), "libz".to_string()];
        let g = Guard {
            system_dirs: &dirs,
            allowed: &ext,
        };
        assert_eq!(g.refused(&v(&["-lbz2", "-lz"])), None);
    }

    #[test]
    fn static_mode_looks_for_archives_only() {
        let (_t, sys, _) = host();
        let dirs = [sys];
        let g = Guard {
            system_dirs: &dirs,
            allowed: &[],
        };
        assert_eq!(
            g.refused(&v(&["-Wl,-Bstatic", "-lbz2"])),
            None,
            "no libbz2.a"
        );
        assert!(
            g.refused(&v(&["-Wl,-Bstatic", "-lbz2", "-Wl,-Bdynamic", "-lbz2"]))
                .is_some()
        );
    }

    #[test]
    fn stems() {
        assert_eq!(library_stem("libbz2.so.1.0"), "libbz2");
        assert_eq!(library_stem("libz.a"), "libz");
        assert_eq!(library_stem("libstdc++.so"), "libstdc++");
    }
}
