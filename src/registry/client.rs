//! A connection to one registry: TLS, authentication, retries.
//!
//! [`Registry`] owns a reqwest client and the tokio runtime that drives it;
//! its methods block the calling thread. Every request goes through
//! [`Registry::send`], which adds the cached `Authorization` of the
//! repository, answers a 401 challenge once (basic, or a bearer token from
//! the challenge's realm), retries transient failures (connection errors,
//! 5xx, 429) with exponential backoff, and turns error statuses into
//! [`RegistryError`]s that name the URL.

use crate::diag::{Retry, error_chain};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use reqwest::{Method, RequestBuilder, Response, StatusCode};

use super::RegistryError;
use super::auth::{Challenge, Credentials, token_from_response};
use super::limits::{self, read_capped, read_prefix};

/// How to talk to a registry.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    pub credentials: Credentials,
    /// Extra trusted CA certificates (PEM), beside the built-in roots, the
    /// system's store and `SSL_CERT_FILE` ([`crate::tls`]).
    pub ca_files: Vec<PathBuf>,
    /// Talk plain HTTP (a loopback test registry); never the default.
    pub plain_http: bool,
    /// Attempts per request for transient failures.
    pub attempts: u32,
    /// The first retry waits this long; each next one twice as long.
    pub retry_backoff: Duration,
    pub connect_timeout: Duration,
    /// A transfer that receives or sends nothing for this long fails.
    pub idle_timeout: Duration,
    /// Blobs larger than this are uploaded in chunks of this size.
    pub chunk_size: u64,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            credentials: Credentials::Anonymous,
            ca_files: Vec::new(),
            plain_http: false,
            attempts: 4,
            retry_backoff: Duration::from_millis(500),
            connect_timeout: Duration::from_secs(15),
            idle_timeout: Duration::from_secs(60),
            chunk_size: 256 << 20,
        }
    }
}

/// A connection to one registry host.
pub struct Registry {
    host: String,
    base: String,
    pub(super) client: reqwest::Client,
    pub(super) runtime: tokio::runtime::Runtime,
    pub(super) opts: ClientOptions,
    /// `Authorization` values by scope key (the repository, or `""`).
    auth: Mutex<HashMap<String, String>>,
}

impl Registry {
    /// Connect to `host` (`host[:port]`). Nothing is sent yet.
    pub fn new(host: &str, opts: ClientOptions) -> Result<Registry, RegistryError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("stack-registry-io")
            .enable_all()
            .build()?;
        let builder = reqwest::Client::builder()
            .user_agent(concat!("stack/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(opts.connect_timeout)
            .read_timeout(opts.idle_timeout);
        let builder = crate::tls::TrustRoots::new(&opts.ca_files)
            .apply(builder)
            .map_err(|e| RegistryError::CaFile {
                path: e.path.display().to_string(),
                message: e.message,
            })?;
        let client = builder.build().map_err(|e| RegistryError::Request {
            url: host.to_string(),
            message: error_chain(&e),
        })?;
        let scheme = if opts.plain_http { "http" } else { "https" };
        Ok(Registry {
            host: host.to_string(),
            base: format!("{scheme}://{host}"),
            client,
            runtime,
            opts,
            auth: Mutex::new(HashMap::new()),
        })
    }

    /// `host[:port]`.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The URL of an API path (`/v2/...`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The options this connection was made with.
    pub fn options(&self) -> &ClientOptions {
        &self.opts
    }

    /// The cached `Authorization` value for `scope`, to send to `url`:
    /// never to another scheme, host or port than this registry's (an
    /// upload `Location` may point elsewhere).
    pub(super) fn auth_header(&self, scope: &str, url: &str) -> Option<String> {
        if !self.same_origin(url) {
            return None;
        }
        self.auth.lock().unwrap().get(scope).cloned()
    }

    /// Whether `url` is on this registry (same scheme, host and port).
    pub(super) fn same_origin(&self, url: &str) -> bool {
        url.strip_prefix(&self.base)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/') || rest.starts_with('?'))
    }

    /// Send a request built by `build` (called again for each attempt),
    /// authenticating and retrying as needed. Returns a 2xx (or 3xx when the
    /// client does not follow it) response.
    pub(super) async fn send(
        &self,
        scope: &str,
        url: &str,
        build: &(dyn Fn(&reqwest::Client) -> Result<RequestBuilder, RegistryError> + Sync),
    ) -> Result<Response, RegistryError> {
        self.send_with(scope, url, build, self.opts.attempts.max(1))
            .await
    }

    /// The retry policy of the options (at least one attempt).
    pub(super) fn retry(&self) -> Retry {
        Retry::new(self.opts.attempts.max(1), self.opts.retry_backoff)
    }

    /// [`Registry::send`] with at most `attempts` attempts.
    pub(super) async fn send_with(
        &self,
        scope: &str,
        url: &str,
        build: &(dyn Fn(&reqwest::Client) -> Result<RequestBuilder, RegistryError> + Sync),
        attempts: u32,
    ) -> Result<Response, RegistryError> {
        Retry::new(attempts, self.opts.retry_backoff)
            .run_async(
                |_| self.send_once(scope, url, build),
                RegistryError::is_transient,
                |attempt, e| tracing::info!("{url}: attempt {attempt} failed ({e}), retrying"),
            )
            .await
            .map_err(|(e, attempts)| with_attempts(e, attempts))
    }

    /// One attempt: with the cached authorization; on 401, answer the
    /// challenge and send once more.
    async fn send_once(
        &self,
        scope: &str,
        url: &str,
        build: &(dyn Fn(&reqwest::Client) -> Result<RequestBuilder, RegistryError> + Sync),
    ) -> Result<Response, RegistryError> {
        let mut authorized = false;
        loop {
            let mut request = build(&self.client)?;
            if let Some(h) = self.auth_header(scope, url) {
                request = request.header(AUTHORIZATION, h);
            }
            let response = request.send().await.map_err(|e| classify(url, &e))?;
            let status = response.status();
            // Credentials answer only this registry's challenges.
            if status == StatusCode::UNAUTHORIZED && !authorized && self.same_origin(url) {
                let challenge = response
                    .headers()
                    .get(WWW_AUTHENTICATE)
                    .and_then(|v| v.to_str().ok())
                    .and_then(Challenge::parse);
                if let Some(header) = self.answer(url, challenge).await? {
                    self.auth.lock().unwrap().insert(scope.to_string(), header);
                    authorized = true;
                    continue;
                }
            }
            return check_status(url, response).await;
        }
    }

    /// The `Authorization` value that answers `challenge`, if we have what it takes.
    async fn answer(
        &self,
        url: &str,
        challenge: Option<Challenge>,
    ) -> Result<Option<String>, RegistryError> {
        let creds = &self.opts.credentials;
        match challenge {
            Some(Challenge::Basic) => Ok(creds.basic_header()),
            Some(Challenge::Bearer {
                realm,
                service,
                scope,
            }) => {
                if let Credentials::Token(t) = creds {
                    return Ok(Some(format!("Bearer {t}")));
                }
                let mut request = self.client.get(&realm);
                let mut query = Vec::new();
                if let Some(s) = &service {
                    query.push(("service", s.as_str()));
                }
                if let Some(s) = &scope {
                    query.push(("scope", s.as_str()));
                }
                request = request.query(&query);
                if let Some(h) = creds.basic_header() {
                    request = request.header(AUTHORIZATION, h);
                }
                let response = request.send().await.map_err(|e| classify(&realm, &e))?;
                let response = check_status(&realm, response).await.map_err(|e| match e {
                    RegistryError::Status { status: 403, .. } => RegistryError::Unauthorized {
                        url: url.to_string(),
                        status: 403,
                        detail: Some("the token server refused the credentials".into()),
                    },
                    e => e,
                })?;
                let body = read_capped(&realm, response, limits::TOKEN, "token answer").await?;
                let token =
                    token_from_response(&body).ok_or_else(|| RegistryError::BadResponse {
                        url: realm.clone(),
                        message: "no token in the token server's answer".into(),
                    })?;
                Ok(Some(format!("Bearer {token}")))
            }
            None => Ok(None),
        }
    }

    /// Send a request without a body and return the response (blocking),
    /// its body read up to `cap` bytes (more is an error: `what` names it).
    pub(super) fn simple(
        &self,
        method: Method,
        scope: &str,
        path: &str,
        headers: &[(&str, &str)],
        (cap, what): (u64, &'static str),
    ) -> Result<(StatusCode, reqwest::header::HeaderMap, Vec<u8>), RegistryError> {
        let url = self.url(path);
        self.runtime.block_on(async {
            let build = |c: &reqwest::Client| {
                let mut r = c.request(method.clone(), &url);
                for (k, v) in headers {
                    r = r.header(*k, *v);
                }
                Ok(r)
            };
            let response = self.send(scope, &url, &build).await?;
            let status = response.status();
            let headers = response.headers().clone();
            // A HEAD answer announces the size of what a GET would get.
            let body = if method == Method::HEAD {
                Vec::new()
            } else {
                read_capped(&url, response, cap, what).await?
            };
            Ok((status, headers, body))
        })
    }
}

/// Map error statuses to errors; pass the rest through.
pub(super) async fn check_status(url: &str, response: Response) -> Result<Response, RegistryError> {
    let status = response.status();
    if status.is_success() || status.is_redirection() {
        return Ok(response);
    }
    let body = read_prefix(response, limits::ERROR_BODY).await;
    let body = Some(short(&String::from_utf8_lossy(&body))).filter(|b| !b.is_empty());
    Err(match status.as_u16() {
        401 | 403 => RegistryError::Unauthorized {
            url: url.to_string(),
            status: status.as_u16(),
            detail: body,
        },
        404 => RegistryError::NotFound {
            url: url.to_string(),
            what: body,
        },
        s => RegistryError::Status {
            url: url.to_string(),
            status: s,
            body,
        },
    })
}

/// The first line of a response body, at most 200 characters, control
/// characters (terminal escapes) dropped.
fn short(body: &str) -> String {
    let line = body.lines().next().unwrap_or("").trim();
    line.chars().filter(|c| !c.is_control()).take(200).collect()
}

/// A network error, told how many attempts were made.
pub(super) fn with_attempts(e: RegistryError, n: u32) -> RegistryError {
    match e {
        RegistryError::Network { url, message, .. } => RegistryError::Network {
            url,
            message,
            attempts: n,
        },
        other => other,
    }
}

/// Connection problems and broken bodies are worth retrying; the rest is not.
pub(super) fn classify(url: &str, e: &reqwest::Error) -> RegistryError {
    let message = error_chain(e);
    // A certificate that is not trusted stays so: not worth a retry.
    let untrusted = message.contains("invalid peer certificate");
    let transient =
        e.is_connect() || e.is_timeout() || e.is_body() || e.is_decode() || e.is_request();
    if transient && !untrusted {
        RegistryError::Network {
            url: url.to_string(),
            message,
            attempts: 1,
        }
    } else {
        RegistryError::Request {
            url: url.to_string(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keeps_one_line() {
        assert_eq!(short("a\nb"), "a");
        assert_eq!(short(&"x".repeat(500)).len(), 200);
        assert_eq!(short("a\x1b[2Jb"), "a[2Jb");
    }
}
