//! Concretizing one environment: a depth-first search over decisions with
//! conflict-directed backjumping.
//!
//! **Slots.** Every package and virtual that could take part gets a slot,
//! numbered in [decision order](super::order) (dependents before
//! dependencies). A slot collects [`Req`]uirements; it is *needed* once some
//! requirement puts it into the environment (root specs, dependencies of
//! decided packages, a provider choice).
//!
//! **Decisions.** The solver repeatedly takes the needed, undecided slot
//! that comes first in the order and decides it:
//! - a package: all requirements are merged into one abstract spec (a clash
//!   fails right there), then candidates are tried in preference order
//!   (externals, then versions, see [`super::candidates`]): variants are
//!   chosen ([`super::variants`]), the recipe's `conflicts:` are checked, and
//!   the dependencies whose `when:` holds become requirements on their slots;
//! - a virtual: a provider is chosen (policy `require`, a provider the
//!   environment already asks for, policy `prefer`, Spack's default
//!   preferences ([`super::provider_defaults`]), then the first by name)
//!   and becomes needed, with the provider's `provides: … when:` as a
//!   requirement.
//!
//! **Backtracking.** Each requirement records the decision that created it.
//! When a slot cannot be decided, the *conflict set* is the set of decisions
//! that created the requirements involved (for a clash between two
//! requirements, just their two creators); the search jumps back to the most
//! recent decision in that set, undoes everything after it, and tries that
//! decision's next alternative, carrying the rest of the conflict set along
//! (conflict-directed backjumping, which skips decisions that cannot have
//! caused the failure). An empty conflict set means the roots and policies
//! themselves cannot be met. The failure explained is the one that ended
//! the search: each level keeps the first failure that sent the search
//! back to it (why its preferred alternative failed) and passes it on when
//! all its alternatives fail (or, when a flipped variant got past that
//! cause, the failure met with the flip), so the root's exhaustion leads
//! down to a cause (cp2k ← libint ← `gmp` has no variant `cxx`); the first clash met,
//! often one that backtracking got past, is shown below it. Once
//! everything is decided, a conflict naming dependencies ([`deferred`]) or a
//! dependency cycle ([`cycles`]) is a failure like the others.
//!
//! **Variants** are searched only in one way: after every candidate of a
//! package was tried with the chosen values, each version is tried again
//! letting a variant nothing asked for take its other value when a
//! `conflicts:` entry holds, or when the condition of a dependency holds
//! whose requirement clashed with the others on its package
//! ([`Alt::Flipped`], [`Level::avoid`]: `conduit +hdf5_compat` requires
//! `hdf5@1.8` but another package `hdf5@1.12:`, so `~hdf5_compat`); each
//! flip is recorded ([`Concrete::flipped`]) and shown by `stack resolve
//! --explain`. Versions come first: the dependent's older versions are
//! tried with the default variants before any flip.

#[cfg(test)]
mod backtrack_tests;
mod blame;
mod cycles;
mod decide;
mod deferred;
mod node_flags;
#[cfg(test)]
mod search_equivalence_tests;
mod settle;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use crate::cluster::{External, Policies};
use crate::diag::Loc;
use crate::recipes::{
    Conflict, DepTypes, Dependency, PackageRecipe, PackageRepo, Provider, SpecRef, VersionEntry,
    When,
};
use crate::spec::{CompilerSpec, Spec, Version, VersionConstraint};

use super::candidates::Candidate;
use super::error::Explanation;
use super::model::{NodeCompiler, RootKind};
use super::order::decision_order;
use super::policy::{PkgPolicy, effective};
use super::requirement::{Clash, Origin, ProviderReason, Req};
use super::variants::VariantProblem;

/// Give up after this many alternatives unless told otherwise
/// ([`super::ResolveOptions::max_steps`]): the search is exponential in the
/// worst case; real stacks need a handful.
pub(crate) const MAX_STEPS: usize = 200_000;

/// What a slot stands for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SlotKind<'a> {
    Package(&'a Arc<PackageRecipe>),
    Virtual(&'a [Provider]),
    /// No recipe and no provider: an error if it is ever needed.
    Missing,
}

#[derive(Debug)]
pub(crate) struct Slot<'a> {
    pub name: String,
    pub kind: SlotKind<'a>,
    pub policy: PkgPolicy<'a>,
}

/// A decided package.
#[derive(Clone, Debug)]
pub(crate) struct Concrete<'a> {
    pub recipe: &'a Arc<PackageRecipe>,
    pub version: Version,
    pub entry: Option<&'a VersionEntry>,
    pub external: Option<&'a External>,
    /// Name, exact version, every variant, compiler, target, os, platform.
    pub spec: Spec,
    /// Active dependencies: target slot (a package or a virtual) and types.
    pub deps: Vec<(usize, DepTypes)>,
    /// `conflicts:` whose condition names dependencies (`wrapper=mpich
    /// ^openmpi`) and whose own part holds: checked once the dependencies
    /// are decided.
    pub deferred: Vec<&'a Conflict>,
    /// Variants that take their other value to avoid a conflict (only in
    /// the second pass over a package's candidates, see [`Alt::Flipped`]).
    pub flipped: Vec<Flip<'a>>,
}

/// A variant nothing asked for, set to `value` (not what the defaults
/// give) because `why` holds otherwise.
#[derive(Clone, Debug)]
pub(crate) struct Flip<'a> {
    pub variant: String,
    /// The value it takes.
    pub value: crate::spec::VariantValue,
    /// The value it had (its default), if it existed.
    pub from: Option<crate::spec::VariantValue>,
    pub why: FlipReason<'a>,
}

/// What a [`Flip`] avoids.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FlipReason<'a> {
    /// A `conflicts:` entry of the package.
    Conflict(&'a Conflict),
    /// A dependency whose requirement clashed with the others on its
    /// package (`depends_on("hdf5@1.8", when="+hdf5_compat")` against
    /// another package's `hdf5@1.12:`).
    Dependency(&'a Dependency),
}

impl Concrete<'_> {
    pub fn label(&self) -> String {
        format!("{}@{}", self.recipe.name, self.version)
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Decision<'a> {
    Node(Box<Concrete<'a>>),
    /// The package slot chosen to provide a virtual.
    Provider {
        slot: usize,
    },
}

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
    /// ([`super::ResolveOptions::plain_backjumping`]).
    pub plain: bool,
}

/// Why a candidate was rejected without deciding anything.
#[derive(Clone, Debug)]
pub(crate) enum Reject<'a> {
    Variant {
        cand: String,
        problem: VariantProblem<'a>,
    },
    Conflict {
        cand: String,
        conflict: &'a Conflict,
    },
    /// An external whose spec does not meet the requirements.
    External { external: &'a External },
    /// An external without an exact version.
    ExternalVersion { external: &'a External },
    /// Applying it puts a demand on an already decided slot that it does
    /// not meet (only within dependency cycles).
    Late {
        cand: String,
        slot: usize,
        wanted: String,
    },
    /// Applying it asks a package for versions (`asked`: the requirement
    /// in words, with its place) that a requirement already on it
    /// (`other`, in words, and its place) excludes.
    Clash {
        cand: String,
        asked: String,
        other: (String, Option<Loc>),
    },
}

/// Why a slot could not be opened.
#[derive(Clone, Debug)]
pub(crate) enum OpenFailure {
    Missing,
    NoProvider,
    /// The requirements on a virtual ask for versions (`mpi@3.1`) that no
    /// provider provides (`provides: [mpi@:3.0]`); `None`: versions no
    /// single version satisfies.
    NoProviderVersion(Option<crate::spec::VersionConstraint>),
    Clash(Clash),
    /// Requirement `req` asks for another target.
    Target(usize),
    /// Requirement `req` asks for another compiler.
    Compiler(usize),
    NoCandidate {
        wanted: Spec,
        external_only: bool,
    },
}

#[derive(Clone, Debug)]
enum Alt<'a> {
    Cand(Candidate<'a>),
    /// A version to build again, now letting variants nothing asked for
    /// take their other value when a conflict holds, or when the condition
    /// of a dependency whose requirement clashed holds
    /// ([`Level::avoid`]): tried after every candidate with the chosen
    /// values (Spack's solver, too, takes an older version before a
    /// non-default variant value).
    Flipped(Candidate<'a>),
    Provider {
        slot: usize,
        reason: ProviderReason<'a>,
        when: Option<&'a When>,
    },
}

#[derive(Debug)]
pub(crate) struct Level<'a> {
    pub slot: usize,
    mark: usize,
    alts: Vec<Alt<'a>>,
    next: usize,
    /// Conflict set carried back from later failures.
    acc: BTreeSet<usize>,
    pub rejects: Vec<Reject<'a>>,
    /// The merged requirements (packages).
    pub wanted: Spec,
    /// Whether a later failure sent the search back here.
    retried: bool,
    /// Why its first alternative failed: the first failure that sent the
    /// search back here (when every alternative fails, this is the cause
    /// passed on; see [`Solver::final_failure`]).
    cause: Option<Explanation>,
    /// The latest failure that sent the search back here while a
    /// [`Alt::Flipped`] alternative was in place: the flip got past the
    /// first cause, so when every alternative fails this one is passed on.
    flipped_cause: Option<Explanation>,
    /// Whether some `conflicts:` entry of the package names a variant
    /// nothing asked for (the [`Alt::Flipped`] pass can avoid it).
    flip_conflicts: bool,
    /// Dependencies of this package whose requirement clashed with the
    /// others on their package (or with its decided configuration): the
    /// [`Alt::Flipped`] pass flips a variant of their condition.
    pub avoid: Vec<&'a Dependency>,
}

/// The search state for one environment.
pub(crate) struct Solver<'a> {
    pub setup: EnvSetup<'a>,
    pub slots: Vec<Slot<'a>>,
    pub index: HashMap<String, usize>,
    pub reqs: Vec<Vec<Req<'a>>>,
    trail: Vec<usize>,
    pub decided: Vec<Option<Decision<'a>>>,
    level_of: Vec<Option<usize>>,
    pub levels: Vec<Level<'a>>,
    pending: BTreeSet<usize>,
    pub first_failure: Option<Explanation>,
    /// The failure that ended the search: followed from the root's
    /// exhaustion down through the first cause of each level (cp2k ←
    /// libint ← `gmp` has no variant `cxx`), rather than the first clash
    /// met, which a later choice often resolved.
    pub final_failure: Option<Explanation>,
    pub tried: Vec<String>,
    pub steps: usize,
}

fn flat_deps<'s>(spec: &'s Spec, out: &mut Vec<&'s Spec>) {
    for d in &spec.deps {
        out.push(d);
        flat_deps(d, out);
    }
}

impl<'a> Solver<'a> {
    pub fn new(setup: EnvSetup<'a>) -> Solver<'a> {
        let repo = setup.repo;
        let mut start: Vec<String> = Vec::new();
        for r in &setup.roots {
            super::order::spec_names(&r.spec.spec, &mut start);
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
        let n = slots.len();
        let mut s = Solver {
            setup,
            slots,
            index,
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
        };
        let roots = s.setup.roots.clone();
        for r in roots {
            let name = r.spec.name().unwrap_or_default();
            let origin = match r.kind {
                RootKind::Spec => Origin::Root(r.spec),
                RootKind::Network => Origin::Network {
                    spec: r.spec,
                    cluster: r.from_cluster,
                },
            };
            let t = s.index[name];
            s.push_initial(
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
                let t = s.index[d.name.as_deref().unwrap_or_default()];
                s.push_initial(
                    t,
                    Req {
                        spec: Req::node_part(d),
                        presence: false,
                        external_only: false,
                        origin: Origin::RootDep { root: r.spec },
                    },
                );
            }
        }
        for t in 0..s.slots.len() {
            if !matches!(s.slots[t].kind, SlotKind::Package(_)) {
                continue;
            }
            let reqs: Vec<Req<'a>> = s.slots[t]
                .policy
                .require
                .iter()
                .map(|r| Req {
                    spec: Cow::Owned(r.effective.clone()),
                    presence: false,
                    external_only: false,
                    origin: Origin::Policy {
                        key: r.key,
                        spec: r.spec,
                        layer: r.layer,
                    },
                })
                .collect();
            for r in reqs {
                s.push_initial(t, r);
            }
        }
        s
    }

    fn push_initial(&mut self, t: usize, req: Req<'a>) {
        if req.presence {
            self.pending.insert(t);
        }
        self.reqs[t].push(req);
    }

    /// Whether the search stopped at the step limit rather than running
    /// out of alternatives.
    pub fn gave_up(&self) -> bool {
        self.steps > self.setup.max_steps
    }

    /// Whether slot `t` is in the environment.
    pub fn needed(&self, t: usize) -> bool {
        self.reqs[t].iter().any(|r| r.presence)
    }

    pub fn recipe(&self, t: usize) -> Option<&'a PackageRecipe> {
        match self.slots[t].kind {
            SlotKind::Package(r) => Some(r),
            _ => None,
        }
    }

    /// Add a requirement to slot `t`; `Err(level)` when `t` is already
    /// decided in a way that does not meet it.
    fn push(&mut self, t: usize, req: Req<'a>) -> Result<(), (usize, Box<Req<'a>>)> {
        if let Some(d) = &self.decided[t] {
            let ok = match d {
                Decision::Node(c) => {
                    c.spec.satisfies(&req.spec) && (!req.external_only || c.external.is_some())
                }
                Decision::Provider { .. } => true,
            };
            if !ok {
                let level = self.level_of[t].expect("decided slots have a level");
                return Err((level, Box::new(req)));
            }
        }
        if req.presence && self.decided[t].is_none() {
            self.pending.insert(t);
        }
        self.reqs[t].push(req);
        self.trail.push(t);
        Ok(())
    }

    fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            let t = self.trail.pop().expect("trail");
            self.reqs[t].pop();
            if self.decided[t].is_none() && !self.needed(t) {
                self.pending.remove(&t);
            }
        }
    }

    fn undecide(&mut self, t: usize) {
        self.decided[t] = None;
        self.level_of[t] = None;
        if self.needed(t) {
            self.pending.insert(t);
        }
    }

    /// The decision levels that created `reqs`.
    fn creators<'r>(&self, reqs: impl IntoIterator<Item = &'r Req<'a>>) -> BTreeSet<usize>
    where
        'a: 'r,
    {
        reqs.into_iter()
            .filter_map(|r| r.origin.decided_by())
            .filter_map(|s| self.level_of[s])
            .collect()
    }

    /// Run the search. `Err(())`: no solution; see `first_failure`.
    pub fn run(&mut self) -> Result<(), ()> {
        let mut retry: Option<usize> = None;
        loop {
            let level = match retry.take() {
                Some(l) => l,
                None => {
                    let Some(&slot) = self.pending.first() else {
                        // Everything is decided: check the conflicts that
                        // name dependencies.
                        match self.check_deferred().or_else(|| self.check_cycles()) {
                            None => return Ok(()),
                            Some((explanation, cs)) => {
                                if self.first_failure.is_none() {
                                    self.first_failure = Some(explanation.clone());
                                }
                                retry = Some(self.backjump(cs, |_: &Self| explanation).ok_or(())?);
                                continue;
                            }
                        }
                    };
                    match self.open(slot) {
                        Ok(l) => l,
                        Err((failure, cs)) => {
                            if tracing::enabled!(tracing::Level::TRACE) {
                                let e = self.explain_open(slot, &failure);
                                tracing::trace!(slot = %self.slots[slot].name, ?cs, problem = %e.problem, "cannot open");
                            }
                            // A failure no decision caused ends the search: it
                            // is the one to report, whatever failed before it.
                            if self.first_failure.is_none() || cs.is_empty() {
                                self.first_failure = Some(self.explain_open(slot, &failure));
                            }
                            retry = Some(
                                self.backjump(cs, |s: &Self| s.explain_open(slot, &failure))
                                    .ok_or(())?,
                            );
                            continue;
                        }
                    }
                }
            };
            if let Err(cs) = self.try_next(level) {
                // Passed on: why the level's first alternative failed, or
                // (none got past its own checks) its rejections.
                let lv = &mut self.levels[level];
                let cause = lv.flipped_cause.take().or_else(|| lv.cause.take());
                let jump = match cause {
                    Some(c) => self.backjump(cs, |_: &Self| c),
                    None => self.backjump(cs, |s: &Self| s.explain_exhausted(level)),
                };
                retry = Some(jump.ok_or(())?);
            }
        }
    }

    /// Go back to the latest level in `cs` (`None`: the search is over);
    /// `why` explains the failure, kept as that level's cause when it has
    /// none, or as the final failure.
    fn backjump<F>(&mut self, cs: BTreeSet<usize>, why: F) -> Option<usize>
    where
        F: FnOnce(&Self) -> Explanation,
    {
        if self.steps > self.setup.max_steps {
            return None;
        }
        let Some(&j) = cs.last() else {
            self.final_failure = Some(why(self));
            return None;
        };
        let lv = &self.levels[j];
        let flipped = lv
            .next
            .checked_sub(1)
            .is_some_and(|i| matches!(lv.alts.get(i), Some(Alt::Flipped(_))));
        if flipped {
            self.levels[j].flipped_cause = Some(why(self));
        } else if lv.cause.is_none() {
            self.levels[j].cause = Some(why(self));
        }
        tracing::trace!(to = %self.slots[self.levels[j].slot].name, level = j, "backjump");
        while self.levels.len() > j + 1 {
            let l = self.levels.pop().expect("level");
            self.undo_to(l.mark);
            self.undecide(l.slot);
        }
        let (mark, slot) = (self.levels[j].mark, self.levels[j].slot);
        self.undo_to(mark);
        self.undecide(slot);
        let lv = &mut self.levels[j];
        lv.acc.extend(cs.into_iter().filter(|&x| x != j));
        lv.retried = true;
        Some(j)
    }

    /// Try the next alternative of `level`; `Err(conflict set)` when none is
    /// left.
    fn try_next(&mut self, level: usize) -> Result<(), BTreeSet<usize>> {
        let slot = self.levels[level].slot;
        let mark = self.levels[level].mark;
        self.undo_to(mark);
        self.decided[slot] = None;
        self.level_of[slot] = None;
        while self.levels[level].next < self.levels[level].alts.len() {
            let alt = self.levels[level].alts[self.levels[level].next].clone();
            self.levels[level].next += 1;
            self.steps += 1;
            if self.steps > self.setup.max_steps {
                return Err(BTreeSet::new());
            }
            let applied = match alt {
                Alt::Cand(c) => self.apply_candidate(level, slot, c, false),
                Alt::Flipped(_)
                    if !self.levels[level].flip_conflicts
                        && self.levels[level].avoid.is_empty() =>
                {
                    false
                }
                Alt::Flipped(c) => self.apply_candidate(level, slot, c, true),
                Alt::Provider {
                    slot: p,
                    reason,
                    when,
                } => self.apply_provider(level, slot, p, reason, when),
            };
            if applied {
                tracing::trace!(level, decided = %self.describe(slot), "decide");
                self.pending.remove(&slot);
                if self.levels[level].retried && self.tried.len() < 8 {
                    let d = self.describe(slot);
                    self.tried.push(d);
                }
                return Ok(());
            }
        }
        // the packages that bring it in under a condition learn to avoid it
        self.note_missing(slot);
        let mut cs = self.levels[level].acc.clone();
        if self.setup.plain {
            cs.extend(self.creators(&self.reqs[slot]));
        } else {
            cs.extend(self.exhausted_blame(level));
        }
        cs.remove(&level);
        if tracing::enabled!(tracing::Level::TRACE) {
            let e = self.explain_exhausted(level);
            let lines: Vec<&str> = e.lines.iter().map(|l| l.text.as_str()).collect();
            tracing::trace!(slot = %self.slots[slot].name, ?cs, problem = %e.problem, ?lines, "alternatives exhausted");
        }
        if self.first_failure.is_none() {
            self.first_failure = Some(self.explain_exhausted(level));
        }
        Err(cs)
    }

    /// A short description of what `slot` was decided as.
    pub fn describe(&self, slot: usize) -> String {
        match &self.decided[slot] {
            Some(Decision::Node(c)) => match c.external {
                Some(_) => format!("{} (external)", c.label()),
                None => c.label(),
            },
            Some(Decision::Provider { slot: p, .. }) => {
                format!("{} from {}", self.slots[slot].name, self.slots[*p].name)
            }
            None => self.slots[slot].name.clone(),
        }
    }

    /// The package slot that `slot` stands for: itself, or the chosen
    /// provider of a virtual (followed through virtuals provided by
    /// virtuals).
    pub fn resolved(&self, mut slot: usize) -> usize {
        for _ in 0..self.slots.len() {
            match &self.decided[slot] {
                Some(Decision::Provider { slot: p, .. }) => slot = *p,
                _ => return slot,
            }
        }
        slot
    }
}

/// `spec` with its name set to `name` (for messages).
pub(crate) fn with_name(spec: &Spec, name: &str) -> Spec {
    let mut s = spec.clone();
    s.name = Some(name.to_string());
    s
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
