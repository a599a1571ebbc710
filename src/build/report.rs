//! Progress events ([`BuildReporter`]) and the result ([`BuildSummary`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::graph::JobId;

/// The phases of one package build, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Wipe a leftover prefix, copy the sources into the stage, set up the wrapper.
    Stage,
    /// `autoreconf -fi` / `./autogen.sh`.
    Bootstrap,
    Configure,
    Build,
    Install,
    /// RPATHs, NEEDED entries, placeholders.
    Relocate,
    /// Manifest and `installed.json`.
    Register,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Stage => "stage",
            Phase::Bootstrap => "bootstrap",
            Phase::Configure => "configure",
            Phase::Build => "build",
            Phase::Install => "install",
            Phase::Relocate => "relocate",
            Phase::Register => "register",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Progress callbacks. All calls come from the thread that called
/// [`run_plan`](super::run_plan), in event order; every method has a no-op default.
pub trait BuildReporter {
    /// Another process holds the build directory lock; waiting for it.
    fn waiting_for_lock(&self, _lock: &Path) {}
    /// The plan is known: `to_build` of `total` jobs need work.
    fn planned(&self, _total: usize, _to_build: usize) {}
    /// A job is already installed.
    fn reused(&self, _id: JobId, _name: &str) {}
    /// A job started (it holds a jobserver token now).
    fn started(&self, _id: JobId, _name: &str) {}
    /// A job entered a phase.
    fn phase(&self, _id: JobId, _name: &str, _phase: Phase) {}
    /// A job ended (built or failed); `report` has the details.
    fn finished(&self, _id: JobId, _report: &PackageReport) {}
    /// A job will not run because `because` failed (or fail-fast stopped the build).
    fn skipped(&self, _id: JobId, _name: &str, _because: &str) {}
}

/// A reporter that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoopReporter;

impl BuildReporter for NoopReporter {}

/// What happened to one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackageStatus {
    /// Built and installed in this run.
    Built,
    /// Already installed (valid `installed.json` with the same hash).
    Reused,
    /// Failed in `phase`.
    Failed {
        phase: Phase,
        /// The error (command line and exit status, or IO error with path).
        message: String,
        /// The last lines of the log (at most 30).
        log_tail: Vec<String>,
    },
    /// Not built because the named dependency failed (or fail-fast stopped the build).
    Skipped { because: String },
}

/// Timings of one job. `children` is the wall time spent in child processes
/// (configure, make, …); `wall - children` is the tool's own overhead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// From start of the job (after getting its token) to its end.
    pub wall: Duration,
    /// Sum of the wall times of the child processes the job ran.
    pub children: Duration,
    /// CPU time of the tool's own worker thread for this job (children excluded):
    /// the overhead without the scheduling noise of a busy machine.
    pub cpu: Duration,
    /// Start offset relative to the start of the build.
    pub start: Duration,
    /// When the job became ready to start (its last dependency finished),
    /// relative to the start of the build: `start - ready` is the time it
    /// waited for a job slot.
    pub ready: Duration,
    /// The job slot it ran in (0-based; at most `jobs` run at once, each in
    /// the lowest free slot), when it ran.
    pub slot: Option<usize>,
    /// Wall time per phase, in the order run.
    pub phases: Vec<(Phase, Duration)>,
}

impl Timing {
    /// The tool's own time: wall minus child processes.
    pub fn overhead(&self) -> Duration {
        self.wall.saturating_sub(self.children)
    }
}

/// One job in the summary.
#[derive(Clone, Debug)]
pub struct PackageReport {
    pub id: JobId,
    pub name: String,
    pub version: String,
    pub hash: String,
    /// The prefix as builds see it (under the mount point).
    pub prefix: PathBuf,
    pub status: PackageStatus,
    /// The build log (in the build directory), when the job ran.
    pub log: Option<PathBuf>,
    pub timing: Timing,
}

/// The result of [`run_plan`](super::run_plan).
#[derive(Clone, Debug)]
pub struct BuildSummary {
    /// One entry per job, in job id order.
    pub packages: Vec<PackageReport>,
    /// Wall time of the whole run.
    pub wall: Duration,
    /// Longest chain of actual job wall times along the DAG (reused jobs count 0).
    pub critical_path: Duration,
    /// Sum of the wall times of the jobs that ran.
    pub total_work: Duration,
    /// The jobserver size used.
    pub jobs: usize,
    /// Where the store is on the host: the mount point itself, or `<build>/store`
    /// when the build ran in a private mount namespace.
    pub store_root: PathBuf,
    /// Whether the build ran in a private user+mount namespace.
    pub namespaced: bool,
    /// When the build started (the origin of every [`Timing::start`]).
    pub started: std::time::SystemTime,
}

impl BuildSummary {
    pub fn built(&self) -> impl Iterator<Item = &PackageReport> {
        self.packages
            .iter()
            .filter(|p| p.status == PackageStatus::Built)
    }
    pub fn reused(&self) -> impl Iterator<Item = &PackageReport> {
        self.packages
            .iter()
            .filter(|p| p.status == PackageStatus::Reused)
    }
    pub fn failed(&self) -> impl Iterator<Item = &PackageReport> {
        self.packages
            .iter()
            .filter(|p| matches!(p.status, PackageStatus::Failed { .. }))
    }
    pub fn skipped(&self) -> impl Iterator<Item = &PackageReport> {
        self.packages
            .iter()
            .filter(|p| matches!(p.status, PackageStatus::Skipped { .. }))
    }
    /// True when every job is built or reused.
    pub fn success(&self) -> bool {
        self.packages
            .iter()
            .all(|p| matches!(p.status, PackageStatus::Built | PackageStatus::Reused))
    }
}
