//! `stack build` from end to end: the one place that runs every stage in
//! order. Each stage gets only the finished output of the one before:
//!
//! ```text
//! load (stacks::load_inputs) → resolve (lock file rules: plan.rs)
//!   → fetch (only what is not installed) → stage + patch → render build jobs
//!   → build::run_in → view::generate (views, modules, meta/)
//!   → post-install hook → audit (of what is packed) → image::pack
//! ```
//!
//! The steps are the methods of the build session (`session.rs`). The store
//! is `<build>/store`, which builds see at the mount point (a private
//! namespace, see `build`); views, hooks, the audit and the image read it
//! there. A no-op build (every node installed, image fingerprint unchanged:
//! `fingerprint.rs`) skips fetch, views, hooks, audit and image.

mod audit;
mod cache;
mod error;
mod failures;
mod fingerprint;
mod gc;
#[cfg(test)]
mod kind_tests;
mod merge;
pub mod partial;
mod plan;
pub mod preflight;
mod prune;
mod remote;
mod report;
mod review;
mod session;
mod sources;
pub use sources::with_recipe_lines;
mod views;

use std::path::PathBuf;
use std::time::Duration;

pub use crate::render::{RenderError, Renderer, build_job, build_job_with};
pub use audit::loader_model;
pub use cache::CacheReport;
pub use error::{ErrorClass, PipelineError};
pub use fingerprint::ImageInputs;
pub use gc::{GcReport, gc};
pub use plan::{LockError, LockRules, lock_file, resolve_plan};
pub use review::check_reviewed;
pub use session::build_stack;

use crate::build::{self, BuildReporter, BuildSummary};
use crate::fetch::{self, FetchOptions, FetchReporter, SourceCache};
use crate::image::{ImageInfo, ImageOptions};
use crate::resolve::Plan;
use crate::stacks::Inputs;

/// A stage of the pipeline, for progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Resolve,
    Fetch,
    Stage,
    Build,
    Views,
    Hooks,
    Audit,
    Image,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Resolve => "resolve",
            Stage::Fetch => "fetch",
            Stage::Stage => "stage",
            Stage::Build => "build",
            Stage::Views => "views",
            Stage::Hooks => "hooks",
            Stage::Audit => "audit",
            Stage::Image => "image",
        }
    }
}

/// Progress of a whole `stack build`.
pub trait PipelineReporter {
    /// A stage starts.
    fn stage(&self, stage: Stage, detail: &str);
    fn fetch(&self) -> &dyn FetchReporter;
    fn build(&self) -> &dyn BuildReporter;
    /// Jobs of a remote executor (`--executor slurm`).
    fn remote(&self) -> &dyn crate::remote::RemoteReporter {
        &crate::remote::NoopRemoteReporter
    }
}

/// Reports nothing.
pub struct NoopPipelineReporter;

impl PipelineReporter for NoopPipelineReporter {
    fn stage(&self, _: Stage, _: &str) {}
    fn fetch(&self) -> &dyn FetchReporter {
        &fetch::NoopReporter
    }
    fn build(&self) -> &dyn BuildReporter {
        &build::NoopReporter
    }
}

/// What to build and how.
pub struct BuildRequest {
    pub inputs: Inputs,
    pub build_dir: PathBuf,
    pub jobs: usize,
    pub fail_fast: bool,
    pub keep_stage: bool,
    /// Refuse to deviate from `stack.lock`.
    pub locked: bool,
    /// The lock file instead of `stack.lock` beside the recipe (`--lock-file`).
    pub lock_file: Option<PathBuf>,
    pub sources: SourceSettings,
    pub mount_mode: build::MountMode,
    pub image: ImageOptions,
    /// The command line, for provenance.
    pub args: Vec<String>,
    /// Install from and push to this binary cache (`--binary-cache`).
    pub binary_cache: Option<std::sync::Arc<crate::binary_cache::BinaryCache>>,
    /// `--only PKG`: build just these (dependencies from the binary cache),
    /// push them, and stop before the views (a job of a distributed build).
    pub only: Vec<String>,
    /// Build what the binary cache lacks elsewhere (`--executor slurm`),
    /// then go on from the cache.
    pub remote: Option<std::sync::Arc<dyn crate::remote::RemoteBuilder>>,
    /// The store is shared between the submitter and the jobs of a
    /// distributed build (`--shared-store`, the cluster's `ci:
    /// {shared_store: true}`): a job (`--only`) builds into it and needs no
    /// binary cache; the submitter reads the jobs' prefixes from it.
    pub shared_store: bool,
    /// `--partial`: when packages fail, make the image of those that built
    /// (see [`partial`]).
    pub partial: bool,
}

/// Where sources come from.
#[derive(Clone, Debug)]
pub struct SourceSettings {
    pub cache: SourceCache,
    /// `--mirror` flags (tried before the recipe's and cluster's mirrors).
    pub mirrors: Vec<String>,
    pub fetch_jobs: usize,
    pub allow_unverified: bool,
    /// `--ca-file`: extra trusted CA certificates for https sources,
    /// mirrors and git remotes (see [`crate::tls`]).
    pub ca_files: Vec<std::path::PathBuf>,
}

/// What a build produced.
pub struct BuildOutcome {
    pub plan: Plan,
    pub summary: BuildSummary,
    /// `None` when the build failed or nothing changed.
    pub image: Option<ImageInfo>,
    pub store_dir: PathBuf,
    pub meta_dir: PathBuf,
    pub image_path: PathBuf,
    /// Nothing was rebuilt and the image was up to date.
    pub up_to_date: bool,
    /// The linkage audit of the store (`None` when the build failed or was up to date).
    pub audit: Option<crate::audit::AuditReport>,
    /// `<build>/audit.json` (also copied into `meta/audit/`).
    pub audit_path: PathBuf,
    /// `<build>/report.html`, when it was written.
    pub report: Option<PathBuf>,
    pub timings: Vec<(Stage, Duration)>,
    /// What the binary cache did.
    pub cache: CacheReport,
    /// With `--partial`, the packages the image lacks (empty otherwise).
    pub left_out: Vec<partial::LeftOut>,
}

/// The mirrors of a build: flags, then recipe, then cluster.
fn mirrors(inputs: &Inputs, settings: &SourceSettings) -> Vec<String> {
    let mut out = settings.mirrors.clone();
    for m in inputs
        .recipe
        .mirrors
        .iter()
        .chain(inputs.cluster.mirrors.iter())
    {
        let url = m.resource.to_string();
        if !out.contains(&url) {
            out.push(url);
        }
    }
    out
}

/// Fetch options for a plan's sources.
pub fn fetch_options(inputs: &Inputs, settings: &SourceSettings) -> FetchOptions {
    let mut o = FetchOptions::new(settings.cache.clone());
    o.mirrors = mirrors(inputs, settings);
    o.jobs = settings.fetch_jobs.max(1);
    o.allow_unverified = settings.allow_unverified || inputs.recipe.allow_unverified;
    o.ca_files = settings.ca_files.clone();
    o
}

/// Every source of a plan (node sources, then URL patches), for `stack
/// fetch` and `stack mirror create`; externals have none.
pub fn plan_sources(plan: &Plan) -> Vec<fetch::SourceRequest> {
    let mut out = Vec::new();
    for idx in plan.topo_order() {
        let node = plan.node(idx);
        out.extend(sources::source_request(node));
        out.extend(sources::resource_requests(node));
        out.extend(sources::patch_requests(node));
    }
    out
}
