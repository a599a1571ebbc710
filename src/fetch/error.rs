//! Errors of the fetch stage. Every variant names what it was working on (package, URL, path)
//! and, where one exists, what was expected and a way out.

use std::path::PathBuf;
use std::time::Duration;

/// An error while fetching, verifying, caching or staging a source.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(
        "{package}: source {url} has no sha256; add `sha256:` to the recipe \
         (compute it with `sha256sum`), pin the git source to a commit, or allow \
         unverified sources (--allow-unverified)"
    )]
    MissingChecksum { package: String, url: String },

    #[error("{package}: `{value}` is not a sha256 (expected 64 hex digits)")]
    InvalidChecksum { package: String, value: String },

    #[error(
        "{package}: git source {url} ({reference}) is not pinned to a commit; add `commit:` \
         to the recipe, lock the stack (stack.lock pins branches and tags), or allow \
         unverified sources (--allow-unverified)"
    )]
    UnpinnedGit {
        package: String,
        url: String,
        reference: String,
    },

    #[error("{package}: `{value}` is not a full commit id (40 hex digits)")]
    InvalidCommit { package: String, value: String },

    #[error("invalid source URL `{url}`: {reason}")]
    InvalidUrl { url: String, reason: String },

    #[error(
        "{package}: sha256 mismatch for {url}{}\n  expected: {expected}\n  actual:   {actual} ({bytes} bytes)\n\
         the download was discarded and the cache left untouched; if upstream re-released the \
         file, check it and update the recipe's sha256",
        recipe_at(recipe)
    )]
    ChecksumMismatch {
        /// `name@version` of the source.
        package: Box<str>,
        /// Where the recipe lists the source (`file:line:col`), when known.
        recipe: Option<Box<str>>,
        url: String,
        expected: String,
        actual: String,
        bytes: u64,
    },

    #[error("{url}: HTTP {status}{}", status_hint(*status))]
    HttpStatus { url: String, status: u16 },

    #[error("{url}: {message}")]
    Request { url: String, message: String },

    /// The host of a URL does not resolve: offline, or no DNS. Not retried.
    #[error(
        "{url}: cannot resolve the host `{host}` (no network, or no DNS here?): {message}\n\
         hint: {OFFLINE_HINT}"
    )]
    HostNotFound {
        url: String,
        host: String,
        message: String,
    },

    #[error("{url}: {message} (after {attempts} attempt(s))")]
    Network {
        url: String,
        message: String,
        attempts: u32,
    },

    #[error("{url}: no data for {} s, giving up (after {attempts} attempt(s))", .idle.as_secs_f32())]
    Stalled {
        url: String,
        idle: Duration,
        attempts: u32,
    },

    #[error(
        "{}{url}: the download exceeds {limit} bytes{}, {}",
        of.as_ref().map(|s| format!("{s}: ")).unwrap_or_default(),
        announced.map(|n| format!(" (announced: {n} bytes)")).unwrap_or_default(),
        if *from_recipe {
            "the recipe's `max_size:` for this source; check the URL, or raise `max_size:`"
        } else {
            "the most a source may have by default; check the URL (an endless or wrong body?), \
             or give the version (or resource) a larger `max_size:` in its recipe"
        }
    )]
    TooLarge {
        url: String,
        limit: u64,
        announced: Option<u64>,
        /// The source (`name@version`), once known.
        of: Option<String>,
        /// Whether `limit` is the recipe's `max_size:` (else the default).
        from_recipe: bool,
    },

    #[error("{url}: body ended after {received} of {expected} bytes (after {attempts} attempt(s))")]
    Truncated {
        url: String,
        received: u64,
        expected: u64,
        attempts: u32,
    },

    #[error("{path}: {source}")]
    LocalFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "could not fetch {package}; every location failed:{}",
        list_attempts(attempts)
    )]
    AllLocationsFailed {
        package: String,
        attempts: Vec<(String, FetchError)>,
    },

    #[error("git {action} {url}: {source}{}", git_offline_hint(source))]
    Git {
        url: String,
        action: &'static str,
        #[source]
        source: git2::Error,
    },

    #[error("{url}: {reference} not found{}", hint_opt(hint))]
    GitRefNotFound {
        url: String,
        reference: String,
        hint: Option<String>,
    },

    #[error(
        "{url}: the pin {pin} of {reference} is the id of the annotated tag object `{tag}` \
         (what `git rev-parse {tag}` prints), not of a commit; the tag points to commit \
         {commit}: pin that (`git rev-parse {tag}^{{commit}}`)"
    )]
    GitPinIsTagObject {
        url: String,
        reference: String,
        pin: String,
        tag: String,
        commit: String,
    },

    #[error(
        "{url}: {reference} resolves to commit {actual}, but the recipe pins {expected}; \
         a moved tag is suspicious, check upstream and update the pin"
    )]
    GitCommitMismatch {
        url: String,
        reference: String,
        expected: String,
        actual: String,
    },

    #[error(
        "{path}: waited {} s for the lock: another `stack` process is fetching the same \
         source into this cache; let it finish, or use another cache (--cache)",
        .waited.as_secs()
    )]
    LockTimeout { path: PathBuf, waited: Duration },

    #[error("{archive}: refusing entry `{entry}`: {reason}; nothing was written outside the stage")]
    UnsafeArchive {
        archive: String,
        entry: String,
        reason: String,
    },

    #[error("{archive}: {reason}")]
    BadArchive { archive: String, reason: String },

    #[error(
        "{archive}: not a supported archive (tar.gz, tgz, tar.bz2, tar.xz, tar.zst, tar, zip); \
         for installers and other payloads set `expand: false`"
    )]
    UnsupportedArchive { archive: String },

    #[error("stage directory {dest} exists and is not empty")]
    StageNotEmpty { dest: PathBuf },

    #[error("{0}\n  hint: --ca-file and SSL_CERT_FILE name PEM files of CA certificates")]
    CaFile(#[from] crate::tls::TlsError),

    #[error(transparent)]
    Io(#[from] std::io::Error),

    #[error("{} sources failed:{}", .0.len(), list_errors(.0))]
    Multiple(Vec<FetchError>),
}

impl From<crate::lock::FileLockError> for FetchError {
    /// A cache entry lock's errors: the lock file names the entry.
    fn from(e: crate::lock::FileLockError) -> FetchError {
        use crate::lock::FileLockError;
        match e {
            FileLockError::Timeout { path, waited } => FetchError::LockTimeout { path, waited },
            FileLockError::Io(e) => FetchError::Io(e),
            FileLockError::Lock { path, source } => FetchError::LocalFile { path, source },
            FileLockError::Held { dir, holder } => FetchError::LocalFile {
                path: dir,
                source: std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    holder.unwrap_or_else(|| "locked".into()),
                ),
            },
        }
    }
}

fn status_hint(status: u16) -> &'static str {
    match status {
        404 | 410 => " (not found: check the URL and version in the recipe, or add a mirror)",
        401 | 403 => " (access denied)",
        500..=599 => " (server error, retried)",
        _ => "",
    }
}

fn hint_opt(h: &Option<String>) -> String {
    h.as_ref().map(|h| format!("; {h}")).unwrap_or_default()
}

fn indent(s: &str) -> String {
    s.replace('\n', "\n    ")
}

fn list_attempts(attempts: &[(String, FetchError)]) -> String {
    attempts
        .iter()
        .map(|(loc, e)| format!("\n  - {loc}: {}", indent(&e.to_string())))
        .collect()
}

fn list_errors(errors: &[FetchError]) -> String {
    errors
        .iter()
        .map(|e| format!("\n  - {}", indent(&e.to_string())))
        .collect()
}

impl FetchError {
    /// `self` with the source `req` named in every size-limit error (also
    /// inside [`FetchError::AllLocationsFailed`]), and whether the limit is
    /// the recipe's `max_size:`.
    pub(crate) fn with_size_limit_of(
        mut self,
        req: &super::SourceRequest,
        from_recipe: bool,
    ) -> Self {
        fn fill(e: &mut FetchError, label: &str, recipe: bool) {
            match e {
                FetchError::TooLarge {
                    of, from_recipe, ..
                } => {
                    *of = Some(label.to_string());
                    *from_recipe = recipe;
                }
                FetchError::AllLocationsFailed { attempts, .. } => {
                    for (_, e) in attempts {
                        fill(e, label, recipe);
                    }
                }
                _ => {}
            }
        }
        fill(&mut self, &req.label(), from_recipe);
        self
    }

    /// Whether retrying the same URL could help (server errors, connection problems,
    /// truncated or stalled bodies). Client errors and checksum mismatches are final.
    pub fn is_transient(&self) -> bool {
        match self {
            FetchError::HttpStatus { status, .. } => {
                *status >= 500 || *status == 408 || *status == 429
            }
            FetchError::Network { .. }
            | FetchError::Stalled { .. }
            | FetchError::Truncated { .. } => true,
            _ => false,
        }
    }

    /// Combine several errors: one stays itself, more become [`FetchError::Multiple`].
    pub(crate) fn combine(mut errors: Vec<FetchError>) -> Option<FetchError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(FetchError::Multiple(errors)),
        }
    }
}

/// What to do without network: the fetch commands' `--mirror`, or a local
/// file.
pub const OFFLINE_HINT: &str = "without network, fetch through a source mirror: `stack mirror create RECIPE DIR` \
     on a machine with network, then `--mirror file:///path/to/DIR` here (also for `stack checksum` \
     and `stack create`); or give a local file (`stack create ./name-1.0.tar.gz`, \
     `url: ./name-1.0.tar.gz` in a recipe)";

/// Whether an error text says a host name did not resolve.
pub(crate) fn is_name_resolution_failure(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    [
        "dns error",
        "failed to lookup address",
        "failed to resolve address",
        "could not resolve host",
        "name or service not known",
        "temporary failure in name resolution",
        "no address associated with hostname",
    ]
    .iter()
    .any(|m| t.contains(m))
}

fn git_offline_hint(e: &git2::Error) -> String {
    if is_name_resolution_failure(e.message()) {
        format!("\nhint: {OFFLINE_HINT}")
    } else {
        String::new()
    }
}

fn recipe_at(recipe: &Option<Box<str>>) -> String {
    recipe
        .as_ref()
        .map(|r| format!(" (listed at {r})"))
        .unwrap_or_default()
}
