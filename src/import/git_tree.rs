//! A commit's `repos/` tree read straight from the git object database,
//! in place of an export of its files.
//!
//! A pinned spack-packages commit (`stackinator::pinned`) is translated
//! once; writing its ~10,900 files and ~8,800 directories to disk first
//! cost more than the translation itself on a disk file system (inode
//! allocation). Instead, the directory the export would have had
//! (`<exports>/<sha>`, holding only the commit marker) is registered here
//! with the git directory and the commit, and the importer's reads below
//! it ([`super::confined::read_below`], [`super::confined::is_dir_below`],
//! the listing of the packages) are answered from the commit's tree: a
//! listing of its paths (one serial walk of the tree objects, on the first
//! read) and each blob inflated on demand by the reading thread's own
//! repository handle (libgit2's handles are not shared across threads).
//!
//! A blob read follows no link: a symbolic link of the tree (a component
//! or the file) is refused as [`Refusal::Link`], exactly as a read below a
//! directory on disk; names come from git's tree entries (no `/`, no `..`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use super::confined::Refusal;

/// One path of the tree.
#[derive(Debug)]
enum Node {
    /// A directory and the names of its entries.
    Dir(Vec<String>),
    /// A regular (or executable) file's blob.
    File(git2::Oid),
    /// A symbolic link: never followed.
    Link,
    /// A submodule: neither file nor directory.
    Other,
}

/// The `repos/` tree of one commit, read from a git directory.
#[derive(Debug)]
pub struct GitTree {
    git_dir: PathBuf,
    commit: String,
    /// Paths relative to the registered root (`repos/spack_repo/…`);
    /// `""` is the root. Listed on the first use.
    nodes: OnceLock<Result<HashMap<String, Node>, String>>,
}

/// The registered roots and their trees, newest last.
type Registry = RwLock<Vec<(PathBuf, Arc<GitTree>)>>;

fn registry() -> &'static Registry {
    static TREES: OnceLock<Registry> = OnceLock::new();
    TREES.get_or_init(Default::default)
}

/// Answer reads below `root` from the `repos/` tree of `commit` (a full
/// sha) in the git directory `git_dir`. Nothing is read until the first
/// use.
pub fn register(root: &Path, git_dir: &Path, commit: &str) {
    let mut trees = registry().write().unwrap_or_else(|e| e.into_inner());
    if trees.iter().any(|(r, t)| r == root && t.commit == commit) {
        return;
    }
    trees.retain(|(r, _)| r != root);
    let tree = GitTree {
        git_dir: git_dir.to_path_buf(),
        commit: commit.to_string(),
        nodes: OnceLock::new(),
    };
    trees.push((root.to_path_buf(), Arc::new(tree)));
}

/// The registered tree `path` lies in, and `path` relative to its root
/// (`/`-separated, `""` for the root itself).
pub fn find(path: &Path) -> Option<(Arc<GitTree>, String)> {
    let trees = registry().read().unwrap_or_else(|e| e.into_inner());
    trees.iter().rev().find_map(|(root, tree)| {
        let rel = path.strip_prefix(root).ok()?;
        let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
        Some((Arc::clone(tree), parts?.join("/")))
    })
}

/// Whether `path` is a directory: in a registered tree, or on disk.
pub fn is_dir(path: &Path) -> bool {
    match find(path) {
        Some((tree, rel)) => matches!(tree.node(&rel), Ok(Node::Dir(_))),
        None => path.is_dir(),
    }
}

/// Whether `path` is a regular file: in a registered tree, or on disk.
pub fn is_file(path: &Path) -> bool {
    match find(path) {
        Some((tree, rel)) => matches!(tree.node(&rel), Ok(Node::File(_))),
        None => path.is_file(),
    }
}

/// The names in the directory `path`: in a registered tree, or on disk
/// (in the order the system lists them).
pub fn names(path: &Path) -> std::io::Result<Vec<OsString>> {
    match find(path) {
        Some((tree, rel)) => match tree.node(&rel) {
            Ok(Node::Dir(names)) => Ok(names.iter().map(OsString::from).collect()),
            Ok(_) => Err(io_error(path, &Refusal::NotAFile)),
            Err(r) => Err(io_error(path, &r)),
        },
        None => Ok(std::fs::read_dir(path)?
            .flatten()
            .map(|e| e.file_name())
            .collect()),
    }
}

/// The bytes of the file `path` (followed as it is on disk; never through
/// a link in a registered tree).
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    match find(path) {
        Some((tree, rel)) => tree.read(&rel).map_err(|r| io_error(path, &r)),
        None => fs_err::read(path),
    }
}

fn io_error(path: &Path, why: &Refusal) -> std::io::Error {
    let kind = match why {
        Refusal::Missing => std::io::ErrorKind::NotFound,
        _ => std::io::ErrorKind::Other,
    };
    std::io::Error::new(kind, format!("{}: {why}", path.display()))
}

impl GitTree {
    /// The node at `rel` (`/`-separated, plain), reached without passing
    /// through a link or a file.
    fn node(&self, rel: &str) -> Result<&Node, Refusal> {
        let nodes = self.nodes().map_err(|e| Refusal::Io(e.clone()))?;
        let mut end = 0;
        for part in rel.split('/').filter(|p| !p.is_empty()) {
            end += part.len() + usize::from(end > 0);
            match nodes.get(&rel[..end]) {
                Some(Node::Dir(_)) => {}
                Some(Node::Link) => return Err(Refusal::Link),
                Some(_) if end < rel.len() => return Err(Refusal::NotAFile),
                Some(_) => {}
                None => return Err(Refusal::Missing),
            }
        }
        nodes.get(rel).ok_or(Refusal::Missing)
    }

    /// The bytes of the regular file `rel`, inflated from its blob.
    pub fn read(&self, rel: &str) -> Result<Vec<u8>, Refusal> {
        match self.node(rel)? {
            Node::File(id) => self.blob(*id),
            Node::Link => Err(Refusal::Link),
            Node::Dir(_) | Node::Other => Err(Refusal::NotAFile),
        }
    }

    fn blob(&self, id: git2::Oid) -> Result<Vec<u8>, Refusal> {
        with_repo(&self.git_dir, |repo| {
            let blob = repo.find_blob(id).map_err(|e| {
                Refusal::Io(format!(
                    "git object {id} of commit {} is missing from {}: {}",
                    self.commit,
                    self.git_dir.display(),
                    e.message()
                ))
            })?;
            Ok(blob.content().to_vec())
        })
    }

    fn nodes(&self) -> Result<&HashMap<String, Node>, &String> {
        self.nodes
            .get_or_init(|| {
                with_repo(&self.git_dir, |repo| list(repo, &self.commit)).map_err(|r| r.to_string())
            })
            .as_ref()
    }
}

/// Run `f` with this thread's handle on the repository at `git_dir`.
fn with_repo<T>(
    git_dir: &Path,
    f: impl FnOnce(&git2::Repository) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    thread_local! {
        static HANDLES: std::cell::RefCell<HashMap<PathBuf, git2::Repository>> =
            std::cell::RefCell::default();
    }
    HANDLES.with(|handles| {
        let mut handles = handles.borrow_mut();
        if !handles.contains_key(git_dir) {
            let repo = git2::Repository::open(git_dir).map_err(|e| {
                Refusal::Io(format!(
                    "cannot open {}: {}",
                    git_dir.display(),
                    e.message()
                ))
            })?;
            handles.insert(git_dir.to_path_buf(), repo);
        }
        f(&handles[git_dir])
    })
}

/// Every path of the commit's `repos/` tree.
fn list(repo: &git2::Repository, commit: &str) -> Result<HashMap<String, Node>, Refusal> {
    let io = |e: git2::Error| Refusal::Io(e.message().to_string());
    let commit = repo
        .find_commit(git2::Oid::from_str(commit).map_err(io)?)
        .map_err(io)?;
    let repos = commit
        .tree()
        .and_then(|t| t.get_path(Path::new("repos")))
        .and_then(|e| e.to_object(repo))
        .and_then(|o| o.peel_to_tree())
        .map_err(|_| Refusal::Io("the commit has no `repos/` directory".into()))?;
    let mut nodes = HashMap::new();
    nodes.insert(String::new(), Node::Dir(vec!["repos".into()]));
    list_tree(repo, &repos, "repos", &mut nodes)?;
    Ok(nodes)
}

fn list_tree(
    repo: &git2::Repository,
    tree: &git2::Tree,
    rel: &str,
    nodes: &mut HashMap<String, Node>,
) -> Result<(), Refusal> {
    let mut names = Vec::with_capacity(tree.len());
    for entry in tree.iter() {
        // Names come from git: no `..`, no `/`; refuse anything else.
        let name = match entry.name() {
            Some(n) if super::confined::plain_name(n) => n,
            other => {
                let name = other.unwrap_or("(not UTF-8)");
                return Err(Refusal::Io(format!("refusing the tree entry `{name}`")));
            }
        };
        let path = format!("{rel}/{name}");
        let node = match entry.kind() {
            Some(git2::ObjectType::Tree) => {
                let sub = entry
                    .to_object(repo)
                    .and_then(|o| o.peel_to_tree())
                    .map_err(|e| Refusal::Io(e.message().to_string()))?;
                list_tree(repo, &sub, &path, nodes)?;
                None
            }
            Some(git2::ObjectType::Blob) if entry.filemode() == 0o120000 => Some(Node::Link),
            Some(git2::ObjectType::Blob) => Some(Node::File(entry.id())),
            _ => Some(Node::Other),
        };
        if let Some(node) = node {
            nodes.insert(path, node);
        }
        names.push(name.to_string());
    }
    nodes.insert(rel.to_string(), Node::Dir(names));
    Ok(())
}

/// `git -C dir ARGS…` as tests run it to make repositories (with a fixed
/// author): its output, trimmed. Panics when git fails.
#[cfg(test)]
pub(crate) fn git_for_test(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[cfg(test)]
mod tests;
