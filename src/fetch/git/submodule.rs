//! Submodules: read `.gitmodules` of a commit, resolve relative URLs, fetch each submodule
//! into its own cached bare repository at the commit the parent's tree records.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use git2::Repository;

use super::export::{gitlinks, gitmodules};
use super::repo::{Upstream, fetch_commit, git_err, has_commit, open_or_init};
use crate::fetch::download::Ctx;
use crate::fetch::error::FetchError;
use crate::fetch::fetched::FetchedSubmodule;
use crate::lock::LockMode;

/// Deepest nesting of submodules followed (guards against cycles).
const MAX_DEPTH: usize = 8;

/// Fetch the submodules of `commit` in the cached repository `repo_path` (recursively).
pub(crate) fn fetch_submodules(
    ctx: &Ctx<'_>,
    index: usize,
    repo_path: &Path,
    url: &str,
    commit: &str,
    depth: usize,
) -> Result<Vec<FetchedSubmodule>, FetchError> {
    if depth > MAX_DEPTH {
        return Err(FetchError::GitRefNotFound {
            url: url.to_string(),
            reference: format!("submodules of {commit}"),
            hint: Some(format!("submodules nest deeper than {MAX_DEPTH} levels")),
        });
    }
    let (links, urls) = {
        let _shared = ctx.lock(index, &ctx.opts.cache.git_lock(url), LockMode::Shared)?;
        let repo = Repository::open_bare(repo_path).map_err(git_err(url, "open cache of"))?;
        let links = gitlinks(&repo, url, commit)?;
        if links.is_empty() {
            return Ok(Vec::new());
        }
        let urls = match gitmodules(&repo, url, commit)? {
            Some(text) => parse_gitmodules(&text).map_err(git_err(url, "parse .gitmodules of"))?,
            None => HashMap::new(),
        };
        (links, urls)
    };
    let mut out = Vec::new();
    for (path, sub_commit) in links {
        let Some(sub_url) = urls.get(&path) else {
            return Err(FetchError::GitRefNotFound {
                url: url.to_string(),
                reference: format!("submodule `{path}`"),
                hint: Some("the tree has a submodule that .gitmodules does not list".into()),
            });
        };
        let sub_url = resolve_url(url, sub_url);
        let sub_repo = ctx.opts.cache.git_repo_path(&sub_url);
        {
            let _lock = ctx.lock(
                index,
                &ctx.opts.cache.git_lock(&sub_url),
                LockMode::Exclusive,
            )?;
            let repo = open_or_init(&sub_repo, &sub_url)?;
            if !has_commit(&repo, &sub_commit) {
                let progress = |n| ctx.reporter.progress(index, n, None);
                let from = Upstream {
                    url: &sub_url,
                    http: ctx.http,
                };
                if !fetch_commit(&repo, from, None, &sub_commit, &progress)? {
                    return Err(FetchError::GitRefNotFound {
                        url: sub_url,
                        reference: format!("commit {sub_commit} (submodule `{path}`)"),
                        hint: Some("the submodule's commit is not on any branch or tag".into()),
                    });
                }
            }
        }
        let nested = fetch_submodules(ctx, index, &sub_repo, &sub_url, &sub_commit, depth + 1)?;
        out.push(FetchedSubmodule {
            path,
            url: sub_url,
            commit: sub_commit,
            repo: sub_repo,
            submodules: nested,
        });
    }
    Ok(out)
}

/// `path → url` from the text of a `.gitmodules` file (parsed by libgit2's config parser).
fn parse_gitmodules(text: &[u8]) -> Result<HashMap<String, String>, git2::Error> {
    let mut tmp =
        tempfile::NamedTempFile::new().map_err(|e| git2::Error::from_str(&e.to_string()))?;
    tmp.write_all(text)
        .map_err(|e| git2::Error::from_str(&e.to_string()))?;
    let config = git2::Config::open(tmp.path())?;
    let mut paths: HashMap<String, String> = HashMap::new();
    let mut urls: HashMap<String, String> = HashMap::new();
    let mut entries = config.entries(Some(r"submodule\..*"))?;
    while let Some(entry) = entries.next() {
        let entry = entry?;
        let (Some(name), Some(value)) = (entry.name(), entry.value()) else {
            continue;
        };
        let Some(rest) = name.strip_prefix("submodule.") else {
            continue;
        };
        if let Some(sub) = rest.strip_suffix(".path") {
            paths.insert(sub.to_string(), value.to_string());
        } else if let Some(sub) = rest.strip_suffix(".url") {
            urls.insert(sub.to_string(), value.to_string());
        }
    }
    Ok(paths
        .into_iter()
        .filter_map(|(name, path)| {
            urls.get(&name)
                .map(|u| (path.trim_end_matches('/').to_string(), u.clone()))
        })
        .collect())
}

/// Resolve a submodule URL relative to the superproject's URL (`../lib.git`, `./x`).
pub(crate) fn resolve_url(parent: &str, url: &str) -> String {
    if !url.starts_with("./") && !url.starts_with("../") {
        return url.to_string();
    }
    let mut base = parent.trim_end_matches('/').to_string();
    let mut rest = url;
    loop {
        if let Some(r) = rest.strip_prefix("./") {
            rest = r;
        } else if let Some(r) = rest.strip_prefix("../") {
            rest = r;
            if let Some((b, _)) = base.rsplit_once('/') {
                base = b.to_string();
            }
        } else {
            break;
        }
    }
    format!("{base}/{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_urls() {
        assert_eq!(
            resolve_url("https://github.com/a/b.git", "../c.git"),
            "https://github.com/a/c.git"
        );
        assert_eq!(resolve_url("/srv/a/main", "./sub"), "/srv/a/main/sub");
        assert_eq!(resolve_url("/srv/a/main/", "../../x"), "/srv/x");
        assert_eq!(resolve_url("/srv/a", "https://h/x"), "https://h/x");
    }

    #[test]
    fn gitmodules_file() {
        let text = b"[submodule \"lib\"]\n\tpath = ext/lib\n\turl = ../lib.git\n\
                     [submodule \"doc\"]\n\tpath = doc\n";
        let m = parse_gitmodules(text).unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(m["ext/lib"], "../lib.git");
    }
}
