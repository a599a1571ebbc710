//! Progress of a fetch, reported to the caller (the CLI renders it with indicatif).
//!
//! Every call names the source by its index in the slice given to
//! [`fetch_all`](super::fetch_all). Calls come from several worker threads at once.

use std::path::Path;

use super::error::FetchError;
use super::fetched::Fetched;
use super::source::SourceRequest;

/// Receives fetch progress. All methods have empty defaults.
pub trait FetchReporter: Send + Sync {
    /// Work on source `index` begins; `location` is the URL or cache path tried first.
    fn started(&self, index: usize, request: &SourceRequest, location: &str) {
        let _ = (index, request, location);
    }
    /// A transfer from `location` begins (after a cache miss, for each mirror/upstream tried).
    fn transfer(&self, index: usize, location: &str, total: Option<u64>) {
        let _ = (index, location, total);
    }
    /// Bytes received so far for the current transfer (monotonic within one transfer).
    fn progress(&self, index: usize, bytes: u64, total: Option<u64>) {
        let _ = (index, bytes, total);
    }
    /// A transfer failed transiently and will be retried.
    fn retrying(&self, index: usize, location: &str, attempt: u32, error: &FetchError) {
        let _ = (index, location, attempt, error);
    }
    /// Another process holds the cache entry; waiting for it.
    fn waiting_for_lock(&self, index: usize, lock: &Path) {
        let _ = (index, lock);
    }
    /// The source is in the cache and verified.
    fn finished(&self, index: usize, fetched: &Fetched) {
        let _ = (index, fetched);
    }
    /// The entry `location` of `mirror` has other bytes than the checksum
    /// says (corrupt or tampered); the next location is tried.
    fn mirror_rejected(&self, index: usize, mirror: &str, location: &str) {
        let _ = (index, mirror, location);
    }
    /// The source could not be fetched.
    fn failed(&self, index: usize, error: &FetchError) {
        let _ = (index, error);
    }
}

/// A reporter that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoopReporter;

impl FetchReporter for NoopReporter {}
