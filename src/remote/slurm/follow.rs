//! Following submitted jobs: `squeue` states, new log lines, failures with
//! their log tails, cancellation on Ctrl-C.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::super::DistributedError;
use super::super::RemoteReporter;
use super::super::error::FailedJob;
use super::submit::{Submitted, cancel, run};
use super::{Slurm, interrupt};

/// Lines of a failed job's log shown with the error.
const TAIL: usize = 20;

/// When a job was seen submitted, running and ended (seconds since the
/// epoch, as the submitter saw them: precise to one poll interval).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct JobTimes {
    /// The job's name (its package, or `first+N` for a group).
    pub package: String,
    /// The names of its packages, comma-separated.
    #[serde(default)]
    pub packages: String,
    pub job: String,
    pub state: String,
    pub submitted: f64,
    pub started: Option<f64>,
    pub ended: Option<f64>,
}

struct Followed<'a> {
    job: &'a Submitted,
    state: String,
    reason: String,
    log_offset: u64,
    partial: String,
    times: JobTimes,
    done: bool,
}

fn secs(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

/// Wait for every job; the failed ones as an error.
pub(super) fn follow(
    s: &Slurm,
    jobs: &[Submitted],
    reporter: &dyn RemoteReporter,
) -> Result<(), DistributedError> {
    let mut all: Vec<Followed> = jobs
        .iter()
        .map(|job| Followed {
            job,
            state: "PENDING".into(),
            reason: String::new(),
            log_offset: 0,
            partial: String::new(),
            times: JobTimes {
                package: job.package.clone(),
                packages: job.packages.clone(),
                job: job.id.clone(),
                state: "PENDING".into(),
                submitted: secs(job.submitted),
                ..JobTimes::default()
            },
            done: false,
        })
        .collect();
    loop {
        if interrupt::interrupted() {
            let open: Vec<Submitted> = all
                .iter()
                .filter(|f| !f.done)
                .map(|f| f.job.clone())
                .collect();
            cancel(s, &open);
            write_times(s, &all);
            return Err(DistributedError::Cancelled(
                open.iter().map(|j| j.id.clone()).collect(),
            ));
        }
        let states = query(s)?;
        for f in all.iter_mut().filter(|f| !f.done) {
            update(f, states.get(&f.job.id), reporter);
        }
        if all.iter().all(|f| f.done) {
            break;
        }
        std::thread::sleep(s.opts.poll);
    }
    write_times(s, &all);
    let failed: Vec<FailedJob> = all
        .iter()
        .filter(|f| f.state != "COMPLETED" && f.state != "GONE")
        .map(failed_job)
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(DistributedError::JobsFailed(failed))
    }
}

/// `squeue` of this user's jobs: id → (state, reason).
fn query(s: &Slurm) -> Result<HashMap<String, (String, String)>, DistributedError> {
    let mut cmd = s.program("squeue");
    cmd.args(["--noheader", "--me", "--states=all", "--format=%i|%T|%r"]);
    let text = run(cmd, "squeue")?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let mut it = l.trim().splitn(3, '|');
            Some((
                it.next()?.to_string(),
                (it.next()?.to_string(), it.next().unwrap_or("").to_string()),
            ))
        })
        .collect())
}

fn is_final(state: &str) -> bool {
    !matches!(
        state,
        "PENDING"
            | "RUNNING"
            | "COMPLETING"
            | "CONFIGURING"
            | "SUSPENDED"
            | "REQUEUED"
            | "RESIZING"
    )
}

fn update(f: &mut Followed, seen: Option<&(String, String)>, reporter: &dyn RemoteReporter) {
    let now = secs(SystemTime::now());
    let (state, reason) = match seen {
        Some((s, r)) => (s.clone(), r.clone()),
        // Out of squeue (MinJobAge passed): it ended; the cache decides.
        None => ("GONE".to_string(), String::new()),
    };
    if state != f.state {
        reporter.job(&f.job.package, &state);
        if f.times.started.is_none() && state != "PENDING" {
            f.times.started = Some(now);
        }
        f.state = state;
        f.times.state = f.state.clone();
    }
    f.reason = reason;
    stream_log(f, reporter);
    if is_final(&f.state) {
        f.done = true;
        f.times.ended = Some(now);
        if !f.partial.is_empty() {
            reporter.log_line(&f.job.package, &std::mem::take(&mut f.partial));
        }
    }
}

/// Report the lines the job added to its log since the last poll.
fn stream_log(f: &mut Followed, reporter: &dyn RemoteReporter) {
    let Ok(mut file) = fs_err::File::open(&f.job.log) else {
        return;
    };
    if file.seek(SeekFrom::Start(f.log_offset)).is_err() {
        return;
    }
    let mut buf = Vec::new();
    if file.read_to_end(&mut buf).is_err() {
        return;
    }
    f.log_offset += buf.len() as u64;
    f.partial.push_str(&String::from_utf8_lossy(&buf));
    while let Some(i) = f.partial.find('\n') {
        let line: String = f.partial.drain(..=i).collect();
        reporter.log_line(&f.job.package, line.trim_end());
    }
}

fn failed_job(f: &Followed) -> FailedJob {
    let never_ran = f.reason.contains("Dependency");
    let state = if never_ran {
        format!("{} (not run: a job it depends on failed)", f.state)
    } else if f.reason.is_empty() || f.reason == "None" {
        f.state.clone()
    } else {
        format!("{} ({})", f.state, f.reason)
    };
    FailedJob {
        package: f.job.packages.clone(),
        job: f.job.id.clone(),
        state,
        log: f.job.log.clone(),
        log_tail: if never_ran {
            Vec::new()
        } else {
            tail(&f.job.log)
        },
    }
}

fn tail(log: &Path) -> Vec<String> {
    let text = fs_err::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(TAIL)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

fn write_times(s: &Slurm, all: &[Followed]) {
    let times: Vec<&JobTimes> = all.iter().map(|f| &f.times).collect();
    if let Ok(json) = serde_json::to_string_pretty(&times) {
        let _ = fs_err::write(s.opts.job_dir.join("jobs.json"), json + "\n");
    }
}
