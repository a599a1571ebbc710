//! Requirements: what is asked of a package (or virtual) in one
//! environment, and where each demand came from.
//!
//! Every requirement keeps its origin — a root spec, a dependency of another
//! package (with the decision that created it), a policy, a provider choice —
//! so that a failure can print the chain of demands that collide, each with
//! the file and line where it was written.

use std::borrow::Cow;

use crate::recipes::{Dependency, PackageRecipe, SpecRef, VariantKind, When};
use crate::spec::{Spec, SpecConflict};

use super::policy::PolicyLayer;

/// Why a virtual's provider was chosen.
#[derive(Clone, Debug)]
pub(crate) enum ProviderReason<'a> {
    /// `packages: <virtual>: require:` names it.
    Required(&'a SpecRef),
    /// Something in the environment asks for the provider itself.
    Requested,
    /// `packages: <virtual>: prefer:` names it.
    Preferred(&'a SpecRef),
    /// Spack's default provider preferences name it
    /// ([`super::provider_defaults`]).
    Default,
    /// The first provider (sorted by name) that works.
    First,
}

/// Where a requirement came from.
#[derive(Clone, Debug)]
pub(crate) enum Origin<'a> {
    /// A spec of the environment's `specs:`.
    Root(&'a SpecRef),
    /// A network spec (`network.mpi` / `network.specs`), from the stack
    /// recipe or the cluster's defaults.
    Network { spec: &'a SpecRef, cluster: bool },
    /// A `^dep` constraint inside a root or network spec.
    RootDep { root: &'a SpecRef },
    /// A dependency of the package decided at slot `parent`.
    Dependency { parent: usize, dep: &'a Dependency },
    /// A `^dep` constraint inside a dependency's spec.
    DependencyDep { parent: usize, dep: &'a Dependency },
    /// `packages: <key>: require:`.
    Policy {
        key: &'a str,
        spec: &'a SpecRef,
        layer: PolicyLayer,
    },
    /// The provider chosen for the virtual at slot `virt`; `when` is the
    /// condition of the provider's `provides:` entry.
    Provider {
        virt: usize,
        reason: ProviderReason<'a>,
        when: Option<&'a When>,
    },
    /// The configuration the environment chose, which a separate build of
    /// a build tool reuses (the requirement's spec says which).
    Shared,
}

impl Origin<'_> {
    /// The decision (slot) that created this requirement, if any (roots and
    /// policies are given, not decided).
    pub fn decided_by(&self) -> Option<usize> {
        match self {
            Origin::Dependency { parent, .. } | Origin::DependencyDep { parent, .. } => {
                Some(*parent)
            }
            Origin::Provider { virt, .. } => Some(*virt),
            _ => None,
        }
    }
}

/// One demand on a package or virtual.
#[derive(Clone, Debug)]
pub(crate) struct Req<'a> {
    /// The constraints on the package itself (no `^dep` parts; the name is
    /// the package's or absent).
    pub spec: Cow<'a, Spec>,
    /// Whether this puts the package into the environment (`^dep`
    /// constraints and policies only constrain a package that is there).
    pub presence: bool,
    /// Only an external installation will do (a virtual's `buildable: false`).
    pub external_only: bool,
    pub origin: Origin<'a>,
}

impl<'a> Req<'a> {
    /// `spec` without its `^dep` parts (borrowed when it has none).
    pub fn node_part(spec: &'a Spec) -> Cow<'a, Spec> {
        if spec.deps.is_empty() {
            Cow::Borrowed(spec)
        } else {
            let mut s = spec.clone();
            s.deps.clear();
            Cow::Owned(s)
        }
    }
}

/// The single-valued oracle for `recipe`'s variants.
pub(crate) fn single_valued(recipe: Option<&PackageRecipe>) -> impl Fn(Option<&str>, &str) -> bool {
    move |_, v: &str| {
        recipe
            .and_then(|r| r.variant(v))
            .is_some_and(|d| matches!(d.kind, VariantKind::Single { .. }))
    }
}

/// Two requirements that cannot both hold (indices into the list given to
/// [`merge`]); `first` is `None` when no single earlier requirement clashes
/// with `second` but all of them together do.
#[derive(Clone, Debug)]
pub(crate) struct Clash {
    pub first: Option<usize>,
    pub second: usize,
    pub conflict: SpecConflict,
}

/// Merge the requirements on package `name` into one abstract spec, or find
/// the pair that clashes.
pub(crate) fn merge(
    name: &str,
    recipe: Option<&PackageRecipe>,
    reqs: &[Req<'_>],
) -> Result<Spec, Clash> {
    let single = single_valued(recipe);
    let mut acc = Spec::named(name);
    for (j, r) in reqs.iter().enumerate() {
        if let Err(conflict) = acc.constrain_with(&r.spec, &single) {
            let first = (0..j).find(|&i| {
                let mut t = Spec::named(name);
                t.constrain_with(&reqs[i].spec, &single).is_ok()
                    && t.constrain_with(&r.spec, &single).is_err()
            });
            let conflict = match first {
                Some(i) => {
                    let mut t = Spec::named(name);
                    let _ = t.constrain_with(&reqs[i].spec, &single);
                    t.constrain_with(&r.spec, &single).err().unwrap_or(conflict)
                }
                None => conflict,
            };
            return Err(Clash {
                first,
                second: j,
                conflict,
            });
        }
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Loc;

    fn root(text: &str) -> SpecRef {
        SpecRef {
            spec: Spec::parse(text).unwrap(),
            text: text.into(),
            loc: Loc::new("s.yaml", 1, 1),
        }
    }

    #[test]
    fn merge_finds_the_clashing_pair() {
        let a = root("nccl@2:");
        let b = root("nccl +cuda");
        let c = root("nccl@:1");
        let reqs: Vec<Req> = [&a, &b, &c]
            .iter()
            .map(|s| Req {
                spec: Req::node_part(&s.spec),
                presence: true,
                external_only: false,
                origin: Origin::Root(s),
            })
            .collect();
        let clash = merge("nccl", None, &reqs).unwrap_err();
        assert_eq!(clash.first, Some(0));
        assert_eq!(clash.second, 2);
        assert!(clash.conflict.to_string().contains("@2:"));
        let ok = merge("nccl", None, &reqs[..2]).unwrap();
        assert_eq!(ok.to_string(), "nccl@2: +cuda");
    }
}
