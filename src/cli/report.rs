//! `stack report DIR [--out FILE]`: the build report again.

use std::path::PathBuf;
use std::process::ExitCode;

use super::output::outln;
use super::{CliError, Global};

/// Make the HTML report of a build again: from a build directory, or from
/// an image's meta/ (beside the image, or inside it).
///
/// Every `stack build` writes BUILD/report.html: one self-contained file
/// (no network, nothing loaded) with the failures first, the plan as a
/// graph with the critical path, the timeline of the job slots or Slurm
/// jobs, a table of every package (version, variants, source route, time,
/// installed size, log) and the audit. It is made from BUILD/stack.lock,
/// BUILD/run.json and the audit report; an image's meta/ holds the plan,
/// the sizes and the audit, and the copy beside the image also the run
/// record (times are never inside the image).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack report build/demo                        # writes build/demo/report.html
  stack report build/demo/meta --out demo.html   # the meta/ beside the image
  stack report build/demo/store/meta --out image.html   # the image's own: no times

Exit status: 0 written; 1 it could not be written; 2 DIR is neither a build
directory nor an image's meta/, or its records are unreadable.")]
pub struct Args {
    /// A build directory (`--build` of `stack build`) or an image's `meta/`.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Where to write the page (default: report.html in DIR).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    match stack::ops::report(&args.dir, args.out.as_deref()) {
        Ok(path) => {
            outln!("{}", path.display());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(e.into()),
    }
}
