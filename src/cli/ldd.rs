//! `stack ldd`: ldd without executing anything.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use stack::audit::fs::{HostDir, Vfs, clean};
use stack::audit::ldd;
use stack::audit::session::{Env, Session};

use super::audit::LoaderArgs;
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
  stack ldd --why build/bin/app          # show the search step that found each library
  stack ldd --sysroot /srv/rhel8 /usr/bin/ls   # paths are on the target system

Exit status: 0 every file listed, 1 a file is not dynamic or the loader would fail, 2 bad usage.")]
pub struct Args {
    /// Files to list (absolute or relative to the working directory; with
    /// --sysroot, paths on the target system).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Show, for each library, which search step found it.
    #[arg(long)]
    pub why: bool,
    #[command(flatten)]
    pub loader: Box<LoaderArgs>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let model = args.loader.model()?;
    let cwd = std::env::current_dir()
        .map_err(|e| CliError::failure(miette::miette!("working directory: {e}")))?;
    let root = args
        .loader
        .sysroot
        .clone()
        .unwrap_or_else(|| PathBuf::from("/"));
    let vfs = Vfs::new(Box::new(HostDir::new(root)));
    let env = Env {
        ld_library_path: args.loader.ld_library_path.clone(),
        cwd: Some(cwd.clone()),
    };
    let session = Session::new(vfs, model, env);
    let mut failed = false;
    let many = args.files.len() > 1;
    let mut out = std::io::stdout().lock();
    for f in &args.files {
        let abs = clean(&if f.is_absolute() {
            f.clone()
        } else {
            cwd.join(f)
        });
        let r = ldd::ldd(&session, &abs, &f.to_string_lossy(), args.why);
        failed |= r.failed;
        if many {
            let _ = writeln!(out, "{}:", f.display());
        }
        let _ = out.write_all(r.text.as_bytes());
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
