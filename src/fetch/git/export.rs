//! Walking the tree of a commit (and its fetched submodules) as a flat list of entries, for
//! checking out into a stage and for writing mirror tarballs.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid, Repository};

use super::repo::git_err;
use crate::fetch::error::FetchError;
use crate::fetch::fetched::FetchedSubmodule;

/// One entry of a commit's tree, path relative to the top-level tree.
pub(crate) enum Item<'a> {
    Dir(&'a Path),
    File {
        path: &'a Path,
        executable: bool,
        data: &'a [u8],
    },
    Symlink {
        path: &'a Path,
        target: &'a [u8],
    },
}

/// The committer time of `commit` (seconds since the epoch).
pub(crate) fn commit_time(repo_path: &Path, url: &str, commit: &str) -> Result<i64, FetchError> {
    let repo = Repository::open_bare(repo_path).map_err(git_err(url, "open cache of"))?;
    let c = find_commit(&repo, url, commit)?;
    Ok(c.time().seconds())
}

fn find_commit<'r>(
    repo: &'r Repository,
    url: &str,
    commit: &str,
) -> Result<git2::Commit<'r>, FetchError> {
    let oid = Oid::from_str(commit).map_err(git_err(url, "parse commit id of"))?;
    repo.find_commit(oid)
        .map_err(git_err(url, "find commit in"))
}

/// Visit every entry of `commit` in tree order (parents before children). Submodules listed in
/// `submodules` are walked in place; others appear as empty directories, as in a fresh clone.
pub(crate) fn walk(
    repo_path: &Path,
    url: &str,
    commit: &str,
    submodules: &[FetchedSubmodule],
    visit: &mut dyn FnMut(Item<'_>) -> Result<(), FetchError>,
) -> Result<(), FetchError> {
    let repo = Repository::open_bare(repo_path).map_err(git_err(url, "open cache of"))?;
    let tree = find_commit(&repo, url, commit)?
        .tree()
        .map_err(git_err(url, "read tree of"))?;
    walk_tree(
        &repo,
        url,
        &tree,
        Path::new(""),
        Path::new(""),
        submodules,
        visit,
    )
}

fn walk_tree(
    repo: &Repository,
    url: &str,
    tree: &git2::Tree<'_>,
    at: &Path,
    rel: &Path,
    submodules: &[FetchedSubmodule],
    visit: &mut dyn FnMut(Item<'_>) -> Result<(), FetchError>,
) -> Result<(), FetchError> {
    for entry in tree.iter() {
        let name = entry.name_bytes();
        check_name(url, rel, name)?;
        let name = std::ffi::OsStr::from_bytes(name);
        let path = at.join(rel).join(name);
        let rel_path = rel.join(name);
        match entry.kind() {
            Some(ObjectType::Tree) => {
                visit(Item::Dir(&path))?;
                let sub = repo
                    .find_tree(entry.id())
                    .map_err(git_err(url, "read tree of"))?;
                walk_tree(repo, url, &sub, at, &rel_path, submodules, visit)?;
            }
            Some(ObjectType::Blob) => {
                let blob = repo
                    .find_blob(entry.id())
                    .map_err(git_err(url, "read blob of"))?;
                let mode = entry.filemode();
                if mode == 0o120000 {
                    visit(Item::Symlink {
                        path: &path,
                        target: blob.content(),
                    })?;
                } else {
                    visit(Item::File {
                        path: &path,
                        executable: mode & 0o111 != 0,
                        data: blob.content(),
                    })?;
                }
            }
            Some(ObjectType::Commit) => {
                visit(Item::Dir(&path))?;
                if let Some(sm) = submodules.iter().find(|s| Path::new(&s.path) == rel_path) {
                    let sub_repo = Repository::open_bare(&sm.repo)
                        .map_err(git_err(&sm.url, "open cache of"))?;
                    let tree = find_commit(&sub_repo, &sm.url, &sm.commit)?
                        .tree()
                        .map_err(git_err(&sm.url, "read tree of"))?;
                    walk_tree(
                        &sub_repo,
                        &sm.url,
                        &tree,
                        &path,
                        Path::new(""),
                        &sm.submodules,
                        visit,
                    )?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Tree entry names come from the repository: refuse ones that would escape or plant a `.git`.
fn check_name(url: &str, rel: &Path, name: &[u8]) -> Result<(), FetchError> {
    let bad = name.is_empty()
        || name == b"."
        || name == b".."
        || name.contains(&b'/')
        || name.contains(&0)
        || name.eq_ignore_ascii_case(b".git");
    if bad {
        let entry: PathBuf = rel.join(String::from_utf8_lossy(name).as_ref());
        return Err(FetchError::UnsafeArchive {
            archive: url.to_string(),
            entry: entry.display().to_string(),
            reason: "invalid name in a git tree".into(),
        });
    }
    Ok(())
}

/// Gitlinks (submodule commits) of `commit`: `(path, commit)` pairs, at any depth of the tree.
pub(crate) fn gitlinks(
    repo: &Repository,
    url: &str,
    commit: &str,
) -> Result<Vec<(String, String)>, FetchError> {
    let tree = find_commit(repo, url, commit)?
        .tree()
        .map_err(git_err(url, "read tree of"))?;
    let mut out = Vec::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Commit)
            && let Some(name) = entry.name()
        {
            out.push((format!("{root}{name}"), entry.id().to_string()));
        }
        git2::TreeWalkResult::Ok
    })
    .map_err(git_err(url, "read tree of"))?;
    Ok(out)
}

/// The content of `.gitmodules` at the top of `commit`, if any.
pub(crate) fn gitmodules(
    repo: &Repository,
    url: &str,
    commit: &str,
) -> Result<Option<Vec<u8>>, FetchError> {
    let tree = find_commit(repo, url, commit)?
        .tree()
        .map_err(git_err(url, "read tree of"))?;
    let Some(entry) = tree.get_name(".gitmodules") else {
        return Ok(None);
    };
    let blob = repo
        .find_blob(entry.id())
        .map_err(git_err(url, "read .gitmodules of"))?;
    Ok(Some(blob.content().to_vec()))
}
