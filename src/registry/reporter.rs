//! Progress of blob transfers, for progress bars.

use super::RegistryError;

/// Progress of uploads and downloads. Called from the calling thread of a
/// [`Registry`](super::Registry) method.
pub trait TransferReporter: Sync {
    /// A transfer of `what` (a title or digest) starts; `total` bytes when known.
    fn start(&self, _what: &str, _total: Option<u64>) {}
    /// `done` bytes of `what` have gone through.
    fn progress(&self, _what: &str, _done: u64) {}
    /// `what` is complete (`skipped`: the registry already had it).
    fn finish(&self, _what: &str, _skipped: bool) {}
    /// Attempt `attempt` of `what` failed with `error`; trying again.
    fn retrying(&self, _what: &str, _attempt: u32, _error: &RegistryError) {}
}

/// Reports nothing.
pub struct NoopTransferReporter;

impl TransferReporter for NoopTransferReporter {}
