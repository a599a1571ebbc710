//! Conflict learning: the decisions a failure was blamed on, remembered as
//! a *nogood* so that the search does not walk into the same dead end again.
//!
//! Backjumping leaves the latest decision of a conflict set and undoes the
//! decisions after it; the next time the search comes down that way (after
//! an earlier decision changed) it used to decide every package in between
//! again and fail the same way. In pytorch (gh200), `py-grpcio@1.75.0`
//! asks `py-cython@3.1.1:` and every `py-fastrlock` asks `py-cython@3.0`:
//! every version of `py-cupy` (which needs `py-fastrlock`) failed, then
//! every version of `nvshmem` (which needs `py-cupy`), and on back to
//! `py-torch`, and each time a decision before them changed, the forty
//! decisions from `py-torch` to `py-cupy` were made again.
//!
//! Each backjump records its conflict set as a nogood: the decisions of its
//! levels (package and concrete configuration, or virtual and provider),
//! which together leave some needed package without a working alternative.
//! A decision that makes every decision of a nogood hold again is refused
//! at once, as a failure below it would be: the other levels of the nogood
//! join the level's conflict set, and the explanation the nogood was
//! learnt with becomes the level's cause, as the backjump that taught it
//! made it that level's cause. A nogood holds whatever the decisions
//! outside it are: that is what a conflict set claims (see [`super::blame`]),
//! and what backjumping already relies on when it skips the decisions after
//! the latest of its levels.
//!
//! The search below a decision also teaches: the conditional dependencies
//! a package's [`super::Alt::Flipped`] pass avoids ([`Solver::avoid_on`]).
//! A nogood keeps what the search below its latest decision taught, and
//! teaches it again where it refuses a decision (without it, `p4 ~x`,
//! refused because its dependency `p5` fails, would never try `p4 +x`); a
//! refused decision at a level backtracking returned to is listed as tried
//! in the error, as the decision it stands for would be. So the search
//! finds the plans it finds without learning
//! (`search_equivalence_tests.rs`), and its error messages (the snapshots
//! of `tests/it/resolve_errors.rs`) are unchanged.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::recipes::Dependency;
use crate::spec::Spec;

use super::super::error::Explanation;
use super::{Alt, Decision, Solver};

/// What a slot was decided as, compared between decisions.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) enum Key {
    Node {
        spec: Spec,
        external: bool,
    },
    /// The provider, and which of its `provides:` entries (by address:
    /// the same within one search).
    Provider(usize, Option<usize>),
    /// Any configuration that satisfies the spec (what a deferred conflict
    /// asks of a dependency it names).
    Satisfies(Spec),
}

/// Counters of one search (`stack -vv resolve` logs them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Alternatives that got past their own checks (a package's candidate,
    /// a virtual's provider).
    pub decisions: usize,
    /// Jumps back to an earlier decision after a failure.
    pub backjumps: usize,
    /// Nogoods recorded.
    pub learned: usize,
    /// Decisions refused because they completed a nogood.
    pub pruned: usize,
}

/// A set of decisions that cannot all hold.
#[derive(Debug)]
struct Nogood<'a> {
    atoms: Vec<(usize, Arc<Key>)>,
    /// The failure it was learnt from.
    why: Option<Arc<Explanation>>,
    /// What the search below its latest decision taught (the package slot
    /// whose [`super::Level::avoid`] took the dependency): taught again
    /// where the nogood refuses a decision, as the search it saves would.
    lessons: Vec<(usize, &'a Dependency)>,
}

/// The nogoods of one search.
#[derive(Debug, Default)]
pub(super) struct Nogoods<'a> {
    list: Vec<Nogood<'a>>,
    /// Every lesson taught ([`Solver::avoid_on`]), in order: a level's
    /// [`super::Level::lessons`] is where its decision's begin.
    pub lessons: Vec<(usize, &'a Dependency)>,
    /// For each slot, the nogoods that name it.
    by_slot: HashMap<usize, Vec<usize>>,
    seen: HashSet<Vec<(usize, Arc<Key>)>>,
    /// The key of each decided slot (stale when the slot is undecided).
    keys: Vec<Option<Arc<Key>>>,
    /// What the failure being backjumped from asks of some slots, instead
    /// of their decisions (taken by the nogood learnt next).
    pub asked: Vec<(usize, Spec)>,
    pub stats: SearchStats,
}

impl Nogoods<'_> {
    pub fn new(slots: usize) -> Self {
        Nogoods {
            keys: vec![None; slots],
            ..Nogoods::default()
        }
    }
}

impl<'a> Solver<'a> {
    /// Note the key of `slot`, just decided at `level`.
    fn note_key(&mut self, level: usize, slot: usize) {
        let key = match &self.decided[slot] {
            Some(Decision::Node(c)) => Key::Node {
                spec: c.spec.clone(),
                external: c.external.is_some(),
            },
            Some(Decision::Provider { slot: p, .. }) => {
                let lv = &self.levels[level];
                let when = match lv.next.checked_sub(1).and_then(|i| lv.alts.get(i)) {
                    Some(Alt::Provider { when, .. }) => {
                        when.map(|w| std::ptr::from_ref(w) as usize)
                    }
                    _ => None,
                };
                Key::Provider(*p, when)
            }
            None => return,
        };
        self.nogoods.keys[slot] = Some(Arc::new(key));
    }

    /// Log a lesson taught to the level of `slot` (see [`Nogood::lessons`]).
    pub(super) fn log_lesson(&mut self, slot: usize, dep: &'a Dependency) {
        if self.setup.learn {
            self.nogoods.lessons.push((slot, dep));
        }
    }

    /// Whether decided slot `s` is decided as `key`.
    fn holds(&self, s: usize, key: &Arc<Key>) -> bool {
        match (&**key, &self.decided[s]) {
            (_, None) => false,
            (Key::Satisfies(spec), Some(Decision::Node(c))) => c.spec.satisfies(spec),
            (Key::Satisfies(_), _) => false,
            _ => self.nogoods.keys[s]
                .as_ref()
                .is_some_and(|k| Arc::ptr_eq(k, key) || **k == **key),
        }
    }

    /// Record the decisions of the levels in `cs` as a nogood, learnt from
    /// the failure `why` explains.
    pub(super) fn learn_nogood(
        &mut self,
        cs: &std::collections::BTreeSet<usize>,
        why: Option<Arc<Explanation>>,
    ) {
        let asked = std::mem::take(&mut self.nogoods.asked);
        if !self.setup.learn || cs.is_empty() {
            return;
        }
        let mut atoms = Vec::with_capacity(cs.len());
        for &l in cs {
            let s = self.levels[l].slot;
            if let Some((_, spec)) = asked.iter().find(|(t, _)| *t == s) {
                atoms.push((s, Arc::new(Key::Satisfies(spec.clone()))));
                continue;
            }
            match &self.nogoods.keys[s] {
                Some(k) if self.decided[s].is_some() => atoms.push((s, k.clone())),
                _ => return,
            }
        }
        if !self.nogoods.seen.insert(atoms.clone()) {
            return;
        }
        let latest = cs.last().map_or(0, |&l| self.levels[l].lessons);
        let mut lessons: Vec<(usize, &'a Dependency)> = Vec::new();
        for &(s, dep) in &self.nogoods.lessons[latest..] {
            if !lessons
                .iter()
                .any(|(t, d)| *t == s && std::ptr::eq(*d, dep))
            {
                lessons.push((s, dep));
            }
        }
        let i = self.nogoods.list.len();
        for (s, _) in &atoms {
            self.nogoods.by_slot.entry(*s).or_default().push(i);
        }
        self.nogoods.list.push(Nogood {
            atoms,
            why,
            lessons,
        });
        self.nogoods.stats.learned += 1;
    }

    /// The first nogood (in the order learnt) that the decision of `slot`
    /// just made completes.
    fn completed_nogood(&self, slot: usize) -> Option<usize> {
        let ids = self.nogoods.by_slot.get(&slot)?;
        ids.iter().copied().find(|&i| {
            self.nogoods.list[i]
                .atoms
                .iter()
                .all(|(s, k)| self.holds(*s, k))
        })
    }

    /// Refuse the decision of `slot` just made at `level` when it completes
    /// a nogood: `true` when refused (undone, the nogood's other levels in
    /// the level's conflict set, its failure the level's cause).
    pub(super) fn refuse_learnt(&mut self, level: usize, slot: usize) -> bool {
        if !self.setup.learn {
            return false;
        }
        self.note_key(level, slot);
        let Some(i) = self.completed_nogood(slot) else {
            self.levels[level].lessons = self.nogoods.lessons.len();
            return false;
        };
        let others: Vec<usize> = self.nogoods.list[i]
            .atoms
            .iter()
            .filter(|(s, _)| *s != slot)
            .filter_map(|(s, _)| self.level_of[*s])
            .collect();
        let why = self.nogoods.list[i].why.clone();
        tracing::trace!(level, decided = %self.describe(slot), ?others, "refused: learnt nogood");
        // tried, as far as the error message goes (the search it saves
        // would have decided it)
        if self.levels[level].retried && self.tried.len() < 8 {
            let d = self.describe(slot);
            self.tried.push(d);
        }
        self.undo_candidate(level, slot);
        self.nogoods.stats.pruned += 1;
        let lv = &mut self.levels[level];
        lv.acc.extend(others);
        let flipped = lv
            .next
            .checked_sub(1)
            .is_some_and(|i| matches!(lv.alts.get(i), Some(Alt::Flipped(_))));
        if let Some(why) = why {
            if flipped {
                lv.flipped_cause = Some((*why).clone());
            } else if lv.cause.is_none() {
                lv.cause = Some((*why).clone());
            }
        }
        lv.retried = true;
        // what the search below the decision would have taught the levels
        // that stay
        let lessons: Vec<(usize, &'a Dependency)> = self.nogoods.list[i]
            .lessons
            .iter()
            .filter_map(|&(s, dep)| match self.level_of[s] {
                Some(l) => Some((l, dep)),
                None if s == slot => Some((level, dep)),
                None => None,
            })
            .collect();
        for (l, dep) in lessons {
            self.avoid_on(l, dep);
        }
        true
    }
}
