//! The compiler wrapper: the `stack` binary itself, called as `cc`, `gcc`,
//! `c++`, `g++`, `gfortran`, `ld` or `nvcc` through symlinks in a per-build wrapper
//! directory that is first on `PATH` (`CC`, `CXX`, `FC` point there too).
//!
//! It reads its configuration from the environment the build sets up and
//! `exec`s the real compiler with extra arguments:
//!
//! | variable | meaning |
//! |---|---|
//! | `STACK_WRAP_REAL_CC`, `_CXX`, `_FC`, `_LD`, `_NVCC` | the real programs (absolute paths; `nvcc`: see [`nvcc`]) |
//! | `STACK_WRAP_INCLUDES` | `:`-separated dirs added as `-I` (every mode but version queries) |
//! | `STACK_WRAP_LIBDIRS` | dirs added as `-L` when linking |
//! | `STACK_WRAP_RPATHS` | dirs added as `-Wl,-rpath,DIR` (or `-rpath DIR` for `ld`) when linking |
//! | `STACK_WRAP_DTAGS` | `rpath` (default: `--disable-new-dtags`, RPATH wins over `LD_LIBRARY_PATH`), `runpath`, or `keep` |
//! | `STACK_WRAP_PREFIX_MAPS` | `:`-separated `OLD=NEW` pairs added as `-ffile-prefix-map=OLD=NEW` when compiling or linking (the stage directory, so debug info and `__FILE__` do not depend on the build directory) |
//! | `STACK_WRAP_CPPFLAGS` | flags (split on whitespace) added before the call's arguments when preprocessing, assembling, compiling or linking (a recipe's `flags:` with `via: inject`) |
//! | `STACK_WRAP_CFLAGS`, `STACK_WRAP_CXXFLAGS` | the same for C (`cc`, `gcc`) or C++ (`c++`, `g++`) calls that compile or link |
//! | `STACK_WRAP_FFLAGS` | the same for Fortran calls that preprocess, assemble, compile or link |
//! | `STACK_WRAP_LDFLAGS` | the same for compiler calls that link |
//! | `STACK_WRAP_LDLIBS` | added at the very end of compiler calls that link |
//! | `STACK_WRAP_HOST_LIBS` | if set, the link guard ([`host_link`]) is on: `:`-separated library names (`libz`) the link may take from the host's system directories besides glibc's and the compiler runtime |
//! | `STACK_WRAP_LOG` | if set, append one line per call (mode and final argv) to this file |
//!
//! Modes are detected from the arguments like Spack's `cc`: a version query
//! (`-v`, `-V`, `--version`, `-dumpversion`, `-print-*`, …) passes through
//! untouched; `-E`/`-M`/`-MM` (preprocess), `-S` (assemble), `-c` and
//! `-fsyntax-only` (compile) get `-I` only; anything else links and also gets
//! `-L` and RPATHs. User `-I`/`-L` flags naming system directories
//! (`/usr/include`, `/usr/lib*`, `/lib*`, …) are moved behind the
//! dependency directories, so a system copy cannot shadow a stack library;
//! `-isystem /usr/include` (or `/usr/local/include`) is dropped: it would
//! break libstdc++'s `#include_next`, and the compiler searches it anyway.
//! `ld` called from inside a wrapped compiler (gcc's collect2) passes through
//! (`STACK_WRAP_ACTIVE` marks the subtree), as does `ld -r`. Injected flags
//! ([`InjectedFlags`]) go first (after the prefix maps), in Spack's `cc` order
//! (`fflags`, `cppflags`, `cflags`/`cxxflags`, `ldflags`), so the call's own
//! arguments can override them; a direct `ld` call gets none.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

mod config;
mod flags;
pub mod host_link;
pub mod nvcc;
mod system_dirs;
pub use config::{Dtags, WrapConfig};
pub use flags::{InjectedFlags, flag_var};
use system_dirs::default_isystem;
pub use system_dirs::is_system_dir;

pub const ENV_REAL_CC: &str = "STACK_WRAP_REAL_CC";
pub const ENV_REAL_CXX: &str = "STACK_WRAP_REAL_CXX";
pub const ENV_REAL_FC: &str = "STACK_WRAP_REAL_FC";
pub const ENV_REAL_LD: &str = "STACK_WRAP_REAL_LD";
pub const ENV_REAL_NVCC: &str = "STACK_WRAP_REAL_NVCC";
pub const ENV_INCLUDES: &str = "STACK_WRAP_INCLUDES";
pub const ENV_LIBDIRS: &str = "STACK_WRAP_LIBDIRS";
pub const ENV_RPATHS: &str = "STACK_WRAP_RPATHS";
pub const ENV_DTAGS: &str = "STACK_WRAP_DTAGS";
pub const ENV_LOG: &str = "STACK_WRAP_LOG";
pub const ENV_PREFIX_MAPS: &str = "STACK_WRAP_PREFIX_MAPS";
pub const ENV_ACTIVE: &str = "STACK_WRAP_ACTIVE";
pub const ENV_HOST_LIBS: &str = "STACK_WRAP_HOST_LIBS";

/// The names the wrapper answers to, with their language.
pub const WRAPPER_NAMES: &[(&str, Lang)] = &[
    ("cc", Lang::C),
    ("gcc", Lang::C),
    ("c++", Lang::Cxx),
    ("g++", Lang::Cxx),
    ("gfortran", Lang::Fortran),
    ("f77", Lang::Fortran),
    ("f95", Lang::Fortran),
    ("ld", Lang::Ld),
    ("nvcc", Lang::Cuda),
];

/// Which real program a wrapper name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C,
    Cxx,
    Fortran,
    Ld,
    /// `nvcc`: see [`nvcc`] (made deterministic, nothing injected).
    Cuda,
}

impl Lang {
    /// The variable holding the real program.
    pub fn real_var(self) -> &'static str {
        match self {
            Lang::C => ENV_REAL_CC,
            Lang::Cxx => ENV_REAL_CXX,
            Lang::Fortran => ENV_REAL_FC,
            Lang::Ld => ENV_REAL_LD,
            Lang::Cuda => ENV_REAL_NVCC,
        }
    }
}

/// What a compiler call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Version or configuration query: nothing injected.
    Query,
    Preprocess,
    Assemble,
    Compile,
    Link,
    /// `ld -r` or `ld` inside a wrapped compiler: nothing injected.
    Passthrough,
}

/// The language for a program name (`/…/stage/wrap/g++` → C++), if it is a wrapper name.
pub fn lang_for(argv0: &OsStr) -> Option<Lang> {
    let name = Path::new(argv0).file_name()?;
    WRAPPER_NAMES
        .iter()
        .find(|(n, _)| OsStr::new(n) == name)
        .map(|&(_, l)| l)
}

/// Compiler options whose value is the next argument.
const TAKES_VALUE: &[&str] = &[
    "-o",
    "-I",
    "-L",
    "-l",
    "-MF",
    "-MT",
    "-MQ",
    "-x",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-isysroot",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-aux-info",
    "-u",
    "-z",
    "-T",
    "-e",
    "--param",
    "-J",
];

fn is_query(a: &[u8]) -> bool {
    matches!(
        a,
        b"-v"
            | b"-V"
            | b"--version"
            | b"-dumpversion"
            | b"-dumpfullversion"
            | b"-dumpmachine"
            | b"-dumpspecs"
            | b"--help"
            | b"-###"
            | b"-print-search-dirs"
            | b"-print-libgcc-file-name"
            | b"-print-multiarch"
            | b"-print-multi-directory"
            | b"-print-multi-lib"
            | b"-print-multi-os-directory"
            | b"-print-sysroot"
            | b"-print-sysroot-headers-suffix"
    ) || a.starts_with(b"-print-prog-name=")
        || a.starts_with(b"-print-file-name=")
        || a.starts_with(b"--help=")
}

/// Detect the mode of a call to a compiler (not `ld`).
pub fn compiler_mode(args: &[OsString]) -> Mode {
    if args.is_empty() {
        return Mode::Query;
    }
    let mut mode = Mode::Link;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_bytes();
        if is_query(a) {
            return Mode::Query;
        }
        match a {
            b"-E" | b"-M" | b"-MM" => mode = Mode::Preprocess,
            b"-S" if mode != Mode::Preprocess => mode = Mode::Assemble,
            b"-c" | b"-fsyntax-only" if mode == Mode::Link => mode = Mode::Compile,
            _ => {
                if TAKES_VALUE.iter().any(|t| t.as_bytes() == a) {
                    i += 1;
                }
            }
        }
        i += 1;
    }
    mode
}

/// Detect the mode of a direct `ld` call.
pub fn ld_mode(args: &[OsString]) -> Mode {
    if args.is_empty() {
        return Mode::Query;
    }
    for a in args {
        match a.as_bytes() {
            b"-r" | b"--relocatable" | b"-Ur" => return Mode::Passthrough,
            b"-v" | b"-V" | b"--version" | b"--help" => return Mode::Query,
            _ => {}
        }
    }
    Mode::Link
}

/// The new argument list for a call in `lang` with `args`.
pub fn rewrite(
    lang: Lang,
    args: &[OsString],
    cfg: &WrapConfig,
    nested: bool,
) -> (Mode, Vec<OsString>) {
    if lang == Lang::Ld {
        return rewrite_ld(args, cfg, nested);
    }
    let mode = compiler_mode(args);
    if mode == Mode::Query {
        return (mode, args.to_vec());
    }
    let link = mode == Mode::Link;
    let mut out = Vec::with_capacity(
        args.len() + cfg.includes.len() + 3 * cfg.rpaths.len() + cfg.prefix_maps.len() + 2,
    );
    // First, so that a map the package passes itself (later) wins.
    for (old, new) in &cfg.prefix_maps {
        let mut s = OsString::from("-ffile-prefix-map=");
        s.push(old);
        s.push("=");
        s.push(new);
        out.push(s);
    }
    out.extend(cfg.flags.before(lang, mode));
    let mut sys_inc = Vec::new();
    let mut sys_lib = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let b = a.as_bytes();
        if let Some(used) = default_isystem(args, i) {
            i += used;
            continue;
        }
        // -I DIR / -IDIR / -L DIR / -LDIR naming a system dir: move back.
        let (flag, dir, used) = if (b == b"-I" || b == b"-L") && i + 1 < args.len() {
            (&b[..2], Some(Path::new(&args[i + 1])), 2)
        } else if b.len() > 2 && (b.starts_with(b"-I") || b.starts_with(b"-L")) {
            (&b[..2], Some(Path::new(OsStr::from_bytes(&b[2..]))), 1)
        } else {
            (&b[..0], None, 1)
        };
        if let Some(dir) = dir.filter(|d| is_system_dir(d)) {
            let moved = prefixed(std::str::from_utf8(flag).unwrap_or("-I"), dir);
            if flag == b"-I" {
                sys_inc.push(moved);
            } else {
                sys_lib.push(moved);
            }
            i += used;
            continue;
        }
        if TAKES_VALUE.iter().any(|t| t.as_bytes() == b) && i + 1 < args.len() {
            out.push(a.clone());
            out.push(args[i + 1].clone());
            i += 2;
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    for d in &cfg.includes {
        out.push(prefixed("-I", d));
    }
    out.append(&mut sys_inc);
    if link {
        for d in &cfg.libdirs {
            out.push(prefixed("-L", d));
        }
        out.append(&mut sys_lib);
        for d in &cfg.rpaths {
            let mut s = OsString::from("-Wl,-rpath,");
            s.push(d);
            out.push(s);
        }
        match cfg.dtags {
            Dtags::Rpath => out.push("-Wl,--disable-new-dtags".into()),
            Dtags::Runpath => out.push("-Wl,--enable-new-dtags".into()),
            Dtags::Keep => {}
        }
    } else {
        out.append(&mut sys_lib);
    }
    out.extend(cfg.flags.after(mode));
    (mode, out)
}

/// `ld` called directly: a link gets the library directories, rpaths and
/// the dtags choice; anything else passes unchanged.
fn rewrite_ld(args: &[OsString], cfg: &WrapConfig, nested: bool) -> (Mode, Vec<OsString>) {
    let mode = if nested {
        Mode::Passthrough
    } else {
        ld_mode(args)
    };
    if mode != Mode::Link {
        return (mode, args.to_vec());
    }
    let mut out = args.to_vec();
    for d in &cfg.libdirs {
        out.push(prefixed("-L", d));
    }
    for d in &cfg.rpaths {
        out.push("-rpath".into());
        out.push(d.as_os_str().to_owned());
    }
    match cfg.dtags {
        Dtags::Rpath => out.push("--disable-new-dtags".into()),
        Dtags::Runpath => out.push("--enable-new-dtags".into()),
        Dtags::Keep => {}
    }
    (mode, out)
}

fn prefixed(flag: &str, dir: &Path) -> OsString {
    let mut s = OsString::from(flag);
    s.push(dir);
    s
}

/// Why the wrapper could not run the real program.
#[derive(Debug, thiserror::Error)]
pub enum WrapError {
    #[error("called as `{name}` outside a `stack build` ({var} is not set)")]
    NotConfigured { name: String, var: &'static str },
    #[error("cannot run `{}`: {source}", real.display())]
    Exec {
        real: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "`{arg}` would link the host's {}, which no dependency provides; declare the package that provides it (a dependency, or an external in the cluster configuration)",
        file.display()
    )]
    HostLibrary { arg: String, file: PathBuf },
}

impl WrapError {
    /// The wrapper's exit status: 1 for a refused link (what a compiler
    /// that cannot find a library returns, so configure checks treat it as
    /// missing), 127 when no compiler could be run.
    pub fn exit_code(&self) -> u8 {
        match self {
            WrapError::HostLibrary { .. } => 1,
            WrapError::NotConfigured { .. } | WrapError::Exec { .. } => 127,
        }
    }
}

/// If this process was started under a wrapper name, become the wrapped
/// program: returns `None` when `argv[0]` is not a wrapper name, and
/// otherwise only on failure (the process image is replaced on success).
pub fn dispatch() -> Option<WrapError> {
    let mut args = std::env::args_os();
    let argv0 = args.next()?;
    let lang = lang_for(&argv0)?;
    let rest: Vec<OsString> = args.collect();
    Some(exec(lang, &argv0, &rest))
}

/// Run the real program for `lang` with rewritten `args`. Returns only on error.
pub fn exec(lang: Lang, argv0: &OsStr, args: &[OsString]) -> WrapError {
    let var = lang.real_var();
    let Some(real) = crate::settings::wrapper_var(var).filter(|v| !v.is_empty()) else {
        return WrapError::NotConfigured {
            name: Path::new(argv0)
                .file_name()
                .unwrap_or(argv0)
                .to_string_lossy()
                .into_owned(),
            var,
        };
    };
    if lang == Lang::Cuda {
        let log = crate::settings::wrapper_var(ENV_LOG).map(PathBuf::from);
        match nvcc::run(&real, args, log.as_deref()) {
            Ok(code) => std::process::exit(code),
            Err(e) => return e,
        }
    }
    let nested = crate::settings::wrapper_var(ENV_ACTIVE).is_some();

    let cfg = WrapConfig::from_env();
    let (mode, new_args) = rewrite(lang, args, &cfg, nested);
    let log = crate::settings::wrapper_var(ENV_LOG);
    if let (Mode::Link, Some(allowed)) = (mode, &cfg.host_libs) {
        let dirs = host_link::system_lib_dirs();
        let guard = host_link::Guard {
            system_dirs: &dirs,
            allowed,
        };
        if let Some(r) = guard.refused(&new_args) {
            if let Some(log) = &log {
                log_line(Path::new(log), "Refused", &real, &new_args);
            }
            return WrapError::HostLibrary {
                arg: r.arg,
                file: r.file,
            };
        }
    }
    if let Some(log) = log {
        log_call(Path::new(&log), mode, &real, &new_args);
    }
    let err = std::process::Command::new(&real)
        .args(&new_args)
        .env(ENV_ACTIVE, "1")
        .exec();
    WrapError::Exec {
        real: real.into(),
        source: err,
    }
}

fn log_call(log: &Path, mode: Mode, real: &OsStr, args: &[OsString]) {
    log_line(log, &format!("{mode:?}"), real, args);
}

/// Appends `MODE REAL ARGS…` to the wrapper log.
fn log_line(log: &Path, mode: &str, real: &OsStr, args: &[OsString]) {
    use std::io::Write;
    let mut line = format!("{mode} {}", real.to_string_lossy());
    for a in args {
        line.push(' ');
        line.push_str(&a.to_string_lossy());
    }
    line.push('\n');
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// Create the wrapper directory: one symlink per wrapper name to `exe`.
pub fn install_links(dir: &Path, exe: &Path) -> std::io::Result<()> {
    fs_err::create_dir_all(dir)?;
    for (name, _) in WRAPPER_NAMES {
        let link = dir.join(name);
        match fs_err::os::unix::fs::symlink(exe, &link) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                fs_err::remove_file(&link)?;
                fs_err::os::unix::fs::symlink(exe, &link)?;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }
    fn s(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }
    fn cfg() -> WrapConfig {
        WrapConfig {
            includes: vec!["/m/a/include".into()],
            libdirs: vec!["/m/a/lib".into()],
            rpaths: vec!["/m/a/lib".into(), "/m/self/lib".into()],
            dtags: Dtags::Rpath,
            prefix_maps: vec![],
            flags: InjectedFlags::default(),
            host_libs: None,
        }
    }

    #[test]
    fn injected_flags_go_by_language_and_mode_as_in_spacks_cc() {
        let mut c = cfg();
        c.includes.clear();
        c.libdirs.clear();
        c.rpaths.clear();
        c.dtags = Dtags::Keep;
        let lookup = |var: &str| {
            Some(OsString::from(match var {
                "STACK_WRAP_CFLAGS" => "-DNO_MMAP  -fcommon",
                "STACK_WRAP_CXXFLAGS" => "-fpermissive",
                "STACK_WRAP_FFLAGS" => "-cpp",
                "STACK_WRAP_CPPFLAGS" => "-DX=1",
                "STACK_WRAP_LDFLAGS" => "-Wl,-z,muldefs",
                "STACK_WRAP_LDLIBS" => "-lintl",
                _ => return None,
            }))
        };
        c.flags = InjectedFlags::from_lookup(&lookup);
        let call = |lang, args: &[&str]| s(&rewrite(lang, &v(args), &c, false).1);
        assert_eq!(
            call(Lang::C, &["-c", "a.c"]),
            ["-DX=1", "-DNO_MMAP", "-fcommon", "-c", "a.c"]
        );
        assert_eq!(call(Lang::C, &["-E", "a.c"]), ["-DX=1", "-E", "a.c"]);
        assert_eq!(
            call(Lang::Cxx, &["a.o", "-o", "a"]),
            [
                "-DX=1",
                "-fpermissive",
                "-Wl,-z,muldefs",
                "a.o",
                "-o",
                "a",
                "-lintl"
            ]
        );
        assert_eq!(
            call(Lang::Fortran, &["-c", "a.f90"]),
            ["-cpp", "-DX=1", "-c", "a.f90"]
        );
        assert_eq!(call(Lang::C, &["--version"]), ["--version"]);
        assert_eq!(call(Lang::Ld, &["a.o", "-o", "a"]), ["a.o", "-o", "a"]);
        let env = c.flags.to_env();
        assert_eq!(env[0], ("STACK_WRAP_CFLAGS", "-DNO_MMAP -fcommon".into()));
        assert_eq!(env.len(), 6);
    }

    #[test]
    fn prefix_maps_come_first_and_skip_queries() {
        let mut c = cfg();
        c.prefix_maps = vec![("/b/stage/x".into(), "/stack-stage/x".into())];
        let (_, out) = rewrite(Lang::C, &v(&["-c", "a.c"]), &c, false);
        assert_eq!(s(&out)[0], "-ffile-prefix-map=/b/stage/x=/stack-stage/x");
        let (_, out) = rewrite(Lang::C, &v(&["a.o", "-o", "a"]), &c, false);
        assert_eq!(s(&out)[0], "-ffile-prefix-map=/b/stage/x=/stack-stage/x");
        let (mode, out) = rewrite(Lang::C, &v(&["--version"]), &c, false);
        assert_eq!(
            (mode, s(&out)),
            (Mode::Query, vec!["--version".to_string()])
        );
        let (_, out) = rewrite(Lang::Ld, &v(&["a.o", "-o", "a"]), &c, false);
        assert!(!s(&out).iter().any(|a| a.contains("prefix-map")));
    }

    #[test]
    fn names() {
        assert_eq!(lang_for(OsStr::new("/x/wrap/g++")), Some(Lang::Cxx));
        assert_eq!(lang_for(OsStr::new("cc")), Some(Lang::C));
        assert_eq!(lang_for(OsStr::new("ld")), Some(Lang::Ld));
        assert_eq!(lang_for(OsStr::new("/usr/bin/stack")), None);
    }

    #[test]
    fn modes() {
        assert_eq!(compiler_mode(&v(&["-c", "a.c"])), Mode::Compile);
        assert_eq!(compiler_mode(&v(&["-E", "a.c"])), Mode::Preprocess);
        assert_eq!(compiler_mode(&v(&["-M", "-c", "a.c"])), Mode::Preprocess);
        assert_eq!(compiler_mode(&v(&["-S", "a.c"])), Mode::Assemble);
        assert_eq!(compiler_mode(&v(&["a.o", "-o", "a"])), Mode::Link);
        assert_eq!(
            compiler_mode(&v(&["-shared", "a.o", "-o", "-c"])),
            Mode::Link
        );
        assert_eq!(compiler_mode(&v(&["--version"])), Mode::Query);
        assert_eq!(compiler_mode(&v(&["-v", "a.o"])), Mode::Query);
        assert_eq!(compiler_mode(&v(&["-print-prog-name=ld"])), Mode::Query);
        assert_eq!(compiler_mode(&v(&[])), Mode::Query);
        assert_eq!(compiler_mode(&v(&["-fsyntax-only", "a.c"])), Mode::Compile);
        assert_eq!(ld_mode(&v(&["-r", "a.o"])), Mode::Passthrough);
        assert_eq!(ld_mode(&v(&["a.o", "-o", "x"])), Mode::Link);
    }

    #[test]
    fn compile_gets_includes_only() {
        let (m, out) = rewrite(
            Lang::C,
            &v(&["-c", "-Iinc", "a.c", "-o", "a.o"]),
            &cfg(),
            false,
        );
        assert_eq!(m, Mode::Compile);
        assert_eq!(
            s(&out),
            ["-c", "-Iinc", "a.c", "-o", "a.o", "-I/m/a/include"]
        );
    }

    #[test]
    fn link_gets_libdirs_and_rpaths() {
        let (m, out) = rewrite(Lang::Cxx, &v(&["a.o", "-lfoo", "-o", "a"]), &cfg(), false);
        assert_eq!(m, Mode::Link);
        assert_eq!(
            s(&out),
            [
                "a.o",
                "-lfoo",
                "-o",
                "a",
                "-I/m/a/include",
                "-L/m/a/lib",
                "-Wl,-rpath,/m/a/lib",
                "-Wl,-rpath,/m/self/lib",
                "-Wl,--disable-new-dtags"
            ]
        );
    }

    #[test]
    fn system_dirs_go_last() {
        let (_, out) = rewrite(
            Lang::C,
            &v(&["-I/usr/include", "-L", "/usr/lib64", "-Lmine", "a.c", "-lz"]),
            &cfg(),
            false,
        );
        assert_eq!(
            s(&out),
            [
                "-Lmine",
                "a.c",
                "-lz",
                "-I/m/a/include",
                "-I/usr/include",
                "-L/m/a/lib",
                "-L/usr/lib64",
                "-Wl,-rpath,/m/a/lib",
                "-Wl,-rpath,/m/self/lib",
                "-Wl,--disable-new-dtags"
            ]
        );
        assert!(is_system_dir(Path::new("/usr/lib/x86_64-linux-gnu")));
        assert!(!is_system_dir(Path::new("/user-environment/lib")));
        assert!(!is_system_dir(Path::new("/usr/libexec/foo")));
    }

    #[test]
    fn default_include_dirs_are_never_isystem() {
        let (_, out) = rewrite(
            Lang::Cxx,
            &v(&[
                "-c",
                "-isystem",
                "/usr/include",
                "-isystem/usr/local/include/",
                "-isystem",
                "/opt/hwloc/include",
                "x.cc",
            ]),
            &cfg(),
            false,
        );
        let out = s(&out);
        assert!(!out.iter().any(|a| a.contains("/usr/include")), "{out:?}");
        assert!(
            !out.iter().any(|a| a.contains("/usr/local/include")),
            "{out:?}"
        );
        let at = out.iter().position(|a| a == "-isystem").unwrap();
        assert_eq!(out[at + 1], "/opt/hwloc/include");
        // a trailing -isystem without a value passes through untouched
        let (_, out) = rewrite(Lang::C, &v(&["-c", "x.c", "-isystem"]), &cfg(), false);
        let out = s(&out);
        let x = out.iter().position(|a| a == "x.c").unwrap();
        assert_eq!(out[x + 1], "-isystem");
    }

    #[test]
    fn ld_direct_and_nested() {
        let (_, out) = rewrite(Lang::Ld, &v(&["a.o", "-o", "x"]), &cfg(), false);
        assert_eq!(
            s(&out),
            [
                "a.o",
                "-o",
                "x",
                "-L/m/a/lib",
                "-rpath",
                "/m/a/lib",
                "-rpath",
                "/m/self/lib",
                "--disable-new-dtags"
            ]
        );
        let (m, out) = rewrite(Lang::Ld, &v(&["a.o", "-o", "x"]), &cfg(), true);
        assert_eq!(m, Mode::Passthrough);
        assert_eq!(s(&out), ["a.o", "-o", "x"]);
    }

    #[test]
    fn query_untouched() {
        let args = v(&["-dumpversion"]);
        assert_eq!(rewrite(Lang::C, &args, &cfg(), false).1, args);
    }
}
