//! `autotools`: optional `./autogen.sh` / `autoreconf -fi`, then
//! `./configure --prefix=P`, `make`, `make install`, all in the source tree
//! (or, `out_of_source`, `<src>/configure` and make in `<stage>/build`).
//! Like Spack's autotools builder, a tree without `configure` but with
//! `configure.ac` (or `configure.in`) is bootstrapped with `autoreconf -fi`
//! (a GitHub tag archive ships no generated files).

use std::path::Path;

use crate::build::error::PackageError;
use crate::build::install_steps::run_steps;
use crate::build::job::Autotools;
use crate::build::package::{PkgCtx, is_executable};

fn script(ctx: &PkgCtx<'_>, name: &str) -> Vec<String> {
    let path = ctx.stage.src.join(name);
    if is_executable(&path) {
        vec![format!("./{name}")]
    } else {
        vec!["sh".into(), format!("./{name}")]
    }
}

/// The tree has autoconf input but no `configure` to run.
fn lacks_configure(src: &Path) -> bool {
    !src.join("configure").exists()
        && (src.join("configure.ac").is_file() || src.join("configure.in").is_file())
}

pub(crate) fn bootstrap(ctx: &mut PkgCtx<'_>, a: &Autotools) -> Result<(), PackageError> {
    if a.autogen {
        ctx.run(script(ctx, "autogen.sh"), &ctx.stage.src)?;
    }
    if a.autoreconf || lacks_configure(&ctx.stage.src) {
        ctx.run(vec!["autoreconf".into(), "-fi".into()], &ctx.stage.src)?;
    }
    Ok(())
}

pub(crate) fn configure(ctx: &mut PkgCtx<'_>, a: &Autotools) -> Result<(), PackageError> {
    let mut argv = if a.out_of_source {
        let path = ctx.stage.src.join("configure");
        let path_str = path.to_string_lossy().into_owned();
        if is_executable(&path) {
            vec![path_str]
        } else {
            vec!["sh".into(), path_str]
        }
    } else {
        script(ctx, "configure")
    };
    argv.push(format!("--prefix={}", ctx.prefix_str()));
    argv.extend(a.configure_args.iter().cloned());
    ctx.run(argv, &ctx.stage.build)
}

pub(crate) fn build(ctx: &mut PkgCtx<'_>, a: &Autotools) -> Result<(), PackageError> {
    let mut argv = vec!["make".to_string()];
    argv.extend(a.make_args.iter().cloned());
    ctx.run(argv, &ctx.stage.build)
}

pub(crate) fn install(ctx: &mut PkgCtx<'_>, a: &Autotools) -> Result<(), PackageError> {
    if a.install_targets.is_empty() {
        return Ok(());
    }
    let mut argv = vec!["make".to_string()];
    argv.extend(a.make_args.iter().cloned());
    argv.extend(a.install_targets.iter().cloned());
    ctx.run(argv, &ctx.stage.build)
}

impl super::System for Autotools {
    fn keyword(&self) -> &'static str {
        "autotools"
    }
    fn bootstraps(&self, src: &Path) -> bool {
        self.autoreconf || self.autogen || lacks_configure(src)
    }
    fn compiles(&self) -> bool {
        true
    }
    fn out_of_source(&self) -> bool {
        self.out_of_source
    }
    fn bootstrap(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        bootstrap(ctx, self)
    }
    fn configure(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        configure(ctx, self)
    }
    fn build(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        build(ctx, self)
    }
    fn install(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        install(ctx, self)?;
        run_steps(&self.install, &ctx.stage.src, &ctx.host_prefix)
    }
}
