//! `cmake`: out of source in `<stage>/build`; Ninja when available.
//!
//! `stack` sets `CMAKE_INSTALL_PREFIX`, `CMAKE_BUILD_TYPE`, and the install
//! RPATH (the same directories the wrapper adds, plus the link path) so that
//! CMake's install-time RPATH rewrite keeps the stack's RPATHs. CMake's
//! `find_*` commands do not search the host's `/usr` (see
//! [`crate::build::host_libs`]).

use crate::build::error::PackageError;
use crate::build::install_steps::run_steps;
use crate::build::job::{CMake, CMakeGenerator};
use crate::build::package::PkgCtx;
use crate::build::wrapper::ENV_RPATHS;
use crate::build::{host_libs, host_tools};

fn use_ninja(ctx: &PkgCtx<'_>, c: &CMake) -> bool {
    match c.generator {
        CMakeGenerator::Ninja => true,
        CMakeGenerator::Make => false,
        CMakeGenerator::Auto => ctx.which("ninja").is_some(),
    }
}

pub(crate) fn configure(ctx: &mut PkgCtx<'_>, c: &CMake) -> Result<(), PackageError> {
    let rpaths = ctx
        .runner
        .env
        .get(std::ffi::OsStr::new(ENV_RPATHS))
        .map(|v| v.to_string_lossy().replace(':', ";"))
        .unwrap_or_default();
    let mut argv: Vec<String> = vec![
        "cmake".into(),
        "-S".into(),
        match &c.source_subdir {
            Some(sub) => ctx.stage.src.join(sub),
            None => ctx.stage.src.clone(),
        }
        .to_string_lossy()
        .into_owned(),
        "-B".into(),
        ctx.stage.build.to_string_lossy().into_owned(),
        "-G".into(),
        if use_ninja(ctx, c) {
            "Ninja"
        } else {
            "Unix Makefiles"
        }
        .into(),
        format!("-DCMAKE_INSTALL_PREFIX={}", ctx.prefix_str()),
        format!("-DCMAKE_BUILD_TYPE={}", c.build_type),
        format!("-DCMAKE_INSTALL_RPATH={rpaths}"),
        "-DCMAKE_INSTALL_RPATH_USE_LINK_PATH=ON".into(),
        "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF".into(),
    ];
    let libc = ctx.stage.root.join("host-libc");
    host_tools::populate(&libc, &host_libs::libc_libs())?;
    argv.extend(host_libs::cmake_args(ctx.job, &libc));
    argv.extend(c.args.iter().cloned());
    ctx.run(argv, &ctx.stage.build)
}

pub(crate) fn build(ctx: &mut PkgCtx<'_>, c: &CMake) -> Result<(), PackageError> {
    let build = ctx.stage.build.to_string_lossy().into_owned();
    if use_ninja(ctx, c) {
        let ninja = ctx.which("ninja").unwrap_or_else(|| "ninja".into());
        let (jobs, _tokens) = super::ninja_jobs(ctx, &ninja);
        let mut argv = vec![ninja.to_string_lossy().into_owned(), "-C".into(), build];
        if let Some(j) = jobs {
            argv.push(format!("-j{j}"));
        }
        ctx.run(argv, &ctx.stage.build)
    } else {
        ctx.run(vec!["make".into(), "-C".into(), build], &ctx.stage.build)
    }
}

pub(crate) fn install(ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    let build = ctx.stage.build.to_string_lossy().into_owned();
    ctx.run(
        vec!["cmake".into(), "--install".into(), build],
        &ctx.stage.build,
    )
}

impl super::System for CMake {
    fn keyword(&self) -> &'static str {
        "cmake"
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
        build(ctx, self)
    }
    fn install(&self, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
        install(ctx)?;
        run_steps(&self.install, &ctx.stage.src, &ctx.host_prefix)
    }
}
