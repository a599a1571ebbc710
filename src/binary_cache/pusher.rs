//! Push each package to the binary cache as soon as it is built: a build
//! reporter that passes every event on and hands built packages to a
//! background thread, so uploads overlap the rest of the build.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;

use crate::build::{BuildReporter, JobId, PackageReport, PackageStatus, Phase};

use super::{BinaryCache, CacheEntry};

/// What the pushes came to.
#[derive(Clone, Debug, Default)]
pub struct PushSummary {
    /// Newly pushed packages.
    pub pushed: Vec<String>,
    /// Already in the cache.
    pub present: usize,
    /// `name: error` of pushes that failed (a failed push never fails the build).
    pub failed: Vec<String>,
}

/// A [`BuildReporter`] that pushes built packages.
pub struct Pusher<'r> {
    inner: &'r dyn BuildReporter,
    mount: PathBuf,
    store_root: PathBuf,
    tx: Option<Sender<CacheEntry>>,
    worker: Option<JoinHandle<PushSummary>>,
}

impl<'r> Pusher<'r> {
    /// Start the upload thread. `scratch` holds tarballs while they upload.
    pub fn new(
        cache: Arc<BinaryCache>,
        inner: &'r dyn BuildReporter,
        mount: &Path,
        store_root: &Path,
        scratch: PathBuf,
    ) -> Self {
        let (tx, rx) = channel::<CacheEntry>();
        let worker = std::thread::Builder::new()
            .name("stack-cache-push".into())
            .spawn(move || {
                let mut summary = PushSummary::default();
                for entry in rx {
                    match cache.push(&entry, &scratch) {
                        Ok(true) => summary.pushed.push(entry.name.clone()),
                        Ok(false) => summary.present += 1,
                        Err(e) => {
                            tracing::warn!("binary cache: pushing {} failed: {e}", entry.name);
                            summary.failed.push(format!("{}: {e}", entry.name));
                        }
                    }
                }
                summary
            })
            .expect("spawn the cache push thread");
        Pusher {
            inner,
            mount: mount.to_path_buf(),
            store_root: store_root.to_path_buf(),
            tx: Some(tx),
            worker: Some(worker),
        }
    }

    /// Wait for the queued pushes.
    pub fn finish(mut self) -> PushSummary {
        drop(self.tx.take());
        self.worker
            .take()
            .and_then(|w| w.join().ok())
            .unwrap_or_default()
    }
}

impl BuildReporter for Pusher<'_> {
    fn waiting_for_lock(&self, lock: &Path) {
        self.inner.waiting_for_lock(lock);
    }
    fn planned(&self, total: usize, to_build: usize) {
        self.inner.planned(total, to_build);
    }
    fn reused(&self, id: JobId, name: &str) {
        self.inner.reused(id, name);
    }
    fn started(&self, id: JobId, name: &str) {
        self.inner.started(id, name);
    }
    fn phase(&self, id: JobId, name: &str, phase: Phase) {
        self.inner.phase(id, name, phase);
    }
    fn finished(&self, id: JobId, report: &PackageReport) {
        self.inner.finished(id, report);
        if report.status != PackageStatus::Built {
            return;
        }
        let Some(host_prefix) =
            crate::store::host_path(&self.mount, &self.store_root, &report.prefix)
        else {
            return;
        };
        if let Some(tx) = &self.tx {
            let _ = tx.send(CacheEntry {
                name: report.name.clone(),
                version: report.version.clone(),
                hash: report.hash.clone(),
                prefix: report.prefix.clone(),
                host_prefix,
            });
        }
    }
    fn skipped(&self, id: JobId, name: &str, because: &str) {
        self.inner.skipped(id, name, because);
    }
}

impl Drop for Pusher<'_> {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
