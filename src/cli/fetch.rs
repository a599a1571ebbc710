//! `stack fetch RECIPE`: download and verify every source of a stack.

use std::process::ExitCode;

use stack::fetch::{FetchedContent, Origin};

use super::inputs::{InputArgs, SourceArgs};
use super::output::outln;
use super::progress::Progress;
use super::{CliError, Global};

/// Fetch and verify every source of a stack into the source cache.
///
/// Resolves the recipe (git branches pinned from stack.lock beside the
/// recipe, or resolved now), then downloads every source and URL patch:
/// cache first, then each mirror in order, then upstream; sha256 is
/// computed while streaming and checked before anything enters the cache.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack fetch stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200
  stack fetch stacks/alps-cxi.yaml --dry-run
  stack fetch stacks/demo.yaml --mirror file:///srv/stack-mirror --cache /scratch/cache

Exit status: 0 everything fetched and verified, 1 a source failed, 2 bad input.")]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub sources: SourceArgs,
    /// Refuse to deviate from stack.lock beside the recipe.
    #[arg(long)]
    pub locked: bool,
    /// List what would be fetched: per source its checksum or commit, whether
    /// the cache has it, the mirrors and upstream locations tried in order,
    /// and what would stop it (a missing checksum); download nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let inputs = args.input.load()?;
    let settings = args.sources.settings()?;
    if args.dry_run {
        let plan = stack::ops::fetch_plan(&inputs, args.locked, &settings)?;
        print_plan(&plan);
        return Ok(ExitCode::SUCCESS);
    }
    let progress = Progress::new(false);
    let t = std::time::Instant::now();
    let result = stack::ops::fetch(&inputs, args.locked, &settings, &progress);
    progress.finish();
    let outcome = result?;
    let (mut cache, mut mirror, mut upstream, mut bytes) = (0, 0, 0, 0u64);
    for f in &outcome.fetched {
        match f.origin {
            Origin::Cache => cache += 1,
            Origin::Mirror(_) => mirror += 1,
            Origin::Upstream(_) => upstream += 1,
        }
        if let FetchedContent::File { size, .. } = f.content {
            bytes += size;
        }
    }
    outln!(
        "{} sources verified ({} cached, {} from mirrors, {} upstream; {:.1} MB) in {:.2}s; cache {}",
        outcome.fetched.len(),
        cache,
        mirror,
        upstream,
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        outcome.cache.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Per source: what verifies it, whether the cache has it, the locations
/// tried in order, and what would stop it before any download.
fn print_plan(plan: &stack::ops::FetchPlan) {
    for s in &plan.sources {
        let cached = if s.cached.is_some() { "  [cached]" } else { "" };
        outln!(
            "{:<28} {}{cached}",
            format!("{}@{}", s.package, s.version),
            s.verified_by
        );
        if s.cached.is_none() {
            for l in &s.locations {
                outln!("{:<28}   try {l}", "");
            }
        }
        if let Some(p) = &s.problem {
            outln!("{:<28}   problem: {p}", "");
        }
    }
    for m in &plan.mirrors {
        outln!("mirror: {m}");
    }
    outln!(
        "{} sources; cache {}",
        plan.sources.len(),
        plan.cache.display()
    );
}
