//! The binary cache as the build's [`PrefixCache`]: a prefix that is not in
//! the local store is installed from the cache when the cache has it (and
//! it is trusted); a built prefix is pushed on a background thread, so
//! uploads overlap the rest of the build.
//!
//! An unreachable registry never fails a build: the first network error
//! turns the cache off for the rest of the build (nothing more is fetched
//! or pushed), and [`CacheOutcome::offline`] says so.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::build::{BuildJob, LocalStore, PrefixCache};
use crate::oci::DistributeError;
use crate::store::StoreError;

use super::{BinaryCache, CacheEntry, Fetched};

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

/// What the cache did for one build.
#[derive(Clone, Debug, Default)]
pub struct CacheOutcome {
    /// Packages installed from the cache.
    pub fetched: Vec<String>,
    /// `name: reason` of cached packages refused (corrupt, untrusted), and
    /// why the cache was given up when it was: built instead.
    pub rejected: Vec<String>,
    /// The registry could not be reached or refused us.
    pub offline: bool,
    pub pushes: PushSummary,
}

/// A binary cache for one build; see the module documentation.
pub struct CachePrefixes {
    cache: Arc<BinaryCache>,
    state: Mutex<State>,
    /// Queue of the push thread (`None`: the cache takes no pushes, or the
    /// pushes are finished).
    pushes: Mutex<Option<Sender<CacheEntry>>>,
    worker: Mutex<Option<JoinHandle<PushSummary>>>,
}

#[derive(Debug, Default)]
struct State {
    /// Hashes already looked up (each is asked of the registry once).
    asked: std::collections::HashSet<String>,
    fetched: Vec<String>,
    rejected: Vec<String>,
    offline: bool,
}

impl CachePrefixes {
    /// `scratch` holds tarballs while they upload.
    pub fn new(cache: Arc<BinaryCache>, scratch: PathBuf) -> Arc<CachePrefixes> {
        let (pushes, worker) = if cache.pushes() {
            let (tx, rx) = channel::<CacheEntry>();
            let c = cache.clone();
            let worker = std::thread::Builder::new()
                .name("stack-cache-push".into())
                .spawn(move || push_all(&c, rx, &scratch))
                .expect("spawn the cache push thread");
            (Some(tx), Some(worker))
        } else {
            (None, None)
        };
        Arc::new(CachePrefixes {
            cache,
            state: Mutex::new(State::default()),
            pushes: Mutex::new(pushes),
            worker: Mutex::new(worker),
        })
    }

    /// Installs `e` from the cache when it is there; `Ok(false)` for a miss,
    /// a refused artifact or a cache given up. Errors are local (I/O).
    pub fn install(&self, e: &CacheEntry) -> Result<bool, std::io::Error> {
        {
            let mut state = self.state.lock().unwrap();
            if state.offline || !state.asked.insert(e.hash.clone()) {
                return Ok(false);
            }
        }
        let fetched = self.cache.fetch(e);
        let mut state = self.state.lock().unwrap();
        match fetched {
            Ok(Fetched::Installed) => {
                tracing::info!("{}: installed from the binary cache", e.name);
                state.fetched.push(e.name.clone());
                Ok(true)
            }
            Ok(Fetched::Miss) => Ok(false),
            Ok(Fetched::Rejected(reason)) => {
                tracing::warn!("{}: not using the binary cache: {reason}", e.name);
                state.rejected.push(format!("{}: {reason}", e.name));
                Ok(false)
            }
            Err(DistributeError::Io(err)) => Err(err),
            Err(err) => {
                // The registry is unreachable or refuses us: build everything
                // rather than fail, and say so once.
                let url = self.cache.url();
                tracing::warn!("binary cache {url}: {err}; building without it");
                state
                    .rejected
                    .push(format!("binary cache {url} not used: {err}"));
                state.offline = true;
                drop(self.pushes.lock().unwrap().take());
                Ok(false)
            }
        }
    }

    /// Forgets which hashes were asked for, so they are asked again: what
    /// missed before may have been pushed since (by a remote executor's jobs).
    pub fn ask_again(&self) {
        self.state.lock().unwrap().asked.clear();
    }

    /// Whether the cache was given up (nothing more is fetched or pushed).
    pub fn offline(&self) -> bool {
        self.state.lock().unwrap().offline
    }

    /// Waits for the queued pushes; what the cache did.
    pub fn finish(&self) -> CacheOutcome {
        drop(self.pushes.lock().unwrap().take());
        let pushes = self
            .worker
            .lock()
            .unwrap()
            .take()
            .and_then(|w| w.join().ok())
            .unwrap_or_default();
        let state = std::mem::take(&mut *self.state.lock().unwrap());
        CacheOutcome {
            fetched: state.fetched,
            rejected: state.rejected,
            offline: state.offline,
            pushes,
        }
    }
}

impl std::fmt::Debug for CachePrefixes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachePrefixes")
            .field("url", &self.cache.url())
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl PrefixCache for CachePrefixes {
    fn restore(&self, job: &BuildJob, host_prefix: &Path) -> Result<bool, StoreError> {
        if LocalStore.restore(job, host_prefix)? {
            return Ok(true);
        }
        Ok(self.install(&entry(job, host_prefix))?)
    }

    fn keep(
        &self,
        job: &BuildJob,
        host_prefix: &Path,
        build_seconds: Option<f64>,
    ) -> Result<(), StoreError> {
        if let Some(tx) = &*self.pushes.lock().unwrap() {
            let mut e = entry(job, host_prefix);
            e.build_seconds = build_seconds;
            let _ = tx.send(e);
        }
        Ok(())
    }
}

impl Drop for CachePrefixes {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The cache's view of a build job.
fn entry(job: &BuildJob, host_prefix: &Path) -> CacheEntry {
    CacheEntry {
        name: job.name.clone(),
        version: job.version.clone(),
        hash: job.hash.clone(),
        prefix: job.prefix.clone(),
        host_prefix: host_prefix.to_path_buf(),
        build_seconds: None,
    }
}

/// The push thread: pushes every queued prefix until the queue closes.
fn push_all(
    cache: &BinaryCache,
    rx: std::sync::mpsc::Receiver<CacheEntry>,
    scratch: &Path,
) -> PushSummary {
    let mut summary = PushSummary::default();
    for entry in rx {
        match cache.push(&entry, scratch) {
            Ok(true) => summary.pushed.push(entry.name.clone()),
            Ok(false) => summary.present += 1,
            Err(e) => {
                tracing::warn!("binary cache: pushing {} failed: {e}", entry.name);
                summary.failed.push(format!("{}: {e}", entry.name));
            }
        }
    }
    summary
}
