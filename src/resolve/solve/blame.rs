//! Which decisions a failure is blamed on, and refusing a candidate as soon
//! as it makes the requirements on a package exclude each other.
//!
//! Backjumping goes to the latest decision in a failure's conflict set and
//! tries its other alternatives; a decision that is in the set without
//! being able to change the outcome makes the search try every alternative
//! of it in vain (with the ROCm stack's lock-step versions, every version
//! of every package that merely needs `rocblas`). So a set holds, for each
//! thing asked of the package, the earliest decision that asks it, and of
//! the decisions that put it into the environment the earliest: with them
//! the package is there, asked the same, whatever the later ones decide.

use std::collections::{BTreeMap, BTreeSet};

use crate::recipes::{Dependency, VariantKind};
use crate::spec::{Spec, VariantValue, VersionConstraint};

use super::super::candidates::external_version;
use super::super::requirement::{Origin, Req};
use super::super::variants::VariantProblem;
use super::{Reject, SlotKind, Solver};

/// Whether `spec` asks nothing but versions (and the name).
fn only_versions(spec: &Spec) -> bool {
    let mut s = spec.clone();
    s.name = None;
    s.versions = VersionConstraint::any();
    s.is_empty()
}

impl<'a> Solver<'a> {
    /// Forward checking: the index of a requirement already on the
    /// undecided package slot `t` that `req` cannot hold beside — versions
    /// it excludes, or another value of a variant of the recipe that takes
    /// one (`llvm ~clang` beside ispc's `llvm +clang`) — when one of the two
    /// puts the package into the environment. Such a slot could never be
    /// opened, so the candidate that makes `req` is refused at once instead
    /// of after every decision in between (`true`: the first such). A
    /// requirement that no version meets on its own is left to fail when
    /// the slot opens, where it is the failure to report (`false`: the
    /// first clash of that kind, when there is no other).
    pub(super) fn requirement_clash(&self, t: usize, req: &Req<'a>) -> Option<(usize, bool)> {
        if self.setup.plain
            || self.decided[t].is_some()
            || req.spec.versions.is_any() && req.spec.variants.is_empty()
        {
            return None;
        }
        let mut unmet = None;
        for (k, r) in self.reqs[t].iter().enumerate() {
            match self.clash_between(t, r, req) {
                Some(true) => return Some((k, true)),
                Some(false) if unmet.is_none() => unmet = Some((k, false)),
                _ => {}
            }
        }
        unmet
    }

    /// Whether requirements `a` and `b` on package slot `t` cannot both
    /// hold (see [`Self::requirement_clash`]): `None` when they can; else
    /// whether some version meets `a` on its own (or a variant clashes).
    fn clash_between(&self, t: usize, a: &Req<'a>, b: &Req<'a>) -> Option<bool> {
        let SlotKind::Package(recipe) = self.slots[t].kind else {
            return None;
        };
        if !(a.presence || b.presence) {
            return None;
        }
        let exists = |c: &VersionConstraint| {
            recipe.versions.iter().any(|e| c.contains(&e.version))
                || self.slots[t]
                    .policy
                    .externals
                    .iter()
                    .any(|e| external_version(e).is_some_and(|v| c.contains(&v)))
        };
        let variants_clash = b.spec.variants.iter().any(|(name, v)| {
            let Some(def) = recipe.variant(name) else {
                return false;
            };
            let single = matches!(def.kind, VariantKind::Single { .. });
            a.spec.variants.get(name).is_some_and(|w| {
                matches!(
                    (v, w),
                    (VariantValue::Bool(_), VariantValue::Bool(_))
                        | (VariantValue::Values(_), VariantValue::Values(_))
                ) && !v.intersects(w, single)
            })
        });
        if variants_clash {
            Some(true)
        } else if !a.spec.versions.intersects(&b.spec.versions) {
            Some(exists(&a.spec.versions))
        } else {
            None
        }
    }

    /// Undo the candidate being applied to `slot` at `level` because `req`,
    /// one of its demands, clashes with requirement `k` on slot `t`
    /// ([`Self::requirement_clash`]): the levels to blame go to the level's
    /// `acc`, and the refusal is recorded. The dependencies on both sides of
    /// this clash, and of those the candidate's `others` demands (not yet
    /// made) would meet, are noted for the flipped pass of their packages:
    /// what opening those packages after the candidate would have taught.
    pub(super) fn refuse_for_clash(
        &mut self,
        level: usize,
        slot: usize,
        (t, k): (usize, usize),
        req: &Req<'a>,
        others: &[(usize, Req<'a>)],
        cand: String,
    ) {
        let (text, loc) = self.phrase(t, req);
        let asked = super::super::explain::with_loc(text, loc.as_ref());
        let other = &self.reqs[t][k];
        let other_text = self.phrase(t, other);
        let creator = self.creators(std::iter::once(other));
        let tools = self.tool_clash(t, &[req, other]);
        self.tool_clashes.extend(tools);
        let taught = self.clashes_taught(level, slot, (t, req), others);
        self.undo_candidate(level, slot);
        self.levels[level].acc.extend(creator);
        if let Origin::Dependency { dep, .. } | Origin::DependencyDep { dep, .. } = req.origin {
            let blame = self.condition_blame(slot, dep);
            self.levels[level].acc.extend(blame);
        }
        for (l, dep) in taught {
            self.avoid_on(l, dep);
        }
        self.levels[level].rejects.push(Reject::Clash {
            cand,
            asked,
            other: other_text,
        });
    }

    /// The dependencies, with their packages' levels, behind every two
    /// requirements that cannot both hold on a package the candidate being
    /// applied to `slot` at `level` makes demands on — those it made, `req`
    /// on slot `t` that is refused, and the `others` it has not made —
    /// where one of the two is the candidate's: what opening those packages
    /// after it would have taught.
    fn clashes_taught(
        &self,
        level: usize,
        slot: usize,
        (t, req): (usize, &Req<'a>),
        others: &[(usize, Req<'a>)],
    ) -> Vec<(usize, &'a Dependency)> {
        let mark = self.levels[level].mark;
        let mut slots: BTreeSet<usize> = self.trail[mark..].iter().copied().collect();
        slots.insert(t);
        slots.extend(others.iter().map(|(t2, _)| *t2));
        let mut taught = Vec::new();
        for t2 in slots {
            if self.decided[t2].is_some() {
                continue;
            }
            let pending = std::iter::once(req)
                .filter(|_| t2 == t)
                .chain(others.iter().filter(|(s, _)| *s == t2).map(|(_, r)| r));
            let all: Vec<&Req<'a>> = self.reqs[t2].iter().chain(pending).collect();
            let ours = |r: &Req<'a>| r.origin.decided_by() == Some(slot);
            // The pairs with one of ours, in the order of all pairs: not
            // every pair (a package such as `python` holds hundreds of
            // requirements, and this ran at every refusal).
            let ours_at: Vec<usize> = (0..all.len()).filter(|&k| ours(all[k])).collect();
            let mut pair = |a: &Req<'a>, b: &Req<'a>| {
                if self.clash_between(t2, a, b).is_some() {
                    taught.extend(self.dependency_of(a));
                    taught.extend(self.dependency_of(b));
                }
            };
            for (i, a) in all.iter().enumerate() {
                if ours(a) {
                    for b in &all[i + 1..] {
                        pair(a, b);
                    }
                } else {
                    let from = ours_at.partition_point(|&j| j <= i);
                    for &j in &ours_at[from..] {
                        pair(a, all[j]);
                    }
                }
            }
        }
        taught
    }

    /// The levels behind the condition of `dep` of the candidate being
    /// applied to `slot`, when the candidate is refused for what `dep`
    /// asks: none for a condition on versions alone (the level's own
    /// choice), else those behind what the requirements on `slot` ask
    /// (variants, compilers … they chose may have made it hold).
    pub(super) fn condition_blame(&self, slot: usize, dep: &Dependency) -> BTreeSet<usize> {
        match &dep.when {
            Some(w) if !only_versions(&w.spec) || !w.spec.deps.is_empty() => {
                self.atom_blame(slot, &Relevant::all())
            }
            _ => BTreeSet::new(),
        }
    }

    /// The levels to blame when no alternative of `level` works, besides
    /// those its refusals collected (`acc`): those behind what the
    /// requirements ask of the package that its refusals turned on (the
    /// versions always: they made the alternatives), and, unless a
    /// requirement no decision made puts the package there, the earliest
    /// level that does.
    pub(super) fn exhausted_blame(&self, level: usize) -> BTreeSet<usize> {
        let lv = &self.levels[level];
        let relevant = if lv.rejects.is_empty() {
            Relevant::all()
        } else {
            let mut r = Relevant::default();
            for reject in &lv.rejects {
                r.add(reject);
            }
            // a variant that exists under a condition: what made it exist
            let recipe = self.recipe(lv.slot);
            let conditional = |name: &String| {
                recipe
                    .and_then(|rc| rc.variant(name))
                    .is_none_or(|d| d.when.is_some())
            };
            if r.variants.iter().any(conditional) {
                r = Relevant::all();
            }
            r
        };
        let slot = lv.slot;
        let mut cs = self.atom_blame(slot, &relevant);
        let presence: Vec<Option<usize>> = self.reqs[slot]
            .iter()
            .filter(|r| r.presence)
            .map(|r| self.creator(r))
            .collect();
        if !presence.iter().any(Option::is_none) {
            cs.extend(presence.into_iter().flatten().min());
        }
        cs
    }

    fn creator(&self, r: &Req<'a>) -> Option<usize> {
        r.origin.decided_by().and_then(|s| self.level_of[s])
    }

    /// For each `relevant` thing the requirements on `slot` ask (a version
    /// range, a variant value, the rest of a spec, external only), the
    /// earliest level whose decision asks it — none when a requirement no
    /// decision made asks it too. Keeping those levels keeps every one of
    /// them asked, so the merged requirement, and the failure it caused,
    /// stays whatever later levels decide. A version range that does not
    /// narrow those of earlier levels (`@5.2:` beside the stack's `@7.2.0`)
    /// takes no part.
    fn atom_blame(&self, slot: usize, relevant: &Relevant) -> BTreeSet<usize> {
        let mut reqs: Vec<(Option<usize>, &Req<'a>)> = self.reqs[slot]
            .iter()
            .map(|r| (self.creator(r), r))
            .collect();
        // requirements no decision made first, then by level
        reqs.sort_by_key(|(c, _)| c.map_or(0, |l| l + 1));
        let mut versions = VersionConstraint::any();
        let mut earliest: BTreeMap<String, Option<usize>> = BTreeMap::new();
        for (creator, r) in reqs {
            let mut atoms = Vec::new();
            if !versions.is_subset_of(&r.spec.versions) {
                if let Some(v) = versions.intersect(&r.spec.versions) {
                    versions = v;
                }
                atoms.push(format!("@{}", r.spec.versions));
            }
            if r.external_only && relevant.rest {
                atoms.push("external".to_string());
            }
            for (name, v) in &r.spec.variants {
                if relevant.all_variants || relevant.variants.contains(name) {
                    atoms.push(v.to_spec_text(name));
                }
            }
            if relevant.rest {
                let mut rest = r.spec.as_ref().clone();
                rest.name = None;
                rest.versions = VersionConstraint::any();
                rest.variants.clear();
                if !rest.is_empty() {
                    atoms.push(format!("rest {rest}"));
                }
            }
            for atom in atoms {
                earliest.entry(atom).or_insert(creator);
            }
        }
        earliest.into_values().flatten().collect()
    }
}

/// What of the requirements on a package its refusals turned on, besides
/// their versions.
#[derive(Default)]
struct Relevant {
    all_variants: bool,
    variants: BTreeSet<String>,
    /// Compilers, flags, targets, external only.
    rest: bool,
}

impl Relevant {
    fn all() -> Relevant {
        Relevant {
            all_variants: true,
            variants: BTreeSet::new(),
            rest: true,
        }
    }

    fn add(&mut self, reject: &Reject<'_>) {
        match reject {
            // their blame is in the level's `acc`
            Reject::Late { .. } | Reject::Clash { .. } | Reject::Missing { .. } => {}
            Reject::Conflict { conflict, .. } => {
                let when = &conflict.when.spec;
                self.variants.extend(when.variants.keys().cloned());
                if !only_versions(when) || !when.deps.is_empty() {
                    let mut rest = when.clone();
                    rest.variants.clear();
                    self.rest |= !only_versions(&rest) || !rest.deps.is_empty();
                }
            }
            Reject::Variant { problem, .. } => {
                let (VariantProblem::Unknown { variant }
                | VariantProblem::Inactive { variant, .. }
                | VariantProblem::BadValue { variant, .. }) = problem;
                self.variants.insert(variant.clone());
                // an inactive variant's condition may name others
                if matches!(problem, VariantProblem::Inactive { .. }) {
                    self.all_variants = true;
                    self.rest = true;
                }
            }
            Reject::External { .. } | Reject::ExternalVersion { .. } => {
                *self = Relevant::all();
            }
        }
    }
}
