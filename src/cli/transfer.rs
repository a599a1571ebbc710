//! Progress bars for registry uploads and downloads.

use std::collections::HashMap;
use std::sync::Mutex;

use super::output::errln;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use stack::ops::{RegistryError, TransferReporter};

/// One bar per blob on a terminal; one line per finished blob otherwise.
pub struct TransferProgress {
    mp: Option<MultiProgress>,
    bars: Mutex<HashMap<String, ProgressBar>>,
    verb: &'static str,
}

impl TransferProgress {
    pub fn new(verb: &'static str, quiet: bool) -> Self {
        let tty = super::output::stderr_is_terminal() && !quiet;
        TransferProgress {
            mp: tty.then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
            bars: Mutex::new(HashMap::new()),
            verb,
        }
    }

    pub fn finish(&self) {
        if let Some(mp) = &self.mp {
            let _ = mp.clear();
        }
    }
}

impl TransferReporter for TransferProgress {
    fn start(&self, what: &str, total: Option<u64>) {
        let Some(mp) = &self.mp else {
            return;
        };
        let bar = mp.add(ProgressBar::new(total.unwrap_or(0)));
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>16.cyan} {msg:>14} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_prefix(self.verb);
        bar.set_message(what.to_string());
        self.bars.lock().unwrap().insert(what.to_string(), bar);
    }

    fn progress(&self, what: &str, done: u64) {
        if let Some(bar) = self.bars.lock().unwrap().get(what) {
            bar.set_position(done);
        }
    }

    fn finish(&self, what: &str, skipped: bool) {
        if let Some(bar) = self.bars.lock().unwrap().remove(what) {
            bar.finish_and_clear();
        }
        if skipped {
            tracing::info!("{what}: already in the registry");
        }
    }

    fn retrying(&self, what: &str, attempt: u32, error: &RegistryError) {
        let line = format!("warning: {what}: attempt {attempt} failed ({error}); retrying");
        match &self.mp {
            Some(mp) => {
                let _ = mp.println(line);
            }
            None => errln!("{line}"),
        }
    }
}
