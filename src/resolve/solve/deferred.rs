//! Conflicts that name dependencies (`{when: "wrapper=ompi ^cray-mpich"}`):
//! checked once everything is decided, against each package's decided
//! dependency closure.

use std::collections::BTreeSet;

use super::super::error::Explanation;
use super::{Decision, Solver};
use crate::spec::Spec;

/// A deferred conflict that holds: its explanation, conflict set, and what
/// it asks of the dependencies it names (slot, spec).
pub(super) type Deferred = (Explanation, BTreeSet<usize>, Vec<(usize, Spec)>);

impl Solver<'_> {
    /// The package slots in the dependency closure of package slot `s`
    /// (virtuals resolved to their providers), without `s`.
    pub fn closure(&self, s: usize) -> Vec<usize> {
        let mut seen = BTreeSet::from([s]);
        let mut stack = vec![s];
        while let Some(x) = stack.pop() {
            if let Some(Decision::Node(c)) = &self.decided[x] {
                for &(t, _) in &c.deps {
                    let r = self.resolved(t);
                    if seen.insert(r) {
                        stack.push(r);
                    }
                }
            }
        }
        seen.remove(&s);
        seen.into_iter().collect()
    }

    /// Package slot `s`'s spec with the specs of `closure` (its
    /// [`Solver::closure`]) as dependencies, sorted by name: what a `when:`
    /// naming dependencies (`^openmpi`) is tested against.
    pub fn closure_spec(&self, s: usize, closure: &[usize]) -> Spec {
        let Some(Decision::Node(c)) = &self.decided[s] else {
            unreachable!("a decided package slot");
        };
        let mut full = c.spec.clone();
        full.deps = closure
            .iter()
            .filter_map(|t| match &self.decided[*t] {
                Some(Decision::Node(d)) => Some(d.spec.clone()),
                _ => None,
            })
            .collect();
        full.deps.sort_by(|a, b| a.name.cmp(&b.name));
        full
    }

    /// The first deferred conflict that holds, with its explanation,
    /// conflict set (the package's decision, and the decisions that brought
    /// in the dependencies it names) and, for the dependencies it names,
    /// what it asks of them (`intel-oneapi-mkl threads=none`): the nogood
    /// learnt from it holds for any decision of theirs that meets that, not
    /// only for the version decided ([`super::nogood`]).
    pub(super) fn check_deferred(&self) -> Option<Deferred> {
        for s in 0..self.slots.len() {
            let Some(Decision::Node(c)) = &self.decided[s] else {
                continue;
            };
            if c.deferred.is_empty() {
                continue;
            }
            let closure = self.closure(s);
            let full = self.closure_spec(s, &closure);
            for conflict in &c.deferred {
                if !full.satisfies(&conflict.when.spec) {
                    continue;
                }
                let mut names = Vec::new();
                for d in &conflict.when.spec.deps {
                    super::super::order::spec_names(d, &mut names);
                }
                let dep_slots: Vec<usize> = names
                    .iter()
                    .filter_map(|n| self.index.get(n).copied())
                    .filter(|t| closure.contains(t))
                    .collect();
                // The conflict set: the package, the packages on its paths
                // to the named dependencies (any of them may have led
                // elsewhere), the providers chosen on the way, and whatever
                // shaped the named dependencies.
                let on_path: Vec<usize> = closure
                    .iter()
                    .copied()
                    .filter(|&t| {
                        dep_slots.contains(&t)
                            || self.closure(t).iter().any(|x| dep_slots.contains(x))
                    })
                    .collect();
                let mut cs: BTreeSet<usize> = self.level_of[s].into_iter().collect();
                for &t in &on_path {
                    cs.extend(self.level_of[t]);
                }
                for &t in &dep_slots {
                    cs.extend(self.creators(&self.reqs[t]));
                }
                for (v, d) in self.decided.iter().enumerate() {
                    if let Some(Decision::Provider { slot }) = d {
                        if on_path.contains(slot) {
                            cs.extend(self.level_of[v]);
                        }
                    }
                }
                let asked = dep_slots
                    .iter()
                    .filter_map(|&t| {
                        let name = &self.slots[t].name;
                        let mut named = conflict
                            .when
                            .spec
                            .deps
                            .iter()
                            .filter(|d| d.name.as_ref() == Some(name));
                        match (named.next(), named.next()) {
                            (Some(d), None) if d.deps.is_empty() => Some((t, d.clone())),
                            _ => None,
                        }
                    })
                    .collect();
                return Some((self.explain_deferred(s, conflict, &dep_slots), cs, asked));
            }
        }
        None
    }
}
