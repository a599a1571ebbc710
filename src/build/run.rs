//! [`run_plan`] / [`run_in`]: skip what is installed, then schedule the rest
//! over the jobserver.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::compiler_tools::{default_wrapper, resolve_tools, wrapper_dirs};
use super::env::{PathMap, RealTools};
use super::error::BuildError;
use super::executor::{Executor, JobStart, LocalExecutor, LocalStore, PrefixCache};
use super::graph::{BuildGraph, JobId};
use super::jobserver::{JobServer, Token};
use super::log::{TAIL_LINES, tail};
use super::options::BuildOptions;
use super::package::{self, Event, Outcome, Shared};
use super::report::{BuildReporter, BuildSummary, PackageReport, PackageStatus, Timing};
use super::scheduler::{NodeState, Schedule, topo_order};
use super::workspace::Workspace;
use crate::sandbox::Namespace;
use crate::store;

/// Build every job of `graph` that is not installed yet.
///
/// Takes the build directory lock, decides between installing directly into
/// the mount point and a private namespace ([`MountMode`](super::MountMode)) — see
/// [`Workspace::open`] — then builds as [`run_in`] does.
///
/// Package failures are reported in the summary; `Err` means the build could
/// not run at all.
pub fn run_plan(
    graph: &BuildGraph,
    opts: &BuildOptions,
    reporter: &dyn BuildReporter,
) -> Result<BuildSummary, BuildError> {
    validate(graph, opts)?;
    let workspace = Workspace::open(opts, reporter)?;
    build(&workspace, graph, opts, reporter)
}

/// Build every job of `graph` that is not installed yet, in a build
/// directory already locked (the pipeline holds it from resolving to the
/// image, so hooks, sources and the store are never shared by two builds).
///
/// Marks jobs whose prefix holds a valid record as reused, and builds the
/// rest in critical-path order with at most `opts.jobs` processes at a time.
/// A failed job skips its dependents; other jobs go on unless
/// `opts.fail_fast`.
pub fn run_in(
    workspace: &Workspace,
    graph: &BuildGraph,
    opts: &BuildOptions,
    reporter: &dyn BuildReporter,
) -> Result<BuildSummary, BuildError> {
    validate(graph, opts)?;
    if std::path::absolute(&opts.build_dir)? != workspace.build_dir()
        || workspace.mount() != opts.mount
    {
        return Err(BuildError::WorkspaceMismatch {
            options: (opts.build_dir.clone(), opts.mount.clone()),
            workspace: (
                workspace.build_dir().to_path_buf(),
                workspace.mount().to_path_buf(),
            ),
        });
    }
    build(workspace, graph, opts, reporter)
}

/// Restore from the prefix cache what it holds (each such package is
/// reused, its stale stage removed); `true` for each package restored.
fn restore_cached(
    graph: &BuildGraph,
    opts: &BuildOptions,
    reporter: &dyn BuildReporter,
    map: &PathMap,
    build_dir: &Path,
    reports: &mut [PackageReport],
) -> Result<Vec<bool>, BuildError> {
    let mut done = vec![false; graph.len()];
    let cache = prefix_cache(opts);
    for (id, job) in graph.jobs() {
        if cache.restore(job, &map.to_host(&job.prefix))? {
            done[id.0] = true;
            reports[id.0].status = PackageStatus::Reused;
            if !opts.keep_stage {
                let stale = package::stage_root(build_dir, job);
                if stale.exists() {
                    let _ = package::remove_tree(&stale);
                }
            }
            reporter.reused(id, &job.name);
        }
    }
    Ok(done)
}

/// The namespace the builds run in: the sandbox (store mounted at the
/// mount point) when `namespaced`, else one for processes only, where a PID
/// namespace is available.
fn build_namespace(
    namespaced: bool,
    build_dir: &Path,
    store_root: &Path,
    opts: &BuildOptions,
    wrapper_exe: &Path,
) -> Result<Option<std::sync::Arc<Namespace>>, BuildError> {
    if namespaced {
        // The wrapper runs inside: keep its directory visible even when
        // it lies below the sandbox's private /tmp.
        let ns = Namespace::new(build_dir, store_root, &opts.mount)?
            .keeping(&wrapper_dirs(wrapper_exe))?;
        ns.probe().map_err(|message| BuildError::Namespace {
            mount: opts.mount.clone(),
            message,
        })?;
        return Ok(Some(ns));
    }
    // Direct mode: no process of a build outlives it, where a PID
    // namespace is available (else as before, with a warning).
    let ns = Namespace::processes_only(build_dir, &opts.mount)?;
    match ns.probe() {
        Ok(()) => Ok(Some(ns)),
        Err(e) => {
            tracing::warn!(
                "no PID namespace for direct-mode builds ({e}); build processes may outlive their commands"
            );
            Ok(None)
        }
    }
}

fn build(
    workspace: &Workspace,
    graph: &BuildGraph,
    opts: &BuildOptions,
    reporter: &dyn BuildReporter,
) -> Result<BuildSummary, BuildError> {
    let wall0 = Instant::now();
    let build_dir = workspace.build_dir().to_path_buf();
    let (namespaced, host_root) = (workspace.namespaced(), workspace.store_root().to_path_buf());
    let map = PathMap {
        mount: opts.mount.clone(),
        host_root: host_root.clone(),
    };

    let n = graph.len();
    let mut reports: Vec<PackageReport> = graph
        .jobs()
        .map(|(id, job)| PackageReport {
            id,
            name: job.name.clone(),
            version: job.version.clone(),
            hash: job.hash.clone(),
            prefix: job.prefix.clone(),
            status: PackageStatus::Skipped {
                because: "not started".into(),
            },
            log: None,
            timing: Timing::default(),
        })
        .collect();
    let done = restore_cached(graph, opts, reporter, &map, &build_dir, &mut reports)?;
    if !opts.keep_stage {
        super::stage_prune::prune_stages(&build_dir, graph);
    }
    let to_build = done.iter().filter(|d| !**d).count();
    reporter.planned(n, to_build);

    let mut summary = BuildSummary {
        packages: Vec::new(),
        wall: Duration::ZERO,
        critical_path: Duration::ZERO,
        total_work: Duration::ZERO,
        jobs: opts.jobs.max(1),
        store_root: host_root,
        namespaced,
        started: std::time::SystemTime::now() - wall0.elapsed(),
    };
    if to_build > 0 {
        let wrapper_exe = match &opts.wrapper_exe {
            Some(p) => std::path::absolute(p)?,
            None => default_wrapper().map_err(BuildError::WrapperExe)?,
        };
        let namespace = build_namespace(
            namespaced,
            &build_dir,
            &summary.store_root,
            opts,
            &wrapper_exe,
        )?;
        let tools = resolve_tools(graph, &done)?;
        super::wrapper::install_links(&build_dir.join(package::WRAP_DIR), &wrapper_exe)?;
        let jobserver = JobServer::new(opts.jobs).map_err(BuildError::Jobserver)?;
        let shared = Shared {
            build_dir: build_dir.clone(),
            map,
            jobserver: &jobserver,
            namespace,
            keep_stage: opts.keep_stage,
            wrapper_log: opts.wrapper_log,
            source_date_epoch: opts.source_date_epoch,
            dtags: opts.dtags,
        };
        schedule(
            graph,
            opts,
            reporter,
            &shared,
            &tools,
            &done,
            wall0,
            &mut reports,
        )?;
    }

    if summary_built(&reports) && opts.sync {
        // One flush for the whole build instead of an fsync per file.
        if let Err(e) = store::atomic::sync_filesystem(&summary.store_root) {
            tracing::warn!("{e}");
        }
    }

    // Critical path over actual wall times.
    let deps = graph.dep_indices();
    let mut finish = vec![Duration::ZERO; n];
    for i in topo_order(&deps) {
        let before = deps[i].iter().map(|&d| finish[d]).max().unwrap_or_default();
        finish[i] = before + reports[i].timing.wall;
    }
    summary.critical_path = finish.into_iter().max().unwrap_or_default();
    summary.total_work = reports.iter().map(|r| r.timing.wall).sum();
    summary.packages = reports;
    summary.wall = wall0.elapsed();
    Ok(summary)
}

/// The graph is acyclic and every prefix lies below the mount point.
fn validate(graph: &BuildGraph, opts: &BuildOptions) -> Result<(), BuildError> {
    graph.validate()?;
    for (_, job) in graph.jobs() {
        if !job.prefix.is_absolute()
            || !job.prefix.starts_with(&opts.mount)
            || job.prefix == opts.mount
        {
            return Err(BuildError::PrefixOutsideMount {
                name: job.name.clone(),
                prefix: job.prefix.clone(),
                mount: opts.mount.clone(),
            });
        }
    }
    Ok(())
}

fn summary_built(reports: &[PackageReport]) -> bool {
    reports.iter().any(|r| r.status == PackageStatus::Built)
}

#[allow(clippy::too_many_arguments)]
fn schedule(
    graph: &BuildGraph,
    opts: &BuildOptions,
    reporter: &dyn BuildReporter,
    shared: &Shared<'_>,
    tools: &[Option<RealTools>],
    done: &[bool],
    wall0: Instant,
    reports: &mut [PackageReport],
) -> Result<(), BuildError> {
    let deps = graph.dep_indices();
    let costs: Vec<f64> = graph.jobs().map(|(_, j)| j.cost.unwrap_or(1.0)).collect();
    let mut sched = Schedule::new(&deps, &costs, done);
    let (tx, rx) = mpsc::channel::<Event>();
    let helper = token_helper(shared, tx.clone())?;

    let mut fatal: Option<BuildError> = None;
    std::thread::scope(|scope| {
        let mut tokens: Vec<Token> = Vec::new();
        let mut requested = 0usize;
        let mut running = 0usize;
        let mut stop = false;
        let mut slots = Slots::new(opts.jobs);
        loop {
            while !stop && sched.ready_len() > 0 {
                let Some(token) = tokens.pop() else { break };
                let i = sched.pop().expect("ready node");
                let id = JobId(i);
                let job = graph.job(id);
                running += 1;
                reports[i].timing.start = wall0.elapsed();
                reports[i].timing.slot = Some(slots.take(running));
                reporter.started(id, &job.name);
                let tools = tools[i].as_ref().expect("tools resolved for jobs to build");
                LocalExecutor.start(
                    scope,
                    JobStart {
                        id,
                        job,
                        shared,
                        tools,
                        events: tx.clone(),
                        token,
                    },
                );
            }
            if !stop {
                take_free_tokens(shared, sched.ready_len(), &mut tokens);
            }
            if !tokens.is_empty() && !stop && sched.ready_len() > 0 {
                continue;
            }
            // Never sit on tokens nobody needs: make children may want them.
            tokens.clear();
            let want = if stop { 0 } else { sched.ready_len() };
            while requested < want {
                helper.request_token();
                requested += 1;
            }
            if running == 0 && (stop || sched.ready_len() == 0) {
                break;
            }
            let Ok(ev) = rx.recv() else { break };
            match ev {
                Event::Token(Ok(t)) => {
                    requested -= 1;
                    tokens.push(Token::Helper(t));
                }
                Event::Token(Err(e)) => {
                    requested -= 1;
                    fatal.get_or_insert(BuildError::Jobserver(e));
                    stop = true;
                }
                Event::Phase(id, phase) => reporter.phase(id, &graph.job(id).name, phase),
                Event::Done(id, out, token) => {
                    running -= 1;
                    tokens.push(token);
                    slots.give(reports[id.0].timing.slot);
                    let at = (graph, reporter, opts, shared);
                    if job_done(&mut sched, reports, at, id, *out, wall0) {
                        stop |= opts.fail_fast;
                    }
                    if stop {
                        skip_ready(&mut sched, reports, graph, reporter);
                    }
                }
            }
        }
    });
    drop(helper);
    skip_waiting(&sched, reports);
    match fatal {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The thread that asks the jobserver for tokens and sends them as events.
fn token_helper(
    shared: &Shared<'_>,
    tx: mpsc::Sender<Event>,
) -> Result<jobserver::HelperThread, BuildError> {
    shared
        .jobserver
        .client()
        .clone()
        .into_helper_thread(move |tok| {
            let _ = tx.send(Event::Token(tok));
        })
        .map_err(BuildError::Jobserver)
}

/// Fast path: free tokens straight from the pipe, as many as packages
/// are ready.
fn take_free_tokens(shared: &Shared<'_>, ready: usize, tokens: &mut Vec<Token>) {
    while ready > tokens.len() {
        match shared.jobserver.try_take() {
            Some(t) => tokens.push(Token::Own(t)),
            None => break,
        }
    }
}

/// A job ended: record it, keep what it built, report it, and skip what
/// depends on it when it failed; true when it failed.
fn job_done(
    sched: &mut Schedule,
    reports: &mut [PackageReport],
    (graph, reporter, opts, shared): (&BuildGraph, &dyn BuildReporter, &BuildOptions, &Shared<'_>),
    id: JobId,
    out: Outcome,
    wall0: Instant,
) -> bool {
    let job = graph.job(id);
    let failed = finish_job(sched, reports, id, out, wall0);
    if !failed {
        keep(opts, job, &shared.map.to_host(&job.prefix), &reports[id.0]);
    }
    reporter.finished(id, &reports[id.0]);
    if failed {
        skip_dependents(sched, reports, graph, reporter, id, &job.name);
    }
    failed
}

/// What never got ready is skipped: the build stopped after a failure.
fn skip_waiting(sched: &Schedule, reports: &mut [PackageReport]) {
    for (i, r) in reports.iter_mut().enumerate() {
        if sched.state(i) == NodeState::Waiting {
            r.status = PackageStatus::Skipped {
                because: "the build stopped after a failure (fail-fast)".into(),
            };
        }
    }
}

/// Skip what depends on the failed `id` (named `name`).
fn skip_dependents(
    sched: &mut Schedule,
    reports: &mut [PackageReport],
    graph: &BuildGraph,
    reporter: &dyn BuildReporter,
    id: JobId,
    name: &str,
) {
    for s in sched.fail(id.0) {
        reports[s].status = PackageStatus::Skipped {
            because: format!("dependency `{name}` failed"),
        };
        reporter.skipped(JobId(s), &graph.job(JobId(s)).name, name);
    }
}

/// Skip every ready package: the build stops (fail-fast).
fn skip_ready(
    sched: &mut Schedule,
    reports: &mut [PackageReport],
    graph: &BuildGraph,
    reporter: &dyn BuildReporter,
) {
    for s in sched.drain_ready() {
        reports[s].status = PackageStatus::Skipped {
            because: "the build stopped after a failure (fail-fast)".into(),
        };
        reporter.skipped(JobId(s), &graph.job(JobId(s)).name, "fail-fast");
    }
}

/// Job slots, for the build report's timeline: each job runs in the lowest
/// free one.
struct Slots(std::collections::BTreeSet<usize>);

impl Slots {
    fn new(jobs: usize) -> Slots {
        Slots((0..jobs.max(1)).collect())
    }

    /// A slot for a job that makes `running` jobs run.
    fn take(&mut self, running: usize) -> usize {
        self.0.pop_first().unwrap_or(running.saturating_sub(1))
    }

    fn give(&mut self, slot: Option<usize>) {
        self.0.extend(slot);
    }
}

/// Record the outcome of a job; true when it failed.
fn finish_job(
    sched: &mut Schedule,
    reports: &mut [PackageReport],
    id: JobId,
    out: Outcome,
    wall0: Instant,
) -> bool {
    let r = &mut reports[id.0];
    r.log = Some(out.log.clone());
    r.timing.wall = out.wall;
    r.timing.children = out.children;
    r.timing.cpu = out.cpu;
    r.timing.phases = out.phases;
    match out.result {
        Ok(()) => {
            r.status = PackageStatus::Built;
            let now = wall0.elapsed();
            for d in sched.finish(id.0) {
                reports[d].timing.ready = now;
            }
            false
        }
        Err(e) => {
            r.status = PackageStatus::Failed {
                phase: e.phase,
                message: e.error.to_string(),
                log_tail: tail(&out.log, TAIL_LINES),
            };
            true
        }
    }
}

/// Hand a finished job's prefix to the prefix cache, with its build time
/// when it was built in this run (a failure is only logged).
fn keep(opts: &BuildOptions, job: &super::BuildJob, host_prefix: &Path, report: &PackageReport) {
    let secs =
        matches!(report.status, PackageStatus::Built).then(|| report.timing.wall.as_secs_f64());
    if let Err(e) = prefix_cache(opts).keep(job, host_prefix, secs) {
        tracing::warn!("{}: not kept in the prefix cache: {e}", job.name);
    }
}

/// The options' prefix cache, else the local store.
fn prefix_cache(opts: &BuildOptions) -> &dyn PrefixCache {
    match &opts.prefix_cache {
        Some(c) => c.as_ref(),
        None => &LocalStore,
    }
}
