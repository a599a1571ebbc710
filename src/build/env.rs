//! The clean per-package build environment.
//!
//! Nothing of the caller's environment leaks into a build. A build sees:
//!
//! | variable | value |
//! |---|---|
//! | `PATH` | wrapper dir, then `bin` of build dependencies, then the stage's `tools` dir (base tools and the programs of build dependencies in `/usr`, [`super::host_tools`]) — never the host's `/usr/bin` |
//! | `CC`, `CXX`, `FC`, `F77` | the wrappers |
//! | `NVCC`, `STACK_WRAP_REAL_NVCC` | with a dependency that has `bin/nvcc` (CUDA): the `nvcc` wrapper and the real program |
//! | `PKG_CONFIG_PATH` | `lib{,64}/pkgconfig`, `share/pkgconfig` of build and link dependencies |
//! | `PKG_CONFIG_LIBDIR` | empty (pkg-config does not read the host's `/usr/lib/<arch>/pkgconfig`), unless the job declares a host library (an external in `/usr`) |
//! | `CMAKE_PREFIX_PATH` | build and link dependency prefixes |
//! | `ACLOCAL_PATH` | `share/aclocal` of build and link dependencies |
//! | `SOURCE_DATE_EPOCH`, `TZ=UTC`, `LC_ALL=C` | reproducibility |
//! | `HOME`, `TMPDIR` | directories inside the stage |
//! | `CONFIG_SITE=/dev/null` | no distribution `config.site` (SUSE's forces `lib64`) |
//! | `STACK_PREFIX`, `STACK_SOURCE_DIR`, `STACK_BUILD_DIR` | for recipe steps |
//! | `STACK_WRAP_*` | the wrapper configuration ([`super::wrapper`]) |
//!
//! then the run environment (`env:`) of the direct build and link
//! dependencies and their run closure (`dep_env`, dependencies first), after which the wrapper
//! directory is put back in front of `PATH` (a dependency's `bin` must not
//! shadow `cc` or `nvcc`), then the job's own `build_env` operations, in
//! order. Dependencies in system locations (`/usr`) add nothing: their
//! directories are searched anyway.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::job::{BuildJob, DepKind, EnvOp, ListEdit};
use super::wrapper::{self, Dtags, WrapConfig};

/// Maps paths as builds see them (under the mount point) to where our own
/// process finds them (identical unless the build runs in a namespace).
#[derive(Clone, Debug)]
pub struct PathMap {
    pub mount: PathBuf,
    pub host_root: PathBuf,
}

impl PathMap {
    pub fn to_host(&self, p: &Path) -> PathBuf {
        crate::store::host_path(&self.mount, &self.host_root, p).unwrap_or_else(|| p.to_path_buf())
    }
}

/// The real programs behind the wrappers (absolute paths).
#[derive(Clone, Debug)]
pub struct RealTools {
    pub cc: PathBuf,
    pub cxx: Option<PathBuf>,
    pub fc: Option<PathBuf>,
    pub ld: Option<PathBuf>,
}

/// Directories of a stage.
#[derive(Clone, Debug)]
pub struct StageDirs {
    pub root: PathBuf,
    pub src: PathBuf,
    pub build: PathBuf,
    pub wrap: PathBuf,
    pub home: PathBuf,
    pub tmp: PathBuf,
    /// The private bin directory of host programs ([`super::host_tools`]).
    pub tools: PathBuf,
}

impl StageDirs {
    /// `wrap` is the wrapper directory, shared by all packages of a build
    /// (the wrapper takes its configuration from the environment).
    pub fn new(root: PathBuf, out_of_source: bool, wrap: PathBuf) -> Self {
        let src = root.join("src");
        StageDirs {
            build: if out_of_source {
                root.join("build")
            } else {
                src.clone()
            },
            wrap,
            home: root.join("home"),
            tmp: root.join("tmp"),
            tools: root.join("tools"),
            src,
            root,
        }
    }
}

/// The dependency directories a build uses, existence-checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DepDirs {
    pub path: Vec<PathBuf>,
    pub pkg_config: Vec<PathBuf>,
    pub cmake_prefix: Vec<PathBuf>,
    pub aclocal: Vec<PathBuf>,
    pub wrap: Option<WrapConfig>,
    /// `bin/nvcc` of a (link or build) dependency: the real program behind
    /// the `nvcc` wrapper.
    pub nvcc: Option<PathBuf>,
}

/// Collect the directories of the job's dependencies (in order, deduplicated).
pub fn dep_dirs(job: &BuildJob, map: &PathMap, dtags: Dtags) -> DepDirs {
    let exists = |p: &Path| map.to_host(p).is_dir();
    let mut d = DepDirs::default();
    let mut wrap = WrapConfig {
        includes: Vec::new(),
        libdirs: Vec::new(),
        rpaths: [job.prefix.join("lib"), job.prefix.join("lib64")]
            .into_iter()
            .chain(job.compiler.runtime_libdirs.iter().cloned())
            .collect(),
        dtags,
        prefix_maps: Vec::new(),
        // Set by the job's `build_env` (a recipe's `flags:`, rendered).
        flags: wrapper::InjectedFlags::default(),
        host_libs: Some(job.host_libraries.clone()),
    };
    let push = |v: &mut Vec<PathBuf>, p: PathBuf| {
        if !v.contains(&p) {
            v.push(p);
        }
    };
    for dep in &job.deps {
        let p = &dep.prefix;
        if wrapper::is_system_dir(p) || dep.kind == DepKind::Run {
            continue;
        }
        push(&mut d.cmake_prefix, p.clone());
        for sub in ["lib/pkgconfig", "lib64/pkgconfig", "share/pkgconfig"] {
            let dir = p.join(sub);
            if exists(&dir) {
                push(&mut d.pkg_config, dir);
            }
        }
        if d.nvcc.is_none() && map.to_host(&p.join("bin/nvcc")).is_file() {
            d.nvcc = Some(p.join("bin/nvcc"));
        }
        let aclocal = p.join("share/aclocal");
        if exists(&aclocal) {
            push(&mut d.aclocal, aclocal);
        }
        match dep.kind {
            DepKind::Build => {
                let bin = p.join("bin");
                if exists(&bin) {
                    push(&mut d.path, bin);
                }
            }
            DepKind::Link => {
                let inc = p.join("include");
                if exists(&inc) {
                    push(&mut wrap.includes, inc);
                }
                for sub in ["lib", "lib64"] {
                    let dir = p.join(sub);
                    if exists(&dir) {
                        push(&mut wrap.libdirs, dir.clone());
                        push(&mut wrap.rpaths, dir);
                    }
                }
            }
            DepKind::Run => {}
        }
    }
    d.wrap = Some(wrap);
    d
}

/// Everything needed to compute a build environment.
pub struct EnvInputs<'a> {
    pub job: &'a BuildJob,
    /// The job's `dep_env` with recorded run environments read
    /// ([`recorded_dep_env`]).
    pub dep_env: &'a [EnvOp],
    pub stage: &'a StageDirs,
    pub deps: &'a DepDirs,
    pub tools: &'a RealTools,
    pub source_date_epoch: i64,
    pub wrapper_log: Option<PathBuf>,
}

/// The full environment of every command of one package build.
pub fn build_environment(inp: &EnvInputs<'_>) -> BTreeMap<OsString, OsString> {
    let mut env: BTreeMap<OsString, OsString> = BTreeMap::new();
    let mut set = |k: &str, v: OsString| {
        env.insert(k.into(), v);
    };
    let join = |v: &[PathBuf]| std::env::join_paths(v).unwrap_or_default();

    let mut path = vec![inp.stage.wrap.clone()];
    path.extend(inp.deps.path.iter().cloned());
    path.push(inp.stage.tools.clone());
    set("PATH", join(&path));
    set("HOME", inp.stage.home.clone().into());
    set("TMPDIR", inp.stage.tmp.clone().into());
    set("LC_ALL", "C".into());
    set("TZ", "UTC".into());
    set(
        "SOURCE_DATE_EPOCH",
        inp.source_date_epoch.to_string().into(),
    );
    set("CONFIG_SITE", "/dev/null".into());
    set("STACK_PREFIX", inp.job.prefix.clone().into());
    set("STACK_SOURCE_DIR", inp.stage.src.clone().into());
    set("STACK_BUILD_DIR", inp.stage.build.clone().into());

    set("CC", inp.stage.wrap.join("cc").into());
    set(wrapper::ENV_REAL_CC, inp.tools.cc.clone().into());
    if let Some(cxx) = &inp.tools.cxx {
        set("CXX", inp.stage.wrap.join("c++").into());
        set(wrapper::ENV_REAL_CXX, cxx.clone().into());
    }
    if let Some(fc) = &inp.tools.fc {
        set("FC", inp.stage.wrap.join("gfortran").into());
        set("F77", inp.stage.wrap.join("gfortran").into());
        set(wrapper::ENV_REAL_FC, fc.clone().into());
    }
    if let Some(ld) = &inp.tools.ld {
        set(wrapper::ENV_REAL_LD, ld.clone().into());
    }
    if let Some(nvcc) = &inp.deps.nvcc {
        // `nvcc` on PATH (and $NVCC) is the wrapper: deterministic objects.
        set("NVCC", inp.stage.wrap.join("nvcc").into());
        set(wrapper::ENV_REAL_NVCC, nvcc.clone().into());
    }
    if let Some(w) = &inp.deps.wrap {
        for (k, v) in w.to_env() {
            set(k, v);
        }
    }
    if let Some(log) = &inp.wrapper_log {
        set(wrapper::ENV_LOG, log.clone().into());
    }
    if !inp.deps.pkg_config.is_empty() {
        set("PKG_CONFIG_PATH", join(&inp.deps.pkg_config));
    }
    // pkg-config's own search path is the host's: a `.pc` file there names
    // a library the link guard refuses, so a configure check would pass and
    // the link fail. Kept when the job declares an external in `/usr`.
    if inp.job.host_libraries.is_empty() {
        set("PKG_CONFIG_LIBDIR", OsString::new());
    }
    if !inp.deps.cmake_prefix.is_empty() {
        set("CMAKE_PREFIX_PATH", join(&inp.deps.cmake_prefix));
    }
    if !inp.deps.aclocal.is_empty() {
        set("ACLOCAL_PATH", join(&inp.deps.aclocal));
    }
    apply_ops(&mut env, inp.dep_env);
    wrapper_first(&mut env, &inp.stage.wrap);
    apply_ops(&mut env, &inp.job.build_env);
    env
}

/// Put the wrapper directory (back) in front of `PATH`, once: what the
/// dependencies' run environments prepend comes after it.
fn wrapper_first(env: &mut BTreeMap<OsString, OsString>, wrap: &Path) {
    let key = OsString::from("PATH");
    let old = env.get(&key).cloned().unwrap_or_default();
    let mut dirs = vec![wrap.to_path_buf()];
    dirs.extend(std::env::split_paths(&old).filter(|d| d != wrap && !d.as_os_str().is_empty()));
    env.insert(key, std::env::join_paths(dirs).unwrap_or(old));
}

/// `ops` with every [`EnvOp::RecordedRunEnv`] replaced by the operations
/// recorded in that installed prefix (found on the host through `map`).
pub fn recorded_dep_env(ops: &[EnvOp], map: &PathMap) -> Result<Vec<EnvOp>, String> {
    use crate::build_logic::run_env::OpKind;
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        let EnvOp::RecordedRunEnv(prefix) = op else {
            out.push(op.clone());
            continue;
        };
        let recorded = crate::build_logic::run_env::read_recorded(&map.to_host(prefix))?;
        for r in recorded {
            let (var, value) = (r.name.clone(), r.value().to_string());
            let edit = match r.op {
                OpKind::Set => {
                    out.push(EnvOp::Set(var, value));
                    continue;
                }
                OpKind::Unset => {
                    out.push(EnvOp::Unset(var));
                    continue;
                }
                OpKind::PrependPath if r.separator() == ":" => {
                    out.push(EnvOp::PrependPath(var, value));
                    continue;
                }
                OpKind::AppendPath if r.separator() == ":" => {
                    out.push(EnvOp::AppendPath(var, value));
                    continue;
                }
                OpKind::PrependPath => ListEdit::Prepend,
                OpKind::AppendPath => ListEdit::Append,
                OpKind::RemovePath => ListEdit::Remove,
            };
            out.push(EnvOp::EditList {
                edit,
                var,
                value,
                separator: r.separator().to_string(),
            });
        }
    }
    Ok(out)
}

/// Apply environment operations in order. `prepend_path`/`append_path`
/// first drop an entry equal to the value (as Spack does), so a directory a
/// dependency's `env:` names again is not listed twice.
pub fn apply_ops(env: &mut BTreeMap<OsString, OsString>, ops: &[EnvOp]) {
    for op in ops {
        match op {
            // Read before (`recorded_dep_env`).
            EnvOp::RecordedRunEnv(_) => {}
            EnvOp::EditList {
                edit,
                var,
                value,
                separator,
            } => {
                let key = OsString::from(var);
                let old = env
                    .get(&key)
                    .map(|v| v.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let mut entries: Vec<&str> = old
                    .split(separator.as_str())
                    .filter(|e| !e.is_empty() && e != value)
                    .collect();
                match edit {
                    ListEdit::Prepend => entries.insert(0, value),
                    ListEdit::Append => entries.push(value),
                    ListEdit::Remove => {}
                }
                env.insert(key, entries.join(separator).into());
            }
            EnvOp::Set(k, v) => {
                env.insert(k.into(), v.into());
            }
            EnvOp::Unset(k) => {
                env.remove(OsString::from(k).as_os_str());
            }
            EnvOp::AppendFlags(k, v) => {
                let key = OsString::from(k);
                let mut new = env.get(&key).cloned().unwrap_or_default();
                if !new.is_empty() {
                    new.push(" ");
                }
                new.push(v);
                env.insert(key, new);
            }
            EnvOp::PrependPath(k, v) | EnvOp::AppendPath(k, v) => {
                let key = OsString::from(k);
                let old = env.get(&key).cloned().unwrap_or_default();
                let mut entries: Vec<PathBuf> = std::env::split_paths(&old)
                    .filter(|e| !e.as_os_str().is_empty() && e.as_os_str() != v.as_str())
                    .collect();
                if matches!(op, EnvOp::PrependPath(..)) {
                    entries.insert(0, v.into());
                } else {
                    entries.push(v.into());
                }
                let mut new = OsString::new();
                for (i, e) in entries.iter().enumerate() {
                    if i > 0 {
                        new.push(":");
                    }
                    new.push(e);
                }
                env.insert(key, new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::job::*;

    #[test]
    fn append_flags_joins_with_a_space_or_sets() {
        let mut env = BTreeMap::new();
        env.insert(OsString::from("CFLAGS"), OsString::from("-O2"));
        apply_ops(
            &mut env,
            &[
                EnvOp::AppendFlags("CFLAGS".into(), "-fcommon".into()),
                EnvOp::AppendFlags("LDFLAGS".into(), "-lm".into()),
            ],
        );
        assert_eq!(env[&OsString::from("CFLAGS")], "-O2 -fcommon");
        assert_eq!(env[&OsString::from("LDFLAGS")], "-lm");
    }

    fn job(deps: Vec<DepPrefix>) -> BuildJob {
        BuildJob {
            name: "app".into(),
            version: "1".into(),
            hash: "abcdef0123".into(),
            spec: "app@1".into(),
            prefix: "/m/app".into(),
            source_dir: "/src".into(),
            system: BuildSystem::new("generic"),
            dep_env: Vec::new(),
            build_env: vec![
                EnvOp::PrependPath("PATH".into(), "/opt/x/bin".into()),
                EnvOp::Set("FOO".into(), "bar".into()),
                EnvOp::AppendPath("NEW".into(), "/n".into()),
                EnvOp::Unset("TZ".into()),
            ],
            steps: Steps::default(),
            filters: Vec::new(),
            relocate: None,
            deps,
            host_libraries: Vec::new(),
            compiler: CompilerPaths::default(),
            cost: None,
            patches: Vec::new(),
            recipe: None,
        }
    }

    #[test]
    fn environment_from_deps() {
        let host = tempfile::tempdir().unwrap();
        let root = host.path();
        for d in [
            "lib/lib",
            "lib/include",
            "lib/lib/pkgconfig",
            "tool/bin",
            "tool/share/aclocal",
        ] {
            fs_err::create_dir_all(root.join(d)).unwrap();
        }
        let map = PathMap {
            mount: "/m".into(),
            host_root: root.to_path_buf(),
        };
        let dep = |name: &str, kind| DepPrefix {
            name: name.into(),
            hash: "h".into(),
            prefix: PathBuf::from("/m").join(name),
            kind,
            executables: Vec::new(),
        };
        let j = job(vec![
            dep("lib", DepKind::Link),
            dep("tool", DepKind::Build),
            DepPrefix {
                name: "zlib".into(),
                hash: "h".into(),
                prefix: "/usr".into(),
                kind: DepKind::Link,
                executables: Vec::new(),
            },
        ]);
        let dd = dep_dirs(&j, &map, Dtags::Rpath);
        let w = dd.wrap.clone().unwrap();
        assert_eq!(w.includes, vec![PathBuf::from("/m/lib/include")]);
        assert_eq!(w.libdirs, vec![PathBuf::from("/m/lib/lib")]);
        assert_eq!(
            w.rpaths,
            vec![
                PathBuf::from("/m/app/lib"),
                PathBuf::from("/m/app/lib64"),
                PathBuf::from("/m/lib/lib")
            ]
        );
        assert_eq!(dd.path, vec![PathBuf::from("/m/tool/bin")]);
        assert_eq!(dd.aclocal, vec![PathBuf::from("/m/tool/share/aclocal")]);
        assert_eq!(dd.pkg_config, vec![PathBuf::from("/m/lib/lib/pkgconfig")]);
        let stage = StageDirs::new("/b/stage/app".into(), false, "/b/stage/app/wrap".into());
        let tools = RealTools {
            cc: "/usr/bin/gcc".into(),
            cxx: None,
            fc: None,
            ld: Some("/usr/bin/ld".into()),
        };
        let env = build_environment(&EnvInputs {
            job: &j,
            dep_env: &j.dep_env,
            stage: &stage,
            deps: &dd,
            tools: &tools,
            source_date_epoch: 1,
            wrapper_log: None,
        });
        let get = |k: &str| {
            env.get(&OsString::from(k))
                .map(|v| v.to_string_lossy().into_owned())
        };
        assert_eq!(
            get("PATH").unwrap(),
            "/opt/x/bin:/b/stage/app/wrap:/m/tool/bin:/b/stage/app/tools"
        );
        assert_eq!(get("FOO").unwrap(), "bar");
        assert_eq!(get("NEW").unwrap(), "/n");
        assert_eq!(get("TZ"), None);
        assert_eq!(get("CC").unwrap(), "/b/stage/app/wrap/cc");
        assert_eq!(get("CXX"), None);
        assert_eq!(get("CMAKE_PREFIX_PATH").unwrap(), "/m/lib:/m/tool");
        assert_eq!(
            get("STACK_WRAP_RPATHS").unwrap(),
            "/m/app/lib:/m/app/lib64:/m/lib/lib"
        );
        assert!(get("HOME").is_some() && get("LC_ALL").as_deref() == Some("C"));
    }

    /// The dependencies' run environment comes first, in order; the
    /// wrapper directory stays in front of `PATH`; the job's own
    /// operations come last and see (and may override) what the
    /// dependencies set.
    #[test]
    fn dependency_env_then_own_env() {
        let mut j = job(Vec::new());
        j.dep_env = vec![
            EnvOp::PrependPath("PYTHONPATH".into(), "/m/py-setuptools/site".into()),
            EnvOp::PrependPath("PYTHONPATH".into(), "/m/py-pip/site".into()),
            EnvOp::PrependPath("PATH".into(), "/m/cuda/bin".into()),
            // already on PATH (a build dependency's bin): moved, not repeated
            EnvOp::PrependPath("PATH".into(), "/b/s/tools".into()),
            EnvOp::Set("MPICC".into(), "/m/mpich/bin/mpicc".into()),
            EnvOp::Set("FOO".into(), "from-dep".into()),
            EnvOp::Set("KEPT".into(), "dep".into()),
        ];
        j.build_env = vec![
            EnvOp::PrependPath("PYTHONPATH".into(), "/own".into()),
            EnvOp::Set("FOO".into(), "own".into()),
        ];
        let stage = StageDirs::new("/b/s".into(), false, "/b/wrap".into());
        let tools = RealTools {
            cc: "/usr/bin/gcc".into(),
            cxx: None,
            fc: None,
            ld: None,
        };
        let env = build_environment(&EnvInputs {
            job: &j,
            dep_env: &j.dep_env,
            stage: &stage,
            deps: &DepDirs::default(),
            tools: &tools,
            source_date_epoch: 1,
            wrapper_log: None,
        });
        let get = |k: &str| env[&OsString::from(k)].to_string_lossy().into_owned();
        assert_eq!(
            get("PYTHONPATH"),
            "/own:/m/py-pip/site:/m/py-setuptools/site"
        );
        assert_eq!(get("PATH"), "/b/wrap:/b/s/tools:/m/cuda/bin");
        assert_eq!(get("MPICC"), "/m/mpich/bin/mpicc");
        assert_eq!(get("FOO"), "own");
        assert_eq!(get("KEPT"), "dep");
    }
}
