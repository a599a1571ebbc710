//! What is fixed for one environment's search ([`EnvSetup`]), and the
//! search's start: its slots and the requirements of the roots, policies
//! and shared configurations.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use crate::cluster::Policies;
use crate::diag::Loc;
use crate::recipes::{PackageRepo, SpecRef};
use crate::spec::{CompilerSpec, Spec, VersionConstraint};

use super::super::model::{NodeCompiler, RootKind};
use super::super::order::decision_order;
use super::super::policy::effective;
use super::super::requirement::{Origin, Req};
use super::{Slot, SlotKind, Solver};

/// A root spec of the environment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootInput<'a> {
    pub spec: &'a SpecRef,
    pub kind: RootKind,
    /// A network spec taken from the cluster's defaults.
    pub from_cluster: bool,
}

/// Everything fixed for one environment.
pub(crate) struct EnvSetup<'a> {
    pub name: &'a str,
    pub repo: &'a PackageRepo,
    /// Recipes with the git versions the requirements ask for added
    /// (`git_versions`), searched before `repo`.
    pub git_versioned: &'a HashMap<String, std::sync::Arc<crate::recipes::PackageRecipe>>,
    pub policies: &'a Policies,
    pub cluster_file: &'a Path,
    pub env_variants: &'a [SpecRef],
    /// Compiler, target, os and platform of every node.
    pub base: Spec,
    pub target: &'a str,
    pub target_loc: &'a Loc,
    pub compiler: &'a NodeCompiler,
    pub compiler_loc: &'a Loc,
    /// The environment's other compilers (`compiler: [gcc, nvhpc]`), for
    /// `%nvhpc` and `%fortran=nvhpc`.
    pub others: Vec<NodeCompiler>,
    pub roots: Vec<RootInput<'a>>,
    /// Give up after this many alternatives.
    pub max_steps: usize,
    /// No forward checking, whole conflict sets
    /// ([`super::super::ResolveOptions::plain_backjumping`]).
    pub plain: bool,
    /// Record the decisions of each conflict set and refuse a decision that
    /// completes one ([`super::nogood`]); off to compare searches.
    pub learn: bool,
    /// (dependent, build tool) slot pairs whose build-only dependencies are
    /// left out of the search, to be resolved as builds of their own (from
    /// [`Solver::tool_clashes`] of an earlier search over the same slots).
    pub separate: BTreeSet<(usize, usize)>,
    /// The configurations every other package must take (a separate build
    /// of a build tool reuses its environment's packages): requirements
    /// that do not put a package into the search.
    pub shared: Vec<Spec>,
    /// The dependent a separate build of a build tool is for (`ispc@1.30.0`):
    /// its roots are that package's requirements, not the stack's.
    pub built_for: Option<String>,
}

pub(super) fn flat_deps<'s>(spec: &'s Spec, out: &mut Vec<&'s Spec>) {
    for d in &spec.deps {
        out.push(d);
        flat_deps(d, out);
    }
}

/// The slots of a search, in decision order, and their index by name:
/// fixed by the roots, the repository and the policies, so a search run
/// again with more build tools separated reuses them
/// ([`Solver::again`]).
pub(crate) struct Layout<'a> {
    slots: Vec<Slot<'a>>,
    index: HashMap<String, usize>,
}

impl<'a> Layout<'a> {
    /// The slots of every package and virtual `setup`'s roots can reach.
    fn new(setup: &EnvSetup<'a>) -> Layout<'a> {
        let repo = setup.repo;
        let mut start: Vec<String> = Vec::new();
        for r in &setup.roots {
            super::super::order::spec_names(&r.spec.spec, &mut start);
        }
        let start_refs: Vec<&str> = start.iter().map(String::as_str).collect();
        let names = decision_order(repo, setup.policies, &start_refs);
        let mut slots = Vec::with_capacity(names.len());
        let mut index = HashMap::with_capacity(names.len());
        for (i, name) in names.into_iter().enumerate() {
            let kind = match setup.git_versioned.get(&name).or_else(|| repo.get(&name)) {
                Some(r) => SlotKind::Package(r),
                None if repo.is_virtual(&name) => SlotKind::Virtual(repo.providers(&name)),
                None => SlotKind::Missing,
            };
            let recipe = match kind {
                SlotKind::Package(r) => Some(r.as_ref()),
                _ => None,
            };
            let policy = effective(setup.policies, &name, recipe, setup.cluster_file);
            index.insert(name.clone(), i);
            slots.push(Slot { name, kind, policy });
        }
        Layout { slots, index }
    }
}

impl<'a> Solver<'a> {
    pub fn new(setup: EnvSetup<'a>) -> Solver<'a> {
        let layout = Layout::new(&setup);
        Solver::start(setup, layout)
    }

    /// A new search of `setup`, which differs from this one's only in the
    /// build tools it separates: the slots are this one's.
    pub fn again(self, setup: EnvSetup<'a>) -> Solver<'a> {
        debug_assert_eq!(setup.roots.len(), self.setup.roots.len());
        let layout = Layout {
            slots: self.slots,
            index: self.index,
        };
        Solver::start(setup, layout)
    }

    /// The search of `setup` over `layout`, before its first decision.
    fn start(setup: EnvSetup<'a>, Layout { slots, index }: Layout<'a>) -> Solver<'a> {
        let n = slots.len();
        let dep_slots = slots
            .iter()
            .map(|slot| match slot.kind {
                SlotKind::Package(recipe) => recipe
                    .dependencies
                    .iter()
                    // every dependency has a slot (`decision_order` follows
                    // them all, whatever their condition)
                    .map(|d| index.get(d.name()).copied().unwrap_or(usize::MAX))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        let mut s = Solver {
            setup,
            slots,
            index,
            dep_slots,
            reqs: (0..n).map(|_| Vec::new()).collect(),
            trail: Vec::new(),
            decided: vec![None; n],
            level_of: vec![None; n],
            levels: Vec::new(),
            pending: BTreeSet::new(),
            first_failure: None,
            final_failure: None,
            tried: Vec::new(),
            steps: 0,
            tool_clashes: BTreeSet::new(),
            nogoods: super::nogood::Nogoods::new(n),
        };
        s.push_roots();
        for t in 0..s.slots.len() {
            if !matches!(s.slots[t].kind, SlotKind::Package(_)) {
                continue;
            }
            let reqs: Vec<Req<'a>> = s.slots[t]
                .policy
                .require
                .iter()
                .map(|r| r.req(Cow::Owned(r.effective.clone())))
                .collect();
            for r in reqs {
                s.push_initial(t, r);
            }
        }
        s.push_shared();
        s
    }

    /// The requirements of the root specs: each root, its `^dep`
    /// constraints, and the providers it names (`%libllvm=llvm`).
    fn push_roots(&mut self) {
        let roots = self.setup.roots.clone();
        for r in roots {
            let name = r.spec.name().unwrap_or_default();
            let origin = match r.kind {
                RootKind::Spec => Origin::Root(r.spec),
                RootKind::Network => Origin::Network {
                    spec: r.spec,
                    cluster: r.from_cluster,
                },
            };
            let t = self.index[name];
            self.push_initial(
                t,
                Req {
                    spec: Req::node_part(&r.spec.spec),
                    presence: true,
                    external_only: false,
                    origin,
                },
            );
            let mut deps = Vec::new();
            flat_deps(&r.spec.spec, &mut deps);
            for d in deps {
                let name = d.name.as_deref().unwrap_or_default();
                let t = self.index[name];
                self.push_initial(
                    t,
                    Req {
                        spec: Req::node_part(d),
                        presence: false,
                        external_only: false,
                        origin: Origin::RootDep { root: r.spec },
                    },
                );
                // `%libllvm=llvm`: the virtual's provider, when something
                // needs the virtual (see `Solver::provider_alts`).
                for v in &d.virtuals {
                    if let Some(&vt) = self.index.get(v) {
                        self.push_initial(
                            vt,
                            Req {
                                spec: Cow::Owned(Spec::named(name)),
                                presence: false,
                                external_only: false,
                                origin: Origin::RootDep { root: r.spec },
                            },
                        );
                    }
                }
            }
        }
    }

    /// The configurations a separate build shares with its environment
    /// ([`EnvSetup::shared`]).
    fn push_shared(&mut self) {
        let shared = std::mem::take(&mut self.setup.shared);
        for spec in shared {
            let Some(&t) = spec.name.as_ref().and_then(|n| self.index.get(n)) else {
                continue;
            };
            self.push_initial(
                t,
                Req {
                    spec: Cow::Owned(spec),
                    presence: false,
                    external_only: false,
                    origin: Origin::Shared,
                },
            );
        }
    }

    fn push_initial(&mut self, t: usize, req: Req<'a>) {
        if req.presence {
            self.pending.insert(t);
        }
        self.reqs[t].push(req);
    }
}

impl EnvSetup<'_> {
    /// The environment's compiler that `c` names: the default first, then
    /// the others in their order.
    pub fn pick_compiler(&self, c: &CompilerSpec) -> Option<&NodeCompiler> {
        std::iter::once(self.compiler)
            .chain(&self.others)
            .find(|n| n.name == c.name && c.versions.contains(&n.version))
    }

    /// Sets the compilers of a package built from source in `base` (which
    /// has the default): the one `wanted` names (`%nvhpc`), and one per
    /// language where `wanted` names another (`%fortran=nvhpc`).
    pub fn choose_compilers(&self, base: &mut Spec, wanted: &Spec) {
        let exact = |c: &NodeCompiler| CompilerSpec {
            name: c.name.clone(),
            versions: VersionConstraint::exact(c.version.clone()),
        };
        if let Some(c) = wanted.compiler.as_ref().and_then(|c| self.pick_compiler(c)) {
            base.compiler = Some(exact(c));
        }
        base.languages = wanted
            .languages
            .iter()
            .filter_map(|(lang, c)| Some((lang.clone(), exact(self.pick_compiler(c)?))))
            .filter(|(_, c)| Some(c) != base.compiler.as_ref())
            .collect();
    }

    /// The plan compilers of a decided spec: its compiler and those of its
    /// languages that differ.
    pub fn node_compilers(&self, spec: &Spec) -> (NodeCompiler, BTreeMap<String, NodeCompiler>) {
        let main = spec
            .compiler
            .as_ref()
            .and_then(|c| self.pick_compiler(c))
            .unwrap_or(self.compiler)
            .clone();
        let languages = spec
            .languages
            .iter()
            .filter_map(|(lang, c)| Some((lang.clone(), self.pick_compiler(c)?.clone())))
            .filter(|(_, c)| *c != main)
            .collect();
        (main, languages)
    }
}
