//! Blobs: existence checks, uploads (monolithic or chunked, streamed from
//! disk, hashed while streaming) and downloads (streamed into a temporary
//! file beside the destination, hashed, verified, renamed).

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use reqwest::header::{CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, LOCATION, RANGE};
use reqwest::{Method, StatusCode};
use sha2::{Digest, Sha256};

use super::client::{Registry, classify, with_attempts};
use super::limits;
use super::reporter::TransferReporter;
use super::{Descriptor, RegistryError};

/// Read buffer of uploads and hashing.
const BUF: usize = 1 << 20;

impl Registry {
    /// Whether `repo` has the blob `digest` (HEAD).
    pub fn blob_exists(&self, repo: &str, digest: &str) -> Result<bool, RegistryError> {
        match self.simple(
            Method::HEAD,
            repo,
            &format!("/v2/{repo}/blobs/{digest}"),
            &[],
            (limits::ERROR_BODY, "answer"),
        ) {
            Ok(_) => Ok(true),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Upload `bytes` as a blob of `repo` unless it is there already.
    pub fn push_blob_bytes(
        &self,
        repo: &str,
        desc: &Descriptor,
        bytes: &[u8],
    ) -> Result<(), RegistryError> {
        if self.blob_exists(repo, &desc.digest)? {
            return Ok(());
        }
        let location = self.start_upload(repo)?;
        let url = with_digest(&self.absolute(&location), &desc.digest);
        let body = bytes.to_vec();
        self.runtime.block_on(async {
            let build = |c: &reqwest::Client| {
                Ok(c.put(&url)
                    .header(CONTENT_TYPE, "application/octet-stream")
                    .body(body.clone()))
            };
            self.send(repo, &url, &build).await.map(|_| ())
        })
    }

    /// Upload the file at `path` as a blob of `repo` and return its
    /// descriptor (of `media_type`). Files up to the chunk size are hashed
    /// first, skipped when the registry has them, else sent in one PUT;
    /// bigger ones are sent in PATCH chunks while hashing, and the digest
    /// computed on the way closes the upload. A failed chunk resumes where the
    /// registry says the upload stands.
    pub fn push_blob_file(
        &self,
        repo: &str,
        path: &Path,
        media_type: &str,
        reporter: &dyn TransferReporter,
    ) -> Result<Descriptor, RegistryError> {
        let size = fs_err::metadata(path)?.len();
        let what = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        reporter.start(&what, Some(size));
        let digest = if size <= self.opts.chunk_size {
            let digest = file_digest(path)?;
            if self.blob_exists(repo, &digest)? {
                reporter.finish(&what, true);
                return Ok(descriptor(media_type, digest, size));
            }
            self.upload_monolithic(repo, path, &digest, size, &what, reporter)?;
            digest
        } else {
            self.upload_chunked(repo, path, size, &what, reporter)?
        };
        reporter.finish(&what, false);
        Ok(descriptor(media_type, digest, size))
    }

    /// POST an upload session; returns its `Location`.
    fn start_upload(&self, repo: &str) -> Result<String, RegistryError> {
        let (_, headers, _) = self.simple(
            Method::POST,
            repo,
            &format!("/v2/{repo}/blobs/uploads/"),
            &[(CONTENT_LENGTH.as_str(), "0")],
            (limits::ERROR_BODY, "answer"),
        )?;
        location(&headers, &self.url(&format!("/v2/{repo}/blobs/uploads/")))
    }

    fn upload_monolithic(
        &self,
        repo: &str,
        path: &Path,
        digest: &str,
        size: u64,
        what: &str,
        reporter: &dyn TransferReporter,
    ) -> Result<(), RegistryError> {
        self.retry()
            .run(
                |_| self.upload_once(repo, path, digest, size, what, reporter),
                RegistryError::is_transient,
                |attempt, e| reporter.retrying(what, attempt, e),
            )
            .map_err(|(e, attempts)| with_attempts(e, attempts))
    }

    /// One attempt of [`Registry::upload_monolithic`].
    fn upload_once(
        &self,
        repo: &str,
        path: &Path,
        digest: &str,
        size: u64,
        what: &str,
        reporter: &dyn TransferReporter,
    ) -> Result<(), RegistryError> {
        self.start_upload(repo).and_then(|loc| {
            let url = with_digest(&self.absolute(&loc), digest);
            let hasher = Arc::new(Mutex::new(Sha256::new()));
            let sent = Arc::new(AtomicU64::new(0));
            let file = std::fs::File::open(path)?;
            let body = file_body(file, size, hasher.clone(), sent.clone());
            let request = self
                .client
                .put(&url)
                .header(CONTENT_TYPE, "application/octet-stream")
                .header(CONTENT_LENGTH, size)
                .header_auth(self.auth_header(repo, &url))
                .body(body);
            self.send_streaming(request, &url, &sent, 0, what, reporter)?;
            check_streamed(what, digest, &hasher.lock().unwrap())
        })
    }

    /// Send a request whose body streams a file, reporting the bytes sent
    /// (counted by the body in `sent`, plus `base`) while it runs.
    fn send_streaming(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
        sent: &AtomicU64,
        base: u64,
        what: &str,
        reporter: &dyn TransferReporter,
    ) -> Result<reqwest::Response, RegistryError> {
        self.runtime.block_on(async {
            let send = request.send();
            tokio::pin!(send);
            let mut tick = tokio::time::interval(std::time::Duration::from_millis(100));
            let response = loop {
                tokio::select! {
                    r = &mut send => break r,
                    _ = tick.tick() => reporter.progress(what, base + sent.load(Ordering::Relaxed)),
                }
            };
            let response = response.map_err(|e| classify(url, &e))?;
            super::client::check_status(url, response).await
        })
    }

    fn upload_chunked(
        &self,
        repo: &str,
        path: &Path,
        size: u64,
        what: &str,
        reporter: &dyn TransferReporter,
    ) -> Result<String, RegistryError> {
        let mut loc = self.absolute(&self.start_upload(repo)?);
        let mut file = std::fs::File::open(path)?;
        // The hash of bytes [0, offset): what the registry has.
        let hasher = Arc::new(Mutex::new(Sha256::new()));
        let mut offset = 0u64;
        let mut failures = 0u32;
        while offset < size {
            let len = self.opts.chunk_size.min(size - offset);
            let before = hasher.lock().unwrap().clone();
            file.seek(SeekFrom::Start(offset))?;
            let sent = Arc::new(AtomicU64::new(0));
            let body = file_body(file.try_clone()?, len, hasher.clone(), sent.clone());
            let request = self
                .client
                .patch(&loc)
                .header(CONTENT_TYPE, "application/octet-stream")
                .header(CONTENT_LENGTH, len)
                .header(CONTENT_RANGE, format!("{}-{}", offset, offset + len - 1))
                .header_auth(self.auth_header(repo, &loc))
                .body(body);
            match self.send_streaming(request, &loc, &sent, offset, what, reporter) {
                Ok(response) => {
                    loc = self.absolute(&location(response.headers(), &loc)?);
                    offset += len;
                    failures = 0;
                }
                Err(e) if e.is_transient() && failures + 1 < self.opts.attempts.max(1) => {
                    failures += 1;
                    reporter.retrying(what, failures, &e);
                    std::thread::sleep(self.retry().delay(failures));
                    let mut h = before;
                    match self.upload_status(repo, &loc) {
                        Ok((l, at)) if at >= offset && at <= offset + len => {
                            // Keep what the registry took of the failed chunk.
                            file.seek(SeekFrom::Start(offset))?;
                            h = hash_reader(h, &mut (&mut file).take(at - offset))?;
                            loc = l;
                            offset = at;
                        }
                        _ => {
                            tracing::info!("{what}: upload session lost, starting over");
                            loc = self.absolute(&self.start_upload(repo)?);
                            offset = 0;
                            h = Sha256::new();
                        }
                    }
                    *hasher.lock().unwrap() = h;
                }
                Err(e) => return Err(with_attempts(e, failures + 1)),
            }
        }
        let h = std::mem::take(&mut *hasher.lock().unwrap());
        let digest = format!("sha256:{}", hex::encode(h.finalize()));
        let url = with_digest(&loc, &digest);
        self.runtime.block_on(async {
            let build = |c: &reqwest::Client| Ok(c.put(&url).header(CONTENT_LENGTH, 0));
            self.send(repo, &url, &build).await.map(|_| ())
        })?;
        Ok(digest)
    }

    /// Where an upload stands: (its location, the number of bytes the registry has).
    fn upload_status(&self, repo: &str, loc: &str) -> Result<(String, u64), RegistryError> {
        self.runtime.block_on(async {
            let build = |c: &reqwest::Client| Ok(c.get(loc));
            let response = self.send(repo, loc, &build).await?;
            let headers = response.headers();
            let next = location(headers, loc)?;
            let have = headers
                .get(RANGE)
                .and_then(|v| v.to_str().ok())
                .and_then(|r| r.split_once('-'))
                .and_then(|(_, end)| end.trim().parse::<u64>().ok())
                .map(|end| end + 1)
                .unwrap_or(0);
            Ok((self.absolute(&next), have))
        })
    }

    /// Download blob `desc` of `repo` to `dest`: streamed into a temporary
    /// file in the same directory while hashing, then renamed over `dest`
    /// only when digest and size match. Interrupted transfers resume with a
    /// range request.
    pub fn pull_blob(
        &self,
        repo: &str,
        desc: &Descriptor,
        dest: &Path,
        reporter: &dyn TransferReporter,
    ) -> Result<(), RegistryError> {
        let dir = dest.parent().unwrap_or(Path::new("."));
        fs_err::create_dir_all(dir)?;
        let mut tmp = tempfile::Builder::new()
            .prefix(".stack-pull-")
            .tempfile_in(dir)?;
        let what = desc.title().unwrap_or(&desc.digest).to_string();
        reporter.start(&what, Some(desc.size));
        let url = self.url(&format!("/v2/{repo}/blobs/{}", desc.digest));
        let mut hasher = Sha256::new();
        let mut have = 0u64;
        self.retry()
            .run(
                |_| {
                    self.runtime.block_on(self.download_into(
                        repo,
                        &url,
                        tmp.as_file_mut(),
                        &mut hasher,
                        &mut have,
                        desc.size,
                        &what,
                        reporter,
                    ))
                },
                RegistryError::is_transient,
                |attempt, e| reporter.retrying(&what, attempt, e),
            )
            .map_err(|(e, attempts)| with_attempts(e, attempts))?;
        let actual = format!("sha256:{}", hex::encode(hasher.finalize()));
        if have != desc.size {
            return Err(RegistryError::SizeMismatch {
                what: format!("{url} ({what})"),
                expected: desc.size,
                actual: have,
            });
        }
        if actual != desc.digest {
            return Err(RegistryError::DigestMismatch {
                what: format!("{url} ({what})"),
                expected: desc.digest.clone(),
                actual,
            });
        }
        tmp.as_file_mut().flush()?;
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
        tmp.persist(dest).map_err(|e| e.error)?;
        reporter.finish(&what, false);
        Ok(())
    }

    /// One GET of a blob from byte `have` on, appended to `file`; more
    /// than `size` bytes in all (announced or received) is an error at once.
    #[allow(clippy::too_many_arguments)]
    async fn download_into(
        &self,
        repo: &str,
        url: &str,
        file: &mut std::fs::File,
        hasher: &mut Sha256,
        have: &mut u64,
        size: u64,
        what: &str,
        reporter: &dyn TransferReporter,
    ) -> Result<(), RegistryError> {
        let too_much = |got: u64| RegistryError::SizeMismatch {
            what: format!("{url} ({what}): more than announced"),
            expected: size,
            actual: got,
        };
        let from = *have;
        let build = |c: &reqwest::Client| {
            let mut r = c.get(url);
            if from > 0 {
                r = r.header(RANGE, format!("bytes={from}-"));
            }
            Ok(r)
        };
        let response = self.send_with(repo, url, &build, 1).await?;
        if from > 0 && response.status() != StatusCode::PARTIAL_CONTENT {
            // No resume: start over.
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            *hasher = Sha256::new();
            *have = 0;
        }
        if let Some(n) = response.content_length()
            && *have + n > size
        {
            return Err(too_much(*have + n));
        }
        let mut body = response.bytes_stream();
        let mut reported = *have;
        let mut out = std::io::BufWriter::with_capacity(BUF, &mut *file);
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    out.flush()?;
                    return Err(classify(url, &e));
                }
            };
            if *have + chunk.len() as u64 > size {
                return Err(too_much(*have + chunk.len() as u64));
            }
            hasher.update(&chunk);
            out.write_all(&chunk)?;
            *have += chunk.len() as u64;
            if *have - reported >= 1 << 20 {
                reported = *have;
                reporter.progress(what, *have);
            }
        }
        out.flush()?;
        reporter.progress(what, *have);
        Ok(())
    }

    /// Download a small blob (at most [`limits::SMALL_BLOB`] bytes, and
    /// not more than its descriptor announces) into memory, verified
    /// against its digest.
    pub fn pull_blob_bytes(&self, repo: &str, desc: &Descriptor) -> Result<Vec<u8>, RegistryError> {
        let path = format!("/v2/{repo}/blobs/{}", desc.digest);
        if desc.size > limits::SMALL_BLOB {
            return Err(RegistryError::TooLarge {
                url: self.url(&path),
                what: "small blob",
                limit: limits::SMALL_BLOB,
            });
        }
        let (_, _, body) = self.simple(
            Method::GET,
            repo,
            &path,
            &[],
            (desc.size, "blob (its descriptor's size)"),
        )?;
        if body.len() as u64 != desc.size {
            return Err(RegistryError::SizeMismatch {
                what: self.url(&path),
                expected: desc.size,
                actual: body.len() as u64,
            });
        }
        let actual = super::manifest::sha256_digest(&body);
        if actual != desc.digest {
            return Err(RegistryError::DigestMismatch {
                what: self.url(&path),
                expected: desc.digest.clone(),
                actual,
            });
        }
        Ok(body)
    }

    /// A `Location` made absolute against this registry (a path that does
    /// not start with `/` is still a path of this registry, never a host).
    pub(super) fn absolute(&self, loc: &str) -> String {
        if loc.starts_with("http://") || loc.starts_with("https://") {
            loc.to_string()
        } else if loc.starts_with('/') && !loc.starts_with("//") {
            self.url(loc)
        } else {
            self.url(&format!("/{}", loc.trim_start_matches('/')))
        }
    }
}

/// Add `Authorization` when there is one.
trait HeaderAuth {
    fn header_auth(self, value: Option<String>) -> Self;
}

impl HeaderAuth for reqwest::RequestBuilder {
    fn header_auth(self, value: Option<String>) -> Self {
        match value {
            Some(v) => self.header(reqwest::header::AUTHORIZATION, v),
            None => self,
        }
    }
}

fn descriptor(media_type: &str, digest: String, size: u64) -> Descriptor {
    Descriptor {
        media_type: media_type.to_string(),
        digest,
        size,
        artifact_type: None,
        annotations: Default::default(),
    }
}

/// `url` with `digest=` added to its query.
fn with_digest(url: &str, digest: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}digest={}", digest.replace(':', "%3A"))
}

fn location(headers: &reqwest::header::HeaderMap, url: &str) -> Result<String, RegistryError> {
    headers
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or_else(|| RegistryError::BadResponse {
            url: url.to_string(),
            message: "no Location header in the upload answer".into(),
        })
}

/// `sha256:<hex>` of a file.
pub fn file_digest(path: &Path) -> Result<String, RegistryError> {
    let mut f = fs_err::File::open(path)?;
    let h = hash_reader(Sha256::new(), &mut f)?;
    Ok(format!("sha256:{}", hex::encode(h.finalize())))
}

fn hash_reader(mut h: Sha256, r: &mut dyn Read) -> std::io::Result<Sha256> {
    let mut buf = vec![0u8; BUF];
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            return Ok(h);
        }
        h.update(&buf[..n]);
    }
}

/// The digest the stream computed must be the one announced.
fn check_streamed(what: &str, digest: &str, hasher: &Sha256) -> Result<(), RegistryError> {
    let actual = format!("sha256:{}", hex::encode(hasher.clone().finalize()));
    if actual != digest {
        return Err(RegistryError::DigestMismatch {
            what: format!("{what} (changed while uploading)"),
            expected: digest.to_string(),
            actual,
        });
    }
    Ok(())
}

/// A request body streaming `len` bytes of `file` from its current position,
/// feeding `hasher` and counting the bytes in `sent`.
fn file_body(
    file: std::fs::File,
    len: u64,
    hasher: Arc<Mutex<Sha256>>,
    sent: Arc<AtomicU64>,
) -> reqwest::Body {
    let stream = futures_util::stream::unfold((file, len), move |(mut f, left)| {
        let hasher = hasher.clone();
        let sent = sent.clone();
        async move {
            if left == 0 {
                return None;
            }
            let mut buf = vec![0u8; BUF.min(left as usize)];
            let r = tokio::task::block_in_place(|| f.read(&mut buf));
            match r {
                Ok(0) => Some((
                    Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the file shrank while uploading",
                    )),
                    (f, 0),
                )),
                Ok(n) => {
                    buf.truncate(n);
                    hasher.lock().unwrap().update(&buf);
                    sent.fetch_add(n as u64, Ordering::Relaxed);
                    Some((Ok(bytes::Bytes::from(buf)), (f, left - n as u64)))
                }
                Err(e) => Some((Err(e), (f, 0))),
            }
        }
    });
    reqwest::Body::wrap_stream(stream)
}
