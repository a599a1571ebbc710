//! Where package repositories are found.
//!
//! Search order (first wins when two repositories define the same package):
//! 1. `--repo DIR` flags, in order;
//! 2. `STACK_REPOS` (a `:`-separated list of dirs);
//! 3. the stack recipe's `repos:`, in order;
//! 4. the nearest `recipes/` dir found walking up from the stack recipe's
//!    directory (or the current directory for `stack list` / `stack info`);
//! 5. the built-in repository (see [`builtin_recipes`]), as Spack's
//!    `builtin` — a stack's own recipes and `--repo` flags always win over
//!    it, even when the built-in directory is also named earlier;
//! 6. after it, the stack recipe's `fallback_repos:`, in order: recipes the
//!    built-in repository overrides (a stackinator recipe's spack-packages,
//!    translated on the fly: shipped, reviewed recipes win over them).
//!
//! Duplicates (the same directory reached twice) are dropped; a directory
//! that is the built-in repository keeps the built-in place, and a fallback
//! directory also named earlier keeps its earlier place.

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
    /// The built-in repository ([`builtin_recipes`]).
    BuiltIn,
    /// The stack recipe's `fallback_repos:` entry at this location,
    /// searched after the built-in repository.
    Fallback(Loc),
}

impl RepoOrigin {
    /// Why the directory is searched, for log lines and `stack info`.
    pub fn describe(&self) -> String {
        match self {
            RepoOrigin::Flag => "--repo".into(),
            RepoOrigin::Env => "STACK_REPOS".into(),
            RepoOrigin::Recipe(loc) => format!("`repos:` at {loc}"),
            RepoOrigin::Discovered => "nearest recipes/ above the start directory".into(),
            RepoOrigin::BuiltIn => "built-in".into(),
            RepoOrigin::Fallback(loc) => {
                format!("`fallback_repos:` at {loc}, after the built-in")
            }
        }
    }
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
    /// The stack recipe's `fallback_repos:` (already absolute), searched
    /// after the built-in repository.
    pub fallback_repos: Vec<PathRef>,
    /// Where to start looking for `recipes/`: the stack recipe's dir, or cwd.
    pub start_dir: PathBuf,
    /// Leave out the built-in repository (tests).
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
        let builtin = if self.no_builtin {
            None
        } else {
            builtin_recipes()
        };
        self.dirs_with_builtin(builtin)
    }

    /// [`RepoSearch::dirs`] with the given built-in repository.
    fn dirs_with_builtin(&self, builtin: Option<PathBuf>) -> Vec<RepoDir> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let builtin_key = builtin.as_deref().map(canon);
        let mut out: Vec<RepoDir> = Vec::new();
        let mut add = |path: PathBuf, origin: RepoOrigin| {
            let key = canon(&path);
            if builtin_key.as_ref() == Some(&key) {
                return;
            }
            if !out.iter().any(|d| canon(&d.path) == key) {
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
        if let Some(found) = find_upwards(&absolutize(&self.start_dir, &cwd), "recipes") {
            add(found, RepoOrigin::Discovered);
        }
        if let Some(builtin) = builtin {
            out.push(RepoDir {
                path: builtin,
                origin: RepoOrigin::BuiltIn,
            });
        }
        for r in &self.fallback_repos {
            let key = canon(&r.path);
            if !out.iter().any(|d| canon(&d.path) == key) {
                out.push(RepoDir {
                    path: r.path.clone(),
                    origin: RepoOrigin::Fallback(r.loc.clone()),
                });
            }
        }
        out
    }
}

/// The nearest directory called `name` in `start` or one of its ancestors.
pub fn find_upwards(start: &Path, name: &str) -> Option<PathBuf> {
    start.ancestors().map(|a| a.join(name)).find(|p| p.is_dir())
}

/// Environment variable naming the built-in repository; empty: none.
pub const BUILTIN_ENV: &str = "STACK_BUILTIN_REPO";

/// The built-in repository: `$STACK_BUILTIN_REPO` when set (empty: no
/// built-in repository), else the `recipes/` dir of the source tree `stack`
/// was built from, else `<dir of the stack binary>/../share/stack/recipes`
/// (an installed copy); `None` when none of them exists.
pub fn builtin_recipes() -> Option<PathBuf> {
    if let Some(v) = crate::settings::builtin_repo() {
        let cwd = std::env::current_dir().unwrap_or_default();
        return (!v.is_empty()).then(|| absolutize(Path::new(&v), &cwd));
    }
    let source_tree = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/recipes"));
    if source_tree.is_dir() {
        return Some(source_tree);
    }
    let exe = std::env::current_exe().ok()?;
    let installed = exe.parent()?.join("../share/stack/recipes");
    installed
        .is_dir()
        .then(|| absolutize(&installed, Path::new("/")))
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
            fallback_repos: Vec::new(),
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
    fn the_builtin_repository_is_searched_last() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for d in ["site/recipes", "site/stacks", "builtin", "extra"] {
            fs_err::create_dir_all(root.join(d)).unwrap();
        }
        // The built-in repository named by a flag still comes last, after
        // the stack's own `recipes/`.
        let search = RepoSearch {
            flags: vec![root.join("builtin"), root.join("extra")],
            start_dir: root.join("site/stacks"),
            ..RepoSearch::default()
        };
        let dirs = search.dirs_with_builtin(Some(root.join("builtin")));
        let got: Vec<_> = dirs
            .iter()
            .map(|d| (d.path.clone(), d.origin.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (root.join("extra"), RepoOrigin::Flag),
                (root.join("site/recipes"), RepoOrigin::Discovered),
                (root.join("builtin"), RepoOrigin::BuiltIn),
            ]
        );
        // When the stack's nearest `recipes/` is the built-in one, it is
        // listed once, last.
        let search = RepoSearch {
            flags: vec![root.join("extra")],
            start_dir: root.join("site/stacks"),
            ..RepoSearch::default()
        };
        let dirs = search.dirs_with_builtin(Some(root.join("site/recipes")));
        assert_eq!(dirs.len(), 2);
        assert_eq!(dirs[1].origin, RepoOrigin::BuiltIn);
        assert_eq!(dirs[1].origin.describe(), "built-in");
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
