//! The stack recipe model (`stacks/<name>.yaml`, the file given to `stack build`).

use std::path::PathBuf;

use crate::cluster::{AuditConfig, Cluster, Mirror, Network, Policies};
use crate::diag::{Loc, Spanned};
use crate::recipes::{EnvOp, PathRef, SpecRef};

/// The default mount point.
pub const DEFAULT_MOUNT: &str = "/user-environment";

/// A stack recipe, fully parsed (specs parsed, paths absolute).
#[derive(Clone, Debug)]
pub struct StackRecipe {
    /// The recipe file (absolute).
    pub file: PathBuf,
    /// Its directory (absolute); relative paths in the recipe start here.
    pub dir: PathBuf,
    pub name: Spanned<String>,
    /// Free text.
    pub version: Option<String>,
    pub description: Option<String>,
    /// Absolute; default [`DEFAULT_MOUNT`].
    pub mount: PathBuf,
    /// The default compiler of the environments: a stack compiler
    /// (`compilers:`) or a cluster compiler; `None`: the cluster's first.
    pub compiler: Option<SpecRef>,
    /// Compilers built by the stack (`compilers: [gcc@14.2]`): packages
    /// built first, with the cluster's compiler; environments name them in
    /// `compiler:`.
    pub compilers: Vec<SpecRef>,
    /// Extra package repositories, searched before the built-in `recipes/`.
    pub repos: Vec<PathRef>,
    /// Package repositories searched after the built-in one (which wins
    /// over them): a stackinator recipe's translated spack-packages.
    pub fallback_repos: Vec<PathRef>,
    pub mirrors: Vec<Mirror>,
    /// Accept url sources without sha256.
    pub allow_unverified: bool,
    /// In file order.
    pub environments: Vec<Environment>,
    pub default_view: Option<Spanned<String>>,
    pub modules: Option<Modules>,
    pub pre_install: Option<PathRef>,
    pub post_install: Option<PathRef>,
    /// Directory copied to `meta/extra`.
    pub extra: Option<PathRef>,
    pub audit: AuditConfig,
}

/// The name of the environment that builds the stack's `compilers:`.
pub const COMPILERS_ENVIRONMENT: &str = "compilers";

impl StackRecipe {
    /// The environments of the stack's `compilers:`: `compilers`, built
    /// with the cluster's compiler, holds every entry without a `%compiler`
    /// naming another stack compiler; each stack compiler that builds others
    /// (`"nvhpc@25.1 %gcc@14.2"`, as stackinator builds nvhpc and llvm with
    /// its gcc) gets an environment `compilers-<compiler>` with those,
    /// after it. Empty without `compilers:`.
    pub fn compilers_environments(&self) -> Vec<Environment> {
        let env = |name: String, specs: Vec<SpecRef>, compiler: Option<SpecRef>| Environment {
            name: Spanned::new(name, specs[0].loc.clone()),
            specs,
            compiler,
            other_compilers: Vec::new(),
            network: None,
            variants: Vec::new(),
            unify: true,
            duplicates: Duplicates::Minimal,
            packages: Policies::default(),
            views: Vec::new(),
        };
        let mut first = Vec::new();
        let mut chained: Vec<(SpecRef, Vec<SpecRef>)> = Vec::new();
        for c in &self.compilers {
            match self.stack_compiler_of(c) {
                Some(by) => match chained.iter_mut().find(|(b, _)| b.text == by.text) {
                    Some((_, v)) => v.push(c.clone()),
                    None => chained.push((by.clone(), vec![c.clone()])),
                },
                None => first.push(c.clone()),
            }
        }
        let mut out = Vec::new();
        if !first.is_empty() {
            out.push(env(COMPILERS_ENVIRONMENT.to_string(), first, None));
        }
        for (by, specs) in chained {
            let compiler = SpecRef {
                text: by.text.clone(),
                spec: by.spec.clone(),
                loc: specs[0].loc.clone(),
            };
            out.push(env(
                format!("{COMPILERS_ENVIRONMENT}-{}", by.text),
                specs,
                Some(compiler),
            ));
        }
        out
    }

    /// The other stack compiler that `c`'s `%compiler` names, if any.
    fn stack_compiler_of(&self, c: &SpecRef) -> Option<&SpecRef> {
        let want = c.spec.compiler.as_ref()?;
        self.compilers.iter().find(|o| {
            !std::ptr::eq(*o, c)
                && o.spec.name.as_deref() == Some(want.name.as_str())
                && o.spec.versions.intersects(&want.versions)
        })
    }

    /// Whether `name` is an environment of the stack's compilers.
    pub fn is_compilers_environment(name: &str) -> bool {
        name == COMPILERS_ENVIRONMENT
            || name
                .strip_prefix(COMPILERS_ENVIRONMENT)
                .is_some_and(|r| r.starts_with('-'))
    }

    /// Every environment to resolve: the compilers' first, then the
    /// recipe's in file order.
    pub fn all_environments(&self) -> Vec<std::borrow::Cow<'_, Environment>> {
        let mut out: Vec<std::borrow::Cow<'_, Environment>> = self
            .compilers_environments()
            .into_iter()
            .map(std::borrow::Cow::Owned)
            .collect();
        out.extend(self.environments.iter().map(std::borrow::Cow::Borrowed));
        out
    }

    pub fn environment(&self, name: &str) -> Option<&Environment> {
        self.environments.iter().find(|e| e.name.value == name)
    }

    /// Every view of every environment, with its environment.
    pub fn views(&self) -> impl Iterator<Item = (&Environment, &View)> {
        self.environments
            .iter()
            .flat_map(|e| e.views.iter().map(move |v| (e, v)))
    }
}

/// An environment's `duplicates:` (Spack's `concretizer:duplicates:strategy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Duplicates {
    /// A build tool whose build-only requirements clash gets a build of its
    /// own for the dependents that need it only to build.
    #[default]
    Minimal,
    /// One node per package name, always.
    None,
}

/// One environment: a set of root specs resolved together.
#[derive(Clone, Debug)]
pub struct Environment {
    pub name: Spanned<String>,
    pub specs: Vec<SpecRef>,
    /// The compiler of every package of the environment: one of the stack's
    /// `compilers:` or a cluster compiler; `None`: the stack's `compiler:`,
    /// then the cluster's first.
    pub compiler: Option<SpecRef>,
    /// The other compilers of `compiler: [gcc@14, nvhpc@25.1]`: packages
    /// choose them with `%nvhpc` or per language (`%fortran=nvhpc`).
    pub other_compilers: Vec<SpecRef>,
    /// `network:` present: MPI and network specs (empty fields fall back to
    /// the cluster's `network:`).
    pub network: Option<Network>,
    /// Anonymous specs holding only variants (`+cuda`, `cuda_arch=90`),
    /// applied to every package that has these variants.
    pub variants: Vec<SpecRef>,
    /// One node per package name (only `true` is supported).
    pub unify: bool,
    /// Whether a build tool may be built a second time for the dependents
    /// that need it only to build (`duplicates: minimal`, the default) or
    /// never (`none`); see `docs/resolve.md`.
    pub duplicates: Duplicates,
    /// Policies merged over the cluster's.
    pub packages: Policies,
    pub views: Vec<View>,
}

impl Environment {
    /// The network specs in effect: the environment's own, or the cluster's
    /// defaults for fields it leaves empty. Empty without `network:`.
    pub fn network_specs<'a>(&'a self, cluster: &'a Cluster) -> Vec<&'a SpecRef> {
        self.network_specs_with(cluster.network.as_ref())
    }

    /// [`Environment::network_specs`] with explicit defaults.
    pub fn network_specs_with<'a>(&'a self, defaults: Option<&'a Network>) -> Vec<&'a SpecRef> {
        let Some(net) = &self.network else {
            return Vec::new();
        };
        let mpi = net
            .mpi
            .as_ref()
            .or_else(|| defaults.and_then(|d| d.mpi.as_ref()));
        let specs = if net.specs.is_empty() {
            defaults
                .map(|d| d.specs.iter().collect())
                .unwrap_or_default()
        } else {
            net.specs.iter().collect::<Vec<_>>()
        };
        mpi.into_iter().chain(specs).collect()
    }

    /// All root specs: `specs:` then the network specs.
    pub fn root_specs<'a>(&'a self, cluster: &'a Cluster) -> Vec<&'a SpecRef> {
        self.root_specs_with(cluster.network.as_ref())
    }

    /// [`Environment::root_specs`] with explicit network defaults.
    pub fn root_specs_with<'a>(&'a self, defaults: Option<&'a Network>) -> Vec<&'a SpecRef> {
        self.specs
            .iter()
            .chain(self.network_specs_with(defaults))
            .collect()
    }

    /// The cluster's policies with this environment's merged over them.
    pub fn policies(&self, cluster: &Cluster) -> Policies {
        cluster.packages.merged_with(&self.packages)
    }
}

/// A view: a symlink tree of selected packages with an environment.
#[derive(Clone, Debug)]
pub struct View {
    pub name: Spanned<String>,
    pub link: ViewLink,
    /// Only these packages (empty: all that `link` selects).
    pub select: Vec<Spanned<String>>,
    pub exclude: Vec<Spanned<String>>,
    pub description: Option<String>,
    /// Variable → prefix-relative dirs (`LD_LIBRARY_PATH: [lib, lib64]`).
    pub prefix_paths: Vec<(String, Vec<String>)>,
    /// `env_vars:` flattened in the order set, unset, prepend_path, append_path.
    pub env_vars: Vec<EnvOp>,
    /// `add_compilers: true`: the environment's compiler, when the stack
    /// builds it, is linked into the view too (stackinator's
    /// `uenv: add_compilers`).
    pub add_compilers: bool,
}

/// Which packages a view links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ViewLink {
    /// The environment's root specs.
    #[default]
    Roots,
    /// Every package.
    All,
    /// Roots and their run dependencies.
    Run,
}

impl ViewLink {
    pub const NAMES: [&'static str; 3] = ["roots", "all", "run"];

    pub fn name(self) -> &'static str {
        match self {
            ViewLink::Roots => "roots",
            ViewLink::All => "all",
            ViewLink::Run => "run",
        }
    }
}

/// Module file generation.
#[derive(Clone, Debug)]
pub struct Modules {
    pub flavour: ModuleFlavour,
    /// Projection key (`all`, or a spec: the first one a package satisfies
    /// wins) → template (`{name}/{version}`).
    pub projections: Vec<(String, String)>,
    pub hide_implicits: bool,
    /// Packages that are not a root of any environment get no module at
    /// all (unless `include` names them).
    pub exclude_implicits: bool,
    /// `autoload: direct` (true, the default): a module loads the modules
    /// of its link and run dependencies; `none`: it loads none.
    pub autoload: bool,
    /// Directory of a package's prefix → variables it is prepended to when
    /// it exists (`lib64: [LD_LIBRARY_PATH]`), besides the built-in ones.
    pub prefix_inspections: Vec<(String, Vec<String>)>,
    /// Packages that get no module (specs: `cmake`, `%gcc@7.5.0`).
    pub exclude: Vec<SpecRef>,
    /// Packages whose module is shown even when hidden or excluded.
    pub include: Vec<SpecRef>,
    /// `all` or a spec → environment operations of the modules of the
    /// packages that satisfy it (in order).
    pub environment: Vec<(Spanned<String>, Vec<EnvOp>)>,
    pub loc: Loc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ModuleFlavour {
    #[default]
    Lmod,
    Tcl,
}
