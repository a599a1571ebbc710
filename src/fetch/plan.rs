//! What a fetch would do, without doing it (for `stack fetch --dry-run`): per source, what it is
//! verified by, whether the cache has it, and the locations that would be tried in order.

use std::path::PathBuf;

use super::archive::extension_of;
use super::error::FetchError;
use super::mirror;
use super::options::FetchOptions;
use super::source::{self, Location, Source, SourceRequest, file_name_of};

/// The dry-run view of one source.
#[derive(Debug)]
pub struct PlannedSource {
    pub package: String,
    pub version: String,
    /// `sha256:<hex>`, `commit:<hex>`, or `unverified`.
    pub verified_by: String,
    /// The cache entry that would be used (re-verified) instead of any download.
    pub cached: Option<PathBuf>,
    /// Locations tried in order after a cache miss: mirrors first, upstream last.
    pub locations: Vec<String>,
    /// Why fetching this source would fail before any download (missing checksum, bad URL).
    pub problem: Option<FetchError>,
}

/// Describe what [`fetch_all`](super::fetch_all) would do for each request. Reads the cache,
/// never the network.
pub fn plan(requests: &[SourceRequest], options: &FetchOptions) -> Vec<PlannedSource> {
    requests.iter().map(|r| plan_one(r, options)).collect()
}

fn plan_one(req: &SourceRequest, options: &FetchOptions) -> PlannedSource {
    let mut out = PlannedSource {
        package: req.package.clone(),
        version: req.version.clone(),
        verified_by: "unverified".into(),
        cached: None,
        locations: Vec::new(),
        problem: None,
    };
    match &req.source {
        Source::Archive { url, .. } => {
            if let Err(e) = Location::parse(url) {
                out.problem = Some(e);
            }
            let sha = match source::expected_sha256(req) {
                Ok(s) => s,
                Err(e) => {
                    out.problem = Some(e);
                    None
                }
            };
            match &sha {
                Some(s) => {
                    out.verified_by = format!("sha256:{s}");
                    out.cached = options.cache.lookup(s);
                }
                None if out.problem.is_none() && !options.allow_unverified => {
                    out.problem = Some(FetchError::MissingChecksum {
                        package: req.label(),
                        url: url.clone(),
                    });
                }
                None => {}
            }
            let ext = extension_of(&file_name_of(url));
            out.locations =
                mirror::file_candidates(&options.mirrors, req, sha.as_ref(), ext.as_deref());
            out.locations.push(url.clone());
        }
        Source::Git { url, reference, .. } => {
            match req.source.pinned_commit() {
                Some(c) => {
                    out.verified_by = format!("commit:{c}");
                    let repo = options.cache.git_repo_path(url);
                    let has = git2::Repository::open_bare(&repo)
                        .ok()
                        .zip(git2::Oid::from_str(c).ok())
                        .is_some_and(|(r, oid)| r.find_commit(oid).is_ok());
                    if has {
                        out.cached = Some(repo);
                    }
                    out.locations = options
                        .mirrors
                        .iter()
                        .map(|m| mirror::join(m, &mirror::git_path(url, c)))
                        .collect();
                }
                None if !options.allow_unverified => {
                    out.problem = Some(FetchError::UnpinnedGit {
                        package: req.label(),
                        url: url.clone(),
                        reference: reference.to_string(),
                    });
                }
                None => {}
            }
            out.locations.push(format!("{url} ({reference})"));
        }
    }
    out
}
