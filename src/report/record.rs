//! The records a build report is made from, as files: what happened in one
//! run of `stack build` ([`RunRecord`], `run.json`) and the installed size
//! of every prefix ([`Sizes`], `meta/sizes.json`). The plan is the lock file
//! (`stack.lock`) and the audit is `audit.json`; both are written by their
//! own stages.
//!
//! Where each lives (see docs/build.md, "The build report"):
//!
//! | file | in the image (`store/meta/`) | beside it (`<build>/meta/`) | `<build>/` |
//! |------|------|------|------|
//! | `stack.lock` | yes | yes | yes (this run's plan) |
//! | `audit/audit.json` | yes | yes | `audit.json` |
//! | `sizes.json` | yes (sizes follow from the inputs) | yes | no (in `run.json`) |
//! | `run.json` | no (wall-clock times) | yes, when this run made the image | yes |

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The run record's file name (`<build>/run.json`, `<build>/meta/run.json`).
pub const RUN_RECORD: &str = "run.json";
/// The sizes file's name (`meta/sizes.json`, inside the image).
pub const SIZES_FILE: &str = "sizes.json";
/// The report's file name (`<build>/report.html`).
pub const REPORT_FILE: &str = "report.html";
/// The run record's format version.
pub const RUN_FORMAT: u32 = 1;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Every package installed, audit without errors, image made (or, for a
    /// job of a distributed build, its packages built and pushed).
    Success,
    /// Nothing was rebuilt and the image was already up to date.
    UpToDate,
    /// A package failed (or was skipped for a failed dependency).
    Failed,
    /// Everything built, but the audit found errors: no image.
    AuditFailed,
    /// The build stopped with an error (see [`RunRecord::error`]).
    Error,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::UpToDate => "up to date",
            Outcome::Failed => "failed",
            Outcome::AuditFailed => "audit failed",
            Outcome::Error => "error",
        }
    }
}

/// What one run of `stack build` did: `run.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub format: u32,
    pub stack_version: String,
    /// RFC 3339 UTC time the run started; every `ready`/`start` below is in
    /// seconds after it.
    pub started_at: String,
    /// Wall time of the whole run.
    pub wall_seconds: f64,
    pub outcome: Outcome,
    /// The error that ended the run, when it ended with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where packages were built: `local`, `slurm`, ….
    pub executor: String,
    /// `-j`: the job slots of a local build.
    pub jobs: usize,
    /// `--only`: the packages a job of a distributed build was given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    /// The binary cache, when one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_cache: Option<String>,
    /// The steps of the run and their wall times, in order.
    pub stages: Vec<StageTime>,
    /// The audit report of this run, relative to the record's directory
    /// (`None`: the run did not audit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<String>,
    /// Every package of the plan that is not an external.
    pub packages: Vec<PackageRun>,
}

/// One step of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageTime {
    pub stage: String,
    pub seconds: f64,
}

/// What happened to a package in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// Built in this run, here.
    Built,
    /// Built by a job of a distributed build (Slurm, CI), then installed
    /// here from the binary cache or the shared store.
    Remote,
    /// Installed from the binary cache (built by an earlier build elsewhere).
    Cache,
    /// Already installed in the store.
    Installed,
    /// Failed.
    Failed,
    /// Not built because a dependency failed (or the build stopped).
    Skipped,
    /// Not part of this run (`--only` another package).
    NotNeeded,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Built => "built",
            RunStatus::Remote => "built remotely",
            RunStatus::Cache => "binary cache",
            RunStatus::Installed => "already installed",
            RunStatus::Failed => "failed",
            RunStatus::Skipped => "skipped",
            RunStatus::NotNeeded => "not needed",
        }
    }

    /// The CSS class of the status.
    pub fn class(self) -> &'static str {
        match self {
            RunStatus::Built => "s-built",
            RunStatus::Remote => "s-remote",
            RunStatus::Cache => "s-cache",
            RunStatus::Installed => "s-installed",
            RunStatus::Failed => "s-failed",
            RunStatus::Skipped => "s-skipped",
            RunStatus::NotNeeded => "s-notneeded",
        }
    }
}

/// Where a package's source came from in this run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Route {
    /// The recipe's own URL or repository.
    Upstream,
    /// A mirror (`--mirror`, the recipe's or the cluster's).
    Mirror,
    /// Already in the source cache.
    Cache,
    /// No source (`source: none`).
    None,
}

impl Route {
    pub fn as_str(self) -> &'static str {
        match self {
            Route::Upstream => "upstream",
            Route::Mirror => "mirror",
            Route::Cache => "source cache",
            Route::None => "none",
        }
    }
}

/// The source route of a package.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRoute {
    pub route: Route,
    /// The URL or mirror it came from (upstream and mirror).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// Installed size of a prefix (from its manifest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Size {
    pub bytes: u64,
    pub files: u64,
}

/// `meta/sizes.json`: node hash → installed size.
pub type Sizes = BTreeMap<String, Size>;

/// Wall time of one phase of a package build.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseTime {
    pub phase: String,
    pub seconds: f64,
}

/// Why a package failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The phase it failed in (`configure`, `build`, …; `stage` for a source
    /// that could not be fetched; `job` for a remote job).
    pub phase: String,
    pub message: String,
    /// The last lines of its log.
    pub log_tail: Vec<String>,
}

/// One package in a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PackageRun {
    pub hash: String,
    pub name: String,
    pub version: String,
    pub status: RunStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRoute>,
    /// Where it ran: `slot 2` of a local build, `slurm 1234 (name)`,
    /// `ci build:name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane: Option<String>,
    /// Seconds after the run's start when it could have started (its last
    /// dependency done; for a remote job: submitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<f64>,
    /// Seconds after the run's start when its build started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<f64>,
    /// Wall time of its build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Size>,
    /// Its build log (host path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_because: Option<String>,
}

impl PackageRun {
    /// A package with nothing recorded but its identity and status.
    pub fn new(hash: &str, name: &str, version: &str, status: RunStatus) -> PackageRun {
        PackageRun {
            hash: hash.to_string(),
            name: name.to_string(),
            version: version.to_string(),
            status,
            source: None,
            lane: None,
            ready: None,
            start: None,
            seconds: None,
            phases: Vec::new(),
            size: None,
            log: None,
            failure: None,
            skipped_because: None,
        }
    }

    /// Seconds it waited between being ready and starting.
    pub fn waited(&self) -> Option<f64> {
        Some((self.start? - self.ready?).max(0.0))
    }
}

impl RunRecord {
    /// Pretty JSON ending in a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a run record serialises");
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_record_round_trips() {
        let mut p = PackageRun::new("ab", "zlib", "1.3", RunStatus::Built);
        p.ready = Some(1.0);
        p.start = Some(3.5);
        p.source = Some(SourceRoute {
            route: Route::Mirror,
            from: Some("file:///m".into()),
        });
        let r = RunRecord {
            format: RUN_FORMAT,
            stack_version: "0".into(),
            started_at: "2026-01-01T00:00:00Z".into(),
            wall_seconds: 4.0,
            outcome: Outcome::Success,
            error: None,
            executor: "local".into(),
            jobs: 2,
            only: Vec::new(),
            binary_cache: None,
            stages: vec![StageTime {
                stage: "build".into(),
                seconds: 3.0,
            }],
            audit: Some("audit.json".into()),
            packages: vec![p],
        };
        let back: RunRecord = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.packages[0].waited(), Some(2.5));
        assert!(r.to_json().contains("\"route\": \"mirror\""));
    }
}
