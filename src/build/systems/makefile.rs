//! `makefile`: `make ARGS TARGETS`, then `make ARGS INSTALL_TARGETS` and/or
//! explicit install steps (for projects without an install target, like mukautuva).

use crate::build::error::PackageError;
use crate::build::install_steps::run_steps;
use crate::build::job::Makefile;
use crate::build::package::PkgCtx;

pub(crate) fn build(ctx: &mut PkgCtx<'_>, m: &Makefile) -> Result<(), PackageError> {
    let mut argv = vec!["make".to_string()];
    argv.extend(m.make_args.iter().cloned());
    argv.extend(m.build_targets.iter().cloned());
    ctx.run(argv, &ctx.stage.build)
}

pub(crate) fn install(ctx: &mut PkgCtx<'_>, m: &Makefile) -> Result<(), PackageError> {
    if !m.install_targets.is_empty() {
        let mut argv = vec!["make".to_string()];
        argv.extend(m.make_args.iter().cloned());
        argv.extend(m.install_targets.iter().cloned());
        ctx.run(argv, &ctx.stage.build)?;
    }
    run_steps(&m.install, &ctx.stage.build, &ctx.host_prefix)
}

impl super::System for Makefile {
    fn keyword(&self) -> &'static str {
        "makefile"
    }
    fn compiles(&self) -> bool {
        true
    }
    fn build(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        build(ctx, self)
    }
    fn install(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        install(ctx, self)
    }
}
