//! What a build job carries to run build logic ([`LogicJob`], rendered
//! from the plan by the pipeline), and how it becomes a [`Request`] in a
//! stage (what only the build stage knows: stage paths, the wrappers, the
//! real compilers, `-j`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::request::{self, Compiler, Flags, Outputs, REQUEST_FORMAT, Request, Stage, Wrappers};
use super::{BuildLogicError, PackageFile, RUN_ENV_FILE, STAGE_DIR};

/// The build logic of one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogicJob {
    /// The Python that runs it ([`super::interpreter`]): not part of the
    /// node hash.
    pub python: PathBuf,
    /// Where the layer is written ([`super::write_layer`]'s root).
    pub layer_root: PathBuf,
    /// The package files of the node, of its dependencies that have one,
    /// and the files they import: checked against their sha256, then
    /// mapped in the request's `modules`.
    pub files: Vec<PackageFile>,
    /// The node and its whole dependency closure, by hash.
    pub nodes: BTreeMap<String, request::Node>,
    /// The node's spec flags.
    pub flags: Flags,
}

/// Where the build logic runs from on this host: chosen once per build,
/// never part of a node hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogicRuntime {
    /// The interpreter ([`super::interpreter::choose`]).
    pub python: PathBuf,
    /// The root the layer is written below (`<build>/build-logic`).
    pub layer_root: PathBuf,
}

impl LogicRuntime {
    /// The layer below `<build_dir>/build-logic`, run by `python`.
    pub fn new(python: PathBuf, build_dir: &Path) -> Self {
        LogicRuntime {
            python,
            layer_root: build_dir.join("build-logic"),
        }
    }
}

impl Default for LogicRuntime {
    /// `python3` and `build-logic` (relative): for jobs rendered without a
    /// build (tests, `stack info`).
    fn default() -> Self {
        LogicRuntime {
            python: "python3".into(),
            layer_root: "build-logic".into(),
        }
    }
}

/// What the build stage knows of a stage.
#[derive(Clone, Debug)]
pub struct StageInfo {
    pub root: PathBuf,
    pub source: PathBuf,
    pub jobs: usize,
    /// The real compilers (absolute).
    pub cc: PathBuf,
    pub cxx: Option<PathBuf>,
    pub fc: Option<PathBuf>,
    /// The directory of the compiler wrappers (`cc`, `c++`, `gfortran`).
    pub wrap_dir: PathBuf,
    /// The CMake arguments that keep `find_*` off the host.
    pub cmake_host_args: Vec<String>,
}

/// The directory of the request and the layer's outputs in a stage.
pub fn stage_dir(stage_root: &Path) -> PathBuf {
    stage_root.join(STAGE_DIR)
}

impl LogicJob {
    /// Check every package file against its sha256 and copy it into the
    /// stage (`.stack-build-logic/spack/<ns>/<dir>/package.py`: the build
    /// sandbox sees the stage, not necessarily the repository, and what
    /// runs is exactly what was checked); the module map of the request.
    pub fn stage_files(
        &self,
        package: &str,
        stage_root: &Path,
    ) -> Result<BTreeMap<String, PathBuf>, BuildLogicError> {
        let dir = stage_dir(stage_root).join(super::files::SPACK_DIR);
        let mut modules = BTreeMap::new();
        for f in &self.files {
            let bytes = f.checked_bytes(package)?;
            let to = dir.join(super::files::relative_path(&f.module));
            if let Some(parent) = to.parent() {
                fs_err::create_dir_all(parent)?;
            }
            fs_err::write(&to, bytes)?;
            modules.insert(f.module.clone(), to);
        }
        Ok(modules)
    }

    /// The request for node `hash` built in the stage `at`, its package
    /// files at `modules` ([`Self::stage_files`]).
    pub fn request(
        &self,
        hash: &str,
        at: &StageInfo,
        modules: BTreeMap<String, PathBuf>,
    ) -> Request {
        let dir = stage_dir(&at.root);
        let wrap = |name: &str| at.wrap_dir.join(name);
        let inject_env = [
            ("cflags", "STACK_WRAP_CFLAGS"),
            ("cxxflags", "STACK_WRAP_CXXFLAGS"),
            ("fflags", "STACK_WRAP_FFLAGS"),
            ("cppflags", "STACK_WRAP_CPPFLAGS"),
            ("ldflags", "STACK_WRAP_LDFLAGS"),
            ("ldlibs", "STACK_WRAP_LDLIBS"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        Request {
            api: REQUEST_FORMAT,
            package: hash.to_string(),
            modules,
            nodes: self.nodes.clone(),
            stage: Stage {
                root: at.root.clone(),
                source: at.source.clone(),
            },
            jobs: at.jobs,
            compiler: Compiler {
                cc: at.cc.clone(),
                cxx: at.cxx.clone(),
                fc: at.fc.clone(),
                f77: at.fc.clone(),
                wrappers: Wrappers {
                    cc: wrap("cc"),
                    cxx: at.cxx.as_ref().map(|_| wrap("c++")),
                    fc: at.fc.as_ref().map(|_| wrap("gfortran")),
                    f77: at.fc.as_ref().map(|_| wrap("gfortran")),
                },
                flags: self.flags.clone(),
                inject_env,
            },
            outputs: Outputs {
                run_env: dir.join(RUN_ENV_FILE),
                result: dir.join("result.json"),
            },
            cmake_host_args: at.cmake_host_args.clone(),
        }
    }
}
