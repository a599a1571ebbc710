//! HTTP(S) downloads: streamed into a file while hashing (one pass over the bytes), with retries
//! and backoff on connection errors, 5xx and stalls, and resume (or restart) on truncation.

use crate::diag::{Retry, error_chain};
use std::io::{Seek, SeekFrom, Write};

use futures_util::StreamExt;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_RANGE, RANGE};
use sha2::{Digest, Sha256};

use super::digest::Sha256Hex;
use super::error::FetchError;
use super::options::FetchOptions;

/// Report progress at most every this many bytes (plus at the end).
const PROGRESS_STEP: u64 = 256 * 1024;

/// Shared HTTP machinery of one fetch run: a client (connection pool) and the runtime that
/// drives it. Worker threads call [`Http::download`], which blocks the calling thread until the
/// file is complete; git remotes over http(s) use the same client ([`super::git`]'s transport).
/// Clones share the client and the runtime.
#[derive(Clone)]
pub(crate) struct Http {
    client: reqwest::Client,
    runtime: std::sync::Arc<Runtime>,
    idle_timeout: std::time::Duration,
}

/// A runtime that may also be dropped inside another runtime (a plain drop panics there: it
/// blocks until its threads have stopped; there they are left to stop in the background).
struct Runtime(Option<tokio::runtime::Runtime>);

impl std::ops::Deref for Runtime {
    type Target = tokio::runtime::Runtime;
    fn deref(&self) -> &tokio::runtime::Runtime {
        self.0.as_ref().expect("present until dropped")
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            rt.shutdown_background();
        }
    }
}

/// Callbacks of one download.
pub(crate) struct Observer<'a> {
    pub(crate) progress: &'a dyn Fn(u64, Option<u64>),
    pub(crate) retrying: &'a dyn Fn(u32, &FetchError),
}

/// Bytes received so far, hashed as they arrived.
struct Received<'f> {
    file: &'f mut std::fs::File,
    hasher: Sha256,
    len: u64,
    reported: u64,
}

impl Received<'_> {
    fn restart(&mut self) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.hasher = Sha256::new();
        self.len = 0;
        self.reported = 0;
        Ok(())
    }
}

impl Http {
    pub(crate) fn new(opts: &FetchOptions) -> Result<Http, FetchError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("stack-fetch-io")
            .enable_all()
            .build()?;
        let builder = reqwest::Client::builder()
            .user_agent(concat!("stack/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(opts.connect_timeout);
        let client =
            opts.trust_roots()
                .apply(builder)?
                .build()
                .map_err(|e| FetchError::Request {
                    url: String::new(),
                    message: error_chain(&e),
                })?;
        Ok(Http {
            client,
            runtime: std::sync::Arc::new(Runtime(Some(runtime))),
            idle_timeout: opts.idle_timeout,
        })
    }

    /// The client: stack's user agent, connect timeout, trust roots and the proxy environment.
    pub(crate) fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// How long a transfer may deliver no data ([`FetchOptions::idle_timeout`]).
    pub(crate) fn idle_timeout(&self) -> std::time::Duration {
        self.idle_timeout
    }

    /// Run `future` on the runtime, blocking the calling thread. A thread that is itself inside
    /// a tokio runtime cannot block on another one (tokio panics), so there the future is driven
    /// from a helper thread while the caller waits.
    pub(crate) fn block_on<F>(&self, future: F) -> F::Output
    where
        F: std::future::Future + Send,
        F::Output: Send,
    {
        if tokio::runtime::Handle::try_current().is_err() {
            return self.runtime.block_on(future);
        }
        std::thread::scope(|s| {
            s.spawn(|| self.runtime.block_on(future))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// Download `url` into `file` (which must be empty), returning its sha256 and size.
    pub(crate) fn download(
        &self,
        url: &str,
        file: &mut std::fs::File,
        opts: &FetchOptions,
        observer: &Observer<'_>,
    ) -> Result<(Sha256Hex, u64), FetchError> {
        let mut rx = Received {
            file,
            hasher: Sha256::new(),
            len: 0,
            reported: 0,
        };
        Retry::new(opts.attempts.max(1), opts.retry_backoff)
            .run(
                |_| {
                    self.runtime
                        .block_on(self.attempt(url, &mut rx, opts, observer))
                },
                FetchError::is_transient,
                |attempt, e| {
                    tracing::info!("{url}: attempt {attempt} failed ({e}), retrying");
                    (observer.retrying)(attempt, e);
                },
            )
            .map_err(|(e, attempts)| with_attempts(e, attempts))?;
        rx.file.flush()?;
        Ok((Sha256Hex::from_hasher(rx.hasher), rx.len))
    }

    async fn attempt(
        &self,
        url: &str,
        rx: &mut Received<'_>,
        opts: &FetchOptions,
        observer: &Observer<'_>,
    ) -> Result<(), FetchError> {
        let idle = opts.idle_timeout;
        let stalled = || FetchError::Stalled {
            url: url.to_string(),
            idle,
            attempts: 1,
        };
        let mut request = self.client.get(url);
        if rx.len > 0 {
            request = request.header(RANGE, format!("bytes={}-", rx.len));
        }
        let response = tokio::time::timeout(idle, request.send())
            .await
            .map_err(|_| stalled())?
            .map_err(|e| classify(url, &e))?;
        let total = expected_total(url, &response, rx)?;
        let limit = opts.max_download;
        if let Some(n) = total.filter(|n| *n > limit) {
            return Err(FetchError::TooLarge {
                url: url.to_string(),
                limit,
                announced: Some(n),
                of: None,
                from_recipe: false,
            });
        }
        (observer.progress)(rx.len, total);
        let mut body = response.bytes_stream();
        loop {
            let next = tokio::time::timeout(idle, body.next())
                .await
                .map_err(|_| stalled())?;
            match next {
                None => break,
                Some(Ok(chunk)) => {
                    if rx.len + chunk.len() as u64 > limit {
                        rx.restart()?;
                        return Err(FetchError::TooLarge {
                            url: url.to_string(),
                            limit,
                            announced: total,
                            of: None,
                            from_recipe: false,
                        });
                    }
                    rx.hasher.update(&chunk);
                    rx.file.write_all(&chunk)?;
                    rx.len += chunk.len() as u64;
                    if rx.len - rx.reported >= PROGRESS_STEP {
                        rx.reported = rx.len;
                        (observer.progress)(rx.len, total);
                    }
                }
                Some(Err(e)) => {
                    return Err(match total {
                        Some(t) if rx.len < t => FetchError::Truncated {
                            url: url.to_string(),
                            received: rx.len,
                            expected: t,
                            attempts: 1,
                        },
                        _ => classify(url, &e),
                    });
                }
            }
        }
        (observer.progress)(rx.len, total);
        match total {
            Some(t) if rx.len < t => Err(FetchError::Truncated {
                url: url.to_string(),
                received: rx.len,
                expected: t,
                attempts: 1,
            }),
            _ => Ok(()),
        }
    }
}

/// The size the answer announces, after checking its status: a resumed
/// download continues where `rx` stopped, else starts over (`rx`
/// restarted); `None` when the server does not say.
fn expected_total(
    url: &str,
    response: &reqwest::Response,
    rx: &mut Received<'_>,
) -> Result<Option<u64>, FetchError> {
    let status = response.status();
    if status == StatusCode::RANGE_NOT_SATISFIABLE && rx.len > 0 {
        // The file changed under us; start over with a plain request.
        rx.restart()?;
        return Err(FetchError::Network {
            url: url.to_string(),
            message: "server refused to resume (HTTP 416); restarting".into(),
            attempts: 1,
        });
    }
    if !status.is_success() {
        return Err(FetchError::HttpStatus {
            url: url.to_string(),
            status: status.as_u16(),
        });
    }
    Ok(if status == StatusCode::PARTIAL_CONTENT {
        match content_range(response) {
            Some((start, total)) if start == rx.len => total,
            _ => {
                // A range we did not ask for: start over with a plain request next time.
                rx.restart()?;
                return Err(FetchError::Network {
                    url: url.to_string(),
                    message: "server answered the resume request with a different range".into(),
                    attempts: 1,
                });
            }
        }
    } else {
        if rx.len > 0 {
            tracing::debug!("{url}: server does not resume, restarting from byte 0");
            rx.restart()?;
        }
        response.content_length()
    })
}

/// `Content-Range: bytes <start>-<end>/<total|*>` → (start, total).
fn content_range(response: &reqwest::Response) -> Option<(u64, Option<u64>)> {
    let v = response.headers().get(CONTENT_RANGE)?.to_str().ok()?;
    let rest = v.strip_prefix("bytes ")?;
    let (range, total) = rest.split_once('/')?;
    let start = range.split_once('-')?.0.trim().parse().ok()?;
    Some((start, total.trim().parse().ok()))
}

fn with_attempts(e: FetchError, n: u32) -> FetchError {
    match e {
        FetchError::Network {
            url,
            message,
            attempts: _,
        } => FetchError::Network {
            url,
            message,
            attempts: n,
        },
        FetchError::Stalled { url, idle, .. } => FetchError::Stalled {
            url,
            idle,
            attempts: n,
        },
        FetchError::Truncated {
            url,
            received,
            expected,
            ..
        } => FetchError::Truncated {
            url,
            received,
            expected,
            attempts: n,
        },
        other => other,
    }
}

/// Connection problems and broken bodies are worth retrying; the rest (bad URL, TLS
/// verification, redirect loops) is not.
pub(crate) fn classify(url: &str, e: &reqwest::Error) -> FetchError {
    let message = error_chain(e);
    // A host that does not resolve will not resolve on the next attempt
    // either (offline, no DNS): fail at once, saying what to do instead.
    if e.is_connect() && super::error::is_name_resolution_failure(&message) {
        return FetchError::HostNotFound {
            url: url.to_string(),
            host: reqwest::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_default(),
            message,
        };
    }
    // A certificate that is not trusted stays so: not worth a retry.
    let untrusted = message.contains("invalid peer certificate");
    let transient =
        e.is_connect() || e.is_timeout() || e.is_body() || e.is_decode() || e.is_request();
    if transient && !untrusted {
        FetchError::Network {
            url: url.to_string(),
            message,
            attempts: 1,
        }
    } else {
        FetchError::Request {
            url: url.to_string(),
            message,
        }
    }
}
