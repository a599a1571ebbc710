//! git's smart HTTP protocol, the client side of a fetch (stateless RPC, as `git fetch` speaks
//! it): the requests, and the checks of their answers.
//!
//! - The ref advertisement: `GET <url>/info/refs?service=git-upload-pack`, answered with
//!   `Content-Type: application/x-git-upload-pack-advertisement`. Redirects are followed; where
//!   the advertisement came from is the base of the requests that follow (as git does).
//! - Each negotiation round: `POST <base>/git-upload-pack` with
//!   `Content-Type: application/x-git-upload-pack-request` and
//!   `Accept: application/x-git-upload-pack-result`; the body is what libgit2 wrote before it
//!   first read, the answer (`application/x-git-upload-pack-result`) what it reads.
//!
//! A stream sends its request when libgit2 first reads from it, and hands over the answer's
//! body as it arrives. Every failure becomes a [`FetchError`] naming the URL of the request;
//! the session keeps it for `repo::fetch`, and libgit2 gets its text.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, PRAGMA, USER_AGENT};

use super::transport::Session;
use crate::fetch::error::FetchError;
use crate::fetch::http::{Http, classify};

pub(super) const ADVERTISEMENT: &str = "application/x-git-upload-pack-advertisement";
pub(super) const REQUEST: &str = "application/x-git-upload-pack-request";
pub(super) const RESULT: &str = "application/x-git-upload-pack-result";

/// The `User-Agent` of git requests: stack's own (`stack/<version>`, as on its other requests)
/// behind a `git/` prefix. Hosting services (GitHub, Bitbucket, git.freebsd.org among them)
/// speak the smart protocol only to agents that start with `git/`; libgit2's own transport
/// sends `git/2.0 (libgit2 …)` for the same reason.
pub(super) const GIT_USER_AGENT: &str = concat!("git/2.0 (stack/", env!("CARGO_PKG_VERSION"), ")");

/// The repository URL the requests of one connection go to, once the ref advertisement has
/// said it (after redirects).
#[derive(Clone, Default)]
pub(super) struct Base(Arc<Mutex<Option<String>>>);

impl Base {
    /// The base, or `url`'s when no advertisement has set it.
    pub(super) fn get_or(&self, url: &str) -> String {
        let known = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        known.unwrap_or_else(|| repository(url).to_string())
    }

    fn set(&self, base: String) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(base);
    }
}

/// `url` without the trailing slashes git ignores too.
fn repository(url: &str) -> &str {
    url.trim_end_matches('/')
}

/// The URL of the ref advertisement of the repository at `url`.
pub(super) fn refs_url(url: &str) -> String {
    format!("{}/info/refs?service=git-upload-pack", repository(url))
}

/// The URL of the upload-pack requests of the repository at `base`.
pub(super) fn upload_pack_url(base: &str) -> String {
    format!("{base}/git-upload-pack")
}

/// The repository URL of a ref advertisement that was answered from `answered` (the URL after
/// redirects): it must still be an `info/refs` URL, and an https remote stays on https.
pub(super) fn base_of(asked: &str, answered: &reqwest::Url) -> Result<String, FetchError> {
    if asked.starts_with("https://") && answered.scheme() != "https" {
        return Err(FetchError::Request {
            url: asked.to_string(),
            message: format!(
                "redirected to {answered}: an https remote is not followed to plain http"
            ),
        });
    }
    let mut url = answered.clone();
    url.set_query(None);
    url.set_fragment(None);
    match url.as_str().strip_suffix("/info/refs") {
        Some(base) => Ok(base.to_string()),
        None => Err(FetchError::Request {
            url: asked.to_string(),
            message: format!("redirected to {answered}, which is not a git `info/refs` URL"),
        }),
    }
}

/// Check the status and the content type of an answer to `url`.
pub(super) fn check_answer(
    url: &str,
    status: reqwest::StatusCode,
    headers: &HeaderMap,
    expected: &str,
) -> Result<(), FetchError> {
    if !status.is_success() {
        return Err(FetchError::HttpStatus {
            url: url.to_string(),
            status: status.as_u16(),
        });
    }
    let got = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media = got.split(';').next().unwrap_or("").trim();
    if media.eq_ignore_ascii_case(expected) {
        return Ok(());
    }
    let got = if got.is_empty() {
        "no Content-Type".to_string()
    } else {
        format!("Content-Type `{got}`")
    };
    Err(FetchError::Request {
        url: url.to_string(),
        message: format!(
            "not a git smart-HTTP answer: {got}, expected `{expected}` (no git repository \
             here, or a server of git's dumb HTTP protocol, which stack does not speak)"
        ),
    })
}

/// What a stream asks for.
enum Ask {
    /// The ref advertisement of the repository at `url`; sets `base`.
    Refs { url: String, base: Base },
    /// One upload-pack round at `base`, with the body written so far.
    UploadPack { base: String, body: Vec<u8> },
}

/// An answer being read.
struct Answer {
    url: String,
    response: reqwest::Response,
    chunk: Bytes,
}

/// One request and its answer, as libgit2 writes and reads them.
pub(super) struct Stream {
    http: Http,
    session: Arc<Session>,
    ask: Ask,
    answer: Option<Answer>,
}

impl Stream {
    /// The ref advertisement of `url`.
    pub(super) fn refs(http: Http, session: Arc<Session>, url: &str, base: Base) -> Stream {
        Stream {
            http,
            session,
            ask: Ask::Refs {
                url: url.to_string(),
                base,
            },
            answer: None,
        }
    }

    /// An upload-pack round at `base`.
    pub(super) fn upload_pack(http: Http, session: Arc<Session>, base: &str) -> Stream {
        Stream {
            http,
            session,
            ask: Ask::UploadPack {
                base: base.to_string(),
                body: Vec::new(),
            },
            answer: None,
        }
    }

    /// Send the request; check and keep the answer.
    fn send(&mut self) -> Result<Answer, FetchError> {
        let client = self.http.client();
        let (url, request, expected) = match &self.ask {
            Ask::Refs { url, .. } => {
                let url = refs_url(url);
                (url.clone(), client.get(&url), ADVERTISEMENT)
            }
            Ask::UploadPack { base, body } => {
                let url = upload_pack_url(base);
                let request = client
                    .post(&url)
                    .header(CONTENT_TYPE, REQUEST)
                    .header(ACCEPT, RESULT)
                    .body(body.clone());
                (url, request, RESULT)
            }
        };
        // `Pragma: no-cache`, as git sends: refs must not come from a proxy's cache.
        let request = request
            .header(USER_AGENT, GIT_USER_AGENT)
            .header(PRAGMA, "no-cache");
        tracing::debug!("git over http: {url}");
        let idle = self.http.idle_timeout();
        let response = self
            .http
            .block_on(async { tokio::time::timeout(idle, request.send()).await })
            .map_err(|_| stalled(&url, idle))?
            .map_err(|e| classify(&url, &e))?;
        check_answer(&url, response.status(), response.headers(), expected)?;
        if let Ask::Refs { base, .. } = &self.ask {
            base.set(base_of(&url, response.url())?);
        }
        Ok(Answer {
            url,
            response,
            chunk: Bytes::new(),
        })
    }

    /// The next bytes of the answer (empty at its end).
    fn next_chunk(&mut self) -> Result<Bytes, FetchError> {
        let Some(answer) = self.answer.as_mut() else {
            return Ok(Bytes::new());
        };
        let idle = self.http.idle_timeout();
        let url = &answer.url;
        let response = &mut answer.response;
        loop {
            let next = self
                .http
                .block_on(async { tokio::time::timeout(idle, response.chunk()).await })
                .map_err(|_| stalled(url, idle))?
                .map_err(|e| classify(url, &e))?;
            match next {
                Some(chunk) if chunk.is_empty() => continue,
                Some(chunk) => return Ok(chunk),
                None => return Ok(Bytes::new()),
            }
        }
    }

    /// Keep `e` for `repo::fetch` and give libgit2 its text.
    fn fail(&self, e: FetchError) -> std::io::Error {
        let error = std::io::Error::other(e.to_string());
        self.session.failed(e);
        error
    }
}

fn stalled(url: &str, idle: std::time::Duration) -> FetchError {
    FetchError::Stalled {
        url: url.to_string(),
        idle,
        attempts: 1,
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.answer.is_none() {
            let answer = self.send().map_err(|e| self.fail(e))?;
            self.answer = Some(answer);
        }
        let pending = self.answer.as_ref().is_some_and(|a| a.chunk.is_empty());
        if pending {
            let chunk = self.next_chunk().map_err(|e| self.fail(e))?;
            if let Some(a) = self.answer.as_mut() {
                a.chunk = chunk;
            }
        }
        let Some(answer) = self.answer.as_mut() else {
            return Ok(0);
        };
        let n = buf.len().min(answer.chunk.len());
        buf[..n].copy_from_slice(&answer.chunk.split_to(n));
        Ok(n)
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let sent = self.answer.is_some();
        let refused = match &mut self.ask {
            Ask::UploadPack { body, .. } if !sent => {
                body.extend_from_slice(buf);
                return Ok(buf.len());
            }
            Ask::UploadPack { base, .. } => FetchError::Request {
                url: upload_pack_url(base),
                message: "libgit2 wrote to an upload-pack request after reading its answer \
                          (stateless RPC sends one request per round)"
                    .into(),
            },
            Ask::Refs { url, .. } => FetchError::Request {
                url: refs_url(url),
                message: "libgit2 wrote to the ref advertisement request (a GET)".into(),
            },
        };
        Err(self.fail(refused))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
#[path = "smart_http_tests.rs"]
mod tests;
