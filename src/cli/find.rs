//! `stack find BUILD|IMAGE [SPEC]`: query what a build or image holds.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{CliError, Global};

/// List the packages a build or image holds (from its lock file), or those
/// that satisfy SPEC, like `spack find`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack find build/demo
  stack find build/demo 'libgreet@1:'
  stack find build/demo/store.squashfs +shared --paths
  stack find stacks/demo.lock hello-make

Each line: the package as a spec (name@version and its variants) and its
hash; --paths adds the prefix; externals are marked.

Exit status: 0 something matched, 1 nothing matched, 2 unreadable input or bad spec.")]
pub struct Args {
    /// A build directory, an image (store.squashfs with meta/ beside it) or
    /// a lock file.
    #[arg(value_name = "BUILD|IMAGE")]
    pub path: PathBuf,
    /// Only packages that satisfy this spec (`zlib`, `libfabric@2: +cxi`, `+shared`).
    #[arg(value_name = "SPEC")]
    pub spec: Option<String>,
    /// Also print each package's prefix.
    #[arg(long)]
    pub paths: bool,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let found = stack::ops::find(&args.path, args.spec.as_deref())?;
    let mut out = super::output::stdout();
    let width = found.iter().map(|f| f.spec.len()).max().unwrap_or(0);
    for f in &found {
        let mut line = format!("{:<width$}  {}", f.spec, &f.hash[..8.min(f.hash.len())]);
        if args.paths {
            line.push_str(&format!("  {}", f.prefix));
        }
        if f.external {
            line.push_str("  [external]");
        }
        let _ = writeln!(out, "{line}");
    }
    if found.is_empty() {
        let what = match &args.spec {
            Some(spec) => format!("no package matches `{spec}`"),
            None => "it holds no package".to_string(),
        };
        let _ = writeln!(
            super::output::stderr(),
            "{}: {what}",
            stack::diag::display_path(&args.path)
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
