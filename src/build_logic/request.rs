//! `request.json`: what the layer is asked to build (read by
//! `src/build_logic/python/stack_spack/request.py`). Written by the build
//! stage into `<stage>/.stack-build-logic/request.json` and given to
//! `<python> -I -B <layer>/run.py <request.json>`.
//!
//! Fields beyond the agreed ones are additions the layer may read:
//! `compilers` (the compiler of each language, for `%fortran=gcc` tests).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The format of the request (`api`).
pub const REQUEST_FORMAT: u32 = 1;

/// The whole request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// [`REQUEST_FORMAT`].
    pub api: u32,
    /// The hash of the node being built (a key of `nodes`).
    pub package: String,
    /// Module name → package file, for the node and every dependency that
    /// has one, and the files they import.
    pub modules: BTreeMap<String, PathBuf>,
    /// The node and its whole dependency closure, by hash.
    pub nodes: BTreeMap<String, Node>,
    pub stage: Stage,
    /// The `-j` of the build (the jobserver in `MAKEFLAGS` bounds the total).
    pub jobs: usize,
    pub compiler: Compiler,
    pub outputs: Outputs,
    /// Arguments stack gives every CMake configure, before the package's
    /// own: they keep CMake's `find_*` off the host's system prefixes
    /// (docs/build.md, "CMake's own searches").
    #[serde(default)]
    pub cmake_host_args: Vec<String>,
}

/// One concrete package of the closure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub name: String,
    pub version: String,
    /// The repository namespace of its package file (`builtin`, `alps`);
    /// `null` without one.
    pub namespace: Option<String>,
    /// Its package module; `null` for a stack YAML recipe or an external
    /// without a package file (the layer's defaults apply).
    pub module: Option<String>,
    /// Every variant: bool, string (single-valued) or list (multi-valued).
    pub variants: BTreeMap<String, serde_json::Value>,
    pub compiler: NodeCompiler,
    /// The compiler of each language the package builds (`c`, `cxx`,
    /// `fortran`): `compiler` unless the spec says `%fortran=…`.
    #[serde(default)]
    pub compilers: BTreeMap<String, NodeCompiler>,
    /// The languages it needs from the compiler.
    pub languages: Vec<String>,
    pub target: String,
    pub platform: String,
    pub os: Option<String>,
    /// Its install prefix as builds see it (the external's prefix for an
    /// external).
    pub prefix: PathBuf,
    pub external: bool,
    pub dependencies: Vec<Dependency>,
}

/// A compiler by name and version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeCompiler {
    pub name: String,
    pub version: String,
}

/// A direct dependency edge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependency {
    pub hash: String,
    pub name: String,
    /// `build`, `link`, `run`, `test`.
    pub types: Vec<String>,
    /// The virtuals this dependency provides to the dependent (`mpi`).
    pub virtuals: Vec<String>,
}

/// The stage directories.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    pub root: PathBuf,
    /// The (patched) source tree.
    pub source: PathBuf,
}

/// The compilers: real programs, the stack's wrappers, flags.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compiler {
    pub cc: PathBuf,
    pub cxx: Option<PathBuf>,
    pub fc: Option<PathBuf>,
    pub f77: Option<PathBuf>,
    pub wrappers: Wrappers,
    /// The node's spec flags (`cflags="-O3"`), for the package's
    /// `flag_handler`.
    pub flags: Flags,
    /// Flag name → the environment variable whose words the compiler
    /// wrapper injects (`cflags` → `STACK_WRAP_CFLAGS`): where
    /// `inject_flags` puts them.
    pub inject_env: BTreeMap<String, String>,
}

/// The compiler wrappers (`spack_cc` & co.).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wrappers {
    pub cc: PathBuf,
    pub cxx: Option<PathBuf>,
    pub fc: Option<PathBuf>,
    pub f77: Option<PathBuf>,
}

/// Compiler flags by Spack's names.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flags {
    pub cflags: Vec<String>,
    pub cxxflags: Vec<String>,
    pub fflags: Vec<String>,
    pub cppflags: Vec<String>,
    pub ldflags: Vec<String>,
    pub ldlibs: Vec<String>,
}

impl Flags {
    /// The list of a flag name (`cflags`, …); `None` for another name.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Vec<String>> {
        Some(match name {
            "cflags" => &mut self.cflags,
            "cxxflags" => &mut self.cxxflags,
            "fflags" => &mut self.fflags,
            "cppflags" => &mut self.cppflags,
            "ldflags" => &mut self.ldflags,
            "ldlibs" => &mut self.ldlibs,
            _ => return None,
        })
    }
}

/// Files the layer writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outputs {
    /// The package's `setup_run_environment`, as [`super::RunEnvOp`]s.
    pub run_env: PathBuf,
    /// Timings per phase and method, the API calls used.
    pub result: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_has_the_agreed_shape() {
        let node = Node {
            name: "libpng".into(),
            version: "1.6.47".into(),
            namespace: Some("builtin".into()),
            module: Some("spack_repo.builtin.packages.libpng.package".into()),
            variants: BTreeMap::from([
                ("shared".into(), serde_json::json!(true)),
                ("libs".into(), serde_json::json!(["shared", "static"])),
            ]),
            compiler: NodeCompiler {
                name: "gcc".into(),
                version: "14.3.0".into(),
            },
            compilers: BTreeMap::new(),
            languages: vec!["c".into()],
            target: "zen2".into(),
            platform: "linux".into(),
            os: Some("sles15".into()),
            prefix: "/user-environment/zen2/libpng-1.6.47-1a2b3c4d".into(),
            external: false,
            dependencies: vec![Dependency {
                hash: "z".into(),
                name: "zlib-ng".into(),
                types: vec!["build".into(), "link".into()],
                virtuals: vec!["zlib-api".into()],
            }],
        };
        let req = Request {
            api: REQUEST_FORMAT,
            package: "h".into(),
            modules: BTreeMap::new(),
            nodes: BTreeMap::from([("h".into(), node)]),
            stage: Stage {
                root: "/s".into(),
                source: "/s/src".into(),
            },
            jobs: 2,
            compiler: Compiler {
                cc: "/usr/bin/gcc".into(),
                cxx: None,
                fc: None,
                f77: None,
                wrappers: Wrappers {
                    cc: "/w/cc".into(),
                    cxx: None,
                    fc: None,
                    f77: None,
                },
                flags: Flags::default(),
                inject_env: BTreeMap::new(),
            },
            outputs: Outputs {
                run_env: "/s/.stack-build-logic/run-env.json".into(),
                result: "/s/.stack-build-logic/result.json".into(),
            },
            cmake_host_args: vec!["-DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF".into()],
        };
        let v = serde_json::to_value(&req).unwrap();
        for key in [
            "api", "package", "modules", "nodes", "stage", "jobs", "compiler", "outputs",
        ] {
            assert!(v.get(key).is_some(), "{key}");
        }
        let n = &v["nodes"]["h"];
        assert_eq!(n["dependencies"][0]["virtuals"][0], "zlib-api");
        assert_eq!(n["variants"]["libs"][1], "static");
        assert_eq!(v["compiler"]["wrappers"]["cc"], "/w/cc");
        let back: Request = serde_json::from_value(v).unwrap();
        assert_eq!(back, req);
    }
}
