//! The operations on a stack's sources: `stack fetch` (and its dry run) and
//! `stack mirror create`. Both resolve under the same lock file rules as
//! `stack build` (branches pinned, nothing written).

use std::path::{Path, PathBuf};

use crate::fetch::checksum::{ChecksumError, ChecksumLine};
use crate::fetch::create::Skeleton;
use crate::fetch::mirror::MirrorReport;
use crate::fetch::{self, FetchOptions, FetchReporter, Fetched, PlannedSource};
use crate::pipeline::{self, LockRules, SourceSettings};
use crate::stacks::Inputs;

use super::OpError;

/// The lock file rules of the source operations.
fn rules(locked: bool) -> LockRules {
    LockRules {
        locked,
        pin_git: true,
        ..LockRules::default()
    }
}

/// Resolve and list the plan's sources with the options to fetch them.
fn sources(
    inputs: &Inputs,
    locked: bool,
    settings: &SourceSettings,
) -> Result<(Vec<fetch::SourceRequest>, FetchOptions), OpError> {
    let opts = pipeline::fetch_options(inputs, settings);
    let plan = pipeline::resolve_plan(inputs, &rules(locked), &opts, None)?;
    Ok((pipeline::plan_sources(&plan), opts))
}

/// What `stack fetch --dry-run` shows.
#[derive(Debug)]
pub struct FetchPlan {
    /// Per source: verified by what, cached or not, the locations in order.
    pub sources: Vec<PlannedSource>,
    pub mirrors: Vec<String>,
    pub cache: PathBuf,
}

/// What would be fetched, from where (reads the cache, downloads nothing).
pub fn fetch_plan(
    inputs: &Inputs,
    locked: bool,
    settings: &SourceSettings,
) -> Result<FetchPlan, OpError> {
    let (requests, opts) = sources(inputs, locked, settings)?;
    Ok(FetchPlan {
        sources: fetch::plan(&requests, &opts),
        mirrors: opts.mirrors.clone(),
        cache: opts.cache.root().to_path_buf(),
    })
}

/// What `stack fetch` did.
#[derive(Debug)]
pub struct FetchOutcome {
    pub fetched: Vec<Fetched>,
    pub cache: PathBuf,
}

/// Fetch and verify every source of the stack into the source cache.
pub fn fetch(
    inputs: &Inputs,
    locked: bool,
    settings: &SourceSettings,
    reporter: &dyn FetchReporter,
) -> Result<FetchOutcome, OpError> {
    let opts = pipeline::fetch_options(inputs, settings);
    let plan = pipeline::resolve_plan(inputs, &rules(locked), &opts, None)?;
    let requests = pipeline::plan_sources(&plan);
    let fetched = fetch::fetch_all(&requests, &opts, reporter)
        .map_err(|e| pipeline::with_recipe_lines(e, &plan))?;
    Ok(FetchOutcome {
        fetched,
        cache: opts.cache.root().to_path_buf(),
    })
}

/// Write every source of the stack into a Spack-layout mirror directory.
pub fn mirror(
    inputs: &Inputs,
    dir: &Path,
    settings: &SourceSettings,
    reporter: &dyn FetchReporter,
) -> Result<MirrorReport, OpError> {
    let (requests, opts) = sources(inputs, false, settings)?;
    Ok(fetch::mirror::create(&requests, dir, &opts, reporter)?)
}

/// The fetch options of a command that fetches without a stack (`stack
/// checksum`, `stack create`): its source cache, mirrors and CA files.
fn standalone_options(settings: SourceSettings) -> FetchOptions {
    let mut opts = FetchOptions::new(settings.cache);
    opts.mirrors = settings.mirrors;
    opts.ca_files = settings.ca_files;
    opts
}

/// The sha256 (archives) or commit (git) of `versions` of `recipe` (every
/// version without), downloaded (`stack checksum`): one result per
/// version, each failure in its place.
pub fn checksum(
    recipe: &crate::recipes::PackageRecipe,
    versions: &[String],
    settings: SourceSettings,
) -> Vec<Result<ChecksumLine, (String, ChecksumError)>> {
    let opts = standalone_options(settings);
    crate::fetch::checksum::checksum(recipe, versions, &opts, &fetch::NoopReporter)
}

/// A package recipe for the archive at `url` (a URL, or a local path),
/// downloaded and looked at (`stack create`); `None` when the file name
/// names no package and version.
pub fn create_recipe(url: &str, settings: SourceSettings) -> Result<Option<Skeleton>, OpError> {
    let opts = standalone_options(settings);
    let scratch = tempfile::tempdir().map_err(|e| {
        OpError::Io(std::io::Error::new(
            e.kind(),
            format!("temporary directory: {e}"),
        ))
    })?;
    Ok(crate::fetch::create::create(
        url,
        scratch.path(),
        &opts,
        &fetch::NoopReporter,
    )?)
}
