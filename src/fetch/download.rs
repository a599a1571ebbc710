//! Getting one file source into the cache: cache hit (re-verified), else each mirror, else
//! upstream; verified against the expected sha256 before it is renamed into place.

use std::path::Path;

use super::archive::extension_of;
use super::cache::{remove_stale_temps, temp_sibling};
use super::digest::{Sha256Hex, copy_hashing, hash_reader};
use super::error::FetchError;
use super::fetched::{Fetched, FetchedContent, Origin, Verification};
use super::http::{Http, Observer};
use super::mirror;
use super::options::FetchOptions;
use super::reporter::FetchReporter;
use super::source::{Location, SourceRequest, file_name_of};
use crate::lock::{EntryLock, LockMode};

/// What a fetch worker needs.
pub(crate) struct Ctx<'a> {
    pub(crate) opts: &'a FetchOptions,
    pub(crate) http: Option<&'a Http>,
    pub(crate) reporter: &'a dyn FetchReporter,
}

impl Ctx<'_> {
    pub(crate) fn lock(
        &self,
        index: usize,
        path: &Path,
        mode: LockMode,
    ) -> Result<EntryLock, FetchError> {
        EntryLock::acquire(path, mode, self.opts.lock_timeout, || {
            self.reporter.waiting_for_lock(index, path)
        })
        .map_err(FetchError::from)
    }

    /// Copy one location (URL or path) into `file`, hashing on the way.
    pub(crate) fn transfer(
        &self,
        index: usize,
        location: &str,
        file: &mut std::fs::File,
    ) -> Result<(Sha256Hex, u64), FetchError> {
        match Location::parse(location)? {
            Location::Http(url) => {
                let http = self.http.ok_or_else(|| FetchError::InvalidUrl {
                    url: url.clone(),
                    reason: "no HTTP client in this run".into(),
                })?;
                self.reporter.transfer(index, &url, None);
                let progress = |n, total| self.reporter.progress(index, n, total);
                let retrying =
                    |attempt, e: &FetchError| self.reporter.retrying(index, &url, attempt, e);
                http.download(
                    &url,
                    file,
                    self.opts,
                    &Observer {
                        progress: &progress,
                        retrying: &retrying,
                    },
                )
            }
            Location::File(path) => {
                let src = std::fs::File::open(&path).map_err(|source| FetchError::LocalFile {
                    path: path.clone(),
                    source,
                })?;
                let total = src.metadata().ok().map(|m| m.len());
                if let Some(n) = total.filter(|n| *n > self.opts.max_download) {
                    return Err(FetchError::TooLarge {
                        url: location.to_string(),
                        limit: self.opts.max_download,
                        announced: Some(n),
                        of: None,
                        from_recipe: false,
                    });
                }
                self.reporter.transfer(index, location, total);
                let mut last = 0;
                copy_hashing(src, &mut *file, |n| {
                    if n - last >= 1 << 20 || Some(n) == total {
                        last = n;
                        self.reporter.progress(index, n, total);
                    }
                })
                .map_err(|source| FetchError::LocalFile { path, source })
            }
        }
    }
}

/// Fetch an archive (or payload) source.
pub(crate) fn fetch_file(
    ctx: &Ctx<'_>,
    index: usize,
    req: &SourceRequest,
    url: &str,
    expected: Option<Sha256Hex>,
    expand: bool,
) -> Result<Fetched, FetchError> {
    let file_name = file_name_of(url);
    let ext = extension_of(&file_name);
    let locations = locations(ctx, req, url, expected.as_ref(), ext.as_deref());
    let mirror_of = |loc: &str| {
        ctx.opts
            .mirrors
            .iter()
            .find(|m| loc.starts_with(m.trim_end_matches('/')))
            .cloned()
            .unwrap_or_default()
    };
    let origin_of = |loc: &str, from_mirror: bool| {
        if from_mirror {
            Origin::Mirror(loc.to_string())
        } else {
            Origin::Upstream(loc.to_string())
        }
    };
    let fetched = |path, sha256, size, origin, verification| Fetched {
        package: req.package.clone(),
        version: req.version.clone(),
        content: FetchedContent::File {
            path,
            sha256,
            file_name: file_name.clone(),
            expand,
            size,
        },
        origin,
        verification,
        max_size: match &req.source {
            super::Source::Archive { max_size, .. } => *max_size,
            super::Source::Git { .. } => None,
        },
    };

    let Some(sha) = expected else {
        let (path, sha, size, i) = first_unverified(ctx, index, req, &locations)?;
        let (loc, from_mirror) = &locations[i];
        return Ok(fetched(
            path,
            sha,
            size,
            origin_of(loc, *from_mirror),
            Verification::Unverified,
        ));
    };

    let final_path = ctx.opts.cache.archive_path(&sha);
    let _lock = ctx.lock(
        index,
        &ctx.opts.cache.archive_lock(&sha),
        LockMode::Exclusive,
    )?;
    remove_stale_temps(&final_path);
    if let Some(size) = cache_hit(req, &final_path, &sha)? {
        return Ok(fetched(
            final_path,
            sha,
            size,
            Origin::Cache,
            Verification::Sha256,
        ));
    }

    let mut attempts = Vec::new();
    for (loc, from_mirror) in &locations {
        let mut tmp = temp_sibling(&final_path)?;
        match ctx.transfer(index, loc, tmp.as_file_mut()) {
            Ok((actual, size)) if actual == sha => {
                make_readable(tmp.as_file())?;
                tmp.persist(&final_path).map_err(|e| e.error)?;
                return Ok(fetched(
                    final_path,
                    sha,
                    size,
                    origin_of(loc, *from_mirror),
                    Verification::Sha256,
                ));
            }
            Ok((actual, size)) => {
                let mirror = from_mirror.then(|| mirror_of(loc));
                let e = mismatch(ctx, index, req, loc, mirror.as_deref(), &sha, &actual, size);
                attempts.push((loc.clone(), e));
            }
            Err(e) => {
                tracing::debug!("{loc}: {e}");
                attempts.push((loc.clone(), e));
            }
        }
        // `tmp` is dropped here: nothing of a failed attempt stays in the cache.
    }
    Err(exhausted(req, attempts))
}

/// Where to download from, in order: each mirror's candidates, then `url`
/// (`true` for a mirror's).
fn locations(
    ctx: &Ctx<'_>,
    req: &SourceRequest,
    url: &str,
    expected: Option<&Sha256Hex>,
    ext: Option<&str>,
) -> Vec<(String, bool)> {
    let mut locations: Vec<(String, bool)> =
        mirror::file_candidates(&ctx.opts.mirrors, req, expected, ext)
            .into_iter()
            .map(|m| (m, true))
            .collect();
    locations.push((url.to_string(), false));
    locations
}

/// The size of the cache entry at `path` when it has the digest `sha`; a
/// corrupt entry is removed (and fetched again).
fn cache_hit(req: &SourceRequest, path: &Path, sha: &Sha256Hex) -> Result<Option<u64>, FetchError> {
    if !path.is_file() {
        return Ok(None);
    }
    let (actual, size) = hash_reader(fs_err::File::open(path)?)?;
    if actual == *sha {
        tracing::debug!("{}: cache hit {}", req.label(), path.display());
        return Ok(Some(size));
    }
    tracing::warn!(
        "cache entry {} is corrupt (sha256 {actual}); fetching it again",
        path.display()
    );
    fs_err::remove_file(path)?;
    Ok(None)
}

/// Unverified: download from the first location that answers, filed
/// under the digest it turned out to have; the index of that location.
fn first_unverified(
    ctx: &Ctx<'_>,
    index: usize,
    req: &SourceRequest,
    locations: &[(String, bool)],
) -> Result<(std::path::PathBuf, Sha256Hex, u64, usize), FetchError> {
    let mut attempts = Vec::new();
    for (i, (loc, _)) in locations.iter().enumerate() {
        match download_unverified(ctx, index, loc) {
            Ok((path, sha, size)) => {
                if ctx.opts.computing_digests {
                    tracing::debug!("{}: {loc} has sha256 {sha}", req.label());
                } else {
                    tracing::warn!(
                        "{}: {loc} is unverified (no sha256 in the recipe); its sha256 is {sha}",
                        req.label()
                    );
                }
                return Ok((path, sha, size, i));
            }
            Err(e) => attempts.push((loc.clone(), e)),
        }
    }
    Err(exhausted(req, attempts))
}

/// The error of a location whose bytes are not the expected ones. A
/// `mirror` serving other bytes is corrupt or hostile: it is warned about
/// (entry and mirror named) and reported, even when a later location has
/// the right bytes; upstream's mismatch is reported once, by the error.
#[allow(clippy::too_many_arguments)]
fn mismatch(
    ctx: &Ctx<'_>,
    index: usize,
    req: &SourceRequest,
    loc: &str,
    mirror: Option<&str>,
    sha: &Sha256Hex,
    actual: &Sha256Hex,
    size: u64,
) -> FetchError {
    match mirror {
        Some(mirror) => {
            tracing::warn!(
                "{}: mirror {mirror}: {loc} fails its checksum (sha256 {actual}, expected {sha}); not used",
                req.label()
            );
            ctx.reporter.mirror_rejected(index, mirror, loc);
        }
        None => tracing::debug!("{loc}: sha256 mismatch (got {actual}, expected {sha})"),
    }
    FetchError::ChecksumMismatch {
        package: req.label().into(),
        recipe: None,
        url: loc.to_string(),
        expected: sha.to_string(),
        actual: actual.to_string(),
        bytes: size,
    }
}

/// Download without a known digest into the incoming area, then move it to its content address.
pub(crate) fn download_unverified(
    ctx: &Ctx<'_>,
    index: usize,
    location: &str,
) -> Result<(std::path::PathBuf, Sha256Hex, u64), FetchError> {
    let incoming = ctx.opts.cache.incoming_dir();
    fs_err::create_dir_all(&incoming)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".download.")
        .suffix(".tmp")
        .tempfile_in(&incoming)?;
    let (sha, size) = ctx.transfer(index, location, tmp.as_file_mut())?;
    let final_path = ctx.opts.cache.archive_path(&sha);
    let _lock = ctx.lock(
        index,
        &ctx.opts.cache.archive_lock(&sha),
        LockMode::Exclusive,
    )?;
    if !final_path.is_file() {
        fs_err::create_dir_all(final_path.parent().expect("cache path has a parent"))?;
        make_readable(tmp.as_file())?;
        tmp.persist(&final_path).map_err(|e| e.error)?;
    }
    Ok((final_path, sha, size))
}

/// One failure stays as it is; several become a list naming each location.
pub(crate) fn exhausted(
    req: &SourceRequest,
    mut attempts: Vec<(String, FetchError)>,
) -> FetchError {
    if attempts.len() == 1 {
        return attempts.pop().expect("one attempt").1;
    }
    FetchError::AllLocationsFailed {
        package: req.label(),
        attempts,
    }
}

/// Cache entries are readable by everyone who can reach the cache (temp files start as 0600).
fn make_readable(f: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    f.set_permissions(std::fs::Permissions::from_mode(0o644))
}
