//! `stack ldd`: ldd without executing anything.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::loader_args::LoaderArgs;
use super::output::Format;
use super::{CliError, Global};

/// Print the libraries a program loads, in the order ld.so loads them,
/// without running it.
///
/// The output has the format of `ldd` (without load addresses and the
/// vDSO): `NAME => PATH`, `NAME => not found`, and the interpreter by path.
/// Unlike ldd, the file is never executed, so it is safe on untrusted
/// binaries, and the program's `$ORIGIN` is its real path (as in a real run,
/// where ldd uses the path given).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stack ldd /usr/bin/curl
  stack ldd --why /usr/bin/curl          # show the search step that found each library
  stack ldd --sysroot /srv/rhel8 /usr/bin/ls   # paths are on the target system
  stack ldd --mount build/demo/store:/user-environment build/demo/store/x86_64/*/bin/hello-make
  stack ldd --strict --format json /usr/bin/curl   # exit 1 if anything is not found

Exit status: 0 every file listed (as ldd, also with `not found` lines unless
--strict), 1 a file is not dynamic, the loader would fail, or with --strict a
library is not found, 2 bad usage.")]
pub struct Args {
    /// Files to list (absolute or relative to the working directory; with
    /// --sysroot, paths on the target system).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Show, for each library, which search step found it.
    #[arg(long)]
    pub why: bool,
    /// Exit 1 when a library is not found (ldd itself exits 0).
    #[arg(long)]
    pub strict: bool,
    /// DIR on this machine is mounted at MOUNT at run time (a build's store
    /// and its mount point; repeatable). FILEs inside DIR are looked at from
    /// MOUNT, so `$ORIGIN` and absolute RPATHs resolve as they will.
    #[arg(long, value_name = "DIR:MOUNT", value_parser = parse_mount)]
    pub mount: Vec<(PathBuf, PathBuf)>,
    /// Output format: text (ldd's format) or json (one object per file:
    /// file, failed, missing, the ldd lines).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub loader: Box<LoaderArgs>,
}

fn parse_mount(s: &str) -> Result<(PathBuf, PathBuf), String> {
    let (dir, mount) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("`{s}`: expected DIR:MOUNT, e.g. build/store:/user-environment"))?;
    let mount = PathBuf::from(mount);
    if !mount.is_absolute() {
        return Err(format!(
            "`{}`: the mount point must be absolute",
            mount.display()
        ));
    }
    Ok((PathBuf::from(dir), mount))
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let request = stack::ops::LddRequest {
        files: &args.files,
        mounts: &args.mount,
        sysroot: args.loader.sysroot.clone(),
        loader: args.loader.model()?,
        ld_library_path: args.loader.ld_library_path.clone(),
        why: args.why,
    };
    let results = stack::ops::ldd(&request)?;
    let mut failed = false;
    let mut missing = 0;
    let many = args.files.len() > 1;
    let mut json = Vec::new();
    let mut out = super::output::stdout();
    for stack::ops::LddFile {
        file: f,
        path,
        result: r,
    } in results
    {
        failed |= r.failed;
        missing += r.missing;
        match args.format {
            Format::Json => json.push(serde_json::json!({
                "file": f,
                "path": path,
                "failed": r.failed,
                "missing": r.missing,
                "lines": r.text.lines().map(str::trim).collect::<Vec<_>>(),
            })),
            Format::Text => {
                if many {
                    let _ = writeln!(out, "{}:", f.display());
                }
                let _ = out.write_all(r.text.as_bytes());
            }
        }
    }
    if args.format == Format::Json {
        let text = serde_json::to_string_pretty(&json).unwrap_or_default();
        let _ = writeln!(out, "{text}");
    }
    if args.strict && missing > 0 {
        let _ = writeln!(
            super::output::stderr(),
            "stack ldd --strict: {missing} librar{} not found",
            if missing == 1 { "y" } else { "ies" }
        );
        failed = true;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
