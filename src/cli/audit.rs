//! `stack audit`: linkage audit of a tree or a squashfs image.

use std::path::PathBuf;
use std::process::ExitCode;

use std::io::Write;

use stack::ops::AuditOptions;

use super::loader_args::LoaderArgs;
use super::{CliError, Global};

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Junit,
}

/// Audit the linkage of every ELF file in a stack, without running anything.
///
/// Every ELF file is loaded the way glibc's ld.so would load it (as a
/// program, or on its own for libraries); each resolution is classified as
/// inside the stack, an allowed system library (glibc, GCC runtime, CUDA and
/// NVIDIA driver by default), a leak (resolves outside the stack) or
/// unresolved. Files that call dlopen are scanned for hard-coded library
/// paths. A squashfs image is read in place (not mounted); its mount point
/// comes from meta/env.json beside or inside it, or --mount.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stack audit build/demo/store --mount /user-environment
  stack audit build/demo/store.squashfs           # mount point from meta/env.json
  stack audit build/demo/store.squashfs --format junit -o audit.xml
  stack audit build/demo/store --mount /user-environment --allow 'libcurl.so*' --allow '/opt/cray/*'
  stack audit /usr/lib/x86_64-linux-gnu /usr/bin  # several trees as one stack
  stack audit build/demo/store --mount /user-environment --cluster cluster-configs/local

A build's store or image is judged as the build judged it: the allow-list
recorded in its meta/audit/audit.json (inside, or in the meta/ beside it) is
used too, unless --no-recorded-allow.

Exit status: 0 clean, 1 findings (errors, including files or directories that could not be read), 2 bad input (missing path, not a tree or image, bad flags).")]
pub struct Args {
    /// Directories or one squashfs image to audit.
    #[arg(required = true, value_name = "PATH|IMAGE")]
    pub paths: Vec<PathBuf>,
    /// Also allow libraries matching GLOB (on the name, soname or path).
    #[arg(long, value_name = "GLOB")]
    pub allow: Vec<String>,
    /// Do not allow glibc, the GCC runtime and the CUDA/NVIDIA driver libraries by default.
    #[arg(long)]
    pub no_default_allow: bool,
    /// Where the tree is mounted at run time (default: the directory itself,
    /// or the `mount` of an image's meta/env.json).
    #[arg(long, visible_alias = "root", value_name = "PATH")]
    pub mount: Option<PathBuf>,
    /// A declared external's library directory: RPATH/RUNPATH elements
    /// there are accepted (elsewhere outside the mount point they are
    /// findings: errors as DT_RPATH, warnings as DT_RUNPATH). Repeatable.
    #[arg(long, value_name = "DIR")]
    pub external_lib_dir: Vec<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the report to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Do not scan files that call dlopen for hard-coded library paths.
    #[arg(long)]
    pub no_dlopen_scan: bool,
    /// Also allow what this cluster configuration allows: its `audit.allow`
    /// globs and the libraries of its externals (everything below an
    /// external's prefix, unless that is a system-wide one such as /usr).
    #[arg(long, value_name = "DIR")]
    pub cluster: Option<PathBuf>,
    /// Ignore the allow-list the build recorded in meta/audit/audit.json
    /// (inside the tree or image, or in the meta/ beside it).
    #[arg(long)]
    pub no_recorded_allow: bool,
    #[command(flatten)]
    pub loader: Box<LoaderArgs>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let loader = if args.loader.loader_model.is_some()
        || args.loader.sysroot.is_some()
        || args.loader.ld_so_cache.is_some()
        || args.loader.default_dirs.is_some()
        || args.loader.lib.is_some()
        || args.loader.platform.is_some()
        || args.loader.hwcaps.is_some()
    {
        Some(args.loader.model()?)
    } else {
        None
    };
    let options = AuditOptions {
        mount: args.mount.clone(),
        sysroot: args.loader.sysroot.clone(),
        loader,
        allow: args.allow.clone(),
        default_allow: !args.no_default_allow,
        ld_library_path: args.loader.ld_library_path.clone(),
        dlopen_scan: !args.no_dlopen_scan,
        only_below: Vec::new(),
        recorded_allow: !args.no_recorded_allow,
        external_lib_dirs: args.external_lib_dir.clone(),
    };
    let report = stack::ops::audit(&args.paths, args.cluster.as_deref(), options)?;
    let text = match args.format {
        Format::Text => report.to_text(),
        Format::Json => report.to_json(),
        Format::Junit => report.to_junit(),
    };
    match &args.output {
        Some(path) => {
            fs_err::write(path, text)?;
            // The report is in the file; the job log still gets the verdict.
            let _ = writeln!(
                super::output::stdout(),
                "stack audit: {}; report in {}",
                report.result_line(),
                path.display()
            );
        }
        None => {
            let mut out = super::output::stdout();
            let _ = out.write_all(text.as_bytes());
        }
    }
    let code = report.exit_code();
    // The process ends here: skip freeing the report piece by piece.
    std::mem::forget(report);
    Ok(ExitCode::from(code))
}
