//! `stack gc BUILD`: remove source trees and stages no current plan uses.

use std::path::PathBuf;
use std::process::ExitCode;

use super::output::outln;
use super::{CliError, Global};

/// Remove the source trees and stage directories of a build directory that
/// its current plan (BUILD/stack.lock) does not use.
///
/// A build removes older hashes of the packages it builds; trees of packages
/// dropped from the recipe, of killed runs and of `--keep-stage` stay until
/// `stack gc`. The store and the image are not touched (a build prunes the
/// store itself). A running build of BUILD is never collected: its lock is
/// held, and `stack gc` fails at once if a build holds it.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack gc build/demo --dry-run   # list what would go, and the bytes freed
  stack gc build/demo

Exit status: 0 collected; 1 a removal failed or a build holds BUILD;
2 BUILD is not a build directory (no stack.lock).")]
pub struct Args {
    /// The build directory (`--build` of `stack build`).
    #[arg(value_name = "BUILD")]
    pub build_dir: PathBuf,
    /// List what would be removed and the bytes it holds; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let report = stack::ops::gc(&args.build_dir, args.dry_run)?;
    let verb = if report.dry_run {
        "would remove"
    } else {
        "removed"
    };
    for (path, bytes) in &report.removed {
        outln!("{verb} {} ({bytes} bytes)", path.display());
    }
    outln!(
        "{verb} {} entr{}, {} bytes freed{}; kept {} of this plan",
        report.removed.len(),
        if report.removed.len() == 1 {
            "y"
        } else {
            "ies"
        },
        report.freed(),
        if report.dry_run { " (dry run)" } else { "" },
        report.kept
    );
    Ok(ExitCode::SUCCESS)
}
