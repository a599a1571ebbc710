//! `generic`: copy trees into the prefix (header-only packages such as
//! cassini-headers). Without explicit steps the whole source tree is copied.

use crate::build::error::PackageError;
use crate::build::install_steps::run_steps;
use crate::build::job::{Generic, InstallStep};
use crate::build::package::PkgCtx;

pub(crate) fn install(ctx: &mut PkgCtx<'_>, g: &Generic) -> Result<(), PackageError> {
    copy_all_or(ctx, &g.install)
}

pub(crate) fn copy_all_or(ctx: &mut PkgCtx<'_>, steps: &[InstallStep]) -> Result<(), PackageError> {
    if steps.is_empty() {
        let all = [InstallStep::Copy {
            from: ".".into(),
            to: "".into(),
        }];
        return run_steps(&all, &ctx.stage.build, &ctx.host_prefix);
    }
    run_steps(steps, &ctx.stage.build, &ctx.host_prefix)
}

impl super::System for Generic {
    fn keyword(&self) -> &'static str {
        "generic"
    }
    fn install(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        install(ctx, self)
    }
}
