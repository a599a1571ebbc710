//! `cmake`: out of source in `<stage>/build`; Ninja when available.
//!
//! `stack` sets `CMAKE_INSTALL_PREFIX`, `CMAKE_BUILD_TYPE`, and the install
//! RPATH (the same directories the wrapper adds, plus the link path) so that
//! CMake's install-time RPATH rewrite keeps the stack's RPATHs. CMake's
//! `find_*` commands do not search the host's `/usr` (`build::host_libs`).
//!
//! Job-only settings: `build_type` (default `Release`), `generator`
//! (`ninja`, `make`; default: Ninja when `ninja` is on the build `PATH`).

use super::KeyType::{Args, Text};
use super::{BuildKind, JobSettings, Key, PhaseError, Phases, key};

#[derive(Debug)]
pub(super) struct CMake;

/// The `build:` keys.
const KEYS: &[Key] = &[key("source_subdir", Text), key("cmake_args", Args)];

/// Spack's `CMakeBuilder.flags_to_build_system_args`: `CMAKE_<LANG>_FLAGS`
/// (the language's flags, then `cppflags`), the `EXE`/`MODULE`/`SHARED`
/// linker flags (`ldflags`) and `CMAKE_<LANG>_STANDARD_LIBRARIES` (`ldlibs`).
fn cmake_flag_args(flags: &[(&str, String)]) -> Vec<String> {
    let get = |name: &str| -> Vec<&str> {
        flags
            .iter()
            .filter(|(n, v)| *n == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
            .collect()
    };
    let mut out = Vec::new();
    let langs = [("C", "cflags"), ("CXX", "cxxflags"), ("Fortran", "fflags")];
    for (lang, name) in langs {
        let mut all = get(name);
        all.extend(get("cppflags"));
        if !all.is_empty() {
            out.push(format!("-DCMAKE_{lang}_FLAGS={}", all.join(" ")));
        }
    }
    let ld = get("ldflags");
    if !ld.is_empty() {
        for ty in ["EXE", "MODULE", "SHARED"] {
            out.push(format!("-DCMAKE_{ty}_LINKER_FLAGS={}", ld.join(" ")));
        }
    }
    let libs = get("ldlibs");
    if !libs.is_empty() {
        for (lang, _) in langs {
            out.push(format!(
                "-DCMAKE_{lang}_STANDARD_LIBRARIES={}",
                libs.join(" ")
            ));
        }
    }
    out
}

fn use_ninja(s: &JobSettings, cx: &dyn Phases) -> bool {
    match s.text("generator") {
        Some("ninja") => true,
        Some("make") => false,
        _ => cx.which("ninja").is_some(),
    }
}

impl BuildKind for CMake {
    fn name(&self) -> &'static str {
        "cmake"
    }
    fn estimated_seconds(&self) -> f64 {
        60.0
    }
    fn keys(&self) -> &'static [Key] {
        KEYS
    }
    fn tools(&self) -> &'static [&'static str] {
        &["cmake", "ctest", "cpack"]
    }
    fn compiles(&self) -> bool {
        true
    }
    fn out_of_source(&self, _: &JobSettings) -> bool {
        true
    }
    fn flag_args(&self, flags: &[(&str, String)]) -> Option<(&'static str, Vec<String>)> {
        Some(("cmake_args", cmake_flag_args(flags)))
    }
    fn configure(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let rpaths = cx.wrapper_rpaths().replace(':', ";");
        let src = match s.text("source_subdir") {
            Some(sub) if !sub.is_empty() && sub != "." => cx.src().join(sub),
            _ => cx.src().to_path_buf(),
        };
        let build = cx.build_dir().to_path_buf();
        let mut argv: Vec<String> = vec![
            "cmake".into(),
            "-S".into(),
            src.to_string_lossy().into_owned(),
            "-B".into(),
            build.to_string_lossy().into_owned(),
            "-G".into(),
            if use_ninja(s, cx) {
                "Ninja"
            } else {
                "Unix Makefiles"
            }
            .into(),
            format!("-DCMAKE_INSTALL_PREFIX={}", cx.prefix()),
            format!(
                "-DCMAKE_BUILD_TYPE={}",
                s.text("build_type").unwrap_or("Release")
            ),
            format!("-DCMAKE_INSTALL_RPATH={rpaths}"),
            "-DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON".into(),
            "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF".into(),
        ];
        argv.extend(cx.cmake_host_args()?);
        argv.extend(s.list("cmake_args").iter().cloned());
        cx.run(argv, &build)
    }
    fn build(&self, s: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let dir = cx.build_dir().to_path_buf();
        let build = dir.to_string_lossy().into_owned();
        if use_ninja(s, cx) {
            let ninja = cx.which("ninja").unwrap_or_else(|| "ninja".into());
            let jobs = cx.ninja_jobs(&ninja);
            let mut argv = vec![ninja.to_string_lossy().into_owned(), "-C".into(), build];
            if let Some(j) = jobs {
                argv.push(format!("-j{j}"));
            }
            cx.run(argv, &dir)
        } else {
            cx.run(vec!["make".into(), "-C".into(), build], &dir)
        }
    }
    fn install(&self, _: &JobSettings, cx: &mut dyn Phases) -> Result<(), PhaseError> {
        let dir = cx.build_dir().to_path_buf();
        let build = dir.to_string_lossy().into_owned();
        cx.run(vec!["cmake".into(), "--install".into(), build], &dir)
    }
}
