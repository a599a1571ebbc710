//! `stack fetch RECIPE`: download and verify every source of a stack.

use std::process::ExitCode;

use stack::fetch::{self, FetchedContent, Origin, Source};
use stack::pipeline::{fetch_options, plan_sources, resolve_plan};

use super::inputs::{InputArgs, SourceArgs, pipeline_error};
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
    /// List what would be fetched (source, checksum or commit, where from); download nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let inputs = args.input.load()?;
    let settings = args.sources.settings()?;
    let opts = fetch_options(&inputs, &settings);
    let plan = resolve_plan(&inputs, args.locked, &opts, None).map_err(pipeline_error)?;
    let requests = plan_sources(&plan);
    if args.dry_run {
        for r in &requests {
            let (what, check) = match &r.source {
                Source::Archive { url, sha256, .. } => (
                    url.clone(),
                    sha256
                        .as_deref()
                        .map(|s| format!("sha256:{s}"))
                        .unwrap_or_else(|| "UNVERIFIED".into()),
                ),
                Source::Git {
                    url,
                    reference,
                    commit,
                    ..
                } => (
                    format!("{url} ({reference})"),
                    commit
                        .as_deref()
                        .map(|c| format!("commit:{c}"))
                        .unwrap_or_else(|| "unpinned".into()),
                ),
            };
            let cached = match &r.source {
                Source::Archive {
                    sha256: Some(s), ..
                } => fetch::Sha256Hex::parse(s)
                    .and_then(|h| opts.cache.lookup(&h))
                    .is_some(),
                _ => false,
            };
            println!(
                "{:<28} {}\n{:<28} {}{}",
                r.label(),
                what,
                "",
                check,
                if cached { "  [cached]" } else { "" }
            );
        }
        for m in &opts.mirrors {
            println!("mirror: {m}");
        }
        println!("{} sources", requests.len());
        return Ok(ExitCode::SUCCESS);
    }
    let progress = Progress::new(false);
    let t = std::time::Instant::now();
    let result = fetch::fetch_all(&requests, &opts, &progress);
    progress.finish();
    let fetched = result.map_err(|e| {
        let e = stack::pipeline::with_recipe_lines(e, &plan);
        CliError::failure(miette::miette!("{e}"))
    })?;
    let (mut cache, mut mirror, mut upstream, mut bytes) = (0, 0, 0, 0u64);
    for f in &fetched {
        match f.origin {
            Origin::Cache => cache += 1,
            Origin::Mirror(_) => mirror += 1,
            Origin::Upstream(_) => upstream += 1,
        }
        if let FetchedContent::File { size, .. } = f.content {
            bytes += size;
        }
    }
    println!(
        "{} sources verified ({} cached, {} from mirrors, {} upstream; {:.1} MB) in {:.2}s; cache {}",
        fetched.len(),
        cache,
        mirror,
        upstream,
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        opts.cache.root().display()
    );
    Ok(ExitCode::SUCCESS)
}
