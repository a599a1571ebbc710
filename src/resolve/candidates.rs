//! The configurations tried for one package, most preferred first:
//! externals (when listed they are preferred; with `buildable: false` they
//! are the only choice), then the recipe's versions that satisfy the
//! requirements.
//!
//! Version preference: the policy's `version:` list in its order, then
//! versions matching a `prefer:` spec, then versions marked
//! `preferred: true`, then the newest numbered release. Branch versions
//! (`main`, `develop`) are candidates when something asks for them by name
//! (`@main`, `version: [main]`, `prefer: ["@main"]`), or as the last resort,
//! as in Spack, when no released version satisfies the requirements
//! (adios-catalyst has only `main`); `stack fetch --lock` pins their commit.

use std::collections::BTreeMap;

use crate::cluster::External;
use crate::recipes::{PackageRecipe, VersionEntry};
use crate::spec::{Spec, Version, VersionConstraint, VersionRange};

use super::policy::PkgPolicy;

/// One configuration to try.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Candidate<'a> {
    External(&'a External),
    Build(&'a VersionEntry),
}

/// The candidates, most preferred first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Candidates<'a> {
    pub list: Vec<Candidate<'a>>,
}

/// Whether a constraint names `v` itself (`@main`, `@=main`, `@main:`).
fn names_version(c: &VersionConstraint, v: &Version) -> bool {
    c.ranges().iter().any(|r| match r {
        VersionRange::Exact(x) => x == v,
        VersionRange::Between { lo, hi } => lo.as_ref() == Some(v) || hi.as_ref() == Some(v),
    })
}

/// The external's version (`zlib@1.2.13` → `1.2.13`).
pub(crate) fn external_version(e: &External) -> Option<Version> {
    super::exact_version(&e.spec.spec)
}

/// The candidates for `recipe` under the merged requirements `wanted`.
pub(crate) fn candidates<'a>(
    recipe: &'a PackageRecipe,
    wanted: &Spec,
    policy: &PkgPolicy<'a>,
    external_only: bool,
) -> Candidates<'a> {
    let mut out = Candidates::default();
    out.list
        .extend(policy.externals.iter().map(|e| Candidate::External(e)));
    if external_only || !policy.is_buildable() {
        return out;
    }
    let listed: Vec<VersionConstraint> = policy
        .version
        .iter()
        .filter_map(|v| VersionConstraint::parse(&v.value).ok())
        .collect();
    let preferred: Vec<&VersionConstraint> = policy
        .prefer
        .iter()
        .map(|p| &p.spec.versions)
        .filter(|c| !c.is_any())
        .collect();
    // rank: (class, position); lower is better.
    let mut ranked: BTreeMap<(usize, usize, std::cmp::Reverse<&Version>), &VersionEntry> =
        BTreeMap::new();
    // Branch versions that satisfy the requirements but were not asked for.
    let mut unasked_branches = Vec::new();
    for entry in &recipe.versions {
        let v = &entry.version;
        if !wanted.versions.contains(v) {
            continue;
        }
        let in_list = listed.iter().position(|c| c.contains(v));
        let in_prefer = preferred.iter().position(|c| c.contains(v));
        if v.is_branch() {
            let asked = names_version(&wanted.versions, v)
                || listed.iter().any(|c| names_version(c, v))
                || preferred.iter().any(|c| names_version(c, v));
            if !asked {
                unasked_branches.push(entry);
                continue;
            }
        }
        let rank = match (in_list, in_prefer) {
            (Some(i), _) => (0, i),
            (None, Some(j)) => (1, j),
            _ if entry.preferred => (2, 0),
            _ => (3, 0),
        };
        ranked
            .entry((rank.0, rank.1, std::cmp::Reverse(v)))
            .or_insert(entry);
    }
    out.list.extend(ranked.into_values().map(Candidate::Build));
    out.list
        .extend(unasked_branches.into_iter().map(Candidate::Build));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(versions: &[(&str, bool)]) -> (tempfile::TempDir, PackageRecipe) {
        let tmp = tempfile::tempdir().unwrap();
        let mut y = String::from("name: p\ndescription: d\nversions:\n");
        for (v, pref) in versions {
            if v.chars().next().unwrap().is_ascii_digit() {
                y.push_str(&format!(
                    "  - {{version: '{v}', url: p-{v}.tgz, sha256: '{}', preferred: {pref}}}\n",
                    "0".repeat(64)
                ));
            } else {
                y.push_str(&format!(
                    "  - {{version: '{v}', git: https://x/p.git, branch: {v}}}\n"
                ));
            }
        }
        y.push_str("build: {system: generic}\n");
        let f = tmp.path().join("p.yaml");
        fs_err::write(&f, y).unwrap();
        let (r, d) = crate::recipes::load_package(&f, tmp.path());
        assert!(!d.has_errors(), "{d:?}");
        (tmp, r.unwrap())
    }

    fn order(r: &PackageRecipe, want: &str, policy: &PkgPolicy) -> Vec<String> {
        let wanted = Spec::parse(&format!("p{want}")).unwrap();
        candidates(r, &wanted, policy, false)
            .list
            .iter()
            .map(|c| match c {
                Candidate::Build(e) => e.text.clone(),
                Candidate::External(e) => e.spec.text.clone(),
            })
            .collect()
    }

    #[test]
    fn newest_release_first_preferred_first_branches_last() {
        let (_t, r) = recipe(&[
            ("1.0", false),
            ("2.0", false),
            ("1.5", true),
            ("main", false),
        ]);
        let none = PkgPolicy::default();
        // An unasked branch comes after every release: the last resort,
        // when no release works out (Spack's order too).
        assert_eq!(order(&r, "", &none), ["1.5", "2.0", "1.0", "main"]);
        assert_eq!(order(&r, "@2:", &none), ["2.0", "main"]);
        assert_eq!(order(&r, "@main", &none), ["main"]);
        // No release satisfies `@3:`: the branch alone.
        assert_eq!(order(&r, "@3:", &none), ["main"]);
        assert!(order(&r, "@1.7:1.9", &none).is_empty());
        let (_t, only) = recipe(&[("main", false), ("develop", false)]);
        assert_eq!(order(&only, "", &none), ["main", "develop"]);
    }
}
