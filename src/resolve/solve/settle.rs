//! Settling a candidate's variants: Spack's defaults under the
//! requirements, then — as Spack's solver does when it can — variants
//! nothing asked for flipped to avoid a `conflicts:` entry that holds or a
//! conditional dependency that clashes with the other requirements.

use crate::recipes::{Conflict, Dependency, PackageRecipe, VariantKind};
use crate::spec::{Spec, VariantValue};

use super::super::requirement::Req;
use super::super::variants::{Defaults, VariantProblem, choose};
use super::{Flip, FlipReason};

/// Why [`settle_conflicts`] found no configuration.
pub(super) enum Unsettled<'a> {
    Variant(VariantProblem<'a>),
    Conflict(&'a Conflict),
}

/// The variants of `base` (name, exact version, compilers) under `wanted`,
/// checked against the recipe's `conflicts:` (those naming dependencies
/// are returned, deferred). With `flip`, a conflict that holds is avoided
/// as Spack's solver does when it can: a boolean variant of the conflict
/// that nothing asked for (not in `wanted`) takes its other value, and the
/// variants are chosen again; the flips made are returned with the conflict
/// each avoids. Once no conflict holds, the same is done (with `flip`) for
/// the conditions of the dependencies in `avoid` (see [`avoid_dependency`]).
pub(super) fn settle_conflicts<'a>(
    recipe: &'a PackageRecipe,
    mut base: Spec,
    wanted: &Spec,
    defaults: Defaults<'_>,
    flip: bool,
    avoid: &[&'a Dependency],
) -> Result<(Spec, Vec<&'a Conflict>, Vec<Flip<'a>>), Unsettled<'a>> {
    let mut asked = wanted.clone();
    let mut flipped: Vec<Flip<'a>> = Vec::new();
    loop {
        base.variants = choose(recipe, &base, &asked, defaults).map_err(Unsettled::Variant)?;
        let mut deferred = Vec::new();
        let mut holding = None;
        for conflict in &recipe.conflicts {
            if conflict.when.spec.deps.is_empty() {
                if base.satisfies(&conflict.when.spec) {
                    holding = Some(conflict);
                    break;
                }
            } else if base.satisfies(&Req::node_part(&conflict.when.spec)) {
                deferred.push(conflict);
            }
        }
        let Some(conflict) = holding else {
            match avoid_dependency(recipe, &base, &asked, defaults, avoid) {
                Some(f) if flip => {
                    asked.variants.insert(f.variant.clone(), f.value.clone());
                    flipped.push(f);
                    continue;
                }
                _ => return Ok((base, deferred, flipped)),
            }
        };
        let free = conflict
            .when
            .spec
            .variants
            .iter()
            .filter(|(name, _)| !asked.variants.contains_key(*name))
            .find_map(|(name, v)| Some((name, other_value(recipe, &base, name, v)?)));
        match free {
            Some((name, value)) if flip => {
                let from = base.variants.get(name).cloned();
                asked.variants.insert(name.clone(), value.clone());
                flipped.push(Flip {
                    variant: name.clone(),
                    value,
                    from,
                    why: FlipReason::Conflict(conflict),
                });
            }
            _ => return Err(Unsettled::Conflict(conflict)),
        }
    }
}

/// The flip that leaves the condition of the first dependency in `avoid`
/// that holds for `base`: a variant of the condition nothing asked for (not
/// in `asked`) takes its other value ([`other_value`]). Of several, the one
/// that keeps the most dependencies of the package wins (`~hdf5_compat`
/// rather than `~hdf5`, `+wrapper` rather than `~kokkos`: the least
/// change), then the first in the condition.
fn avoid_dependency<'a>(
    recipe: &PackageRecipe,
    base: &Spec,
    asked: &Spec,
    defaults: Defaults<'_>,
    avoid: &[&'a Dependency],
) -> Option<Flip<'a>> {
    let dep = avoid.iter().copied().find(|d| {
        d.when
            .as_ref()
            .is_some_and(|w| w.spec.deps.is_empty() && base.satisfies(&w.spec))
    })?;
    let cond = &dep.when.as_ref()?.spec;
    let kept = |name: &str, value: &VariantValue| {
        let mut asked = asked.clone();
        asked.variants.insert(name.to_string(), value.clone());
        let mut spec = base.clone();
        spec.variants = choose(recipe, base, &asked, defaults).ok()?;
        let active = recipe.dependencies.iter().filter(|d| {
            d.when
                .as_ref()
                .is_none_or(|w| spec.satisfies(&Req::node_part(&w.spec)))
        });
        Some(active.count())
    };
    let mut best: Option<(usize, &String, VariantValue)> = None;
    for (name, v) in &cond.variants {
        if asked.variants.contains_key(name) {
            continue;
        }
        let Some(value) = other_value(recipe, base, name, v) else {
            continue;
        };
        let Some(n) = kept(name, &value) else {
            continue;
        };
        if best.as_ref().is_none_or(|(m, _, _)| n > *m) {
            best = Some((n, name, value));
        }
    }
    let (_, name, value) = best?;
    Some(Flip {
        variant: name.clone(),
        value,
        from: base.variants.get(name).cloned(),
        why: FlipReason::Dependency(dep),
    })
}

/// The value a variant nothing asked for takes to leave a conflict naming
/// `conflicting`: the other one of a boolean; for a single-valued variant
/// with listed values, the first listed value with which none of the
/// package's own conflicts holds.
fn other_value(
    recipe: &PackageRecipe,
    base: &Spec,
    name: &str,
    conflicting: &VariantValue,
) -> Option<VariantValue> {
    match conflicting {
        VariantValue::Bool(b) => Some(VariantValue::Bool(!b)),
        VariantValue::Values(named) => {
            let def = recipe.variants.iter().find(|d| {
                d.name == name && d.when.as_ref().is_none_or(|w| base.satisfies(&w.spec))
            })?;
            let VariantKind::Single {
                values: Some(values),
                ..
            } = &def.kind
            else {
                return None;
            };
            let free_of_conflicts = |v: &String| {
                let mut spec = base.clone();
                let value = VariantValue::Values([v.clone()].into());
                spec.variants.insert(name.to_string(), value);
                !recipe
                    .conflicts
                    .iter()
                    .any(|c| c.when.spec.deps.is_empty() && spec.satisfies(&c.when.spec))
            };
            let other = values
                .iter()
                .find(|v| !named.contains(*v) && free_of_conflicts(v))?;
            Some(VariantValue::Values([other.clone()].into()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, SourceFile};

    fn tri() -> (tempfile::TempDir, PackageRecipe) {
        let dir = tempfile::tempdir().unwrap();
        let zero = "0".repeat(64);
        let text = format!(
            "name: tri\ndescription: d\nversions:\n  - {{version: \"2.0\", url: a.tgz, sha256: {zero}}}\n\
             variants:\n  aztec: {{default: true}}\n  epetra: {{default: true}}\n  ml: {{default: true}}\n  std: {{default: \"17\", values: [\"14\", \"17\", \"20\"]}}\n  stdexec: {{default: false}}\n\
             conflicts:\n  - {{when: \"+aztec ~epetra\"}}\n  - {{when: \"+ml ~epetra\"}}\n  - {{when: \"+stdexec std=14\"}}\n  - {{when: \"+stdexec std=17\"}}\n\
             build: {{system: generic}}\n"
        );
        let mut d = Diagnostics::new();
        let path = dir.path().join("tri.yaml");
        let recipe =
            crate::recipes::parse_package(&SourceFile::new(&path, text), dir.path(), &mut d)
                .unwrap();
        assert!(!d.has_errors(), "{d:?}");
        (dir, recipe)
    }

    fn settle(recipe: &PackageRecipe, wanted: &str, flip: bool) -> Result<String, String> {
        let base = Spec::parse("tri@2.0").unwrap();
        let wanted = Spec::parse(wanted).unwrap();
        match settle_conflicts(recipe, base, &wanted, Defaults::default(), flip, &[]) {
            Ok((spec, _, flips)) => {
                let names: Vec<&str> = flips.iter().map(|f| f.variant.as_str()).collect();
                Ok(format!("{} [{}]", spec, names.join(",")))
            }
            Err(Unsettled::Conflict(c)) => Err(c.when.text.clone()),
            Err(Unsettled::Variant(p)) => Err(format!("{p:?}")),
        }
    }

    #[test]
    fn variants_nothing_asked_for_flip_to_avoid_conflicts_one_by_one() {
        let (_d, r) = tri();
        // Without flipping, the first conflict that holds is the answer.
        assert_eq!(settle(&r, "~epetra", false).unwrap_err(), "+aztec ~epetra");
        // With it, aztec and then ml take their other value.
        assert_eq!(
            settle(&r, "~epetra", true).unwrap(),
            "tri@2.0 ~aztec ~epetra ~ml std=17 ~stdexec [aztec,ml]"
        );
        // What was asked for is never flipped.
        assert_eq!(settle(&r, "~epetra +ml", true).unwrap_err(), "+ml ~epetra");
        // The defaults conflict with nothing: no flip.
        assert_eq!(
            settle(&r, "", true).unwrap(),
            "tri@2.0 +aztec +epetra +ml std=17 ~stdexec []"
        );
    }

    #[test]
    fn a_single_valued_variant_takes_the_first_listed_value_free_of_conflicts() {
        let (_d, r) = tri();
        assert_eq!(
            settle(&r, "+stdexec", false).unwrap_err(),
            "+stdexec std=17"
        );
        assert_eq!(
            settle(&r, "+stdexec", true).unwrap(),
            "tri@2.0 +aztec +epetra +ml std=20 +stdexec [std]"
        );
        // A value that was asked for stays, and the conflict is the answer.
        assert_eq!(
            settle(&r, "+stdexec std=17", true).unwrap_err(),
            "+stdexec std=17"
        );
    }
}
