//! `meson`: `meson setup --prefix=P --libdir=lib --buildtype=release
//! --wrap-mode=nodownload ARGS <stage>/build`, `meson compile`, `meson install`.

use crate::build::error::PackageError;
use crate::build::install_steps::run_steps;
use crate::build::job::Meson;
use crate::build::package::PkgCtx;

pub(crate) fn configure(ctx: &mut PkgCtx<'_>, m: &Meson) -> Result<(), PackageError> {
    let mut argv: Vec<String> = vec![
        "meson".into(),
        "setup".into(),
        format!("--prefix={}", ctx.prefix_str()),
        "--libdir=lib".into(),
        "--buildtype=release".into(),
        "--wrap-mode=nodownload".into(),
    ];
    argv.extend(m.args.iter().cloned());
    argv.push(ctx.stage.build.to_string_lossy().into_owned());
    argv.push(ctx.stage.src.to_string_lossy().into_owned());
    ctx.run(argv, &ctx.stage.src)
}

pub(crate) fn build(ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    let ninja = ctx.which("ninja").unwrap_or_else(|| "ninja".into());
    let (jobs, _tokens) = super::ninja_jobs(ctx, &ninja);
    let mut argv: Vec<String> = vec![
        "meson".into(),
        "compile".into(),
        "-C".into(),
        ctx.stage.build.to_string_lossy().into_owned(),
    ];
    if let Some(j) = jobs {
        argv.push("-j".into());
        argv.push(j.to_string());
    }
    ctx.run(argv, &ctx.stage.build)
}

pub(crate) fn install(ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    ctx.run(
        vec![
            "meson".into(),
            "install".into(),
            "-C".into(),
            ctx.stage.build.to_string_lossy().into_owned(),
            "--no-rebuild".into(),
        ],
        &ctx.stage.build,
    )
}

impl super::System for Meson {
    fn keyword(&self) -> &'static str {
        "meson"
    }
    fn out_of_source(&self) -> bool {
        true
    }
    fn compiles(&self) -> bool {
        true
    }
    fn configure(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        configure(ctx, self)
    }
    fn build(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        build(ctx)
    }
    fn install(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        install(ctx)?;
        run_steps(&self.install, &ctx.stage.src, &ctx.host_prefix)
    }
}
