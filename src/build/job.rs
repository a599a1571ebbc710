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

use crate::build_kinds::{BuildKind, JobSettings, JobValue};

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
    /// The run environment (`env:`) of the direct build and link
    /// dependencies and their run closure, dependencies first, each rendered with its own
    /// template context: applied in order after the clean environment is set
    /// up, before [`BuildJob::build_env`] (Spack's dependents' build
    /// environment). Externals contribute nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dep_env: Vec<EnvOp>,
    /// Extra environment operations for this build, applied in order after
    /// `dep_env`.
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
    /// The libraries (`libz`) the build may link from the host's system
    /// directories besides glibc's and the compiler runtime: the
    /// `libraries:` of the externals in system prefixes it links. The
    /// wrapper refuses any other ([`super::wrapper::host_link`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_libraries: Vec<String>,
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

/// How a package is built: the kind (a [`crate::build_kinds`] name), its
/// rendered settings, the explicit install steps, run after the kind's
/// own install (the only install of `generic` and `binary`), and for a kind
/// that runs build logic (`spack`) what the Python layer needs.
#[derive(Clone, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
pub struct BuildSystem {
    /// The recipe keyword (`autotools`, `cmake`, …).
    pub kind: String,
    /// The kind's settings (`configure_args`, `generator`, …); a missing
    /// key has the kind's default.
    #[serde(default)]
    pub settings: JobSettings,
    /// Explicit install steps (sources relative to the source tree).
    #[serde(default)]
    pub install: Vec<InstallStep>,
    /// The build logic the kind runs ([`crate::build_kinds::BuildKind::runs_build_logic`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logic: Option<crate::build_logic::LogicJob>,
}

impl BuildSystem {
    /// A job of kind `kind` with default settings and no install steps.
    pub fn new(kind: &str) -> Self {
        BuildSystem {
            kind: kind.to_string(),
            settings: JobSettings::default(),
            install: Vec::new(),
            logic: None,
        }
    }

    /// With `key` set to `value`.
    pub fn with(mut self, key: &str, value: impl Into<JobValue>) -> Self {
        self.settings.set(key, value);
        self
    }

    /// The recipe keyword (`autotools`, `cmake`, …).
    pub fn keyword(&self) -> &str {
        &self.kind
    }

    /// The registered kind.
    pub fn kind(&self) -> Option<&'static dyn BuildKind> {
        crate::build_kinds::get(&self.kind)
    }
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

impl Steps {
    /// Whether the recipe gives no step at all.
    pub fn is_empty(&self) -> bool {
        [
            &self.pre_bootstrap,
            &self.pre_configure,
            &self.post_configure,
            &self.pre_build,
            &self.post_build,
            &self.pre_install,
            &self.post_install,
        ]
        .iter()
        .all(|s| s.is_empty())
    }
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
    /// `VAR="$VAR value"`, or `VAR=value` when `VAR` is unset or empty.
    AppendFlags(String, String),
    /// Edit a list whose entries are separated by `separator` (a recorded
    /// run environment's `remove_path`, or its `append_flags` & co. with
    /// `" "`): put the value in front, at the end, or remove every entry
    /// equal to it.
    EditList {
        edit: ListEdit,
        var: String,
        value: String,
        separator: String,
    },
    /// The run environment recorded in the installed prefix of a
    /// dependency (`<prefix>/.stack/run-env.json`, a `spack` package's
    /// `setup_run_environment`), read when the build starts: the
    /// dependency is installed by then.
    RecordedRunEnv(PathBuf),
}

/// What [`EnvOp::EditList`] does.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize, Debug, PartialEq, Eq)]
pub enum ListEdit {
    Prepend,
    Append,
    Remove,
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

    /// The run environment a `spack` package's build keeps in `.stack/` is
    /// one of the files `stack verify` accepts there.
    #[test]
    fn the_kept_run_environment_is_a_known_metadata_file() {
        assert!(crate::store::META_FILES.contains(&crate::build_logic::RUN_ENV_FILE));
    }

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
            system: BuildSystem {
                install: vec![InstallStep::Copy {
                    from: "NOTES".into(),
                    to: "share".into(),
                }],
                ..BuildSystem::new("cmake").with("cmake_args", vec!["-DX=1".to_string()])
            },
            dep_env: vec![EnvOp::PrependPath("P".into(), "/d".into())],
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
            host_libraries: vec!["libz".into()],
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
        assert_eq!(back.system, job.system);
        assert_eq!(back.cost, Some(2.5));
    }
}
