//! What a failure teaches the flipped pass ([`super::Alt::Flipped`]) of the
//! packages whose dependencies took part: the dependencies to avoid.

use crate::recipes::Dependency;

use super::super::candidates::Candidate;
use super::super::requirement::{Clash, Origin, Req};
use super::{Alt, Solver};

/// What a clash teaches ([`Solver::lessons`]).
struct Lessons<'a> {
    tools: Vec<(usize, usize)>,
    avoid: Vec<(usize, &'a Dependency)>,
}

impl<'a> Solver<'a> {
    /// Learn from `clash` on slot `slot` (see [`Self::lessons`]).
    pub(super) fn note_clash(&mut self, slot: usize, clash: &Clash) {
        let sides: Vec<&Req<'a>> = clash
            .first
            .into_iter()
            .chain([clash.second])
            .map(|i| &self.reqs[slot][i])
            .collect();
        let lessons = self.lessons(slot, &sides);
        self.learn(lessons);
    }

    /// Learn from `req`, which clashes with requirement `k` on slot `t`
    /// (see [`Self::lessons`]).
    pub(super) fn teach_clash(&mut self, t: usize, k: usize, req: &Req<'a>) {
        let lessons = self.lessons(t, &[req, &self.reqs[t][k]]);
        self.learn(lessons);
    }

    /// What a clash between `sides` on slot `t` teaches: the pairs of a
    /// dependent and a build tool it needs only to build that took part
    /// (for [`Solver::tool_clashes`]), and the dependencies behind the
    /// sides with their packages' levels, whose flipped pass then flips a
    /// variant of their condition.
    fn lessons(&self, t: usize, sides: &[&Req<'a>]) -> Lessons<'a> {
        Lessons {
            tools: self.tool_clash(t, sides),
            avoid: sides.iter().filter_map(|r| self.dependency_of(r)).collect(),
        }
    }

    fn learn(&mut self, lessons: Lessons<'a>) {
        self.tool_clashes.extend(lessons.tools);
        for (level, dep) in lessons.avoid {
            self.avoid_on(level, dep);
        }
    }

    /// The level of the package whose dependency made `r`, and the
    /// dependency.
    pub(super) fn dependency_of(&self, r: &Req<'a>) -> Option<(usize, &'a Dependency)> {
        match r.origin {
            Origin::Dependency { parent, dep } | Origin::DependencyDep { parent, dep } => {
                self.level_of[parent].map(|l| (l, dep))
            }
            _ => None,
        }
    }

    /// Remember, on the level of each package whose conditional dependency
    /// names package `slot` — which no repository has, no version of which
    /// meets the requirements, or none of whose candidates works — that
    /// dependency: the package's [`Alt::Flipped`]
    /// pass then flips a variant of its condition that nothing asked for
    /// (nvshmem's default `+pytorch` asks for a `py-pytorch` no repository
    /// has; py-torch's default `+cusparselt` for a cusparselt built for
    /// CUDA 12 only), as Spack's solver avoids it.
    pub(super) fn note_dependents(&mut self, slot: usize) {
        let blamed: Vec<(usize, &'a Dependency)> = self.reqs[slot]
            .iter()
            .filter_map(|r| match r.origin {
                Origin::Dependency { parent, dep } => Some((self.level_of[parent]?, dep)),
                _ => None,
            })
            .collect();
        for (level, dep) in blamed {
            self.avoid_on(level, dep);
        }
    }

    /// Add `dep` to the dependencies `level` avoids (when its condition
    /// names variants: a condition on versions only is left to the version
    /// search). When the level's [`Alt::Flipped`] pass has begun, it is
    /// queued again, so that the versions already tried with flips are
    /// tried with this flip too.
    pub(super) fn avoid_on(&mut self, level: usize, dep: &'a Dependency) {
        let names_variants = dep
            .when
            .as_ref()
            .is_some_and(|w| !w.spec.variants.is_empty());
        if !names_variants {
            return;
        }
        self.log_lesson(self.levels[level].slot, dep);
        let lv = &mut self.levels[level];
        if lv.avoid.iter().any(|d| std::ptr::eq(*d, dep)) {
            return;
        }
        lv.avoid.push(dep);
        let begun = lv.alts[..lv.next]
            .iter()
            .any(|a| matches!(a, Alt::Flipped(_)));
        if begun {
            let again: Vec<Alt<'a>> = lv
                .alts
                .iter()
                .filter_map(|a| match a {
                    Alt::Cand(c @ Candidate::Build(_)) => Some(Alt::Flipped(*c)),
                    _ => None,
                })
                .collect();
            lv.alts.extend(again);
        }
    }
}
