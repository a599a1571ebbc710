//! Symlink trees: `<store>/env/<view>/` mirrors the union of the linked
//! prefixes. Directories are real directories; every file or symlink of a
//! package becomes a symlink to its final absolute path under the mount
//! point (`<mount>/<prefix>/<path>`), so the tree is correct once mounted.
//!
//! Rules:
//! - top-level entries of a prefix whose name starts with `.` (metadata such
//!   as `.stack/`) are not linked;
//! - a top-level symlink to a sibling directory (`lib64 -> lib`) is merged as
//!   a directory, so it combines with other packages' `lib64/`;
//! - any other symlink is linked as it is (its target is not followed);
//! - a path provided by two packages goes to the first one in view order
//!   (see [`super::select`]); the other is reported as a
//!   [`ViewWarning::Conflict`], or is an error under [`ConflictPolicy::Error`]
//!   when the contents differ. A directory against a file is a conflict too
//!   (the loser's whole sub-tree is skipped).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use walkdir::WalkDir;

use super::error::{ViewError, ViewWarning};
use super::input::{ConflictPolicy, InstalledPackage, StoreContents};

/// Files the view writes itself; packages cannot provide them.
pub(crate) const RESERVED: &[&str] = &["activate.sh", "env.json"];

const STACK_OWNER: usize = usize::MAX;

#[derive(Debug)]
enum Node {
    Dir { owner: usize },
    Leaf { owner: usize, source: PathBuf },
}

impl Node {
    fn owner(&self) -> usize {
        match self {
            Node::Dir { owner } | Node::Leaf { owner, .. } => *owner,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkCounts {
    pub links: usize,
    pub dirs: usize,
}

struct Tree<'a> {
    view: &'a str,
    policy: ConflictPolicy,
    packages: &'a [&'a InstalledPackage],
    nodes: BTreeMap<PathBuf, Node>,
    warnings: Vec<ViewWarning>,
}

enum Inserted {
    Ok,
    /// The new entry lost; for a directory its sub-tree must be skipped.
    Skipped,
}

impl Tree<'_> {
    fn label(&self, owner: usize) -> String {
        if owner == STACK_OWNER {
            "stack (generated file)".to_string()
        } else {
            self.packages[owner].label()
        }
    }

    fn insert(&mut self, rel: PathBuf, node: Node) -> Result<Inserted, ViewError> {
        let Some(existing) = self.nodes.get(&rel) else {
            self.nodes.insert(rel, node);
            return Ok(Inserted::Ok);
        };
        if matches!((existing, &node), (Node::Dir { .. }, Node::Dir { .. })) {
            return Ok(Inserted::Ok);
        }
        let identical = match (existing, &node) {
            (Node::Leaf { source: a, .. }, Node::Leaf { source: b, .. }) => same_contents(a, b)?,
            _ => false,
        };
        let kept = self.label(existing.owner());
        let skipped = self.label(node.owner());
        if self.policy == ConflictPolicy::Error && !identical {
            return Err(ViewError::Conflict {
                view: self.view.to_string(),
                path: rel,
                first: kept,
                second: skipped,
            });
        }
        self.warnings.push(ViewWarning::Conflict {
            view: self.view.to_string(),
            path: rel,
            kept,
            skipped,
            identical,
        });
        Ok(Inserted::Skipped)
    }

    /// Add the contents of `dir` (in the store) as `rel_prefix/...`.
    fn add_dir(
        &mut self,
        owner: usize,
        dir: &Path,
        rel_prefix: &Path,
        top_level: bool,
    ) -> Result<(), ViewError> {
        let mut it = WalkDir::new(dir)
            .min_depth(1)
            .sort_by_file_name()
            .follow_links(false)
            .into_iter();
        while let Some(entry) = it.next() {
            let entry = entry.map_err(walk_error)?;
            let rel_in_dir = entry
                .path()
                .strip_prefix(dir)
                .expect("walk stays below its root");
            let rel = rel_prefix.join(rel_in_dir);
            let ft = entry.file_type();
            if top_level && entry.depth() == 1 {
                let name = entry.file_name().to_string_lossy();
                if name.starts_with('.') {
                    if ft.is_dir() {
                        it.skip_current_dir();
                    }
                    continue;
                }
                if ft.is_symlink()
                    && let Some(sibling) = sibling_dir_target(entry.path(), dir)?
                {
                    if let Inserted::Ok = self.insert(rel.clone(), Node::Dir { owner })? {
                        self.add_dir(owner, &sibling, &rel, false)?;
                    }
                    continue;
                }
            }
            let node = if ft.is_dir() {
                Node::Dir { owner }
            } else {
                Node::Leaf {
                    owner,
                    source: entry.path().to_path_buf(),
                }
            };
            if let Inserted::Skipped = self.insert(rel, node)?
                && ft.is_dir()
            {
                it.skip_current_dir();
            }
        }
        Ok(())
    }
}

/// Build the symlink tree of one view in `view_dir` (which must not exist).
pub(crate) fn link_view(
    store: &StoreContents,
    view: &str,
    view_dir: &Path,
    packages: &[&InstalledPackage],
    policy: ConflictPolicy,
    warnings: &mut Vec<ViewWarning>,
) -> Result<LinkCounts, ViewError> {
    let mut tree = Tree {
        view,
        policy,
        packages,
        nodes: BTreeMap::new(),
        warnings: Vec::new(),
    };
    for name in RESERVED {
        tree.nodes.insert(
            PathBuf::from(name),
            Node::Leaf {
                owner: STACK_OWNER,
                source: PathBuf::new(),
            },
        );
    }
    for (owner, pkg) in packages.iter().enumerate() {
        let root = store
            .store_path(&pkg.prefix)
            .expect("prefixes were checked to lie under the mount point");
        tree.add_dir(owner, &root, Path::new(""), true)?;
    }
    warnings.append(&mut tree.warnings);

    fs_err::create_dir_all(view_dir)?;
    let mut counts = LinkCounts::default();
    for (rel, node) in &tree.nodes {
        match node {
            Node::Dir { .. } => {
                fs_err::create_dir(view_dir.join(rel))?;
                counts.dirs += 1;
            }
            Node::Leaf { owner, .. } if *owner == STACK_OWNER => {}
            Node::Leaf { owner, .. } => {
                let target = packages[*owner].prefix.join(rel);
                fs_err::os::unix::fs::symlink(&target, view_dir.join(rel))?;
                counts.links += 1;
            }
        }
    }
    Ok(counts)
}

/// For a top-level symlink such as `lib64 -> lib`: the sibling directory it
/// names, when it names one.
fn sibling_dir_target(link: &Path, prefix_dir: &Path) -> Result<Option<PathBuf>, ViewError> {
    let target = fs_err::read_link(link)?;
    let mut comps = target.components();
    let (Some(Component::Normal(name)), None) = (comps.next(), comps.next()) else {
        return Ok(None);
    };
    let sibling = prefix_dir.join(name);
    match std::fs::symlink_metadata(&sibling) {
        Ok(m) if m.is_dir() => Ok(Some(sibling)),
        _ => Ok(None),
    }
}

fn same_contents(a: &Path, b: &Path) -> Result<bool, ViewError> {
    let (ma, mb) = (fs_err::symlink_metadata(a)?, fs_err::symlink_metadata(b)?);
    if ma.file_type().is_symlink() && mb.file_type().is_symlink() {
        return Ok(fs_err::read_link(a)? == fs_err::read_link(b)?);
    }
    if ma.is_file() && mb.is_file() && ma.len() == mb.len() {
        return Ok(fs_err::read(a)? == fs_err::read(b)?);
    }
    Ok(false)
}

fn walk_error(e: walkdir::Error) -> ViewError {
    let path = e
        .path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let io = e
        .into_io_error()
        .unwrap_or_else(|| std::io::Error::other("filesystem loop"));
    ViewError::Io(std::io::Error::new(
        io.kind(),
        format!("{io} (reading {path})"),
    ))
}
