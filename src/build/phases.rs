//! The phase skeleton every build system kind ([`crate::build_kinds`]) runs,
//! with the recipe's extra steps around each phase:
//!
//! ```text
//! [bootstrap]  pre_bootstrap, <bootstrap>   (autotools: ./autogen.sh / autoreconf -fi,
//!              also when the tree has a configure.ac but no configure)
//! configure    pre_configure, <configure>, post_configure
//! build        pre_build,     <build>,     post_build
//! install      pre_install,   <install>,   post_install
//! ```
//!
//! `<install>` is the kind's own install (`make install`, `cmake
//! --install`, `meson install`) followed by the recipe's explicit
//! `install:` steps (`generic` and `binary`: when the recipe has neither
//! `install:` nor `steps:`, the whole tree is copied). The kinds reach the stage through [`Phases`], implemented
//! here for the package context.

use std::path::{Path, PathBuf};

use crate::build_kinds::{BuildKind, PhaseError, Phases};
use crate::build_logic::{BuildLogicError, LogicJob, job::StageInfo};

use super::error::PackageError;
use super::install_steps::run_steps;
use super::job::{BuildSystem, InstallStep};
use super::jobserver::Extra;
use super::package::{PkgCtx, is_executable};
use super::report::Phase;
use super::wrapper::{ENV_REAL_CC, ENV_REAL_CXX, ENV_REAL_FC, ENV_RPATHS};
use super::{host_libs, host_tools};

/// The registered kind of a job.
pub(crate) fn of(system: &BuildSystem) -> Result<&'static dyn BuildKind, PackageError> {
    system.kind().ok_or_else(|| PackageError::UnknownBuildKind {
        kind: system.kind.clone(),
    })
}

/// A kind's failure back as the build stage's error.
fn unbox(e: PhaseError) -> PackageError {
    let e = match e.downcast::<PackageError>() {
        Ok(e) => return *e,
        Err(e) => e,
    };
    let e = match e.downcast::<BuildLogicError>() {
        Ok(e) => return PackageError::BuildLogic(*e),
        Err(e) => e,
    };
    match e.downcast::<std::io::Error>() {
        Ok(e) => PackageError::Io(*e),
        Err(other) => PackageError::Io(std::io::Error::other(other)),
    }
}

/// The package context as the kinds see it.
struct KindCx<'c, 'a> {
    ctx: &'c mut PkgCtx<'a>,
    /// Jobserver tokens lent to the next command ([`Phases::ninja_jobs`]).
    held: Option<Extra<'a>>,
}

impl Phases for KindCx<'_, '_> {
    fn src(&self) -> &Path {
        &self.ctx.stage.src
    }
    fn build_dir(&self) -> &Path {
        &self.ctx.stage.build
    }
    fn stage_root(&self) -> &Path {
        &self.ctx.stage.root
    }
    fn prefix(&self) -> String {
        self.ctx.prefix_str()
    }
    fn run(&mut self, argv: Vec<String>, cwd: &Path) -> Result<(), PhaseError> {
        let result = self.ctx.run(argv, cwd);
        self.held = None;
        Ok(result?)
    }
    fn which(&self, name: &str) -> Option<PathBuf> {
        self.ctx.which(name)
    }
    fn is_executable(&self, path: &Path) -> bool {
        is_executable(path)
    }
    fn ninja_jobs(&mut self, ninja: &Path) -> Option<usize> {
        if super::jobserver::ninja_has_jobserver(ninja) {
            return None;
        }
        let js = self.ctx.jobserver;
        let extra = js.grab_free(js.limit().saturating_sub(1));
        let jobs = extra.jobs();
        self.held = Some(extra);
        Some(jobs)
    }
    fn wrapper_rpaths(&self) -> String {
        self.ctx
            .runner
            .env
            .get(std::ffi::OsStr::new(ENV_RPATHS))
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
    fn cmake_host_args(&mut self) -> Result<Vec<String>, PhaseError> {
        let libc = self.ctx.stage.root.join("host-libc");
        host_tools::populate(&libc, &host_libs::libc_libs()).map_err(PackageError::from)?;
        let prefixes = self
            .ctx
            .runner
            .env
            .get(std::ffi::OsStr::new("CMAKE_PREFIX_PATH"))
            .map(|v| v.to_string_lossy().into_owned());
        Ok(host_libs::cmake_args(
            self.ctx.job,
            &libc,
            prefixes.as_deref(),
        ))
    }
    fn package_name(&self) -> &str {
        &self.ctx.job.name
    }
    fn package_hash(&self) -> &str {
        &self.ctx.job.hash
    }
    fn build_logic(&self) -> Option<&LogicJob> {
        self.ctx.job.system.logic.as_ref()
    }
    fn stage_info(&self) -> StageInfo {
        let env = &self.ctx.runner.env;
        let real = |var: &str| {
            env.get(std::ffi::OsStr::new(var))
                .map(std::path::PathBuf::from)
        };
        StageInfo {
            root: self.ctx.stage.root.clone(),
            source: self.ctx.stage.src.clone(),
            jobs: self.ctx.jobserver.limit(),
            cc: real(ENV_REAL_CC).unwrap_or_else(|| self.ctx.job.compiler.cc.clone()),
            cxx: real(ENV_REAL_CXX),
            fc: real(ENV_REAL_FC),
            wrap_dir: self.ctx.stage.wrap.clone(),
            // Filled by a kind that asks for them (`Phases::cmake_host_args`).
            cmake_host_args: Vec::new(),
        }
    }
    fn exit_code(&self, error: &PhaseError) -> Option<i32> {
        match error.downcast_ref::<PackageError>() {
            Some(PackageError::Command { code, .. }) => *code,
            _ => None,
        }
    }
    fn log_tail(&self, lines: usize) -> Vec<String> {
        super::log::tail(self.ctx.runner.log.path(), lines)
    }
    fn log(&self, line: &str) {
        self.ctx.runner.log.line(line);
    }
}

/// The kind's own install, then the recipe's `install:` steps.
fn install(kind: &dyn BuildKind, cx: &mut KindCx<'_, '_>) -> Result<(), PackageError> {
    let job = cx.ctx.job;
    let system = &job.system;
    kind.install(&system.settings, cx).map_err(unbox)?;
    let ctx = &cx.ctx;
    // The whole tree is the install only of a recipe that says nothing
    // else: a step of its own (a `pip install --prefix`, a vendor installer)
    // is its install, and copying the sources beside it would ship them.
    if kind.copies_tree() && system.install.is_empty() && job.steps.is_empty() {
        let all = [InstallStep::Copy {
            from: ".".into(),
            to: "".into(),
        }];
        return run_steps(&all, &ctx.stage.build, &ctx.host_prefix);
    }
    // In-source kinds build in the source tree: both name the same directory.
    run_steps(&system.install, &ctx.stage.src, &ctx.host_prefix)
}

pub(crate) fn run(ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    let job = ctx.job;
    let kind = of(&job.system)?;
    let s = &job.system.settings;
    let mut cx = KindCx { ctx, held: None };
    if kind.bootstraps(s, &cx.ctx.stage.src) || !job.steps.pre_bootstrap.is_empty() {
        cx.ctx.enter(Phase::Bootstrap);
        cx.ctx.hooks(&job.steps.pre_bootstrap)?;
        kind.bootstrap(s, &mut cx).map_err(unbox)?;
    }
    cx.ctx.enter(Phase::Configure);
    cx.ctx.hooks(&job.steps.pre_configure)?;
    kind.configure(s, &mut cx).map_err(unbox)?;
    cx.ctx.hooks(&job.steps.post_configure)?;

    cx.ctx.enter(Phase::Build);
    cx.ctx.hooks(&job.steps.pre_build)?;
    kind.build(s, &mut cx).map_err(unbox)?;
    cx.ctx.hooks(&job.steps.post_build)?;

    cx.ctx.enter(Phase::Install);
    cx.ctx.hooks(&job.steps.pre_install)?;
    install(kind, &mut cx)?;
    cx.ctx.hooks(&job.steps.post_install)?;
    Ok(())
}
