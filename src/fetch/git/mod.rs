//! git sources: a cache of bare repositories (one per URL), fetched with git2 (over http(s)
//! through stack's own HTTP client, `transport.rs` and `smart_http.rs`); references resolved to
//! commits; submodules fetched when asked; pinned commits also found in mirrors as tarballs.

mod cli;
mod export;
mod repo;
mod smart_http;
mod submodule;
mod transport;

pub(crate) use export::{Item, commit_time, walk};
pub(crate) use repo::{check_url, is_http};

use std::io::Write;
use std::path::{Path, PathBuf};

use git2::Repository;

use self::repo::{
    ALL_REFS, Upstream, fetch, fetch_commit, has_commit, open_existing, open_or_init,
    resolve_local, tag_object,
};
use super::cache::temp_sibling;
use super::digest::{Sha256Hex, hash_reader};
use super::download::{Ctx, download_unverified, exhausted};
use super::error::FetchError;
use super::fetched::{Fetched, FetchedContent, Origin, Verification};
use super::mirror;
use super::options::FetchOptions;
use super::source::{GitRef, Source, SourceRequest, is_full_commit};
use crate::lock::{EntryLock, LockMode};

/// Resolve a branch, tag or (short) commit of `url` to a full commit id, fetching the
/// repository into the cache. This is what `stack.lock` records for branches and tags.
pub fn resolve_git_ref(
    url: &str,
    reference: &GitRef,
    options: &FetchOptions,
) -> Result<String, FetchError> {
    check_url(url)?;
    let http = if is_http(url) {
        Some(super::http::Http::new(options)?)
    } else {
        None
    };
    let from = Upstream {
        url,
        http: http.as_ref(),
    };
    let cache = &options.cache;
    let _lock = EntryLock::acquire(
        &cache.git_lock(url),
        LockMode::Exclusive,
        options.lock_timeout,
        || {},
    )?;
    let path = cache.git_repo_path(url);
    let fresh = open_existing(&path, url)?.is_none();
    let repo = open_or_init(&path, url)?;
    if let GitRef::Commit(c) = reference
        && is_full_commit(c)
        && has_commit(&repo, c)
    {
        return Ok(c.to_ascii_lowercase());
    }
    let got = fetch(&repo, from, ALL_REFS, &|_| {}).and_then(|()| {
        match resolve_local(&repo, url, reference)? {
            Some(oid) => Ok(oid.to_string()),
            None => Err(not_found(url, reference)),
        }
    });
    if got.is_err() && fresh {
        // Nothing came: leave no empty repository behind for this URL.
        drop(repo);
        let _ = fs_err::remove_dir_all(&path);
    }
    got
}

/// Fetch the pinned commit of `reference` from upstream and check that the
/// reference still agrees with it.
fn fetch_pinned(
    repo: &Repository,
    from: Upstream<'_>,
    reference: &GitRef,
    pin: &str,
    progress: &dyn Fn(u64),
) -> Result<String, FetchError> {
    let url = from.url;
    if !fetch_commit(repo, from, Some(reference), pin, progress)? {
        if let Some((tag, commit)) = tag_object(repo, pin) {
            return Err(FetchError::GitPinIsTagObject {
                url: url.to_string(),
                reference: reference.to_string(),
                pin: pin.to_string(),
                tag,
                commit,
            });
        }
        return Err(FetchError::GitRefNotFound {
            url: url.to_string(),
            reference: format!("commit {pin} (the pin of {reference})"),
            hint: Some(
                "the pinned commit is on no branch or tag upstream (history \
                 rewritten?); re-resolve the reference and update the pin"
                    .into(),
            ),
        });
    }
    check_pin(repo, url, reference, pin)?;
    Ok(pin.to_string())
}

fn not_found(url: &str, reference: &GitRef) -> FetchError {
    let what = match reference {
        GitRef::Tag(_) => "tags",
        GitRef::Branch(_) => "heads",
        GitRef::Commit(_) => "heads --tags",
    };
    FetchError::GitRefNotFound {
        url: url.to_string(),
        reference: reference.to_string(),
        hint: Some(format!(
            "list what exists with `git ls-remote --{what} {url}`"
        )),
    }
}

/// Fetch a git source (worker side of `fetch_all`).
/// The commit a git source is pinned to (lower case), after checking the
/// URL, the trust roots, a `commit:` field and that an unpinned source is
/// allowed.
fn checked_pin(ctx: &Ctx<'_>, req: &SourceRequest) -> Result<Option<String>, FetchError> {
    let Source::Git {
        url,
        reference,
        commit: pin_field,
        ..
    } = &req.source
    else {
        unreachable!("fetch_git is called for git sources");
    };
    check_url(url)?;
    if let Some(p) = pin_field
        && !is_full_commit(p)
    {
        return Err(FetchError::InvalidCommit {
            package: req.label(),
            value: p.clone(),
        });
    }
    let pinned = req.source.pinned_commit().map(str::to_ascii_lowercase);
    if pinned.is_none() && !ctx.opts.allow_unverified {
        return Err(FetchError::UnpinnedGit {
            package: req.label(),
            url: url.clone(),
            reference: reference.to_string(),
        });
    }
    Ok(pinned)
}

pub(crate) fn fetch_git(
    ctx: &Ctx<'_>,
    index: usize,
    req: &SourceRequest,
) -> Result<Fetched, FetchError> {
    let Source::Git { url, reference, .. } = &req.source else {
        unreachable!("fetch_git is called for git sources");
    };
    let pinned = checked_pin(ctx, req)?;
    let cache = &ctx.opts.cache;
    let repo_path = cache.git_repo_path(url);
    let lock_path = cache.git_lock(url);
    let progress = |n| ctx.reporter.progress(index, n, None);

    // 1. The cache already has the pinned commit (and, for a tag, the tag agrees).
    if let Some(pin) = &pinned {
        let _lock = ctx.lock(index, &lock_path, LockMode::Exclusive)?;
        // Only look: a repository created here would stay empty when a mirror serves the commit.
        if let Some(repo) = open_existing(&repo_path, url)?
            && has_commit(&repo, pin)
            && agrees_locally(&repo, url, reference, pin)?
        {
            drop(_lock);
            return finish(ctx, index, req, pin, Origin::Cache);
        }
    }

    // 2. Mirrors: a tarball of the pinned commit (perhaps fetched from a mirror before).
    let mut attempts = Vec::new();
    if let Some(pin) = &pinned {
        let tarball = |path, sha256, size, origin| Fetched {
            package: req.package.clone(),
            version: req.version.clone(),
            content: FetchedContent::File {
                path,
                sha256,
                file_name: format!("{pin}.tar.gz"),
                expand: true,
                size,
            },
            origin,
            max_size: None,
            verification: Verification::MirrorTarball {
                commit: pin.clone(),
            },
        };
        let known = cache.git_tarball_index(pin);
        if let Some((path, sha, size)) = cached_tarball(&known) {
            return Ok(tarball(path, sha, size, Origin::Cache));
        }
        for m in &ctx.opts.mirrors {
            let loc = mirror::join(m, &mirror::git_path(url, pin));
            match download_unverified(ctx, index, &loc) {
                Ok((path, sha256, size)) => {
                    remember_tarball(&known, &sha256);
                    return Ok(tarball(path, sha256, size, Origin::Mirror(loc)));
                }
                Err(e) => {
                    tracing::debug!("mirror miss {loc}: {e}");
                    attempts.push((loc, e));
                }
            }
        }
    }

    // 3. Upstream.
    ctx.reporter.transfer(index, url, None);
    let from = Upstream {
        url,
        http: ctx.http,
    };
    let from_upstream = |repo: &Repository| -> Result<String, FetchError> {
        match &pinned {
            Some(pin) => fetch_pinned(repo, from, reference, pin, &progress),
            None => {
                fetch(repo, from, ALL_REFS, &progress)?;
                Ok(resolve_local(repo, url, reference)?
                    .ok_or_else(|| not_found(url, reference))?
                    .to_string())
            }
        }
    };
    let upstream = || -> Result<String, FetchError> {
        let _lock = ctx.lock(index, &lock_path, LockMode::Exclusive)?;
        let fresh = open_existing(&repo_path, url)?.is_none();
        let repo = open_or_init(&repo_path, url)?;
        let got = from_upstream(&repo);
        if got.is_err() && fresh {
            // Nothing came: leave no empty repository behind for this URL.
            drop(repo);
            let _ = fs_err::remove_dir_all(&repo_path);
        }
        got
    };
    match upstream() {
        Ok(commit) => finish(ctx, index, req, &commit, Origin::Upstream(url.clone())),
        Err(e) => {
            attempts.push((url.clone(), e));
            Err(exhausted(req, attempts))
        }
    }
}

/// A mirror tarball of a commit fetched earlier: its cache entry, if it is still there and
/// still has the digest the index recorded.
fn cached_tarball(known: &Path) -> Option<(PathBuf, Sha256Hex, u64)> {
    let sha = Sha256Hex::parse(&fs_err::read_to_string(known).ok()?)?;
    let bucket = known.parent()?.parent()?;
    let path = bucket.join("archive").join(sha.prefix()).join(sha.as_str());
    let (actual, size) = hash_reader(std::fs::File::open(&path).ok()?).ok()?;
    (actual == sha).then_some((path, sha, size))
}

/// Record which archive holds the tarball of a commit (best effort: it only saves a copy).
fn remember_tarball(known: &Path, sha: &Sha256Hex) {
    let write = || -> std::io::Result<()> {
        let mut tmp = temp_sibling(known)?;
        tmp.write_all(sha.as_str().as_bytes())?;
        tmp.persist(known).map_err(|e| e.error)?;
        Ok(())
    };
    if let Err(e) = write() {
        tracing::debug!("could not record {}: {e}", known.display());
    }
}

/// Fetch submodules (if asked) and build the result.
fn finish(
    ctx: &Ctx<'_>,
    index: usize,
    req: &SourceRequest,
    commit: &str,
    origin: Origin,
) -> Result<Fetched, FetchError> {
    let Source::Git {
        url, submodules, ..
    } = &req.source
    else {
        unreachable!("git source");
    };
    let repo_path = ctx.opts.cache.git_repo_path(url);
    let subs = if *submodules {
        submodule::fetch_submodules(ctx, index, &repo_path, url, commit, 0)?
    } else {
        Vec::new()
    };
    let verification = if req.source.pinned_commit().is_some() {
        Verification::PinnedCommit
    } else {
        tracing::warn!(
            "{}: git source {url} is not pinned; using commit {commit} (unverified)",
            req.label()
        );
        Verification::Unverified
    };
    Ok(Fetched {
        package: req.package.clone(),
        version: req.version.clone(),
        content: FetchedContent::Git {
            repo: repo_path,
            url: url.clone(),
            commit: commit.to_string(),
            submodules: subs,
        },
        origin,
        max_size: None,
        verification,
    })
}

/// With only local data: does the reference agree with the pin? (A tag must point at it; a
/// branch or commit reference is satisfied by having the commit.)
fn agrees_locally(
    repo: &Repository,
    url: &str,
    reference: &GitRef,
    pin: &str,
) -> Result<bool, FetchError> {
    Ok(match reference {
        GitRef::Tag(_) => {
            resolve_local(repo, url, reference)?.is_some_and(|o| o.to_string() == pin)
        }
        GitRef::Branch(_) => true,
        GitRef::Commit(c) => pin.starts_with(&c.to_ascii_lowercase()),
    })
}

/// After fetching: a tag must resolve to the pin; a branch should contain it (warning only: a
/// lock may pin an older commit of a moving branch); a commit reference must match it.
fn check_pin(
    repo: &Repository,
    url: &str,
    reference: &GitRef,
    pin: &str,
) -> Result<(), FetchError> {
    let mismatch = |actual: String| FetchError::GitCommitMismatch {
        url: url.to_string(),
        reference: reference.to_string(),
        expected: pin.to_string(),
        actual,
    };
    match reference {
        GitRef::Tag(_) => match resolve_local(repo, url, reference)? {
            Some(oid) if oid.to_string() == pin => Ok(()),
            Some(oid) => Err(mismatch(oid.to_string())),
            None => Err(not_found(url, reference)),
        },
        GitRef::Branch(b) => {
            match resolve_local(repo, url, reference)? {
                Some(tip) => {
                    let pin_oid = git2::Oid::from_str(pin).map_err(repo::git_err(url, "parse"))?;
                    let contained =
                        tip == pin_oid || repo.graph_descendant_of(tip, pin_oid).unwrap_or(false);
                    if !contained {
                        tracing::warn!(
                            "{url}: pinned commit {pin} is not on branch {b} (tip {tip}); \
                             using the pin"
                        );
                    }
                }
                None => tracing::warn!("{url}: branch {b} no longer exists; using the pin {pin}"),
            }
            Ok(())
        }
        GitRef::Commit(c) => {
            if pin.starts_with(&c.to_ascii_lowercase()) {
                Ok(())
            } else {
                Err(mismatch(c.clone()))
            }
        }
    }
}
