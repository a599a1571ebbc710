//! `stack mirror create RECIPE DIR`: a source mirror for air-gapped sites.

use std::path::PathBuf;
use std::process::ExitCode;

use super::inputs::{InputArgs, SourceArgs};
use super::output::outln;
use super::progress::Progress;
use super::{CliError, Global};

/// Manage source mirrors.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: MirrorCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum MirrorCommand {
    Create(CreateArgs),
}

/// Write every source of a stack into a Spack-layout mirror directory.
///
/// Archives go to `_source-cache/archive/<sha[:2]>/<sha>.<ext>` with a
/// `<name>/<name>-<version>.<ext>` link; git sources become reproducible
/// tarballs of their pinned commit. Copy DIR to the cluster and build there
/// with `--mirror file:///path/to/DIR`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack mirror create stacks/alps-cxi.yaml /srv/mirror --cluster cluster-configs/alps-gh200
  stack build stacks/alps-cxi.yaml --mirror file:///srv/mirror    # on the air-gapped side")]
pub struct CreateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The mirror directory (created if missing; existing entries are kept).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub sources: SourceArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let MirrorCommand::Create(args) = args.command;
    let inputs = args.input.load()?;
    let resolved = super::settings::resolve(&args.sources.flags(), Some(&inputs.cluster));
    let settings = args.sources.sources(&resolved)?;
    let progress = Progress::new(false);
    let result = stack::ops::mirror(&inputs, &args.dir, &settings, &progress);
    progress.finish();
    let report = result?;
    let added = report.entries.iter().filter(|e| e.added).count();
    outln!(
        "{}: {} sources ({} added, {} already present)",
        args.dir.display(),
        report.entries.len(),
        added,
        report.entries.len() - added
    );
    Ok(ExitCode::SUCCESS)
}
