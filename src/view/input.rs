//! Plain inputs of the view stage. The caller (`stack build`) fills them from
//! the resolved plan and the installed store; nothing here knows about
//! recipes or the resolver.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::env_op::EnvOp;

/// Everything installed in the store that views and modules can see.
#[derive(Debug, Clone)]
pub struct StoreContents {
    /// The mount point the image is built for, e.g. `/user-environment`.
    pub mount: PathBuf,
    /// The directory that becomes the image and is mounted at `mount`
    /// (`<build>/store`). `<store_dir>/x` is what `<mount>/x` will be.
    pub store_dir: PathBuf,
    /// Installed packages, roots first in recipe order (the order decides
    /// which package wins a file conflict in a view, see [`ConflictPolicy`]).
    pub packages: Vec<InstalledPackage>,
}

impl StoreContents {
    /// Where `path` (an absolute path under the mount point) lives in the
    /// store directory, or `None` when it is not under the mount point.
    pub fn store_path(&self, path: &Path) -> Option<PathBuf> {
        crate::store::host_path(&self.mount, &self.store_dir, path)
    }
}

/// One installed package.
#[derive(Debug, Clone)]
pub struct InstalledPackage {
    pub name: String,
    pub version: String,
    /// The node hash (full; modules projections may shorten it with `{hash:7}`).
    pub hash: String,
    /// One line for module `whatis`/`help`.
    pub description: String,
    /// The installation prefix: an absolute path under the mount point
    /// (or the external's prefix, e.g. `/usr`, when `external`).
    pub prefix: PathBuf,
    /// Hashes of the link and run dependencies (what a module loads, what
    /// `link: run` follows).
    pub deps: Vec<String>,
    /// Hashes of build-only dependencies (followed by `link: all` only).
    pub build_deps: Vec<String>,
    /// Names of the environments in which this package is a root spec.
    pub root_in: Vec<String>,
    /// A system package used in place (not linked into views, no module).
    pub external: bool,
    /// The package's run environment, already rendered (`{{ prefix }}`
    /// replaced), in recipe order.
    pub env: Vec<EnvOp>,
}

impl InstalledPackage {
    /// `name@version` for messages.
    pub fn label(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    pub(crate) fn is_root_in(&self, env: &str) -> bool {
        self.root_in.iter().any(|e| e == env)
    }
}

/// Which packages of an environment a view links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkType {
    /// Only the environment's root specs.
    #[default]
    Roots,
    /// The roots and every dependency, build-only ones included.
    All,
    /// The roots and their link/run dependencies (no build-only ones).
    Run,
}

/// What to do when two packages of a view provide the same file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConflictPolicy {
    /// The package that comes first in view order keeps the path (roots in
    /// recipe order, then dependencies breadth-first); every skipped file is
    /// listed as a [`crate::view::ViewWarning::Conflict`].
    #[default]
    FirstWins,
    /// Any conflict between files whose contents differ is an error.
    Error,
}

/// One view of one environment (`environments.<env>.views.<name>`).
#[derive(Debug, Clone, Default)]
pub struct ViewSpec {
    pub env_name: String,
    pub name: String,
    pub link: LinkType,
    /// Package names; when non-empty only these are linked.
    pub select: Vec<String>,
    /// Package names never linked.
    pub exclude: Vec<String>,
    pub description: String,
    /// VAR → sub-directories of the view; each one that exists in the view is
    /// prepended (in the listed order), e.g. `LD_LIBRARY_PATH: [lib, lib64]`.
    pub prefix_paths: BTreeMap<String, Vec<String>>,
    /// The recipe's `env_vars`, flattened in application order. Values may
    /// use `$@mount@`, `$@view_name@`, `$@view_path@` and `${@VAR@}`.
    pub env_vars: Vec<EnvOp>,
    pub conflicts: ConflictPolicy,
    /// Hashes of packages linked besides those `link` selects (the
    /// environment's compiler, built by the stack, with `add_compilers`).
    pub also: Vec<String>,
}

/// Module file flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleFlavour {
    #[default]
    Lmod,
    Tcl,
}

/// The recipe's `modules:` section. What depends on specs (exclude,
/// include, per-package projections and environments) comes resolved to
/// package hashes by the caller.
#[derive(Debug, Clone)]
pub struct ModulesSpec {
    pub flavour: ModuleFlavour,
    /// Package name (or `all`) → projection such as `{name}/{version}`.
    /// A package's own key wins over `all`; the default is `{name}/{version}`.
    pub projections: BTreeMap<String, String>,
    /// Package hash → its projection, winning over `projections` (the
    /// recipe's projections keyed by specs).
    pub projection_of: BTreeMap<String, String>,
    /// Packages that are not a root of any environment get a module that
    /// loads as a dependency but is hidden from `module avail`.
    pub hide_implicits: bool,
    /// Packages that are not a root of any environment get no module
    /// (unless `include` has them).
    pub exclude_implicits: bool,
    /// Whether a module loads the modules of its link/run dependencies.
    pub autoload: bool,
    /// Directory of a prefix → variables it is prepended to when it
    /// exists, besides [`crate::view::PREFIX_INSPECTIONS`].
    pub prefix_inspections: Vec<(String, Vec<String>)>,
    /// Hashes of packages that get no module.
    pub exclude: BTreeSet<String>,
    /// Hashes of packages whose module is generated and shown even when
    /// excluded or implicit.
    pub include: BTreeSet<String>,
    /// Package hash → environment operations of its module, after the
    /// package's own `env:`.
    pub env: BTreeMap<String, Vec<EnvOp>>,
    /// Projections of the modules each module conflicts with; the default
    /// `["{name}"]` keeps two versions of one package from loading together.
    pub conflicts: Vec<String>,
    /// A tera template replacing the built-in one for this flavour.
    pub template: Option<PathBuf>,
}

impl Default for ModulesSpec {
    fn default() -> Self {
        ModulesSpec {
            flavour: ModuleFlavour::Lmod,
            projections: BTreeMap::new(),
            projection_of: BTreeMap::new(),
            hide_implicits: true,
            exclude_implicits: false,
            autoload: true,
            prefix_inspections: Vec::new(),
            exclude: BTreeSet::new(),
            include: BTreeSet::new(),
            env: BTreeMap::new(),
            conflicts: vec!["{name}".to_string()],
            template: None,
        }
    }
}

impl ModulesSpec {
    /// Whether `p` gets a module.
    pub fn has_module(&self, p: &InstalledPackage) -> bool {
        let excluded =
            self.exclude.contains(&p.hash) || (self.exclude_implicits && p.root_in.is_empty());
        !p.external && (!excluded || self.include.contains(&p.hash))
    }
}

/// A file copied into `meta/`: `from` on disk, `to` relative to the
/// destination directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyFile {
    pub from: PathBuf,
    pub to: PathBuf,
}

/// What `meta/` holds besides `env.json`.
#[derive(Debug, Clone, Default)]
pub struct MetaInfo {
    /// The uenv name (`name` in env.json).
    pub name: String,
    pub description: Option<String>,
    /// A view name or `modules`; `default-view` in env.json.
    pub default_view: Option<String>,
    /// The stack recipe and the files it uses, copied to `meta/recipe/<to>`.
    pub recipe_files: Vec<CopyFile>,
    /// `stack.lock`, copied to `meta/stack.lock`.
    pub lockfile: Option<PathBuf>,
    /// Written to `meta/provenance.json`.
    pub provenance: Option<super::provenance::Provenance>,
    /// The recipe's `extra/` directory, copied to `meta/extra/`.
    pub extra_dir: Option<PathBuf>,
    /// An audit report, copied to `meta/audit/<file name>`.
    pub audit_report: Option<PathBuf>,
}
