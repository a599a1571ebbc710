//! Where package repositories are found.
//!
//! Search order (first wins when two repositories define the same package):
//! 1. `--repo DIR` flags, in order;
//! 2. `STACK_REPOS` (a `:`-separated list of dirs);
//! 3. the stack recipe's `repos:`, in order;
//! 4. the nearest `recipes/` dir found walking up from the stack recipe's
//!    directory (or the current directory for `stack list` / `stack info`);
//! 5. only when step 4 found nothing: the `recipes/` dir of the source tree
//!    `stack` was built from, if it exists (so a development build finds the
//!    shipped recipes from anywhere).
//!
//! Duplicates (the same directory reached twice) are dropped.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::diag::Loc;

use super::located::{PathRef, absolutize};

/// Why a directory is in the search path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RepoOrigin {
    /// `--repo DIR`.
    Flag,
    /// `STACK_REPOS`.
    Env,
    /// The stack recipe's `repos:` entry at this location.
    Recipe(Loc),
    /// The nearest `recipes/` above the starting directory.
    Discovered,
    /// The source tree's `recipes/`.
    BuiltIn,
}

/// One package repository directory (absolute).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoDir {
    pub path: PathBuf,
    pub origin: RepoOrigin,
}

impl RepoDir {
    /// The sibling `patches/` dir where this repository's patch files live.
    pub fn patch_dir(&self) -> PathBuf {
        absolutize(Path::new("../patches"), &self.path)
    }
}

/// Inputs of the repository search.
#[derive(Clone, Debug, Default)]
pub struct RepoSearch {
    /// `--repo` flags (relative to the current directory).
    pub flags: Vec<PathBuf>,
    /// The value of `STACK_REPOS`.
    pub env: Option<OsString>,
    /// The stack recipe's `repos:` (already absolute).
    pub recipe_repos: Vec<PathRef>,
    /// Where to start looking for `recipes/`: the stack recipe's dir, or cwd.
    pub start_dir: PathBuf,
    /// Never fall back to the source tree's `recipes/`.
    pub no_builtin: bool,
}

impl RepoSearch {
    /// A search starting at `start_dir`, with `STACK_REPOS` from the environment.
    pub fn new(start_dir: impl Into<PathBuf>) -> Self {
        RepoSearch {
            env: crate::settings::stack_repos(),
            start_dir: start_dir.into(),
            ..RepoSearch::default()
        }
    }

    /// The repository directories, in search order.
    pub fn dirs(&self) -> Vec<RepoDir> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut out: Vec<RepoDir> = Vec::new();
        let mut add = |path: PathBuf, origin: RepoOrigin| {
            let key = path.canonicalize().unwrap_or_else(|_| path.clone());
            if !out
                .iter()
                .any(|d| d.path.canonicalize().unwrap_or_else(|_| d.path.clone()) == key)
            {
                out.push(RepoDir { path, origin });
            }
        };
        for f in &self.flags {
            add(absolutize(f, &cwd), RepoOrigin::Flag);
        }
        if let Some(env) = &self.env {
            for p in std::env::split_paths(env) {
                if !p.as_os_str().is_empty() {
                    add(absolutize(&p, &cwd), RepoOrigin::Env);
                }
            }
        }
        for r in &self.recipe_repos {
            add(r.path.clone(), RepoOrigin::Recipe(r.loc.clone()));
        }
        match find_upwards(&absolutize(&self.start_dir, &cwd), "recipes") {
            Some(found) => add(found, RepoOrigin::Discovered),
            None if !self.no_builtin => {
                if let Some(builtin) = builtin_recipes() {
                    add(builtin, RepoOrigin::BuiltIn);
                }
            }
            None => {}
        }
        out
    }
}

/// The nearest directory called `name` in `start` or one of its ancestors.
pub fn find_upwards(start: &Path, name: &str) -> Option<PathBuf> {
    start.ancestors().map(|a| a.join(name)).find(|p| p.is_dir())
}

/// The `recipes/` dir of the source tree `stack` was built from, if it exists.
pub fn builtin_recipes() -> Option<PathBuf> {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/recipes"));
    p.is_dir().then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_recipes_walking_up_and_orders_sources() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs_err::create_dir_all(root.join("recipes")).unwrap();
        fs_err::create_dir_all(root.join("stacks/deep/er")).unwrap();
        fs_err::create_dir_all(root.join("extra")).unwrap();
        fs_err::create_dir_all(root.join("flag")).unwrap();
        assert_eq!(
            find_upwards(&root.join("stacks/deep/er"), "recipes"),
            Some(root.join("recipes"))
        );
        let search = RepoSearch {
            flags: vec![root.join("flag")],
            env: Some(OsString::from(format!(
                "{}:{}",
                root.join("extra").display(),
                root.join("flag").display()
            ))),
            recipe_repos: vec![PathRef {
                text: "../../recipes".into(),
                path: root.join("recipes"),
                loc: Loc::new(root.join("stacks/s.yaml"), 3, 8),
            }],
            start_dir: root.join("stacks/deep/er"),
            no_builtin: true,
        };
        let dirs = search.dirs();
        let paths: Vec<_> = dirs.iter().map(|d| d.path.clone()).collect();
        assert_eq!(
            paths,
            vec![root.join("flag"), root.join("extra"), root.join("recipes")]
        );
        assert_eq!(dirs[0].origin, RepoOrigin::Flag);
        assert_eq!(dirs[1].origin, RepoOrigin::Env);
        assert!(matches!(dirs[2].origin, RepoOrigin::Recipe(_)));
        assert_eq!(dirs[2].patch_dir(), root.join("patches"));
    }

    #[test]
    fn relative_flags_resolve_against_cwd() {
        let search = RepoSearch {
            flags: vec![PathBuf::from("some/dir")],
            start_dir: PathBuf::from("/nonexistent-start"),
            no_builtin: true,
            ..RepoSearch::default()
        };
        let dirs = search.dirs();
        assert_eq!(
            dirs[0].path,
            std::env::current_dir().unwrap().join("some/dir")
        );
    }
}
