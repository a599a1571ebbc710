//! Settings of a fetch run.

use std::time::Duration;

use super::cache::SourceCache;

/// How to fetch: cache, mirrors, parallelism, retries and timeouts.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The source cache.
    pub cache: SourceCache,
    /// Mirrors tried in order before upstream: `http(s)://`, `file://` URLs or absolute paths
    /// of Spack-layout source mirrors.
    pub mirrors: Vec<String>,
    /// Sources fetched at the same time (at least 1).
    pub jobs: usize,
    /// Accept archives without sha256 and git sources not pinned to a commit.
    pub allow_unverified: bool,
    /// Unverified downloads are the point (`stack checksum`, `stack create`
    /// compute digests): log them at debug level, not as warnings.
    pub computing_digests: bool,
    /// Attempts per URL for transient failures (connection errors, 5xx, truncation, stalls).
    pub attempts: u32,
    /// Delay before the first retry; doubles on each further retry.
    pub retry_backoff: Duration,
    /// Give up on a connection that delivers no data for this long.
    pub idle_timeout: Duration,
    /// Connection set-up timeout.
    pub connect_timeout: Duration,
    /// How long to wait for another process's lock on a cache entry.
    pub lock_timeout: Duration,
    /// Extra trusted CA certificates (PEM) for https sources, mirrors and
    /// git remotes, beside the built-in roots, the system's store and
    /// `SSL_CERT_FILE` ([`crate::tls`]).
    pub ca_files: Vec<std::path::PathBuf>,
    /// Largest download accepted (an endless or huge body is cut off with
    /// [`FetchError::TooLarge`](super::FetchError::TooLarge)).
    pub max_download: u64,
}

impl FetchOptions {
    /// What https connections of this fetch trust.
    pub fn trust_roots(&self) -> crate::tls::TrustRoots {
        crate::tls::TrustRoots::new(&self.ca_files)
    }

    /// Default settings for a cache.
    pub fn new(cache: SourceCache) -> FetchOptions {
        FetchOptions {
            cache,
            mirrors: Vec::new(),
            jobs: DEFAULT_JOBS,
            allow_unverified: false,
            computing_digests: false,
            attempts: 4,
            retry_backoff: Duration::from_millis(500),
            idle_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            lock_timeout: Duration::from_secs(30 * 60),
            max_download: DEFAULT_MAX_DOWNLOAD,
            ca_files: Vec::new(),
        }
    }
}

/// Default number of parallel fetches: downloads are IO bound, and 8 streams fill most links
/// without hammering a single server.
pub const DEFAULT_JOBS: usize = 8;

/// Default [`FetchOptions::max_download`]: 16 GiB, far above any source
/// archive (the CUDA toolkit runfile is ~4 GiB).
pub const DEFAULT_MAX_DOWNLOAD: u64 = 16 << 30;
