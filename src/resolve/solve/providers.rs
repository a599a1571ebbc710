//! Virtuals: the providers tried for one, in order, and applying a
//! provider choice.

use std::borrow::Cow;

use crate::recipes::{Provider, When};
use crate::spec::{Spec, VersionConstraint};

use super::super::provider_defaults::default_providers;
use super::super::requirement::{Origin, ProviderReason, Req};
use super::{Alt, Decision, Reject, Solver, with_name};

impl<'a> Solver<'a> {
    /// The versions of virtual `slot` its requirements ask for (`mpi@3:`
    /// and `mpi@:3.1` ask for `3:3.1`); `None` when they exclude each other.
    pub(super) fn virtual_versions(&self, slot: usize) -> Option<VersionConstraint> {
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
        // A root's `%libllvm=llvm` names the provider.
        let virt = self.slots[slot].name.as_str();
        let named = self.reqs[slot].iter().find_map(|r| match r.origin {
            Origin::RootDep { .. } => r.spec.name.as_deref().filter(|n| *n != virt),
            _ => None,
        });
        let allowed = |p: &Provider| {
            named.is_none_or(|n| n == p.package)
                && p.versions.intersects(versions)
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
            // One alternative per `provides:` entry: llvm provides
            // `libllvm` when `@22`, when `@21`, … — each is a way to
            // provide it.
            let when = p.when.as_ref();
            if out.iter().any(|a| {
                matches!(a, Alt::Provider { slot, when: w, .. }
                    if *slot == t && w.map(std::ptr::from_ref) == when.map(std::ptr::from_ref))
            }) {
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
                        .any(|r| matches!(r.origin, Origin::RootDep { .. } | Origin::Shared))
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
            pushes.push(r.req(Cow::Owned(spec)));
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
}
