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
//! **Learning.** Each backjump also records its conflict set as a nogood
//! ([`nogood`]): a decision that completes one again is refused at once,
//! instead of the search below it being explored again.
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
mod decision;
mod deferred;
mod learn;
#[cfg(test)]
mod learning_tests;
mod node_flags;
mod nogood;
mod providers;
#[cfg(test)]
mod search_equivalence_tests;
#[cfg(test)]
mod search_fixture;
mod separate;
#[cfg(test)]
mod separate_tests;
mod settle;
mod setup;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use crate::recipes::{Dependency, PackageRecipe, Provider, When};
use crate::spec::Spec;

use super::candidates::Candidate;
use super::error::Explanation;
use super::policy::PkgPolicy;
use super::requirement::{ProviderReason, Req};

pub(crate) use decision::{Concrete, Decision, Flip, FlipReason, OpenFailure, Reject};
pub use nogood::SearchStats;
pub(crate) use setup::{EnvSetup, RootInput};

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
    /// Where the lessons taught since its decision begin
    /// ([`nogood::Nogoods::lessons`]).
    lessons: usize,
}

impl<'a> Level<'a> {
    /// The level of `slot` before its first alternative is tried; `mark`:
    /// where its requirements begin on the trail.
    fn new(
        slot: usize,
        mark: usize,
        alts: Vec<Alt<'a>>,
        wanted: Spec,
        flip_conflicts: bool,
    ) -> Level<'a> {
        Level {
            slot,
            mark,
            alts,
            next: 0,
            acc: BTreeSet::new(),
            rejects: Vec::new(),
            wanted,
            retried: false,
            cause: None,
            flipped_cause: None,
            flip_conflicts,
            avoid: Vec::new(),
            lessons: 0,
        }
    }
}

/// The search state for one environment.
pub(crate) struct Solver<'a> {
    pub setup: EnvSetup<'a>,
    pub slots: Vec<Slot<'a>>,
    pub index: HashMap<String, usize>,
    /// For each package slot, the slot of each dependency of its recipe
    /// (in the recipe's order): looked up once, not at every candidate.
    dep_slots: Vec<Vec<usize>>,
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
    /// (dependent, build tool) slot pairs whose build-only requirement
    /// took part in a clash on the tool: separating them may get past the
    /// clash (slots are kept by [`Solver::again`]).
    pub tool_clashes: BTreeSet<(usize, usize)>,
    /// What the failures taught ([`nogood`]), and the search's counters.
    nogoods: nogood::Nogoods<'a>,
}

impl<'a> Solver<'a> {
    /// Whether the search stopped at the step limit rather than running
    /// out of alternatives.
    pub fn gave_up(&self) -> bool {
        self.steps > self.setup.max_steps
    }

    /// The search's counters.
    pub fn stats(&self) -> SearchStats {
        self.nogoods.stats
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
                        let failure = self
                            .check_deferred()
                            .or_else(|| self.check_cycles().map(|(e, cs)| (e, cs, Vec::new())));
                        match failure {
                            None => return Ok(()),
                            Some((explanation, cs, asked)) => {
                                self.nogoods.asked = asked;
                                tracing::trace!(?cs, problem = %explanation.problem, "fails once decided");
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
        let keep = flipped || lv.cause.is_none();
        let why = (keep || self.setup.learn).then(|| Arc::new(why(self)));
        if let Some(e) = why.as_ref().filter(|_| keep) {
            let e = Some((**e).clone());
            if flipped {
                self.levels[j].flipped_cause = e;
            } else {
                self.levels[j].cause = e;
            }
        }
        self.learn_nogood(&cs, why);
        self.nogoods.stats.backjumps += 1;
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
            if applied && self.refuse_learnt(level, slot) {
                continue;
            }
            if applied {
                self.nogoods.stats.decisions += 1;
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
        self.note_dependents(slot);
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
