//! The build stage's input: one package build with every value already rendered.
//!
//! The resolver's `Plan` and the recipe templates are turned into these plain
//! values by the caller; nothing here knows about specs, variants or tera.
//! Every argument is one argv element (never a shell string).
//!
//! Jobs are plain data and serialisable (serde): an executor may send one to
//! another machine (see `executor.rs`).

use std::collections::BTreeMap;
use std::path::PathBuf;

/// One package to build and install into `prefix`.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug)]
pub struct BuildJob {
    /// Package name (`libfabric`).
    pub name: String,
    /// Exact version (`2.5.1`, `main`).
    pub version: String,
    /// The node hash (hex); recorded in `installed.json`, decides reuse.
    pub hash: String,
    /// Human-readable concrete spec, recorded in `installed.json`.
    pub spec: String,
    /// Final install prefix as builds see it: under the mount point.
    pub prefix: PathBuf,
    /// The patched source tree. It is copied into the stage and never modified.
    pub source_dir: PathBuf,
    /// How to configure, build and install.
    pub system: BuildSystem,
    /// Extra environment operations for this build, applied in order after the
    /// clean environment is set up.
    pub build_env: Vec<EnvOp>,
    /// Extra commands before/after the phases.
    pub steps: Steps,
    /// File edits applied to the staged source tree before any phase.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<crate::file_filter::FileFilter>,
    /// Post-install relocation (required for `binary` packages that need
    /// RPATHs or placeholder substitution; allowed for every system).
    pub relocate: Option<Relocation>,
    /// Dependencies with their prefixes. Give the transitive closure of link
    /// dependencies (they go into `-I`, `-L`, RPATH, `PKG_CONFIG_PATH`, …) and the
    /// direct build dependencies (their `bin` goes on `PATH`). A dependency that
    /// is both gets two entries or is listed once per kind; duplicates are merged.
    pub deps: Vec<DepPrefix>,
    /// The real compilers the wrapper calls.
    pub compiler: CompilerPaths,
    /// Scheduling cost hint (e.g. seconds of the last build); default 1.
    pub cost: Option<f64>,
    /// The patches applied to `source_dir` (recorded in the log and in
    /// `installed.json`; applying them is the pipeline's business).
    pub patches: Vec<crate::store::RecordPatch>,
    /// The recipe file the job comes from (named in failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<PathBuf>,
}

/// How a package is built, with per-system data.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug)]
pub enum BuildSystem {
    Autotools(Autotools),
    CMake(CMake),
    Meson(Meson),
    Makefile(Makefile),
    Generic(Generic),
    Binary(Binary),
}

impl BuildSystem {
    /// The recipe keyword (`autotools`, `cmake`, …).
    pub fn keyword(&self) -> &'static str {
        super::systems::of(self).keyword()
    }
}

/// `./configure --prefix=P ARGS; make ARGS; make ARGS install`, in source.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug)]
pub struct Autotools {
    /// Run `autoreconf -fi` first.
    pub autoreconf: bool,
    /// Run `./autogen.sh` first.
    pub autogen: bool,
    /// Run `configure` and make in `<stage>/build` (`<src>/configure`).
    #[serde(default)]
    pub out_of_source: bool,
    /// Arguments after `--prefix=<prefix>`.
    pub configure_args: Vec<String>,
    /// Arguments of both make calls (`V=1`, variables).
    pub make_args: Vec<String>,
    /// Install targets; default `[install]`.
    pub install_targets: Vec<String>,
    /// Explicit install steps after `make install` (sources relative to the
    /// source tree).
    pub install: Vec<InstallStep>,
}

impl Default for Autotools {
    fn default() -> Self {
        Autotools {
            autoreconf: false,
            autogen: false,
            out_of_source: false,
            configure_args: Vec::new(),
            make_args: Vec::new(),
            install_targets: vec!["install".into()],
            install: Vec::new(),
        }
    }
}

/// Out-of-source CMake build (`<stage>/build`), Ninja when available.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug)]
pub struct CMake {
    /// Arguments after the ones `stack` sets (`-DCMAKE_INSTALL_PREFIX`, `-DCMAKE_BUILD_TYPE`, …).
    pub args: Vec<String>,
    /// `CMAKE_BUILD_TYPE`, default `Release`.
    pub build_type: String,
    /// Which generator to use.
    pub generator: CMakeGenerator,
    /// The directory of the top `CMakeLists.txt`, relative to the source
    /// tree (`None`: the tree itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_subdir: Option<String>,
    /// Explicit install steps after `cmake --install` (sources relative to
    /// the source tree).
    pub install: Vec<InstallStep>,
}

impl Default for CMake {
    fn default() -> Self {
        CMake {
            args: Vec::new(),
            build_type: "Release".into(),
            generator: CMakeGenerator::Auto,
            source_subdir: None,
            install: Vec::new(),
        }
    }
}

/// CMake generator choice.
#[derive(Clone, serde::Serialize, serde::Deserialize, Copy, Debug, Default, PartialEq, Eq)]
pub enum CMakeGenerator {
    /// Ninja when `ninja` is on the build `PATH`, otherwise Unix Makefiles.
    #[default]
    Auto,
    Ninja,
    Make,
}

/// `meson setup --prefix=P --libdir=lib ARGS; meson compile; meson install`.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, Default)]
pub struct Meson {
    pub args: Vec<String>,
    /// Explicit install steps after `meson install` (sources relative to
    /// the source tree).
    pub install: Vec<InstallStep>,
}

/// A plain Makefile: `make ARGS TARGETS`, then an install target or explicit steps.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug)]
pub struct Makefile {
    /// Variables/arguments of every make call (`PREFIX=/…`, `CC=cc`).
    pub make_args: Vec<String>,
    /// Targets of the build call (empty: the default target).
    pub build_targets: Vec<String>,
    /// Install targets; default `[install]`; empty: no install call.
    pub install_targets: Vec<String>,
    /// Explicit install steps (after the install targets, if any).
    pub install: Vec<InstallStep>,
}

impl Default for Makefile {
    fn default() -> Self {
        Makefile {
            make_args: Vec::new(),
            build_targets: Vec::new(),
            install_targets: vec!["install".into()],
            install: Vec::new(),
        }
    }
}

/// Copy trees into the prefix (header-only packages). Without steps the whole
/// source tree is copied.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, Default)]
pub struct Generic {
    pub install: Vec<InstallStep>,
}

/// An unpacked prebuilt tree: copy it (or the listed parts) into the prefix,
/// then relocate (see [`BuildJob::relocate`]).
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, Default)]
pub struct Binary {
    pub install: Vec<InstallStep>,
}

/// An explicit install step. Sources are relative to the build directory (the
/// stage's source tree), destinations relative to the prefix.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, PartialEq, Eq)]
pub enum InstallStep {
    /// Copy what `from` names (a path or a glob; `*` does not cross `/`) into
    /// the directory `to`. A directory named literally with a trailing `/`
    /// copies its contents; otherwise a matched directory is copied as a whole.
    Copy { from: String, to: PathBuf },
    /// Create a directory (and its parents).
    Mkdir { path: PathBuf },
    /// Create a symlink at `at` pointing to `target` (taken literally).
    Symlink { target: PathBuf, at: PathBuf },
}

/// Extra argv commands run in the stage's source directory around the phases.
/// Commands see `STACK_PREFIX`, `STACK_SOURCE_DIR` and `STACK_BUILD_DIR`.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, Default)]
pub struct Steps {
    /// Before the autotools bootstrap (`autoreconf`/`autogen.sh`); other
    /// build systems run them first thing, before `pre_configure`.
    pub pre_bootstrap: Vec<Vec<String>>,
    pub pre_configure: Vec<Vec<String>>,
    pub post_configure: Vec<Vec<String>>,
    pub pre_build: Vec<Vec<String>>,
    pub post_build: Vec<Vec<String>>,
    pub pre_install: Vec<Vec<String>>,
    pub post_install: Vec<Vec<String>>,
}

/// What to fix in the installed tree.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, Default)]
pub struct Relocation {
    /// Directories put into the RPATH (`DT_RPATH`, via `patchelf --force-rpath
    /// --set-rpath`) of every dynamic ELF file, after the prefix's own
    /// `lib`/`lib64`; directories that do not exist are left out; `$ORIGIN`
    /// entries already present are kept. Empty and no own lib dir: RPATHs are not touched.
    pub rpath: Vec<PathBuf>,
    /// Extra `DT_NEEDED` entries.
    pub needed: Vec<AddNeeded>,
    /// Text replacements in every non-ELF text file (scripts, `.pc` files).
    pub placeholders: BTreeMap<String, String>,
}

/// `patchelf --add-needed` on the files matching `files` (glob relative to the prefix).
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, PartialEq, Eq)]
pub struct AddNeeded {
    pub files: String,
    pub add: Vec<String>,
}

/// One environment operation (same forms as a recipe's `env:`).
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, PartialEq, Eq)]
pub enum EnvOp {
    Set(String, String),
    Unset(String),
    PrependPath(String, String),
    AppendPath(String, String),
}

/// How a dependency is used.
#[derive(
    Clone, serde::Serialize, serde::Deserialize, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub enum DepKind {
    /// Tools needed at build time: `bin` on `PATH`, `ACLOCAL_PATH`, `PKG_CONFIG_PATH`, `CMAKE_PREFIX_PATH`.
    Build,
    /// Linked: `-I`, `-L`, RPATH, `PKG_CONFIG_PATH`, `CMAKE_PREFIX_PATH`, `ACLOCAL_PATH`.
    Link,
    /// Needed at run time only: recorded, nothing in the build environment.
    Run,
}

impl DepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DepKind::Build => "build",
            DepKind::Link => "link",
            DepKind::Run => "run",
        }
    }
}

/// A dependency of a job: its install prefix (as builds see it) and kind.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, PartialEq, Eq)]
pub struct DepPrefix {
    pub name: String,
    /// The dependency's node hash (recorded in `installed.json`).
    pub hash: String,
    pub prefix: PathBuf,
    pub kind: DepKind,
    /// For a build dependency in a system prefix (an external in `/usr`):
    /// the programs of `<prefix>/bin` the build may run (the recipe's
    /// `executables:`; see [`super::host_tools`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executables: Vec<String>,
}

/// The real compilers. Relative names are looked up on the host `PATH` once
/// before the build.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, PartialEq, Eq, Hash)]
pub struct CompilerPaths {
    pub cc: PathBuf,
    pub cxx: Option<PathBuf>,
    pub fc: Option<PathBuf>,
    /// A compiler this build produces (below the mount point): its programs
    /// exist only once it is installed, so they are not looked up on the
    /// host before the build.
    #[serde(default)]
    pub built: bool,
    /// The compiler's runtime library dirs (libstdc++, libgfortran, libgomp):
    /// every link gets an RPATH to them.
    #[serde(default)]
    pub runtime_libdirs: Vec<PathBuf>,
}

impl Default for CompilerPaths {
    fn default() -> Self {
        CompilerPaths {
            cc: "gcc".into(),
            cxx: Some("g++".into()),
            fc: None,
            built: false,
            runtime_libdirs: Vec::new(),
        }
    }
}

impl BuildJob {
    /// `name-version-hash8`: the stage and log file name.
    pub fn slug(&self) -> String {
        let short: String = self.hash.chars().take(8).collect();
        format!("{}-{}-{}", self.name, self.version, short)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job survives a trip through JSON unchanged (what a remote executor
    /// relies on).
    #[test]
    fn a_job_round_trips_through_json() {
        let job = BuildJob {
            name: "tiny".into(),
            version: "1.0".into(),
            hash: "ab".repeat(32),
            spec: "tiny@1.0".into(),
            prefix: "/user-environment/x86_64/tiny-1.0-abababab".into(),
            source_dir: "/b/sources/tiny".into(),
            system: BuildSystem::CMake(CMake {
                args: vec!["-DX=1".into()],
                install: vec![InstallStep::Copy {
                    from: "NOTES".into(),
                    to: "share".into(),
                }],
                ..Default::default()
            }),
            build_env: vec![EnvOp::Set("A".into(), "b".into())],
            steps: Steps {
                pre_build: vec![vec!["true".into()]],
                ..Default::default()
            },
            filters: vec![crate::file_filter::FileFilter {
                file: "Makefile".into(),
                regex: "^CC =.*".into(),
                replace: "CC = cc".into(),
                string: false,
                ignore_absent: false,
            }],
            relocate: Some(Relocation {
                rpath: vec!["/p/lib".into()],
                ..Default::default()
            }),
            deps: vec![DepPrefix {
                name: "z".into(),
                hash: "cd".repeat(32),
                prefix: "/usr".into(),
                kind: DepKind::Link,
                executables: Vec::new(),
            }],
            compiler: CompilerPaths::default(),
            cost: Some(2.5),
            patches: vec![crate::store::RecordPatch {
                patch: "fix.patch".into(),
                sha256: "ef".repeat(32),
                level: 1,
            }],
            recipe: None,
        };
        let json = serde_json::to_string(&job).unwrap();
        let back: BuildJob = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert!(matches!(&back.system, BuildSystem::CMake(c) if c.install.len() == 1));
        assert_eq!(back.cost, Some(2.5));
    }
}
