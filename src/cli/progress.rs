//! Progress display for fetches and builds (indicatif). On a terminal:
//! live bars and spinners; otherwise one plain line per event on stderr.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use super::output::errln;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use stack::build::{BuildReporter, JobId, PackageReport, PackageStatus, Phase};
use stack::fetch::{FetchError, FetchReporter, Fetched, SourceRequest};
use stack::ops::{PipelineReporter, Stage};

/// Renders every reporter of the pipeline.
pub struct Progress {
    mp: Option<MultiProgress>,
    bars: Mutex<HashMap<usize, ProgressBar>>,
    jobs: Mutex<HashMap<usize, ProgressBar>>,
    quiet: bool,
    /// Mirror entries that failed their checksum.
    rejected_mirrors: std::sync::atomic::AtomicUsize,
}

impl Progress {
    pub fn new(quiet: bool) -> Self {
        let tty = super::output::stderr_is_terminal() && !quiet;
        Progress {
            mp: tty.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
            bars: Mutex::new(HashMap::new()),
            jobs: Mutex::new(HashMap::new()),
            quiet,
            rejected_mirrors: Default::default(),
        }
    }

    /// How many mirror entries failed their checksum (each was warned about).
    pub fn rejected_mirrors(&self) -> usize {
        self.rejected_mirrors
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A line above the bars (or on stderr).
    pub fn line(&self, text: &str) {
        if self.quiet {
            return;
        }
        match &self.mp {
            Some(mp) => {
                let _ = mp.println(text);
            }
            None => errln!("{text}"),
        }
    }

    fn bar(&self, bar: ProgressBar) -> ProgressBar {
        match &self.mp {
            Some(mp) => mp.add(bar),
            None => {
                bar.set_draw_target(ProgressDrawTarget::hidden());
                bar
            }
        }
    }

    pub fn finish(&self) {
        if let Some(mp) = &self.mp {
            let _ = mp.clear();
        }
    }
}

fn bytes_style() -> ProgressStyle {
    ProgressStyle::with_template(
        "{prefix:>24.cyan} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ")
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {prefix:>24.cyan} {msg} {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

impl FetchReporter for Progress {
    fn transfer(&self, index: usize, location: &str, total: Option<u64>) {
        let bar = self.bar(ProgressBar::new(total.unwrap_or(0)));
        bar.set_style(bytes_style());
        bar.set_prefix(short(location, 24));
        if let Ok(mut bars) = self.bars.lock() {
            if let Some(old) = bars.insert(index, bar) {
                old.finish_and_clear();
            }
        }
    }
    fn progress(&self, index: usize, bytes: u64, total: Option<u64>) {
        if let Ok(bars) = self.bars.lock() {
            if let Some(bar) = bars.get(&index) {
                if let Some(t) = total {
                    bar.set_length(t);
                }
                bar.set_position(bytes);
            }
        }
    }
    fn retrying(&self, _index: usize, location: &str, attempt: u32, error: &FetchError) {
        self.line(&format!(
            "   retrying {location} (attempt {attempt}): {error}"
        ));
    }
    fn waiting_for_lock(&self, _index: usize, lock: &Path) {
        self.line(&format!("   waiting for the cache lock {}", lock.display()));
    }
    fn finished(&self, index: usize, fetched: &Fetched) {
        if let Ok(mut bars) = self.bars.lock() {
            if let Some(bar) = bars.remove(&index) {
                bar.finish_and_clear();
            }
        }
        self.line(&format!(
            "    fetched {}@{} {}",
            fetched.package, fetched.version, fetched.origin
        ));
    }
    fn failed(&self, index: usize, _error: &FetchError) {
        if let Ok(mut bars) = self.bars.lock() {
            if let Some(bar) = bars.remove(&index) {
                bar.abandon();
            }
        }
    }
    fn started(&self, _index: usize, _request: &SourceRequest, _location: &str) {}
    fn mirror_rejected(&self, _index: usize, _mirror: &str, _location: &str) {
        self.rejected_mirrors
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl BuildReporter for Progress {
    fn waiting_for_lock(&self, lock: &Path) {
        self.line(&format!(
            "    waiting: another build holds {} (Ctrl-C to give up)",
            lock.display()
        ));
    }
    fn planned(&self, total: usize, to_build: usize) {
        self.line(&format!(
            "   building {to_build} of {total} packages ({} already installed)",
            total - to_build
        ));
    }
    fn started(&self, id: JobId, name: &str) {
        let bar = self.bar(ProgressBar::new_spinner());
        bar.set_style(spinner_style());
        bar.set_prefix(name.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.insert(id.0, bar);
        }
    }
    fn phase(&self, id: JobId, _name: &str, phase: Phase) {
        if let Ok(jobs) = self.jobs.lock() {
            if let Some(bar) = jobs.get(&id.0) {
                bar.set_message(phase.to_string());
            }
        }
    }
    fn finished(&self, id: JobId, report: &PackageReport) {
        if let Ok(mut jobs) = self.jobs.lock() {
            if let Some(bar) = jobs.remove(&id.0) {
                bar.finish_and_clear();
            }
        }
        let label = format!("{}@{}", report.name, report.version);
        match &report.status {
            PackageStatus::Built => self.line(&format!(
                "      built {label} in {:.1}s",
                report.timing.wall.as_secs_f64()
            )),
            PackageStatus::Failed { phase, .. } => {
                self.line(&format!("     FAILED {label} in {phase}"))
            }
            _ => {}
        }
    }
    fn skipped(&self, _id: JobId, name: &str, because: &str) {
        self.line(&format!("    skipped {name}: {because}"));
    }
}

impl PipelineReporter for Progress {
    fn stage(&self, stage: Stage, detail: &str) {
        self.line(&format!("{:>11} {detail}", capitalise(stage.name())));
    }
    fn fetch(&self) -> &dyn FetchReporter {
        self
    }
    fn build(&self) -> &dyn BuildReporter {
        self
    }
    fn remote(&self) -> &dyn stack::remote::RemoteReporter {
        self
    }
}

/// Remote jobs: state changes and the lines their logs gain.
impl stack::remote::RemoteReporter for Progress {
    fn job(&self, package: &str, state: &str) {
        self.line(&format!("{:>11} {package}: {state}", "Job"));
    }
    fn log_line(&self, package: &str, line: &str) {
        self.line(&format!(
            "{:>11} | {line}",
            format!("[{}]", short(package, 9))
        ));
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn short(s: &str, n: usize) -> String {
    let name = s.rsplit('/').next().unwrap_or(s);
    if name.chars().count() <= n {
        name.to_string()
    } else {
        name.chars().take(n - 1).collect::<String>() + "…"
    }
}
