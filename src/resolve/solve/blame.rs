//! Which decisions a failure is blamed on, and refusing a candidate as soon
//! as it makes a package's version requirements exclude each other.
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

use crate::recipes::Dependency;
use crate::spec::{Spec, VersionConstraint};

use super::super::candidates::external_version;
use super::super::requirement::Req;
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
    /// undecided package slot `t` that asks for versions `req` excludes,
    /// when one of the two puts the package into the environment. Such a
    /// slot could never be opened, so the candidate that makes `req` is
    /// refused at once instead of after every decision in between.
    /// A requirement that no version meets on its own is left to fail
    /// when the slot opens, where it is the failure to report.
    pub(super) fn version_clash(&self, t: usize, req: &Req<'a>) -> Option<usize> {
        let SlotKind::Package(recipe) = self.slots[t].kind else {
            return None;
        };
        if self.decided[t].is_some() || req.spec.versions.is_any() {
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
        self.reqs[t].iter().position(|r| {
            (r.presence || req.presence)
                && !r.spec.versions.intersects(&req.spec.versions)
                && exists(&r.spec.versions)
        })
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
        let mut cs = self.atom_blame(lv.slot, &relevant);
        let presence: Vec<Option<usize>> = self.reqs[lv.slot]
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
            Reject::Late { .. } | Reject::Clash { .. } => {}
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
