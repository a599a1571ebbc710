//! Deciding one slot: preparing its alternatives (a package's candidates, a
//! virtual's providers), and applying one — concrete variants, conflicts,
//! the requirements it puts on its dependencies.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::recipes::{DepTypes, Dependency, PackageRecipe, Provider, When};
use crate::spec::{Spec, VersionConstraint};

use super::super::candidates::{Candidate, candidates, external_version};
use super::super::provider_defaults::default_providers;
use super::super::requirement::{Origin, ProviderReason, Req, merge};
use super::super::variants::{Defaults, choose};
use super::node_flags::{node_flags, with_propagated};
use super::settle::{Unsettled, settle_conflicts};
use super::{
    Alt, Concrete, Decision, Level, OpenFailure, Reject, SlotKind, Solver, flat_deps, with_name,
};

impl<'a> Solver<'a> {
    /// Prepare the alternatives of `slot` and push a level for it.
    #[allow(clippy::result_large_err)] // built once per failure
    pub(super) fn open(&mut self, slot: usize) -> Result<usize, (OpenFailure, BTreeSet<usize>)> {
        let all = || self.creators(&self.reqs[slot]);
        let mut flip_conflicts = false;
        let (alts, wanted) = match self.slots[slot].kind {
            SlotKind::Missing => {
                let cs = all();
                self.note_missing(slot);
                return Err((OpenFailure::Missing, cs));
            }
            SlotKind::Virtual(providers) => {
                let Some(versions) = self.virtual_versions(slot) else {
                    return Err((OpenFailure::NoProviderVersion(None), all()));
                };
                let alts = self.provider_alts(slot, providers, &versions);
                if alts.is_empty() {
                    let by_version = providers.iter().any(|p| !p.versions.intersects(&versions));
                    let failure = if by_version {
                        OpenFailure::NoProviderVersion(Some(versions))
                    } else {
                        OpenFailure::NoProvider
                    };
                    return Err((failure, all()));
                }
                let mut wanted = Spec::named(self.slots[slot].name.clone());
                wanted.versions = versions;
                (alts, wanted)
            }
            SlotKind::Package(recipe) => {
                let reqs = &self.reqs[slot];
                let wanted = match merge(&recipe.name, Some(recipe), reqs) {
                    Ok(w) => w,
                    Err(clash) => {
                        let cs = match clash.first {
                            Some(i) => self.creators([&reqs[i], &reqs[clash.second]]),
                            None => self.creators(&reqs[..=clash.second]),
                        };
                        self.note_clash(slot, &clash);
                        // A version the stack pins that no recipe has (`hip@5.4`)
                        // is the failure, not the clash met first.
                        if let Some(failure) = self.fixed_no_candidate(slot, recipe) {
                            return Err((failure, BTreeSet::new()));
                        }
                        return Err((OpenFailure::Clash(clash), cs));
                    }
                };
                if let Some(t) = &wanted.target {
                    if !t.satisfied_by(self.setup.target) {
                        let i = reqs
                            .iter()
                            .position(|r| {
                                r.spec
                                    .target
                                    .as_ref()
                                    .is_some_and(|t| !t.satisfied_by(self.setup.target))
                            })
                            .unwrap_or(0);
                        let cs = self.creators([&reqs[i]]);
                        return Err((OpenFailure::Target(i), cs));
                    }
                }
                let bad_compiler = |s: &Spec| {
                    s.compiler
                        .iter()
                        .chain(s.languages.values())
                        .any(|c| self.setup.pick_compiler(c).is_none())
                };
                if bad_compiler(&wanted) {
                    let i = reqs.iter().position(|r| bad_compiler(&r.spec)).unwrap_or(0);
                    let cs = self.creators([&reqs[i]]);
                    return Err((OpenFailure::Compiler(i), cs));
                }
                let external_only = reqs.iter().any(|r| r.external_only);
                let c = candidates(recipe, &wanted, &self.slots[slot].policy, external_only);
                if c.list.is_empty() {
                    let blame = self.no_candidate_blame(slot, recipe);
                    return Err((
                        OpenFailure::NoCandidate {
                            wanted,
                            external_only,
                        },
                        blame,
                    ));
                }
                let mut alts: Vec<Alt<'a>> = c.list.iter().copied().map(Alt::Cand).collect();
                let free = |w: &When| {
                    w.spec
                        .variants
                        .keys()
                        .any(|v| !wanted.variants.contains_key(v))
                };
                flip_conflicts = recipe.conflicts.iter().any(|k| free(&k.when));
                let may_flip = flip_conflicts
                    || recipe
                        .dependencies
                        .iter()
                        .any(|d| d.when.as_ref().is_some_and(free));
                if may_flip {
                    alts.extend(
                        c.list
                            .into_iter()
                            .filter(|c| matches!(c, Candidate::Build(_)))
                            .map(Alt::Flipped),
                    );
                }
                (alts, wanted)
            }
        };
        self.levels.push(Level {
            slot,
            mark: self.trail.len(),
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
        });
        Ok(self.levels.len() - 1)
    }

    /// Remember, on the level of each package whose dependency takes part in
    /// `clash` (on slot `slot`), that dependency: the package's
    /// [`Alt::Flipped`] pass then flips a variant of its condition.
    fn note_clash(&mut self, slot: usize, clash: &super::super::requirement::Clash) {
        let blamed: Vec<(usize, &'a Dependency)> = clash
            .first
            .into_iter()
            .chain([clash.second])
            .filter_map(|i| match self.reqs[slot][i].origin {
                Origin::Dependency { parent, dep } | Origin::DependencyDep { parent, dep } => {
                    Some((self.level_of[parent]?, dep))
                }
                _ => None,
            })
            .collect();
        for (level, dep) in blamed {
            self.avoid_on(level, dep);
        }
    }

    /// Remember, on the level of each package whose conditional dependency
    /// names package `slot` — which no repository has, or none of whose
    /// candidates works — that dependency: the package's [`Alt::Flipped`]
    /// pass then flips a variant of its condition that nothing asked for
    /// (nvshmem's default `+pytorch` asks for a `py-pytorch` no repository
    /// has; py-torch's default `+cusparselt` for a cusparselt built for
    /// CUDA 12 only), as Spack's solver avoids it.
    pub(super) fn note_missing(&mut self, slot: usize) {
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
        let lv = &mut self.levels[level];
        let names_variants = dep
            .when
            .as_ref()
            .is_some_and(|w| !w.spec.variants.is_empty());
        if !names_variants || lv.avoid.iter().any(|d| std::ptr::eq(*d, dep)) {
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

    /// The levels to blame when package `slot` has no candidate. None when
    /// the requirements no decision created (the stack's specs, network specs,
    /// cluster rules) already leave no candidate: no other choice can help,
    /// so the search stops at once with this failure instead of trying every
    /// combination of unrelated packages first.
    fn no_candidate_blame(&self, slot: usize, recipe: &PackageRecipe) -> BTreeSet<usize> {
        if self.fixed_no_candidate(slot, recipe).is_some() {
            BTreeSet::new()
        } else {
            self.creators(&self.reqs[slot])
        }
    }

    /// The failure when the requirements on package `slot` that no decision
    /// created already leave no candidate.
    fn fixed_no_candidate(&self, slot: usize, recipe: &'a PackageRecipe) -> Option<OpenFailure> {
        let fixed: Vec<Req<'a>> = self.reqs[slot]
            .iter()
            .filter(|r| self.creators([*r]).is_empty())
            .cloned()
            .collect();
        if fixed.is_empty() {
            return None;
        }
        let wanted = merge(&recipe.name, Some(recipe), &fixed).ok()?;
        let external_only = fixed.iter().any(|r| r.external_only);
        let c = candidates(recipe, &wanted, &self.slots[slot].policy, external_only);
        c.list.is_empty().then_some(OpenFailure::NoCandidate {
            wanted,
            external_only,
        })
    }

    /// The versions of virtual `slot` its requirements ask for (`mpi@3:`
    /// and `mpi@:3.1` ask for `3:3.1`); `None` when they exclude each other.
    fn virtual_versions(&self, slot: usize) -> Option<VersionConstraint> {
        self.reqs[slot]
            .iter()
            .try_fold(VersionConstraint::any(), |acc, r| {
                acc.intersect(&r.spec.versions)
            })
    }

    /// Providers of a virtual in the order they are tried: the one the
    /// policy requires; else those the environment already asks for (or a
    /// root names as `^provider`), those
    /// the policy prefers, those Spack prefers by default
    /// ([`default_providers`]), then all by name. Only providers of `versions`
    /// of the virtual take part.
    pub(super) fn provider_alts(
        &self,
        slot: usize,
        providers: &'a [Provider],
        versions: &VersionConstraint,
    ) -> Vec<Alt<'a>> {
        let policy = &self.slots[slot].policy;
        let allowed = |p: &Provider| {
            p.versions.intersects(versions)
                && policy
                    .require
                    .iter()
                    .all(|r| r.spec.name().is_none_or(|n| n == p.package))
        };
        let mut out: Vec<Alt<'a>> = Vec::new();
        let add = |p: &'a Provider, reason: ProviderReason<'a>, out: &mut Vec<Alt<'a>>| {
            let Some(&t) = self.index.get(&p.package) else {
                return;
            };
            if out
                .iter()
                .any(|a| matches!(a, Alt::Provider { slot, .. } if *slot == t))
            {
                return;
            }
            out.push(Alt::Provider {
                slot: t,
                reason,
                when: p.when.as_ref(),
            });
        };
        let allowed_providers = providers.iter().filter(|p| allowed(p));
        if let Some(r) = policy.require.iter().find(|r| r.spec.name().is_some()) {
            for p in allowed_providers {
                add(p, ProviderReason::Required(r.spec), &mut out);
            }
            return out;
        }
        for p in allowed_providers.clone() {
            // Needed or decided already, or named by a root's `^p`: as
            // in Spack, `app ^intel-oneapi-mkl` puts the provider in the DAG.
            let requested = self.index.get(&p.package).is_some_and(|&t| {
                self.needed(t)
                    || self.decided[t].is_some()
                    || self.reqs[t]
                        .iter()
                        .any(|r| matches!(r.origin, Origin::RootDep { .. }))
            });
            if requested {
                add(p, ProviderReason::Requested, &mut out);
            }
        }
        for pref in &policy.prefer {
            if let Some(n) = pref.name() {
                if let Some(p) = providers.iter().find(|p| p.package == n && allowed(p)) {
                    add(p, ProviderReason::Preferred(pref), &mut out);
                }
            }
        }
        let virt = self.slots[slot].name.as_str();
        for name in default_providers(virt) {
            if let Some(p) = providers.iter().find(|p| p.package == *name && allowed(p)) {
                add(p, ProviderReason::Default, &mut out);
            }
        }
        for p in allowed_providers {
            add(p, ProviderReason::First, &mut out);
        }
        out
    }

    pub(super) fn apply_candidate(
        &mut self,
        level: usize,
        slot: usize,
        cand: Candidate<'a>,
        flip: bool,
    ) -> bool {
        let lv = &self.levels[level];
        let avoid = if flip { lv.avoid.as_slice() } else { &[] };
        let concrete = match self.concretize(slot, cand, &lv.wanted, flip, avoid) {
            // The second pass only adds configurations with a flipped
            // variant: the others were tried, and explained, in the first.
            Ok(c) if flip && c.flipped.is_empty() => return false,
            Ok(c) => c,
            Err(_) if flip => return false,
            Err(r) => {
                self.levels[level].rejects.push(r);
                return false;
            }
        };
        let label = concrete.label();
        let mut pushes: Vec<(usize, Req<'a>)> = Vec::new();
        if concrete.external.is_none() {
            let recipe = concrete.recipe;
            for dep in &recipe.dependencies {
                if dep
                    .when
                    .as_ref()
                    .is_some_and(|w| !concrete.spec.satisfies(&w.spec))
                {
                    continue;
                }
                let t = self.index[dep.name()];
                pushes.push((
                    t,
                    Req {
                        spec: with_propagated(
                            Req::node_part(&dep.spec.spec),
                            &concrete.spec,
                            dep,
                            matches!(self.slots[t].kind, SlotKind::Package(_)),
                        ),
                        presence: true,
                        external_only: false,
                        origin: Origin::Dependency { parent: slot, dep },
                    },
                ));
                let mut nested = Vec::new();
                flat_deps(&dep.spec.spec, &mut nested);
                for d in nested {
                    let t = self.index[d.name.as_deref().unwrap_or_default()];
                    pushes.push((
                        t,
                        Req {
                            spec: Req::node_part(d),
                            presence: false,
                            external_only: false,
                            origin: Origin::DependencyDep { parent: slot, dep },
                        },
                    ));
                }
            }
        }
        self.decided[slot] = Some(Decision::Node(Box::new(concrete)));
        self.level_of[slot] = Some(level);
        let mut rest = pushes.into_iter();
        while let Some((t, req)) = rest.next() {
            if let Some(k) = self.requirement_clash(t, &req, true) {
                let others: Vec<(usize, Req<'a>)> = rest.collect();
                self.refuse_for_clash(level, slot, (t, k), &req, &others, label);
                return false;
            }
            if let Some(k) = self.requirement_clash(t, &req, false) {
                // left to fail where it is the failure to report; what
                // opening `t` would teach is taught now
                self.teach_clash(t, k, &req);
            }
            if let Err((l, req)) = self.push(t, req) {
                let wanted = with_name(&req.spec, &self.slots[t].name).to_string();
                let mark = self.levels[level].mark;
                self.undo_to(mark);
                self.decided[slot] = None;
                self.level_of[slot] = None;
                self.levels[level].acc.insert(l);
                if let Origin::Dependency { dep, .. } | Origin::DependencyDep { dep, .. } =
                    &req.origin
                {
                    let blame = self.condition_blame(slot, dep);
                    self.levels[level].acc.extend(blame);
                }
                if let Origin::Dependency { dep, .. } = &req.origin {
                    self.avoid_on(level, dep);
                }
                self.levels[level].rejects.push(Reject::Late {
                    cand: label,
                    slot: t,
                    wanted,
                });
                return false;
            }
        }
        true
    }

    pub(super) fn apply_provider(
        &mut self,
        level: usize,
        slot: usize,
        provider: usize,
        reason: ProviderReason<'a>,
        when: Option<&'a When>,
    ) -> bool {
        let external_only = self.slots[slot].policy.buildable.is_some_and(|(b, _)| !b);
        let mut pushes: Vec<Req<'a>> = vec![Req {
            spec: match when {
                Some(w) => Req::node_part(&w.spec),
                None => Cow::Owned(Spec::default()),
            },
            presence: true,
            external_only,
            origin: Origin::Provider {
                virt: slot,
                reason,
                when,
            },
        }];
        for r in &self.slots[slot].policy.require {
            let mut spec = r.effective.clone();
            spec.name = None;
            if spec.is_empty() {
                continue;
            }
            pushes.push(Req {
                spec: Cow::Owned(spec),
                presence: false,
                external_only: false,
                origin: Origin::Policy {
                    key: r.key,
                    spec: r.spec,
                    layer: r.layer,
                },
            });
        }
        self.decided[slot] = Some(Decision::Provider { slot: provider });
        self.level_of[slot] = Some(level);
        for req in pushes {
            if let Err((l, req)) = self.push(provider, req) {
                let wanted = with_name(&req.spec, &self.slots[provider].name).to_string();
                let mark = self.levels[level].mark;
                self.undo_to(mark);
                self.decided[slot] = None;
                self.level_of[slot] = None;
                self.levels[level].acc.insert(l);
                self.levels[level].rejects.push(Reject::Late {
                    cand: self.slots[provider].name.clone(),
                    slot: provider,
                    wanted,
                });
                return false;
            }
        }
        true
    }

    /// The concrete configuration of `cand`, or why it does not fit.
    pub(super) fn concretize(
        &self,
        slot: usize,
        cand: Candidate<'a>,
        wanted: &Spec,
        flip: bool,
        avoid: &[&'a Dependency],
    ) -> Result<Concrete<'a>, Reject<'a>> {
        let SlotKind::Package(recipe) = self.slots[slot].kind else {
            unreachable!("candidates belong to packages");
        };
        let policy = &self.slots[slot].policy;
        let defaults = Defaults {
            prefer: &policy.prefer,
            env: self.setup.env_variants,
        };
        let mut base = self.setup.base.clone();
        base.name = Some(recipe.name.clone());
        match cand {
            Candidate::Build(entry) => {
                base.versions = VersionConstraint::exact(entry.version.clone());
                self.setup.choose_compilers(&mut base, wanted);
                // compiler flags asked for (`cflags=-fPIC`, `require:`,
                // propagated `cflags==`, `prefer:`): seen by `conflicts:`
                // and `when:`, injected at build
                base.flags = node_flags(wanted, &policy.prefer);
                let cand = || format!("{}@{}", recipe.name, entry.version);
                let (spec, deferred, flipped) =
                    settle_conflicts(recipe, base, wanted, defaults, flip, avoid).map_err(|e| {
                        match e {
                            Unsettled::Variant(problem) => Reject::Variant {
                                cand: cand(),
                                problem,
                            },
                            Unsettled::Conflict(conflict) => Reject::Conflict {
                                cand: cand(),
                                conflict,
                            },
                        }
                    })?;
                let mut deps: Vec<(usize, DepTypes)> = Vec::new();
                for d in &recipe.dependencies {
                    if d.when.as_ref().is_some_and(|w| !spec.satisfies(&w.spec)) {
                        continue;
                    }
                    let t = self.index[d.name()];
                    match deps.iter_mut().find(|(s, _)| *s == t) {
                        Some((_, types)) => {
                            types.build |= d.types.build;
                            types.link |= d.types.link;
                            types.run |= d.types.run;
                            types.test |= d.types.test;
                        }
                        None => deps.push((t, d.types)),
                    }
                }
                Ok(Concrete {
                    recipe,
                    version: entry.version.clone(),
                    entry: Some(entry),
                    external: None,
                    spec,
                    deps,
                    deferred,
                    flipped,
                })
            }
            Candidate::External(external) => {
                let version =
                    external_version(external).ok_or(Reject::ExternalVersion { external })?;
                base.versions = VersionConstraint::exact(version.clone());
                let mut ext_wanted = external.spec.spec.clone();
                ext_wanted.deps.clear();
                let variants = choose(recipe, &base, &ext_wanted, defaults)
                    .map_err(|_| Reject::External { external })?;
                let mut spec = base;
                spec.variants = variants;
                if !spec.satisfies(wanted) {
                    return Err(Reject::External { external });
                }
                Ok(Concrete {
                    recipe,
                    version,
                    entry: None,
                    external: Some(external),
                    spec,
                    deps: Vec::new(),
                    deferred: Vec::new(),
                    flipped: Vec::new(),
                })
            }
        }
    }
}
