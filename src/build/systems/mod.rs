//! The build systems. Every system runs the same skeleton, with the recipe's
//! extra steps around each phase:
//!
//! ```text
//! [bootstrap]  pre_bootstrap, then autotools only: ./autogen.sh / autoreconf -fi
//!              (also when the tree has a configure.ac but no configure)
//! configure    pre_configure, <configure>, post_configure
//! build        pre_build,     <build>,     post_build
//! install      pre_install,   <install>,   post_install
//! ```
//!
//! `<install>` is the system's own install (`make install`, `cmake
//! --install`, `meson install`) followed by the recipe's explicit `install:`
//! steps; `makefile`, `generic` and `binary` have only the steps (and
//! `makefile` its install targets).

mod autotools;
mod binary;
mod cmake;
mod generic;
mod makefile;
mod meson;

use super::error::PackageError;
use super::job::BuildSystem;
use super::package::PkgCtx;
use super::report::Phase;

/// One build system: what it does in each phase of the skeleton (by
/// default nothing; `install` is its own install and the recipe's explicit
/// install steps). A new system is an entry of [`crate::build_kinds`],
/// then a file here implementing this for its job data, a variant of
/// [`BuildSystem`] and its arm in [`of`].
pub(crate) trait System {
    /// The recipe keyword (`autotools`, `cmake`, …).
    fn keyword(&self) -> &'static str;
    /// Has a bootstrap of its own for the source tree `src` (autotools'
    /// autoreconf/autogen.sh, or a tree without `configure`).
    fn bootstraps(&self, _src: &std::path::Path) -> bool {
        false
    }
    /// Builds in `<stage>/build` rather than in the source tree.
    fn out_of_source(&self) -> bool {
        false
    }
    /// Runs the compilers (its prefix gets the compiled-package checks).
    fn compiles(&self) -> bool {
        false
    }
    fn bootstrap(&self, _ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        Ok(())
    }
    fn configure(&self, _ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        Ok(())
    }
    fn build(&self, _ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        Ok(())
    }
    fn install(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError>;
}

/// The system a job is built with.
pub(crate) fn of(system: &BuildSystem) -> &dyn System {
    match system {
        BuildSystem::Autotools(a) => a,
        BuildSystem::CMake(c) => c,
        BuildSystem::Meson(m) => m,
        BuildSystem::Makefile(m) => m,
        BuildSystem::Generic(g) => g,
        BuildSystem::Binary(b) => b,
    }
}

pub(crate) fn run(ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    let job = ctx.job;
    let system = of(&job.system);
    if system.bootstraps(&ctx.stage.src) || !job.steps.pre_bootstrap.is_empty() {
        ctx.enter(Phase::Bootstrap);
        ctx.hooks(&job.steps.pre_bootstrap)?;
        system.bootstrap(ctx)?;
    }
    ctx.enter(Phase::Configure);
    ctx.hooks(&job.steps.pre_configure)?;
    system.configure(ctx)?;
    ctx.hooks(&job.steps.post_configure)?;

    ctx.enter(Phase::Build);
    ctx.hooks(&job.steps.pre_build)?;
    system.build(ctx)?;
    ctx.hooks(&job.steps.post_build)?;

    ctx.enter(Phase::Install);
    ctx.hooks(&job.steps.pre_install)?;
    system.install(ctx)?;
    ctx.hooks(&job.steps.post_install)?;
    Ok(())
}

/// `ninja` argv prefix: with `-j` from borrowed tokens unless ninja speaks
/// the jobserver protocol itself. Returns the tokens to hold while it runs.
pub(crate) fn ninja_jobs<'j>(
    ctx: &PkgCtx<'j>,
    ninja: &std::path::Path,
) -> (Option<usize>, Option<super::jobserver::Extra<'j>>) {
    if super::jobserver::ninja_has_jobserver(ninja) {
        (None, None)
    } else {
        let extra = ctx
            .jobserver
            .grab_free(ctx.jobserver.limit().saturating_sub(1));
        (Some(extra.jobs()), Some(extra))
    }
}
