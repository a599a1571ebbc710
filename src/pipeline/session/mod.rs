//! `stack build` as a session of named steps, each a method that takes the
//! previous step's output:
//!
//! ```text
//! open        lock the build directory
//! plan        resolve under the lock file rules (plan.rs)
//! plan_work   workspace, what is installed, what must be built, cost hints,
//!             the build logic's preflight (interpreter, package files)
//! fetch_stage fetch, extract and patch what must be built
//! build       pre-install hook, build graph, build::run_in
//! ── a failed package ends the session here
//! up_to_date  prune the store; compare the image fingerprint
//! views       views, modules, meta/
//! hooks       the post-install hook
//! audit       the store as it will be packed (last: nothing changes it after)
//! image       store.squashfs, meta/ beside it, the fingerprint
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use petgraph::graph::NodeIndex;

use crate::binary_cache::CachePrefixes;
use crate::build::{self, BuildGraph, BuildOptions, BuildSummary, JobId, Workspace};
use crate::fetch::{self, FetchOptions};
use crate::lock::{BuildLock, LockWait};
use crate::resolve::{self, Plan};
use crate::store::{self, PrefixState};
use crate::view;

use super::fingerprint::ImageInputs;
use super::plan::{LockRules, resolve_plan};
use super::report::RunLog;

mod finish;
use super::{
    BuildOutcome, BuildRequest, CacheReport, PipelineError, PipelineReporter, Stage, cache,
    failures, fetch_options, partial, prune, sources,
};

/// Run the whole pipeline.
pub fn build_stack(
    req: &BuildRequest,
    reporter: &dyn PipelineReporter,
) -> Result<BuildOutcome, PipelineError> {
    let (mut s, lock) = Session::open(req, reporter)?;
    // The work holds the build directory's lock until the report is written.
    let mut held = None;
    let mut result = run(&mut s, lock, &mut held);
    let page = s.log.write(req, &s.build_dir, &s.timings, &result);
    drop(held);
    if let Ok(o) = result.as_mut() {
        o.report = page;
    }
    result
}

/// The steps, from the plan to the image.
fn run(
    s: &mut Session<'_>,
    lock: BuildLock,
    held: &mut Option<Work>,
) -> Result<BuildOutcome, PipelineError> {
    let req = s.req;
    let plan = s.plan()?;
    s.log.planned();
    let work: &Work = held.insert(s.plan_work(&plan, lock)?);
    let staged = s.fetch_stage(&plan, &work.missing)?;
    let summary = s.build(&plan, work, staged)?;
    let mut outcome = s.outcome(plan, summary, work);
    if !outcome.summary.success() {
        if !req.partial || !req.only.is_empty() {
            return Ok(outcome);
        }
        // `--partial`: the image of what built; the full plan goes back
        // into the outcome for the report of the failures.
        outcome.left_out = partial::left_out(&outcome.summary);
        let smaller = outcome.plan.without(&partial::hashes(&outcome.left_out));
        // What was left out keeps its prefixes and source trees: a rerun
        // resumes them.
        let full = std::mem::replace(&mut outcome.plan, smaller);
        let result = make_image(s, work, &mut outcome, Some(&full));
        outcome.plan = full;
        result?;
        return Ok(outcome);
    }
    if !req.only.is_empty() {
        // A job of a distributed build: what it built must be in the cache.
        let c = &outcome.cache;
        if c.offline || !c.pushes.failed.is_empty() {
            let mut why = c.pushes.failed.clone();
            why.extend(c.rejected.iter().filter(|_| c.offline).cloned());
            return Err(crate::remote::DistributedError::PushFailed(why).into());
        }
        outcome.timings = s.timings.clone();
        return Ok(outcome);
    }
    make_image(s, work, &mut outcome, None)?;
    Ok(outcome)
}

/// From the built store to the image: views, hooks, audit, image (or
/// nothing when the image is up to date), for the outcome's plan. Prefixes
/// and source trees that `keep` (by default that plan) does not name are
/// removed from the build directory first.
fn make_image(
    s: &mut Session<'_>,
    work: &Work,
    outcome: &mut BuildOutcome,
    keep: Option<&Plan>,
) -> Result<(), PipelineError> {
    let req = s.req;
    let fingerprint = ImageInputs::collect(&outcome.plan, &req.inputs, &req.image)?.digest();
    let keep = keep.unwrap_or(&outcome.plan);
    if s.up_to_date(outcome, keep, &fingerprint)? {
        outcome.up_to_date = true;
        outcome.timings = s.timings.clone();
        return Ok(());
    }
    let provenance = s.views(outcome)?;
    s.hooks(outcome, work.hook_ns.clone())?;
    let report = s.audit(outcome)?;
    let audit_failed = report.has_errors();
    outcome.audit = Some(report);
    if !audit_failed {
        outcome.image = Some(s.image(outcome, &provenance, &fingerprint)?);
        s.log.made_image();
    }
    outcome.timings = s.timings.clone();
    Ok(())
}

/// The state a build carries from step to step.
struct Session<'a> {
    req: &'a BuildRequest,
    reporter: &'a dyn PipelineReporter,
    build_dir: PathBuf,
    fetch_opts: FetchOptions,
    timings: Vec<(Stage, Duration)>,
    /// In a shared (direct-mode) store: what this build directory installed.
    owned: Option<store::Owned>,
    /// The binary cache of this build, if any.
    prefixes: Option<Arc<CachePrefixes>>,
    /// What the binary cache did.
    cache_report: CacheReport,
    /// The build report's records.
    log: RunLog,
}

/// The source trees ready to build, and the packages whose sources failed.
#[derive(Default)]
struct Staged {
    dirs: HashMap<NodeIndex, PathBuf>,
    failures: failures::SourceFailures,
}

/// What the plan asks of this build directory.
struct Work {
    workspace: Workspace,
    opts: BuildOptions,
    /// Every node that is not an external, in topological order.
    buildable: Vec<NodeIndex>,
    /// Those without a valid installation (after the binary cache's).
    missing: Vec<NodeIndex>,
    /// Whether any prefix is new to this store (built or from the cache).
    installs_any: bool,
    /// Seconds each package took when last built here.
    costs: HashMap<String, f64>,
    /// Hooks see the store where the packages saw it: at the mount point.
    hook_ns: Option<Arc<crate::sandbox::Namespace>>,
    /// Where build logic (`spack` packages) runs from.
    logic: crate::build_logic::job::LogicRuntime,
}

impl<'a> Session<'a> {
    /// Take the build directory: it is ours from the lock file to the image.
    fn open(
        req: &'a BuildRequest,
        reporter: &'a dyn PipelineReporter,
    ) -> Result<(Session<'a>, BuildLock), PipelineError> {
        let mut build_dir = std::path::absolute(&req.build_dir)?;
        // `a/../b` would reach the builds unresolved, and the namespace's
        // path mapping (stage → /stack-stage) would miss it: the binaries
        // would record the host path.
        if build_dir
            .components()
            .any(|c| c == std::path::Component::ParentDir)
        {
            fs_err::create_dir_all(&build_dir)?;
            build_dir = fs_err::canonicalize(&build_dir)?;
        }
        let lock = Workspace::lock(&build_dir, LockWait::Wait, reporter.build())?;
        let session = Session {
            req,
            reporter,
            fetch_opts: fetch_options(&req.inputs, &req.sources),
            build_dir,
            timings: Vec::new(),
            owned: None,
            prefixes: None,
            cache_report: CacheReport::default(),
            log: RunLog::new(),
        };
        Ok((session, lock))
    }

    /// Time one step.
    fn step<T>(
        &mut self,
        stage: Stage,
        detail: &str,
        f: impl FnOnce(&mut Self) -> Result<T, PipelineError>,
    ) -> Result<T, PipelineError> {
        self.reporter.stage(stage, detail);
        let t = Instant::now();
        let out = f(self)?;
        self.timings.push((stage, t.elapsed()));
        Ok(out)
    }

    fn lock_copy(&self) -> PathBuf {
        self.build_dir.join(resolve::LOCK_FILE)
    }

    fn plan(&mut self) -> Result<Plan, PipelineError> {
        let detail = self.req.inputs.recipe.file.display().to_string();
        self.step(Stage::Resolve, &detail, |s| {
            let rules = LockRules {
                locked: s.req.locked,
                file: s.req.lock_file.clone(),
                pin_git: true,
                review: true,
                ..LockRules::default()
            };
            let copy = s.lock_copy();
            resolve_plan(&s.req.inputs, &rules, &s.fetch_opts, Some(&copy))
        })
    }

    fn plan_work(&mut self, plan: &Plan, lock: BuildLock) -> Result<Work, PipelineError> {
        let req = self.req;
        let mut opts = BuildOptions::new(&self.build_dir);
        opts.jobs = req.jobs.max(1);
        opts.fail_fast = req.fail_fast;
        opts.mount = plan.mount.clone();
        opts.mount_mode = req.mount_mode;
        opts.keep_stage = req.keep_stage;
        super::preflight::warn_before_build(&plan.target);
        if req.mount_mode == build::MountMode::Namespace {
            super::preflight::create_mount_point(&plan.mount);
        }
        let workspace = Workspace::with_lock(lock, &opts)?;
        let store_dir = workspace.store_root().to_path_buf();
        let buildable: Vec<NodeIndex> = plan
            .topo_order()
            .into_iter()
            .filter(|i| !plan.node(*i).is_external())
            .collect();
        let only = super::remote::only_closure(plan, &buildable, &req.only)?;
        let all = buildable.clone();
        let buildable: Vec<NodeIndex> = match &only {
            Some(keep) => buildable.into_iter().filter(|i| keep.contains(i)).collect(),
            None => buildable,
        };
        let missing = not_installed(plan, &store_dir, &buildable);
        self.log.plan(plan, &store_dir, &all, &buildable, &missing);
        // Prefixes new to this store, built or from the binary cache.
        let installs_any = !missing.is_empty();
        let prefixes = req
            .binary_cache
            .as_ref()
            .map(|c| CachePrefixes::new(c.clone(), self.build_dir.join("cache-tmp")));
        let mut missing = match &prefixes {
            Some(p) => cache::fill_from_cache(p, plan, &store_dir, missing)?,
            None => missing,
        };
        if let Some(p) = &prefixes {
            opts.prefix_cache = Some(p.clone());
        }
        let mut costs = build::recorded_costs(&self.build_dir);
        if let (Some(_), Some(cache)) = (&req.remote, &req.binary_cache) {
            crate::binary_cache::add_cached_costs(cache, plan, &missing, &mut costs);
        }
        if only.is_some() {
            if !req.shared_store {
                super::remote::pushing_cache(req.binary_cache.as_ref(), "--only")?;
            }
            super::remote::check_only_deps(plan, &missing, &req.only)?;
        } else if let Some(remote) = &req.remote
            && !missing.is_empty()
        {
            let handover = match req.shared_store {
                true => super::remote::Handover::Store,
                false => super::remote::Handover::Cache(
                    super::remote::pushing_cache(req.binary_cache.as_ref(), "--executor")
                        .map(|_| prefixes.clone())?,
                ),
            };
            let detail = format!("{} packages on {}", missing.len(), remote.name());
            let todo = std::mem::take(&mut missing);
            self.log.remote(plan, &todo);
            missing = self.step(Stage::Build, &detail, |s| {
                super::remote::build_remotely(
                    remote.as_ref(),
                    s.reporter.remote(),
                    &handover,
                    plan,
                    &store_dir,
                    todo,
                    &costs,
                )
            })?;
        }
        self.prefixes = prefixes;
        // Before anything is fetched: what runs the build logic.
        let logic = super::preflight::build_logic(plan, &missing, &req.inputs, &self.build_dir)?;
        let hook_ns = match workspace.namespaced() {
            true => Some(crate::sandbox::Namespace::new(
                &self.build_dir,
                &store_dir,
                &plan.mount,
            )?),
            false => None,
        };
        Ok(Work {
            costs,
            logic,
            workspace,
            opts,
            buildable,
            missing,
            installs_any,
            hook_ns,
        })
    }

    /// Fetch, extract and patch the sources of `missing`; their source trees.
    /// A package whose source fails fails alone (unless `--fail-fast`): it is
    /// recorded in the returned failures and left out of the build.
    fn fetch_stage(&mut self, plan: &Plan, missing: &[NodeIndex]) -> Result<Staged, PipelineError> {
        let mut staged = Staged::default();
        if missing.is_empty() {
            return Ok(staged);
        }
        let mut requests = Vec::new();
        let mut spans = Vec::new();
        for idx in missing {
            let node = plan.node(*idx);
            let start = requests.len();
            requests.extend(sources::source_request(node));
            requests.extend(sources::resource_requests(node));
            let patch_start = requests.len();
            requests.extend(sources::patch_requests(node));
            spans.push((*idx, start, patch_start, requests.len()));
        }
        let detail = format!("{} sources", missing.len());
        let fail_fast = self.req.fail_fast;
        let fetched = self.step(Stage::Fetch, &detail, |s| {
            let fetched: Vec<_> = fetch::fetch_each(&requests, &s.fetch_opts, s.reporter.fetch())
                .into_iter()
                .map(|r| r.map_err(|e| sources::with_recipe_lines(e, plan)))
                .collect();
            if fail_fast && fetched.iter().any(|r| r.is_err()) {
                return Err(fetch::fetch_all_error(fetched).into());
            }
            Ok(fetched)
        })?;
        self.step(Stage::Stage, "extracting and patching", |s| {
            for (idx, start, patch_start, end) in spans {
                s.log.route(
                    plan,
                    idx,
                    fetched
                        .get(start)
                        .and_then(|r| r.as_ref().ok())
                        .filter(|_| start < patch_start)
                        .map(|f| &f.origin),
                );
                if start == patch_start && sources::sourceless(plan.node(idx)) {
                    // `source: none` (a bundle): an empty source tree.
                    let dir = sources::source_dir(&s.build_dir, plan.node(idx));
                    fs_err::create_dir_all(&dir)?;
                    staged.dirs.insert(idx, dir);
                    continue;
                }
                if start == patch_start {
                    return Err(PipelineError::Internal(format!(
                        "{} has no source to build from",
                        plan.node(idx).name
                    )));
                }
                let got = match fetched[start..end]
                    .iter()
                    .map(Result::as_ref)
                    .collect::<Result<Vec<_>, _>>()
                {
                    Ok(got) => got,
                    Err(e) => {
                        staged.failures.record(idx, e.to_string());
                        continue;
                    }
                };
                let rest: Vec<fetch::Fetched> = got[1..].iter().map(|f| (*f).clone()).collect();
                let (resources, patches) = rest.split_at(patch_start - start - 1);
                match sources::stage_and_patch(plan, idx, got[0], resources, patches, &s.build_dir)
                {
                    Ok((dir, _applied)) => {
                        staged.dirs.insert(idx, dir);
                    }
                    Err(e) if fail_fast => return Err(e),
                    Err(e) => staged.failures.record(idx, e.to_string()),
                }
            }
            Ok(())
        })?;
        Ok(staged)
    }

    /// The build graph over every buildable node (installed ones are reused).
    fn graph(
        &self,
        plan: &Plan,
        work: &Work,
        buildable: &[NodeIndex],
        mut staged: HashMap<NodeIndex, PathBuf>,
    ) -> Result<BuildGraph, PipelineError> {
        let mut graph = BuildGraph::new();
        let mut ids: HashMap<NodeIndex, JobId> = HashMap::new();
        for idx in buildable {
            let node = plan.node(*idx);
            let dir = staged
                .remove(idx)
                .unwrap_or_else(|| sources::source_dir(&self.build_dir, node));
            let mut job =
                crate::render::build_job_with(plan, *idx, dir, self.req.jobs, &work.logic)?;
            job.cost = work.costs.get(&node.name).copied();
            ids.insert(*idx, graph.add(job));
        }
        for idx in buildable {
            for (dep, _) in plan.deps(*idx) {
                if let Some(d) = ids.get(&dep) {
                    graph.depends_on(ids[idx], *d);
                }
            }
        }
        Ok(graph)
    }

    fn build(
        &mut self,
        plan: &Plan,
        work: &Work,
        staged: Staged,
    ) -> Result<BuildSummary, PipelineError> {
        let detail = format!("{} to build", work.missing.len());
        self.step(Stage::Build, &detail, |s| {
            let Staged { dirs, mut failures } = staged;
            let buildable = failures.keep(plan, &work.buildable);
            let graph = s.graph(plan, work, &buildable, dirs)?;
            if let Some(script) = &s.req.inputs.recipe.pre_install
                && work.installs_any
            {
                // Like stackinator's pre-install: once before packages are built.
                let ctx = s.hook_context(plan, work, view::HookKind::PreInstall);
                view::run_hook(&script.path, &ctx, &[])?;
            }
            let mut summary = s.run_graph(work, &graph)?;
            failures.report(plan, &mut summary);
            s.log.summary(&summary);
            Ok(summary)
        })
    }

    /// Build the graph; a binary cache is consulted before each package
    /// is built and fed (pushed to) as soon as it is built.
    fn run_graph(
        &mut self,
        work: &Work,
        graph: &BuildGraph,
    ) -> Result<BuildSummary, PipelineError> {
        let summary = build::run_in(&work.workspace, graph, &work.opts, self.reporter.build());
        if let Some(p) = &self.prefixes {
            self.cache_report = p.finish().into();
        }
        Ok(summary?)
    }

    fn hook_context(&self, plan: &Plan, work: &Work, kind: view::HookKind) -> view::HookContext {
        hook_context(
            self.req,
            &self.build_dir,
            &plan.mount,
            work.workspace.store_root(),
            work.hook_ns.clone(),
            kind,
        )
    }

    fn outcome(&self, plan: Plan, summary: BuildSummary, work: &Work) -> BuildOutcome {
        BuildOutcome {
            plan,
            summary,
            image: None,
            store_dir: work.workspace.store_root().to_path_buf(),
            meta_dir: self.build_dir.join("meta"),
            image_path: self.build_dir.join("store.squashfs"),
            up_to_date: false,
            audit: None,
            audit_path: self.build_dir.join("audit.json"),
            report: None,
            timings: self.timings.clone(),
            cache: self.cache_report.clone(),
            left_out: Vec::new(),
        }
    }
}

fn hook_context(
    req: &BuildRequest,
    build_dir: &Path,
    mount: &Path,
    store_dir: &Path,
    namespace: Option<Arc<crate::sandbox::Namespace>>,
    kind: view::HookKind,
) -> view::HookContext {
    view::HookContext {
        kind,
        name: req.inputs.recipe.name.value.clone(),
        mount: mount.to_path_buf(),
        build_dir: build_dir.to_path_buf(),
        store_dir: store_dir.to_path_buf(),
        work_dir: build_dir.join("hooks"),
        namespace,
    }
}

/// The packages of `buildable` whose prefixes the store does not hold.
fn not_installed(plan: &Plan, store_dir: &Path, buildable: &[NodeIndex]) -> Vec<NodeIndex> {
    buildable
        .iter()
        .copied()
        .filter(|i| {
            let n = plan.node(*i);
            let host = prune::host_path(plan, store_dir, &n.prefix);
            !matches!(store::inspect(&host, &n.hash), PrefixState::Installed(_))
        })
        .collect()
}
