//! What CMake's `find_library`/`find_path`/`find_program` may find on the
//! host (issue 19): nothing of `/usr` unless a dependency declares it.
//!
//! CMake searches its system prefixes (`/usr`, `/usr/local`, `/`, its own
//! and the install prefix) by default, so a `find_program(perl)` or
//! `find_library(z)` used the host's copy silently. A cmake build turns
//! that off ([`cmake_args`]): programs come from the build `PATH` only (the
//! declared tools, [`super::host_tools`]); libraries and headers from the
//! dependencies' prefixes (`CMAKE_PREFIX_PATH`), the library and include
//! directories of the dependencies that are externals in a system prefix
//! (`/usr`), and glibc's own libraries ([`LIBC_LIBS`], symlinked into a
//! directory of the stage) — the C library is part of every system and
//! `find_library(m)` is common. Headers: `find_path` searches the
//! compiler's default include directories ([`default_include_dirs`], where
//! glibc's headers are: Kokkos looks for `dlfcn.h`), since the compiler
//! reads them anyway; a host library's header found there is of no use
//! without the library, which stays out of reach.

use std::path::{Path, PathBuf};

use super::host_tools::HostTool;
use super::job::{BuildJob, DepKind};
use super::wrapper::is_system_dir;

/// glibc's libraries (each `lib<name>.so` and `lib<name>.a`).
pub const LIBC_LIBS: &[&str] = &[
    "c", "m", "dl", "pthread", "rt", "util", "resolv", "anl", "mvec",
];

/// The library directories of a system prefix that exist: the multiarch
/// directory (`lib/x86_64-linux-gnu`), `lib64`, `lib`.
pub fn system_libdirs(prefix: &Path) -> Vec<PathBuf> {
    let multiarch = format!("lib/{}-linux-gnu", std::env::consts::ARCH);
    [multiarch.as_str(), "lib64", "lib"]
        .iter()
        .map(|d| prefix.join(d))
        .filter(|d| d.is_dir())
        .collect()
}

/// The compiler's default include directories on this host that exist:
/// `/usr/include/<multiarch>` (Debian's `sys/`, `bits/`), then `/usr/include`.
pub fn default_include_dirs() -> Vec<PathBuf> {
    let multiarch = format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH);
    [multiarch.as_str(), "/usr/include"]
        .iter()
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .collect()
}

/// The [`LIBC_LIBS`] files of this host (the first directory that has one wins).
pub fn libc_libs() -> Vec<HostTool> {
    let dirs = system_libdirs(Path::new("/usr"));
    let mut out = Vec::new();
    for name in LIBC_LIBS {
        for ext in ["so", "a"] {
            let file = format!("lib{name}.{ext}");
            if let Some(target) = dirs.iter().map(|d| d.join(&file)).find(|p| p.exists()) {
                out.push(HostTool { name: file, target });
            }
        }
    }
    out
}

/// The library and include directories of the job's build and link
/// dependencies that are installed in a system prefix (`/usr` externals).
pub fn external_dirs(job: &BuildJob) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut libs, mut incs) = (Vec::new(), Vec::new());
    for dep in job.deps.iter().filter(|d| d.kind != DepKind::Run) {
        if !is_system_dir(&dep.prefix) {
            continue;
        }
        for d in system_libdirs(&dep.prefix) {
            if !libs.contains(&d) {
                libs.push(d);
            }
        }
        let inc = dep.prefix.join("include");
        if inc.is_dir() && !incs.contains(&inc) {
            incs.push(inc);
        }
    }
    (libs, incs)
}

/// The `-D` arguments that keep CMake's searches off the host: no system
/// prefixes (`CMAKE_FIND_USE_CMAKE_SYSTEM_PATH`, CMake ≥ 3.16), `/usr` and
/// `/usr/local` ignored as prefixes (`CMAKE_SYSTEM_IGNORE_PREFIX_PATH`,
/// CMake ≥ 3.23, for what older modules add), and the directories that are
/// allowed: `libc_dir` (populated with [`libc_libs`]), the
/// [`default_include_dirs`] and the [`external_dirs`].
///
/// The dependencies' prefixes (`prefixes`, the build environment's
/// `CMAKE_PREFIX_PATH`, `:`-separated) are given as the cache variable too:
/// CMake searches the variables `CMAKE_PREFIX_PATH` then
/// `CMAKE_INCLUDE_PATH` before the environment's `CMAKE_PREFIX_PATH`, so
/// without it a header the host also has (`/usr/include/bzlib.h`) was found
/// there first, and a find module that looks for the library beside its
/// header (netcdf-c's `FindBz2`) took the host's library.
pub fn cmake_args(job: &BuildJob, libc_dir: &Path, prefixes: Option<&str>) -> Vec<String> {
    let (libs, ext_incs) = external_dirs(job);
    let mut incs = default_include_dirs();
    for d in ext_incs {
        if !incs.contains(&d) {
            incs.push(d);
        }
    }
    let list = |v: Vec<PathBuf>| {
        v.iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(";")
    };
    let mut libs_all = vec![libc_dir.to_path_buf()];
    libs_all.extend(libs);
    let prefixes = prefixes
        .filter(|p| !p.is_empty())
        .map(|p| format!("-DCMAKE_PREFIX_PATH={}", p.replace(':', ";")));
    prefixes
        .into_iter()
        .chain([
            "-DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF".into(),
            "-DCMAKE_SYSTEM_IGNORE_PREFIX_PATH=/usr;/usr/local".into(),
            format!("-DCMAKE_LIBRARY_PATH={}", list(libs_all)),
            format!("-DCMAKE_INCLUDE_PATH={}", list(incs)),
        ])
        .collect()
}
