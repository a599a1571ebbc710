//! The `fetch` stage: sources into a content-addressed cache, verified; then staged as source
//! trees for the build.
//!
//! The stage is independent of recipes and plans: callers describe each source with a plain
//! [`SourceRequest`] (package, version, [`Source`]) and get back one [`Fetched`] per request,
//! in the same order.
//!
//! - [`fetch_all`]: fetch in parallel (bounded by [`FetchOptions::jobs`]) through the
//!   [`SourceCache`]: a hit is re-verified; a miss tries each mirror, then upstream; HTTP
//!   downloads stream through sha256 in one pass, retry transient failures with backoff and
//!   resume truncated bodies; only verified files are renamed into the cache.
//! - [`resolve_git_ref`]: a branch or tag to the commit `stack.lock` pins.
//! - [`stage()`]: extract an archive safely (or copy a payload, or check out a git commit) into a
//!   build directory.
//! - [`mirror::create`]: write every source into a Spack-layout mirror for air-gapped sites.
//! - [`plan()`]: what a fetch would do (cache hits, locations in order), for `--dry-run`.
//!
//! Progress goes to a [`FetchReporter`]; logs go to `tracing`. Nothing here prints.
//!
//! Files: `cache.rs` (layout), `cache.rs` (lock file names; the protocol is `lock::EntryLock`), `download.rs` (one file source:
//! cache → mirrors → upstream), `http.rs` (streaming download, retries; its client also
//! carries git's smart HTTP), `git/` (bare-repo cache, refs, submodules, tree export, the http(s)
//! transport), `archive.rs` + `extract.rs` (formats, safe extraction),
//! `stage.rs`, `mirror.rs` + `tarball.rs`, `digest.rs`.

mod archive;
mod cache;
pub mod checksum;
pub mod create;
mod digest;
mod download;
mod error;
mod extract;
mod fetched;
mod git;
mod http;
pub mod mirror;
mod options;
mod plan;
mod reporter;
mod source;
mod stage;
mod tarball;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use archive::ArchiveFormat;
pub use cache::{SOURCES_BUCKET, SourceCache};
pub use digest::{Sha256Hex, sha256_file};
pub use error::FetchError;
pub use fetched::{Fetched, FetchedContent, FetchedSubmodule, Origin, Verification};
pub use git::resolve_git_ref;
pub use options::{DEFAULT_JOBS, DEFAULT_MAX_DOWNLOAD, FetchOptions};
pub use plan::{PlannedSource, plan};
pub use reporter::{FetchReporter, NoopReporter};
pub use source::{GitRef, Source, SourceRequest};
pub use stage::{StagedSource, stage};

use download::Ctx;
use source::Location;

/// Fetch every source into the cache, in parallel (at most `options.jobs` at a time).
///
/// Returns one [`Fetched`] per request, in request order. All sources are attempted even if
/// some fail; the error then covers every failure ([`FetchError::Multiple`] if more than one).
pub fn fetch_all(
    requests: &[SourceRequest],
    options: &FetchOptions,
    reporter: &dyn FetchReporter,
) -> Result<Vec<Fetched>, FetchError> {
    let mut fetched = Vec::with_capacity(requests.len());
    let mut errors = Vec::new();
    for r in fetch_each(requests, options, reporter) {
        match r {
            Ok(f) => fetched.push(f),
            Err(e) => errors.push(e),
        }
    }
    match FetchError::combine(errors) {
        Some(e) => Err(e),
        None => Ok(fetched),
    }
}

/// The error [`fetch_all`] gives for these results (every failure; `Ok`
/// results are dropped). Call it when at least one failed.
pub fn fetch_all_error(results: Vec<Result<Fetched, FetchError>>) -> FetchError {
    let errors: Vec<FetchError> = results.into_iter().filter_map(Result::err).collect();
    FetchError::combine(errors)
        .unwrap_or_else(|| FetchError::Io(std::io::Error::other("no source failed")))
}

/// Like [`fetch_all`], with each request's own result (in request order):
/// what failed does not hide what was fetched, so a build can go on with
/// the packages whose sources arrived.
pub fn fetch_each(
    requests: &[SourceRequest],
    options: &FetchOptions,
    reporter: &dyn FetchReporter,
) -> Vec<Result<Fetched, FetchError>> {
    if requests.is_empty() {
        return Vec::new();
    }
    let http = if needs_http(requests, &options.mirrors) {
        match http::Http::new(options) {
            Ok(h) => Some(h),
            Err(e) => {
                let msg = e.to_string();
                return requests
                    .iter()
                    .map(|_| Err(FetchError::Io(std::io::Error::other(msg.clone()))))
                    .collect();
            }
        }
    } else {
        None
    };
    let ctx = Ctx {
        opts: options,
        http: http.as_ref(),
        reporter,
    };
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Fetched, FetchError>>>> =
        Mutex::new((0..requests.len()).map(|_| None).collect());
    let workers = options.jobs.max(1).min(requests.len());
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (ctx, next, results) = (&ctx, &next, &results);
            std::thread::Builder::new()
                .name(format!("stack-fetch-{w}"))
                .spawn_scoped(scope, move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(req) = requests.get(i) else { break };
                        let result = fetch_one(ctx, i, req);
                        match &result {
                            Ok(f) => ctx.reporter.finished(i, f),
                            Err(e) => ctx.reporter.failed(i, e),
                        }
                        results.lock().expect("no worker panics while holding it")[i] =
                            Some(result);
                    }
                })
                .expect("spawn fetch worker");
        }
    });
    results
        .into_inner()
        .expect("workers finished")
        .into_iter()
        .map(|r| r.expect("every request was processed"))
        .collect()
}

/// Fetch one source (worker side).
fn fetch_one(ctx: &Ctx<'_>, index: usize, req: &SourceRequest) -> Result<Fetched, FetchError> {
    ctx.reporter.started(index, req, req.url());
    match &req.source {
        Source::Archive {
            url,
            expand,
            max_size,
            ..
        } => {
            Location::parse(url)?;
            let expected = source::expected_sha256(req)?;
            if expected.is_none() && !ctx.opts.allow_unverified {
                return Err(FetchError::MissingChecksum {
                    package: req.label(),
                    url: url.clone(),
                });
            }
            let opts = FetchOptions {
                max_download: max_size.unwrap_or(ctx.opts.max_download),
                ..ctx.opts.clone()
            };
            let ctx = Ctx {
                opts: &opts,
                ..*ctx
            };
            download::fetch_file(&ctx, index, req, url, expected, *expand)
                .map_err(|e| e.with_size_limit_of(req, max_size.is_some()))
        }
        Source::Git { .. } => git::fetch_git(ctx, index, req),
    }
}

/// Whether a run needs the HTTP client: an http(s) mirror, archive or git remote (a
/// submodule's URL may be one whatever its parent's is).
fn needs_http(requests: &[SourceRequest], mirrors: &[String]) -> bool {
    let http = git::is_http;
    mirrors.iter().any(|m| http(m))
        || requests.iter().any(|r| match &r.source {
            Source::Archive { url, .. } => http(url),
            Source::Git {
                url, submodules, ..
            } => http(url) || *submodules,
        })
}
