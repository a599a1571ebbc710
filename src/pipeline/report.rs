//! The build report's records, kept as the session goes (see
//! [`crate::report`]): what each package did, when, in which job slot or
//! remote job, from which source route, how large it is installed, how it
//! failed. At the end of every run (success, failure or error, once there
//! is a plan) they are written to `<build>/run.json` (and beside the image,
//! `<build>/meta/run.json`, when the run made one) and the page to
//! `<build>/report.html`. The installed sizes also go into the image
//! (`meta/sizes.json`): they follow from the inputs, unlike the times.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use petgraph::graph::NodeIndex;

use crate::build::{BuildSummary, PackageStatus};
use crate::fetch::Origin;
use crate::remote::slurm::JobTimes;
use crate::report::{
    Failure, Outcome, PackageRun, PhaseTime, RUN_FORMAT, RUN_RECORD, Route, RunRecord, RunStatus,
    SIZES_FILE, Size, Sizes, SourceRoute, StageTime,
};
use crate::resolve::Plan;
use crate::store;

use super::{BuildOutcome, PipelineError, Stage};

/// A node of the plan as the record needs it.
struct NodeFacts {
    hash: String,
    name: String,
    version: String,
    /// Where the prefix is on this host.
    host_prefix: PathBuf,
}

/// What the session has seen so far.
pub(super) struct RunLog {
    started: SystemTime,
    clock: Instant,
    nodes: Vec<NodeFacts>,
    /// Hashes not installed in the store when the build began.
    missing: HashSet<String>,
    /// Hashes handed to a remote executor.
    remote: HashSet<String>,
    /// Hashes outside `--only`'s closure.
    not_needed: HashSet<String>,
    routes: HashMap<String, SourceRoute>,
    summary: Option<BuildSummary>,
    audited: bool,
    made_image: bool,
    /// The plan step succeeded in this run (`<build>/stack.lock` is its plan).
    planned: bool,
}

impl RunLog {
    pub fn new() -> RunLog {
        RunLog {
            started: SystemTime::now(),
            clock: Instant::now(),
            nodes: Vec::new(),
            missing: HashSet::new(),
            remote: HashSet::new(),
            not_needed: HashSet::new(),
            routes: HashMap::new(),
            summary: None,
            audited: false,
            made_image: false,
            planned: false,
        }
    }

    /// The plan's buildable nodes (`all`), those this run builds or
    /// installs (`buildable`) and those not installed yet (`missing`).
    pub fn plan(
        &mut self,
        plan: &Plan,
        store_dir: &Path,
        all: &[NodeIndex],
        buildable: &[NodeIndex],
        missing: &[NodeIndex],
    ) {
        let hash = |i: &NodeIndex| plan.node(*i).hash.clone();
        self.nodes = all
            .iter()
            .map(|i| {
                let n = plan.node(*i);
                NodeFacts {
                    hash: n.hash.clone(),
                    name: n.name.clone(),
                    version: n.version.to_string(),
                    host_prefix: super::prune::host_path(plan, store_dir, &n.prefix),
                }
            })
            .collect();
        self.missing = missing.iter().map(hash).collect();
        let kept: HashSet<String> = buildable.iter().map(hash).collect();
        self.not_needed = self
            .nodes
            .iter()
            .filter(|n| !kept.contains(&n.hash))
            .map(|n| n.hash.clone())
            .collect();
    }

    pub fn remote(&mut self, plan: &Plan, nodes: &[NodeIndex]) {
        self.remote
            .extend(nodes.iter().map(|i| plan.node(*i).hash.clone()));
    }

    /// Where the source of `idx` came from (`None`: it has none).
    pub fn route(&mut self, plan: &Plan, idx: NodeIndex, origin: Option<&Origin>) {
        let route = match origin {
            None => SourceRoute {
                route: Route::None,
                from: None,
            },
            Some(Origin::Cache) => SourceRoute {
                route: Route::Cache,
                from: None,
            },
            Some(Origin::Mirror(m)) => SourceRoute {
                route: Route::Mirror,
                from: Some(m.clone()),
            },
            Some(Origin::Upstream(u)) => SourceRoute {
                route: Route::Upstream,
                from: Some(u.clone()),
            },
        };
        self.routes.insert(plan.node(idx).hash.clone(), route);
    }

    pub fn summary(&mut self, summary: &BuildSummary) {
        self.summary = Some(summary.clone());
    }

    pub fn planned(&mut self) {
        self.planned = true;
    }

    pub fn audited(&mut self) {
        self.audited = true;
    }

    pub fn made_image(&mut self) {
        self.made_image = true;
    }

    /// Seconds from the start of the run to `t`.
    fn since_start(&self, t: SystemTime) -> f64 {
        match t.duration_since(self.started) {
            Ok(d) => d.as_secs_f64(),
            Err(e) => -e.duration().as_secs_f64(),
        }
    }

    /// The record of the run that ended with `result`.
    pub fn record(
        &self,
        req: &super::BuildRequest,
        build_dir: &Path,
        timings: &[(Stage, std::time::Duration)],
        result: &Result<BuildOutcome, PipelineError>,
    ) -> RunRecord {
        let sizes = sizes_of(self.nodes.iter().map(|n| (&n.hash, &n.host_prefix)));
        let remote = remote_runs(build_dir, self.started);
        let mut packages: Vec<PackageRun> = self
            .nodes
            .iter()
            .map(|n| {
                let mut p = self.package(n, &remote);
                p.source = self.routes.get(&n.hash).cloned();
                p.size = sizes.get(&n.hash).copied();
                p
            })
            .collect();
        packages.sort_by(|a, b| (&a.name, &a.hash).cmp(&(&b.name, &b.hash)));
        let (outcome, error) = match result {
            Err(e) => (Outcome::Error, Some(e.to_string())),
            Ok(o) if !o.summary.success() => (Outcome::Failed, None),
            Ok(o) if o.up_to_date => (Outcome::UpToDate, None),
            Ok(o) if o.audit.as_ref().is_some_and(|a| a.has_errors()) => {
                (Outcome::AuditFailed, None)
            }
            Ok(_) => (Outcome::Success, None),
        };
        RunRecord {
            format: RUN_FORMAT,
            stack_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at: jiff::Timestamp::try_from(self.started)
                .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
                .unwrap_or_default(),
            wall_seconds: self.clock.elapsed().as_secs_f64(),
            outcome,
            error,
            executor: req
                .remote
                .as_ref()
                .map_or_else(|| "local".to_string(), |r| r.name().to_string()),
            jobs: req.jobs.max(1),
            only: req.only.clone(),
            binary_cache: req.binary_cache.as_ref().map(|c| c.url().to_string()),
            stages: timings
                .iter()
                .map(|(s, d)| StageTime {
                    stage: s.name().to_string(),
                    seconds: d.as_secs_f64(),
                })
                .collect(),
            audit: self.audited.then(|| "audit.json".to_string()),
            packages,
        }
    }

    /// One package: from the build's summary, the remote jobs' records, or
    /// what was known before the build.
    fn package(&self, n: &NodeFacts, remote: &HashMap<String, PackageRun>) -> PackageRun {
        let new = |status| PackageRun::new(&n.hash, &n.name, &n.version, status);
        if self.not_needed.contains(&n.hash) {
            return new(RunStatus::NotNeeded);
        }
        if self.remote.contains(&n.hash)
            && let Some(r) = remote
                .get(&n.hash)
                .or_else(|| remote.get(&format!("name:{}", n.name)))
        {
            let mut p = r.clone();
            (p.hash, p.name, p.version) = (n.hash.clone(), n.name.clone(), n.version.clone());
            return p;
        }
        let Some(summary) = &self.summary else {
            // The run stopped before the build.
            return match self.missing.contains(&n.hash) {
                true => {
                    let mut p = new(RunStatus::Skipped);
                    p.skipped_because = Some("the build stopped before it".into());
                    p
                }
                false => new(RunStatus::Installed),
            };
        };
        let Some(r) = summary.packages.iter().find(|p| p.hash == n.hash) else {
            return new(if self.missing.contains(&n.hash) {
                RunStatus::Cache
            } else {
                RunStatus::Installed
            });
        };
        let offset = self.since_start(summary.started);
        let mut p = new(RunStatus::Built);
        p.log = r.log.as_ref().map(|l| l.display().to_string());
        match &r.status {
            PackageStatus::Reused if self.remote.contains(&n.hash) => p.status = RunStatus::Remote,
            PackageStatus::Reused if self.missing.contains(&n.hash) => p.status = RunStatus::Cache,
            PackageStatus::Reused => p.status = RunStatus::Installed,
            PackageStatus::Skipped { because } => {
                p.status = RunStatus::Skipped;
                p.skipped_because = Some(because.clone());
            }
            PackageStatus::Built | PackageStatus::Failed { .. } => {
                let t = &r.timing;
                p.lane = t.slot.map(|s| format!("slot {}", s + 1));
                p.ready = Some(offset + t.ready.as_secs_f64());
                p.start = Some(offset + t.start.as_secs_f64());
                p.seconds = Some(t.wall.as_secs_f64());
                p.phases = t
                    .phases
                    .iter()
                    .map(|(ph, d)| PhaseTime {
                        phase: ph.as_str().to_string(),
                        seconds: d.as_secs_f64(),
                    })
                    .collect();
                if let PackageStatus::Failed {
                    phase,
                    message,
                    log_tail,
                } = &r.status
                {
                    p.status = RunStatus::Failed;
                    if r.log.is_none() {
                        // A source that failed: it never ran.
                        (p.lane, p.ready, p.start, p.seconds) = (None, None, None, None);
                    }
                    p.failure = Some(Failure {
                        phase: phase.as_str().to_string(),
                        message: message.clone(),
                        log_tail: log_tail.clone(),
                    });
                }
            }
        }
        p
    }

    /// Write the run record (and, when this run made the image, its copy
    /// beside the image) and the page; the page's path. An up-to-date run
    /// keeps the record of the run that built what it found. Never fails
    /// the build: a problem is logged.
    pub fn write(
        &self,
        req: &super::BuildRequest,
        build_dir: &Path,
        timings: &[(Stage, std::time::Duration)],
        result: &Result<BuildOutcome, PipelineError>,
    ) -> Option<PathBuf> {
        if !self.planned {
            return None; // no plan of this run: nothing to show
        }
        let path = build_dir.join(RUN_RECORD);
        let up_to_date = matches!(result, Ok(o) if o.up_to_date);
        let write = || -> Result<PathBuf, Box<dyn std::error::Error>> {
            if !(up_to_date && path.is_file()) {
                let json = self.record(req, build_dir, timings, result).to_json();
                store::atomic::write_atomic(&path, json.as_bytes())?;
                if self.made_image {
                    let beside = build_dir.join("meta").join(RUN_RECORD);
                    store::atomic::write_atomic(&beside, json.as_bytes())?;
                }
            }
            Ok(crate::report::write(build_dir, None)?)
        };
        match write() {
            Ok(page) => {
                tracing::info!("build report: {}", page.display());
                Some(page)
            }
            Err(e) => {
                tracing::warn!("no build report: {e}");
                None
            }
        }
    }
}

/// Installed sizes of the prefixes that are installed, from their manifests.
fn sizes_of<'a>(nodes: impl Iterator<Item = (&'a String, &'a PathBuf)>) -> Sizes {
    let mut out = Sizes::new();
    for (hash, host_prefix) in nodes {
        if !matches!(
            store::inspect(host_prefix, hash),
            store::PrefixState::Installed(_)
        ) {
            continue;
        }
        if let Ok(m) = store::record::read_manifest(host_prefix) {
            let files = m.iter().filter(|e| e.size.is_some()).count() as u64;
            let bytes = m.iter().filter_map(|e| e.size).sum();
            out.insert(hash.clone(), Size { bytes, files });
        }
    }
    out
}

/// `meta/sizes.json` in the store: the installed size of every prefix of
/// the plan (the same for every build of one lock file).
pub(super) fn write_sizes(plan: &Plan, store_dir: &Path, meta: &Path) -> Result<(), PipelineError> {
    let nodes: Vec<(String, PathBuf)> = plan
        .topo_order()
        .into_iter()
        .map(|i| plan.node(i))
        .filter(|n| !n.is_external())
        .map(|n| {
            (
                n.hash.clone(),
                super::prune::host_path(plan, store_dir, &n.prefix),
            )
        })
        .collect();
    let sizes = sizes_of(nodes.iter().map(|(h, p)| (h, p)));
    let mut json = serde_json::to_string_pretty(&sizes).map_err(std::io::Error::other)?;
    json.push('\n');
    store::atomic::write_atomic(&meta.join(SIZES_FILE), json.as_bytes())?;
    Ok(())
}

/// The packages the Slurm jobs of this build directory built, by hash:
/// lane `slurm ID (JOB)`, ready when submitted, the build's start and
/// seconds from the job's own records (`slurm/JOB/logs/*.json`), and a
/// failure for a job that did not complete.
fn remote_runs(build_dir: &Path, started: SystemTime) -> HashMap<String, PackageRun> {
    let mut out = HashMap::new();
    let dir = build_dir.join("slurm");
    let Ok(bytes) = fs_err::read(dir.join("jobs.json")) else {
        return out;
    };
    let Ok(jobs) = serde_json::from_slice::<Vec<JobTimes>>(&bytes) else {
        return out;
    };
    let t0 = started
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    for job in jobs {
        let lane = format!("slurm {} ({})", job.job, job.package);
        let log = dir.join(format!("{}.log", job.package));
        let facts = job_facts(&dir.join(&job.package).join("logs"));
        for f in facts {
            let end = f
                .built_at
                .parse::<jiff::Timestamp>()
                .map_or(0.0, |t| t.as_millisecond() as f64 / 1000.0);
            let mut p = PackageRun::new(&f.hash, &f.name, "", RunStatus::Remote);
            p.lane = Some(lane.clone());
            p.ready = Some(job.submitted - t0);
            p.start = Some(end - f.build_seconds - t0);
            p.seconds = Some(f.build_seconds);
            p.log = Some(f.log.display().to_string());
            out.insert(f.hash.clone(), p);
        }
        if job.state != "COMPLETED" && job.state != "GONE" {
            // Its packages that have no record failed with the job.
            for name in job.packages.split(',').filter(|s| !s.is_empty()) {
                let mut p = PackageRun::new("", name, "", RunStatus::Failed);
                p.lane = Some(lane.clone());
                p.log = Some(log.display().to_string());
                p.failure = Some(Failure {
                    phase: "job".into(),
                    message: format!("Slurm job {} ended {}", job.job, job.state),
                    log_tail: crate::build::log_tail(&log, crate::build::TAIL_LINES),
                });
                out.insert(format!("name:{name}"), p);
            }
        }
    }
    out
}

/// The build records of a job's build directory.
fn job_facts(logs: &Path) -> Vec<store::BuildFacts> {
    let Ok(entries) = fs_err::read_dir(logs) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| serde_json::from_slice(&fs_err::read(&p).ok()?).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_keeps_the_run_record_beside_it() {
        assert!(crate::image::BESIDE_IMAGE.contains(&RUN_RECORD));
    }
}
