//! `stack build` from end to end: the one place that runs every stage in
//! order. Each stage gets only the finished output of the one before:
//!
//! ```text
//! load (recipe::load_inputs) → resolve → fetch (only what is not installed)
//!   → stage + patch → render build jobs → build::run_plan
//!   → view::generate (views, modules, meta/) → image::pack → audit
//! ```
//!
//! The store is `<build>/store`, which builds see at the mount point (a
//! private namespace, see `build`); views, the image and the audit read it
//! there. A no-op build (every node installed, image up to date) skips
//! fetch, views, image and audit.

pub mod preflight;
mod render;
mod sources;
pub use sources::with_recipe_lines;
mod views;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use petgraph::graph::NodeIndex;

pub use render::{RenderError, Renderer, build_job};

use crate::build::{self, BuildGraph, BuildOptions, BuildReporter, BuildSummary, JobId};
use crate::fetch::{self, FetchOptions, FetchReporter, SourceCache};
use crate::image::{self, ImageInfo, ImageOptions};
use crate::recipe::Inputs;
use crate::resolve::{self, Plan, ResolveOptions};
use crate::store::{self, LockWait, PrefixState};
use crate::view;

/// A stage of the pipeline, for progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Resolve,
    Fetch,
    Stage,
    Build,
    Views,
    Image,
    Audit,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Resolve => "resolve",
            Stage::Fetch => "fetch",
            Stage::Stage => "stage",
            Stage::Build => "build",
            Stage::Views => "views",
            Stage::Image => "image",
            Stage::Audit => "audit",
        }
    }
}

/// Progress of a whole `stack build`.
pub trait PipelineReporter {
    /// A stage starts.
    fn stage(&self, stage: Stage, detail: &str);
    fn fetch(&self) -> &dyn FetchReporter;
    fn build(&self) -> &dyn BuildReporter;
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
    pub sources: SourceSettings,
    pub mount_mode: build::MountMode,
    pub image: ImageOptions,
    /// The command line, for provenance.
    pub args: Vec<String>,
}

/// Where sources come from.
#[derive(Clone, Debug)]
pub struct SourceSettings {
    pub cache: SourceCache,
    /// `--mirror` flags (tried before the recipe's and cluster's mirrors).
    pub mirrors: Vec<String>,
    pub fetch_jobs: usize,
    pub allow_unverified: bool,
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
    pub timings: Vec<(Stage, Duration)>,
}

/// Errors of the pipeline that are not a package build failure. Stage
/// errors are boxed: they are large and only travel on the failure path.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Resolve(Box<resolve::ResolveError>),
    #[error(transparent)]
    Fetch(Box<fetch::FetchError>),
    #[error(transparent)]
    Patch(Box<crate::patch::PatchError>),
    #[error(transparent)]
    Render(Box<RenderError>),
    #[error(transparent)]
    Build(Box<build::BuildError>),
    #[error(transparent)]
    View(Box<view::ViewError>),
    #[error(transparent)]
    Image(Box<image::ImageError>),
    #[error(transparent)]
    Audit(Box<crate::audit::AuditError>),
    #[error(transparent)]
    Store(Box<store::StoreError>),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Internal(String),
}

macro_rules! boxed_from {
    ($($variant:ident: $ty:ty),* $(,)?) => {
        $(impl From<$ty> for PipelineError {
            fn from(e: $ty) -> Self {
                PipelineError::$variant(Box::new(e))
            }
        })*
    };
}

boxed_from!(
    Resolve: resolve::ResolveError,
    Fetch: fetch::FetchError,
    Patch: crate::patch::PatchError,
    Render: RenderError,
    Build: build::BuildError,
    View: view::ViewError,
    Image: image::ImageError,
    Audit: crate::audit::AuditError,
    Store: store::StoreError,
);

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
    o
}

/// Every source of a plan (node sources, then URL patches), for `stack
/// fetch` and `stack mirror create`; externals have none.
pub fn plan_sources(plan: &Plan) -> Vec<fetch::SourceRequest> {
    let mut out = Vec::new();
    for idx in plan.topo_order() {
        let node = plan.node(idx);
        out.extend(sources::source_request(node));
        out.extend(sources::patch_requests(node));
    }
    out
}

/// Resolve the recipe into a plan: git branches are pinned from `stack.lock`
/// beside the recipe when it exists, else by asking the repositories; the
/// resulting lock is written to `write_lock` (the build directory's copy,
/// which goes into `meta/`).
pub fn resolve_plan(
    inputs: &Inputs,
    locked: bool,
    fetch_opts: &FetchOptions,
    write_lock: Option<&Path>,
) -> Result<Plan, PipelineError> {
    let lock_path = resolve::lock_path(&inputs.recipe.file);
    let lock = if lock_path.exists() {
        Some(resolve::Lock::read(&lock_path)?)
    } else if locked {
        return Err(PipelineError::Internal(format!(
            "--locked was given but {} does not exist; run `stack resolve --lock` first",
            lock_path.display()
        )));
    } else {
        None
    };
    let mut opts = ResolveOptions::default();
    if let Some(lock) = &lock {
        opts.git_pins = lock.git_pins();
        if locked {
            opts.locked = Some(lock.clone());
        }
    }
    let mut plan = resolve::resolve(&inputs.recipe, &inputs.cluster, &inputs.repo, &opts)?;
    let unpinned = plan.unpinned_git_sources();
    if !unpinned.is_empty() {
        for u in &unpinned {
            let node = plan.node(u.node);
            let Some(req) = sources::source_request(node) else {
                continue;
            };
            if let fetch::Source::Git { url, reference, .. } = &req.source {
                let commit = fetch::resolve_git_ref(url, reference, fetch_opts)?;
                opts.git_pins
                    .insert((u.repo.clone(), u.reference.clone()), commit);
            }
        }
        plan = resolve::resolve(&inputs.recipe, &inputs.cluster, &inputs.repo, &opts)?;
    }
    if let Some(path) = write_lock {
        resolve::Lock::from_plan(&plan).write(path)?;
    }
    Ok(plan)
}

/// Where a prefix under the mount point lives in the store directory.
fn host_path(plan: &Plan, store_dir: &Path, prefix: &Path) -> PathBuf {
    store::host_path(&plan.mount, store_dir, prefix).unwrap_or_else(|| prefix.to_path_buf())
}

/// Remove what earlier plans left in the store: directories beside this
/// plan's prefixes, named like a prefix (`<name>-<version>-<8 hex>`), that
/// the plan does not name — old hashes of changed packages, packages dropped
/// from the recipe, partial prefixes of failed builds. Without this they
/// would end up in the image. Returns the removed host paths.
fn prune_store(plan: &Plan, store_dir: &Path) -> Result<Vec<PathBuf>, PipelineError> {
    let mut keep: std::collections::BTreeMap<
        PathBuf,
        std::collections::BTreeSet<std::ffi::OsString>,
    > = Default::default();
    for i in plan.topo_order() {
        let n = plan.node(i);
        if n.is_external() {
            continue;
        }
        let host = host_path(plan, store_dir, &n.prefix);
        if let (Some(parent), Some(name)) = (host.parent(), host.file_name())
            && parent.starts_with(store_dir)
        {
            keep.entry(parent.to_path_buf())
                .or_default()
                .insert(name.to_os_string());
        }
    }
    let mut removed = Vec::new();
    for (parent, names) in keep {
        let Ok(entries) = fs_err::read_dir(&parent) else {
            continue;
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            if names.contains(&name)
                || !entry.file_type()?.is_dir()
                || !name.to_str().is_some_and(resolve::is_prefix_name)
            {
                continue;
            }
            store::wipe(&entry.path())?;
            removed.push(entry.path());
        }
    }
    removed.sort();
    Ok(removed)
}

/// Run the whole pipeline.
pub fn build_stack(
    req: &BuildRequest,
    reporter: &dyn PipelineReporter,
) -> Result<BuildOutcome, PipelineError> {
    let mut timings = Vec::new();
    let build_dir = std::path::absolute(&req.build_dir)?;
    // The build directory is ours from the lockfile to the image.
    let lock = build::Workspace::lock(&build_dir, LockWait::Wait, reporter.build())?;
    let fetch_opts = fetch_options(&req.inputs, &req.sources);

    let t = Instant::now();
    reporter.stage(
        Stage::Resolve,
        &req.inputs.recipe.file.display().to_string(),
    );
    let lock_file = build_dir.join(resolve::LOCK_FILE);
    let plan = resolve_plan(&req.inputs, req.locked, &fetch_opts, Some(&lock_file))?;
    timings.push((Stage::Resolve, t.elapsed()));

    let mut opts = BuildOptions::new(&build_dir);
    opts.jobs = req.jobs.max(1);
    opts.fail_fast = req.fail_fast;
    opts.mount = plan.mount.clone();
    opts.mount_mode = req.mount_mode;
    opts.keep_stage = req.keep_stage;
    preflight::warn_before_build(&plan.target);
    if req.mount_mode == build::MountMode::Namespace {
        // An empty directory to mount over; harmless, and only possible where
        // the parent is writable (otherwise the build explains what to do).
        preflight::create_mount_point(&plan.mount);
    }
    let workspace = build::Workspace::with_lock(lock, &opts)?;
    let store_dir = workspace.store_root().to_path_buf();
    let meta_dir = build_dir.join("meta");
    let image_path = build_dir.join("store.squashfs");

    // What must be built: every non-external node without a valid record.
    let buildable: Vec<NodeIndex> = plan
        .topo_order()
        .into_iter()
        .filter(|i| !plan.node(*i).is_external())
        .collect();
    let missing: Vec<NodeIndex> = buildable
        .iter()
        .copied()
        .filter(|i| {
            let n = plan.node(*i);
            !matches!(
                store::inspect(&host_path(&plan, &store_dir, &n.prefix), &n.hash),
                PrefixState::Installed(_)
            )
        })
        .collect();

    // Fetch, stage and patch only what is missing.
    let t = Instant::now();
    let mut source_dirs = std::collections::HashMap::new();
    if !missing.is_empty() {
        reporter.stage(Stage::Fetch, &format!("{} sources", missing.len()));
        let mut requests = Vec::new();
        let mut spans = Vec::new();
        for idx in &missing {
            let node = plan.node(*idx);
            let start = requests.len();
            if let Some(r) = sources::source_request(node) {
                requests.push(r);
            }
            let patch_start = requests.len();
            requests.extend(sources::patch_requests(node));
            spans.push((*idx, start, patch_start, requests.len()));
        }
        let fetched = fetch::fetch_all(&requests, &fetch_opts, reporter.fetch())
            .map_err(|e| sources::with_recipe_lines(e, &plan))?;
        timings.push((Stage::Fetch, t.elapsed()));
        let t = Instant::now();
        reporter.stage(Stage::Stage, "extracting and patching");
        for (idx, start, patch_start, end) in spans {
            if start == patch_start {
                return Err(PipelineError::Internal(format!(
                    "{} has no source to build from",
                    plan.node(idx).name
                )));
            }
            let (dir, _applied) = sources::stage_and_patch(
                &plan,
                idx,
                &fetched[start],
                &fetched[patch_start..end],
                &build_dir,
            )?;
            source_dirs.insert(idx, dir);
        }
        timings.push((Stage::Stage, t.elapsed()));
    }

    // Build graph over every buildable node (installed ones are reused).
    let t = Instant::now();
    reporter.stage(Stage::Build, &format!("{} to build", missing.len()));
    let mut graph = BuildGraph::new();
    let mut ids: std::collections::HashMap<NodeIndex, JobId> = Default::default();
    for idx in &buildable {
        let node = plan.node(*idx);
        let dir = source_dirs
            .get(idx)
            .cloned()
            .unwrap_or_else(|| sources::source_dir(&build_dir, node));
        let job = render::build_job(&plan, *idx, dir, req.jobs)?;
        ids.insert(*idx, graph.add(job));
    }
    for idx in &buildable {
        for (dep, _) in plan.deps(*idx) {
            if let Some(d) = ids.get(&dep) {
                graph.depends_on(ids[idx], *d);
            }
        }
    }
    // Hooks see the store where the packages saw it: at the mount point.
    let hook_ns = match workspace.namespaced() {
        true => Some(build::Namespace::new(&build_dir, &store_dir, &plan.mount)?),
        false => None,
    };
    let hook = |kind: view::HookKind| view::HookContext {
        kind,
        name: req.inputs.recipe.name.value.clone(),
        mount: plan.mount.clone(),
        build_dir: build_dir.clone(),
        store_dir: store_dir.clone(),
        work_dir: build_dir.join("hooks"),
        namespace: hook_ns.clone(),
    };
    if let Some(script) = &req.inputs.recipe.pre_install
        && !missing.is_empty()
    {
        // Like stackinator's pre-install: once before packages are built.
        view::run_hook(&script.path, &hook(view::HookKind::PreInstall), &[])?;
    }
    let post_install = hook(view::HookKind::PostInstall);
    let summary = build::run_in(&workspace, &graph, &opts, reporter.build())?;
    timings.push((Stage::Build, t.elapsed()));

    let mut outcome = BuildOutcome {
        plan,
        summary,
        image: None,
        store_dir,
        meta_dir,
        image_path,
        up_to_date: false,
        audit: None,
        audit_path: build_dir.join("audit.json"),
        timings,
    };
    if !outcome.summary.success() {
        return Ok(outcome);
    }

    let pruned = prune_store(&outcome.plan, &outcome.store_dir)?;
    for p in &pruned {
        tracing::info!("removed {} (not in this plan)", p.display());
    }
    let fingerprint = fingerprint(&outcome.plan, &req.inputs)?;
    let fp_file = outcome.meta_dir.join(".stack-fingerprint");
    let built_any = outcome.summary.built().next().is_some();
    if !built_any
        && pruned.is_empty()
        && outcome.image_path.exists()
        && fs_err::read_to_string(&fp_file).ok().as_deref() == Some(fingerprint.as_str())
    {
        outcome.up_to_date = true;
        return Ok(outcome);
    }

    // The audit runs on the installed prefixes before views and the image,
    // so that its report goes into meta/.
    let t = Instant::now();
    reporter.stage(Stage::Audit, "linkage of every ELF file");
    let mut report = audit_store(&outcome, &req.inputs)?;
    // The report goes into the image: name the tree by its mount point, not
    // by this build directory, and leave the wall time to the build summary,
    // so that two builds of one lockfile write the same report.
    for input in &mut report.inputs {
        input.path = outcome.plan.mount.display().to_string();
    }
    report.summary.elapsed_ms = 0;
    store::atomic::write_atomic(&outcome.audit_path, report.to_json().as_bytes())?;
    outcome.timings.push((Stage::Audit, t.elapsed()));
    let audit_failed = report.has_errors();
    outcome.audit = Some(report);
    if audit_failed {
        return Ok(outcome);
    }

    let t = Instant::now();
    reporter.stage(Stage::Views, "views, modules, meta");
    let contents = views::store_contents(&outcome.plan, outcome.store_dir.clone(), req.jobs)?;
    let specs = views::view_specs(&req.inputs.recipe);
    let modules = views::modules_spec(&req.inputs.recipe);
    let recipe = &req.inputs.recipe;
    let provenance = view::Provenance::collect(
        &req.inputs.cluster.name.value,
        &outcome.plan.mount,
        req.args.clone(),
    );
    let meta = view::MetaInfo {
        name: recipe.name.value.clone(),
        description: recipe.description.clone(),
        default_view: recipe.default_view.as_ref().map(|v| v.value.clone()),
        recipe_files: vec![view::CopyFile {
            from: recipe.file.clone(),
            to: PathBuf::from(recipe.file.file_name().unwrap_or_default()),
        }],
        lockfile: Some(lock_file.clone()),
        provenance: Some(provenance.for_image()),
        extra_dir: recipe.extra.as_ref().map(|e| e.path.clone()),
        audit_report: Some(outcome.audit_path.clone()),
    };
    let store_meta = outcome.store_dir.join("meta");
    view::generate(&contents, &specs, modules.as_ref(), &meta, &store_meta)?;
    if let Some(script) = &recipe.post_install {
        // Like stackinator's post-install: after everything is built and the
        // views exist, before the image is made; it sees the store at the
        // mount point (and its host directory as `env.store`).
        view::run_hook(&script.path, &post_install, &[])?;
    }
    outcome.timings.push((Stage::Views, t.elapsed()));

    let t = Instant::now();
    reporter.stage(Stage::Image, &outcome.image_path.display().to_string());
    let info = image::pack(&outcome.store_dir, &outcome.image_path, &req.image)?;
    // The same copy `stack image` makes (meta_dir is <build>/meta).
    image::export_meta(&outcome.store_dir, &build_dir)?;
    let mut record = serde_json::to_string_pretty(&provenance).map_err(std::io::Error::other)?;
    record.push('\n');
    store::atomic::write_atomic(
        &outcome.meta_dir.join(view::BUILD_RECORD),
        record.as_bytes(),
    )?;
    store::atomic::write_atomic(&fp_file, fingerprint.as_bytes())?;
    outcome.image = Some(info);
    outcome.timings.push((Stage::Image, t.elapsed()));
    Ok(outcome)
}

/// Identifies what the views, modules and image were made from.
fn fingerprint(plan: &Plan, inputs: &Inputs) -> Result<String, PipelineError> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"stack-image-fingerprint-v1\n");
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(b"\n");
    let mut hashes: Vec<&str> = plan.graph.node_weights().map(|n| n.hash.as_str()).collect();
    hashes.sort_unstable();
    for hash in hashes {
        h.update(hash.as_bytes());
        h.update(b"\n");
    }
    h.update(fs_err::read(&inputs.recipe.file)?);
    Ok(hex::encode(h.finalize()))
}

/// Audit the store as mounted at the mount point, with the recipe's and the
/// cluster's allow-lists.
fn audit_store(
    outcome: &BuildOutcome,
    inputs: &Inputs,
) -> Result<crate::audit::AuditReport, PipelineError> {
    let mut opts = crate::audit::AuditOptions {
        mount: Some(outcome.plan.mount.clone()),
        ..Default::default()
    };
    for a in inputs
        .recipe
        .audit
        .allow
        .iter()
        .chain(inputs.cluster.audit.allow.iter())
    {
        opts.allow.push(a.value.clone());
    }
    Ok(crate::audit::audit_tree(&outcome.store_dir, &opts)?)
}
