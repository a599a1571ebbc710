//! Deciding one slot: preparing its alternatives (a package's candidates, a
//! virtual's providers), and applying one — concrete variants, conflicts,
//! the requirements it puts on its dependencies.

use std::collections::BTreeSet;

use crate::recipes::{DepTypes, Dependency, PackageRecipe, Provider, When};
use crate::spec::{Spec, VersionConstraint};

use super::super::candidates::{Candidate, candidates, external_version};
use super::super::requirement::{Origin, Req, merge};
use super::super::variants::{Defaults, choose};
use super::node_flags::{node_flags, with_propagated};
use super::settle::{Unsettled, settle_conflicts};
use super::setup::flat_deps;
use super::{Alt, Concrete, Decision, Level, OpenFailure, Reject, SlotKind, Solver, with_name};

impl<'a> Solver<'a> {
    /// Prepare the alternatives of `slot` and push a level for it.
    #[allow(clippy::result_large_err)] // built once per failure
    pub(super) fn open(&mut self, slot: usize) -> Result<usize, (OpenFailure, BTreeSet<usize>)> {
        let (alts, wanted, flip_conflicts) = match self.slots[slot].kind {
            SlotKind::Missing => {
                let cs = self.creators(&self.reqs[slot]);
                self.note_dependents(slot);
                return Err((OpenFailure::Missing, cs));
            }
            SlotKind::Virtual(providers) => {
                let (alts, wanted) = self.open_virtual(slot, providers)?;
                (alts, wanted, false)
            }
            SlotKind::Package(recipe) => self.open_package(slot, recipe)?,
        };
        let level = Level::new(slot, self.trail.len(), alts, wanted, flip_conflicts);
        self.levels.push(level);
        Ok(self.levels.len() - 1)
    }

    /// A virtual's alternatives: its providers that offer the versions asked.
    #[allow(clippy::result_large_err)]
    fn open_virtual(
        &self,
        slot: usize,
        providers: &'a [Provider],
    ) -> Result<(Vec<Alt<'a>>, Spec), (OpenFailure, BTreeSet<usize>)> {
        let all = || self.creators(&self.reqs[slot]);
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
        Ok((alts, wanted))
    }

    /// A package's alternatives: its candidates, then (when a conflict or a
    /// dependency depends on a variant nobody asked for) the built ones
    /// again with that variant flipped. The flag: whether conflicts may flip.
    #[allow(clippy::result_large_err, clippy::type_complexity)]
    fn open_package(
        &mut self,
        slot: usize,
        recipe: &'a PackageRecipe,
    ) -> Result<(Vec<Alt<'a>>, Spec, bool), (OpenFailure, BTreeSet<usize>)> {
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
        self.check_target_and_compiler(slot, &wanted)?;
        let reqs = &self.reqs[slot];
        let external_only = reqs.iter().any(|r| r.external_only);
        let c = candidates(recipe, &wanted, &self.slots[slot].policy, external_only);
        if c.list.is_empty() {
            let blame = self.no_candidate_blame(slot, recipe);
            // No version meets the requirements: as when none of
            // its candidates works, the dependents flip the
            // variant that asks for it (`p3 +x` asks `p7@2`).
            self.note_dependents(slot);
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
        let flip_conflicts = recipe.conflicts.iter().any(|k| free(&k.when));
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
        Ok((alts, wanted, flip_conflicts))
    }

    /// The merged requirements ask for another target than the cluster's,
    /// or for a compiler the environment does not offer.
    #[allow(clippy::result_large_err)]
    fn check_target_and_compiler(
        &self,
        slot: usize,
        wanted: &Spec,
    ) -> Result<(), (OpenFailure, BTreeSet<usize>)> {
        let reqs = &self.reqs[slot];
        if let Some(t) = &wanted.target
            && !t.satisfied_by(self.setup.target)
        {
            let i = reqs
                .iter()
                .position(|r| {
                    r.spec
                        .target
                        .as_ref()
                        .is_some_and(|t| !t.satisfied_by(self.setup.target))
                })
                .unwrap_or(0);
            return Err((OpenFailure::Target(i), self.creators([&reqs[i]])));
        }
        let bad_compiler = |s: &Spec| {
            s.compiler
                .iter()
                .chain(s.languages.values())
                .any(|c| self.setup.pick_compiler(c).is_none())
        };
        if bad_compiler(wanted) {
            let i = reqs.iter().position(|r| bad_compiler(&r.spec)).unwrap_or(0);
            return Err((OpenFailure::Compiler(i), self.creators([&reqs[i]])));
        }
        Ok(())
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

    /// What a chosen configuration of `slot` asks of its dependencies: one
    /// requirement per dependency whose condition holds (with the variants
    /// it propagates), and one per package its dependency spec names inside
    /// (`^zlib` in `hdf5 ^zlib@1.3`), which does not make that package present.
    fn dependency_reqs(&self, slot: usize, concrete: &Concrete<'a>) -> Vec<(usize, Req<'a>)> {
        let mut pushes: Vec<(usize, Req<'a>)> = Vec::new();
        if concrete.external.is_some() {
            return pushes;
        }
        let recipe = concrete.recipe;
        for (i, dep) in recipe.dependencies.iter().enumerate() {
            if dep
                .when
                .as_ref()
                .is_some_and(|w| !concrete.spec.satisfies(&w.spec))
            {
                continue;
            }
            if concrete.separate.iter().any(|d| std::ptr::eq(*d, dep)) {
                continue;
            }
            let t = self.dep_slots[slot][i];
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
        pushes
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
        let pushes = self.dependency_reqs(slot, &concrete);
        self.decided[slot] = Some(Decision::Node(Box::new(concrete)));
        self.level_of[slot] = Some(level);
        let mut rest = pushes.into_iter();
        while let Some((t, req)) = rest.next() {
            if let (SlotKind::Missing, Origin::Dependency { dep, .. }, true) =
                (self.slots[t].kind, &req.origin, req.presence)
            {
                // No repository has the package: this candidate can never
                // work, and its flipped pass avoids the condition.
                let dep = *dep;
                self.refuse(level, slot, dep);
                self.levels[level]
                    .rejects
                    .push(Reject::Missing { cand: label, dep });
                return false;
            }
            match self.requirement_clash(t, &req) {
                Some((k, true)) => {
                    let others: Vec<(usize, Req<'a>)> = rest.collect();
                    self.refuse_for_clash(level, slot, (t, k), &req, &others, label);
                    return false;
                }
                Some((k, false)) => {
                    // left to fail where it is the failure to report; what
                    // opening `t` would teach is taught now
                    self.teach_clash(t, k, &req);
                }
                None => {}
            }
            if let Err((l, req)) = self.push(t, req) {
                let tools = self.tool_clash(t, &[&req]);
                self.tool_clashes.extend(tools);
                let wanted = with_name(&req.spec, &self.slots[t].name).to_string();
                self.levels[level].acc.insert(l);
                match req.origin {
                    Origin::Dependency { dep, .. } => self.refuse(level, slot, dep),
                    Origin::DependencyDep { dep, .. } => {
                        self.undo_candidate(level, slot);
                        let blame = self.condition_blame(slot, dep);
                        self.levels[level].acc.extend(blame);
                    }
                    _ => self.undo_candidate(level, slot),
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

    /// Undo the candidate being applied to `slot` at `level`.
    pub(super) fn undo_candidate(&mut self, level: usize, slot: usize) {
        let mark = self.levels[level].mark;
        self.undo_to(mark);
        self.decided[slot] = None;
        self.level_of[slot] = None;
    }

    /// Undo the candidate being applied to `slot` at `level`, refused for
    /// what its dependency `dep` asks: the decisions behind `dep`'s
    /// condition are blamed, and the flipped pass avoids it.
    fn refuse(&mut self, level: usize, slot: usize, dep: &'a Dependency) {
        self.undo_candidate(level, slot);
        let blame = self.condition_blame(slot, dep);
        self.levels[level].acc.extend(blame);
        self.avoid_on(level, dep);
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
                for (i, d) in recipe.dependencies.iter().enumerate() {
                    if d.when.as_ref().is_some_and(|w| !spec.satisfies(&w.spec)) {
                        continue;
                    }
                    let t = self.dep_slots[slot][i];
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
                let separate = self.separate_dependencies(recipe, &spec, &mut deps);
                Ok(Concrete {
                    recipe,
                    version: entry.version.clone(),
                    entry: Some(entry),
                    external: None,
                    spec,
                    deps,
                    deferred,
                    separate,
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
                    separate: Vec::new(),
                    flipped: Vec::new(),
                })
            }
        }
    }
}
