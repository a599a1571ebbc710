//! Choosing every variant value of a package for one version.
//!
//! A variant's value is, in this order: what the requirements on the
//! package say (for a multi-valued variant the union of the values asked
//! for, not the default plus them); else the first `prefer:` spec of the
//! package's policy that sets it; else the environment's `variants:` (the
//! last entry that sets it, when the value fits this package); else the
//! recipe's default. Conditional variants (`when:`) exist only when their
//! condition holds on the version and the variants chosen so far; they are
//! added until nothing changes.

use std::collections::BTreeMap;

use crate::recipes::{PackageRecipe, SpecRef, VariantDef, VariantValueError, When};
use crate::spec::{Spec, VariantValue};

/// Soft defaults that override the recipe's.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Defaults<'a> {
    /// The package policy's `prefer:` specs.
    pub prefer: &'a [&'a SpecRef],
    /// The environment's `variants:`.
    pub env: &'a [SpecRef],
}

/// Why the requirements' variants do not fit a version of the package.
#[derive(Clone, Debug)]
pub(crate) enum VariantProblem<'a> {
    /// The package has no such variant at all.
    Unknown { variant: String },
    /// The variant exists only under a condition that does not hold.
    Inactive { variant: String, when: &'a When },
    /// The value does not fit the declaration.
    BadValue {
        variant: String,
        value: String,
        error: VariantValueError,
    },
}

impl Defaults<'_> {
    fn value_for(&self, def: &VariantDef) -> VariantValue {
        for p in self.prefer {
            if let Some(v) = p.spec.variants.get(&def.name) {
                if def.check_value(v).is_ok() {
                    return v.clone();
                }
            }
        }
        for e in self.env.iter().rev() {
            if let Some(v) = e.spec.variants.get(&def.name) {
                if def.check_value(v).is_ok() {
                    return v.clone();
                }
            }
        }
        def.default_value()
    }
}

/// Every variant value of `recipe` for the configuration `base` (name,
/// exact version, compiler, target …) under the merged requirements
/// `wanted`. Returns the values, or the first variant that cannot be set.
pub(crate) fn choose<'a>(
    recipe: &'a PackageRecipe,
    base: &Spec,
    wanted: &Spec,
    defaults: Defaults<'_>,
) -> Result<BTreeMap<String, VariantValue>, VariantProblem<'a>> {
    let mut spec = base.clone();
    spec.variants.clear();
    loop {
        let mut changed = false;
        for def in &recipe.variants {
            if spec.variants.contains_key(&def.name) {
                continue;
            }
            if let Some(w) = &def.when {
                if !spec.satisfies(&w.spec) {
                    continue;
                }
            }
            let value = match wanted.variants.get(&def.name) {
                Some(v) => {
                    if let Err(error) = def.check_value(v) {
                        return Err(VariantProblem::BadValue {
                            variant: def.name.clone(),
                            value: v.to_spec_text(&def.name),
                            error,
                        });
                    }
                    v.clone()
                }
                None => defaults.value_for(def),
            };
            spec.variants.insert(def.name.clone(), value);
            changed = true;
        }
        if !changed {
            break;
        }
    }
    for name in wanted.variants.keys() {
        if !spec.variants.contains_key(name) {
            return Err(match recipe.variant(name) {
                Some(VariantDef { when: Some(w), .. }) => VariantProblem::Inactive {
                    variant: name.clone(),
                    when: w,
                },
                _ => VariantProblem::Unknown {
                    variant: name.clone(),
                },
            });
        }
    }
    Ok(spec.variants)
}

/// Whether `value` differs from `def`'s recipe default.
pub(crate) fn is_default(def: Option<&VariantDef>, value: &VariantValue) -> bool {
    def.is_some_and(|d| &d.default_value() == value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, SourceFile};

    #[test]
    fn a_variant_defined_per_condition_takes_the_definition_that_holds() {
        let dir = tempfile::tempdir().unwrap();
        let zero = "0".repeat(64);
        let text = format!(
            "name: std\ndescription: d\nversions:\n  - {{version: \"5.0\", url: a.tgz, sha256: {zero}}}\n  \
             - {{version: \"4.0\", url: b.tgz, sha256: {zero}}}\nvariants:\n  cxxstd:\n    \
             - {{default: \"17\", values: [\"14\", \"17\"], when: \"@:4\"}}\n    \
             - {{default: \"20\", values: [\"20\", \"23\"], when: \"@5:\"}}\nbuild: {{system: generic}}\n"
        );
        let mut d = Diagnostics::new();
        let path = dir.path().join("std.yaml");
        let recipe =
            crate::recipes::parse_package(&SourceFile::new(&path, text), dir.path(), &mut d)
                .unwrap();
        assert!(!d.has_errors(), "{d:?}");
        let none = Spec::parse("").unwrap();
        let pick = |base: &str, wanted: &Spec| {
            choose(
                &recipe,
                &Spec::parse(base).unwrap(),
                wanted,
                Defaults::default(),
            )
            .map(|v| v["cxxstd"].to_spec_text("cxxstd"))
        };
        assert_eq!(pick("std@4.0", &none).unwrap(), "cxxstd=17");
        assert_eq!(pick("std@5.0", &none).unwrap(), "cxxstd=20");
        let want23 = Spec::parse("cxxstd=23").unwrap();
        assert_eq!(pick("std@5.0", &want23).unwrap(), "cxxstd=23");
        assert!(matches!(
            pick("std@4.0", &want23),
            Err(VariantProblem::BadValue { .. })
        ));
    }
}
