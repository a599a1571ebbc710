//! The build systems. Every system runs the same skeleton, with the recipe's
//! extra steps around each phase:
//!
//! ```text
//! [bootstrap]  pre_bootstrap, then autotools only: autoreconf -fi / ./autogen.sh
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
use super::install_steps::run_steps;
use super::job::BuildSystem;
use super::package::PkgCtx;
use super::report::Phase;

pub(crate) fn run(ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    let job = ctx.job;
    let autotools = match &job.system {
        BuildSystem::Autotools(a) if a.autoreconf || a.autogen => Some(a),
        _ => None,
    };
    if autotools.is_some() || !job.steps.pre_bootstrap.is_empty() {
        ctx.enter(Phase::Bootstrap);
        ctx.hooks(&job.steps.pre_bootstrap)?;
        if let Some(a) = autotools {
            autotools::bootstrap(ctx, a)?;
        }
    }
    ctx.enter(Phase::Configure);
    ctx.hooks(&job.steps.pre_configure)?;
    match &job.system {
        BuildSystem::Autotools(a) => autotools::configure(ctx, a)?,
        BuildSystem::CMake(c) => cmake::configure(ctx, c)?,
        BuildSystem::Meson(m) => meson::configure(ctx, m)?,
        BuildSystem::Makefile(_) | BuildSystem::Generic(_) | BuildSystem::Binary(_) => {}
    }
    ctx.hooks(&job.steps.post_configure)?;

    ctx.enter(Phase::Build);
    ctx.hooks(&job.steps.pre_build)?;
    match &job.system {
        BuildSystem::Autotools(a) => autotools::build(ctx, a)?,
        BuildSystem::CMake(c) => cmake::build(ctx, c)?,
        BuildSystem::Meson(_) => meson::build(ctx)?,
        BuildSystem::Makefile(m) => makefile::build(ctx, m)?,
        BuildSystem::Generic(_) | BuildSystem::Binary(_) => {}
    }
    ctx.hooks(&job.steps.post_build)?;

    ctx.enter(Phase::Install);
    ctx.hooks(&job.steps.pre_install)?;
    match &job.system {
        BuildSystem::Autotools(a) => {
            autotools::install(ctx, a)?;
            run_steps(&a.install, &ctx.stage.src, &ctx.host_prefix)?;
        }
        BuildSystem::CMake(c) => {
            cmake::install(ctx)?;
            run_steps(&c.install, &ctx.stage.src, &ctx.host_prefix)?;
        }
        BuildSystem::Meson(m) => {
            meson::install(ctx)?;
            run_steps(&m.install, &ctx.stage.src, &ctx.host_prefix)?;
        }
        BuildSystem::Makefile(m) => makefile::install(ctx, m)?,
        BuildSystem::Generic(g) => generic::install(ctx, g)?,
        BuildSystem::Binary(b) => binary::install(ctx, b)?,
    }
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
