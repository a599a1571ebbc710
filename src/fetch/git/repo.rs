//! The cache of bare git repositories: create, fetch into, look up commits.

use std::path::Path;

use git2::{Oid, Repository};

use crate::fetch::cache::temp_sibling;
use crate::fetch::error::FetchError;
use crate::fetch::http::Http;
use crate::fetch::source::{GitRef, is_full_commit};

/// Refspecs that mirror every branch and tag of the remote into the bare repository.
pub(crate) const ALL_REFS: &[&str] = &["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"];

pub(crate) fn git_err(url: &str, action: &'static str) -> impl FnOnce(git2::Error) -> FetchError {
    move |source| FetchError::Git {
        url: url.to_string(),
        action,
        source,
    }
}

/// Accept URLs git2 can fetch: `http(s)://`, `ssh://`, `git://`, `file://`, `user@host:path`, or an
/// absolute path.
pub(crate) fn check_url(url: &str) -> Result<(), FetchError> {
    let ok = ["https://", "http://", "ssh://", "git://", "file://"]
        .iter()
        .any(|p| url.starts_with(p))
        || url.starts_with('/')
        || (url.contains('@') && url.contains(':'));
    if ok {
        Ok(())
    } else {
        Err(FetchError::InvalidUrl {
            url: url.to_string(),
            reason: "expected an https://, ssh://, file:// URL or an absolute path to a git \
                     repository (relative paths are resolved by the recipe loader)"
                .into(),
        })
    }
}

/// Open the bare repository at `path` if it exists (`None` otherwise; nothing is created).
pub(crate) fn open_existing(path: &Path, url: &str) -> Result<Option<Repository>, FetchError> {
    if !path.join("HEAD").is_file() {
        return Ok(None);
    }
    clear_stale_locks(path);
    Repository::open_bare(path)
        .map(Some)
        .map_err(git_err(url, "open cache of"))
}

/// Open the bare repository at `path`, creating it (atomically) if missing. Call with the
/// entry's exclusive lock held.
pub(crate) fn open_or_init(path: &Path, url: &str) -> Result<Repository, FetchError> {
    if path.join("HEAD").is_file() {
        clear_stale_locks(path);
        return Repository::open_bare(path).map_err(git_err(url, "open cache of"));
    }
    if path.exists() {
        // A directory without HEAD is debris from an interrupted creation.
        fs_err::remove_dir_all(path)?;
    }
    let tmp = temp_sibling(path)?;
    let tmp_path = tmp.path().to_path_buf();
    drop(tmp);
    Repository::init_bare(&tmp_path).map_err(git_err(url, "create cache for"))?;
    fs_err::rename(&tmp_path, path)?;
    Repository::open_bare(path).map_err(git_err(url, "open cache of"))
}

/// Remove lock files a killed git operation left behind (we hold the entry's exclusive lock, so
/// nobody else is writing).
fn clear_stale_locks(path: &Path) {
    for entry in walkdir::WalkDir::new(path)
        .max_depth(6)
        .into_iter()
        .filter_entry(|e| e.file_name() != "objects")
        .flatten()
    {
        if entry.file_type().is_file() && entry.file_name().to_string_lossy().ends_with(".lock") {
            tracing::debug!("removing stale git lock {}", entry.path().display());
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `url` is fetched over HTTP (stack's transport, [`super::transport`]).
pub(crate) fn is_http(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://")
}

/// Where a fetch goes: the URL, and the HTTP client of the run for `http(s)://` URLs.
#[derive(Clone, Copy)]
pub(crate) struct Upstream<'a> {
    pub(crate) url: &'a str,
    pub(crate) http: Option<&'a Http>,
}

/// Fetch `refspecs` from `from`; `progress` sees the bytes received.
pub(crate) fn fetch(
    repo: &Repository,
    from: Upstream<'_>,
    refspecs: &[&str],
    progress: &dyn Fn(u64),
) -> Result<(), FetchError> {
    let url = from.url;
    if super::cli::is_local(url)
        && let Some(git) = super::cli::git()
    {
        return super::cli::fetch(git, repo.path(), url, refspecs);
    }
    super::transport::register().map_err(git_err(url, "fetch"))?;
    let mut remote = repo
        .remote_anonymous(url)
        .map_err(git_err(url, "set up remote"))?;
    let mut callbacks = git2::RemoteCallbacks::new();
    callbacks.transfer_progress(|p| {
        progress(p.received_bytes() as u64);
        true
    });
    // http(s) goes through the run's client, which honours the proxy environment
    // (http_proxy, https_proxy, all_proxy, no_proxy) as stack's other requests do.
    let mut options = git2::FetchOptions::new();
    options.remote_callbacks(callbacks);
    options.download_tags(git2::AutotagOption::None);
    tracing::info!("git fetch {url}");
    let session = super::transport::enter(from.http);
    remote
        .fetch(refspecs, Some(&mut options), None)
        .map_err(|e| {
            session
                .take_error()
                .unwrap_or_else(|| git_err(url, "fetch")(e))
        })
}

/// Whether the repository has `commit` as a commit object.
pub(crate) fn has_commit(repo: &Repository, commit: &str) -> bool {
    Oid::from_str(commit)
        .ok()
        .is_some_and(|oid| repo.find_commit(oid).is_ok())
}

/// Resolve a reference to a commit in the local repository (`None` if it is not there).
pub(crate) fn resolve_local(
    repo: &Repository,
    url: &str,
    reference: &GitRef,
) -> Result<Option<Oid>, FetchError> {
    let peel = |name: String| -> Result<Option<Oid>, FetchError> {
        match repo.find_reference(&name) {
            Ok(r) => r
                .peel_to_commit()
                .map(|c| Some(c.id()))
                .map_err(git_err(url, "resolve")),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(git_err(url, "resolve")(e)),
        }
    };
    match reference {
        GitRef::Tag(t) => peel(format!("refs/tags/{t}")),
        GitRef::Branch(b) => peel(format!("refs/heads/{b}")),
        GitRef::Commit(c) if is_full_commit(c) => {
            Ok(has_commit(repo, c).then(|| Oid::from_str(c).ok()).flatten())
        }
        GitRef::Commit(c) => match repo.revparse_single(c) {
            Ok(obj) => obj
                .peel_to_commit()
                .map(|c| Some(c.id()))
                .map_err(git_err(url, "resolve")),
            Err(e)
                if matches!(
                    e.code(),
                    git2::ErrorCode::NotFound | git2::ErrorCode::Ambiguous
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(git_err(url, "resolve")(e)),
        },
    }
}

/// Fetch what is needed for the pinned `commit`, narrowest first: the ref
/// it is pinned from (`reference`; a tag or branch), then the commit by id
/// (servers that allow fetching reachable commits by id send it), and only
/// then every branch and tag. A broken, unrelated branch upstream (missing
/// objects) therefore does not block a pin whose own history is intact.
/// Errors of the narrow fetches are logged; the last one's is returned.
pub(crate) fn fetch_commit(
    repo: &Repository,
    from: Upstream<'_>,
    reference: Option<&GitRef>,
    commit: &str,
    progress: &dyn Fn(u64),
) -> Result<bool, FetchError> {
    let url = from.url;
    let targeted = match reference {
        Some(GitRef::Tag(t)) => Some(format!("+refs/tags/{t}:refs/tags/{t}")),
        Some(GitRef::Branch(b)) => Some(format!("+refs/heads/{b}:refs/heads/{b}")),
        _ => None,
    };
    if let Some(spec) = targeted {
        match fetch(repo, from, &[spec.as_str()], progress) {
            Ok(()) if has_commit(repo, commit) => return Ok(true),
            Ok(()) => {}
            Err(e) => tracing::debug!("fetching {spec} from {url} failed: {e}"),
        }
    }
    let spec = format!("+{commit}:refs/stack/pinned/{commit}");
    match fetch(repo, from, &[spec.as_str()], progress) {
        Ok(()) if has_commit(repo, commit) => return Ok(true),
        Ok(()) => {}
        Err(e) => tracing::debug!("fetching {commit} by id from {url} failed: {e}"),
    }
    fetch(repo, from, ALL_REFS, progress)?;
    Ok(has_commit(repo, commit))
}

/// When `id` names an annotated tag object (what `git rev-parse v1.0`
/// prints) rather than a commit: the tag's name and the commit it points to.
pub(crate) fn tag_object(repo: &Repository, id: &str) -> Option<(String, String)> {
    let tag = repo.find_tag(Oid::from_str(id).ok()?).ok()?;
    let commit = tag.target().ok()?.peel_to_commit().ok()?.id().to_string();
    Some((tag.name().unwrap_or("?").to_string(), commit))
}
