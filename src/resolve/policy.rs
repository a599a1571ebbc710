//! Package policies as the resolver sees them: the cluster's `packages:`
//! with the environment's merged over it (later wins, per package, field by
//! field), then `all` under each package's own entry.

use crate::cluster::{External, PackagePolicy, Policies};
use crate::diag::{Loc, Spanned};
use crate::recipes::{PackageRecipe, SpecRef};
use crate::spec::Spec;

/// Where a policy field was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PolicyLayer {
    Cluster,
    Stack,
}

/// A `require:` entry in effect for one package.
#[derive(Clone, Debug)]
pub(crate) struct Requirement<'p> {
    pub spec: &'p SpecRef,
    /// The `packages:` key it was written under (`all` or the package).
    pub key: &'p str,
    pub layer: PolicyLayer,
    /// Only the parts that apply to the package (for `all`: variants the
    /// package does not have are dropped).
    pub effective: Spec,
}

impl<'p> Requirement<'p> {
    /// This `require:` as a requirement on its package, constraining
    /// `spec` (not putting the package into the environment).
    pub fn req(
        &self,
        spec: std::borrow::Cow<'p, crate::spec::Spec>,
    ) -> super::requirement::Req<'p> {
        super::requirement::Req {
            spec,
            presence: false,
            external_only: false,
            origin: super::requirement::Origin::Policy {
                key: self.key,
                spec: self.spec,
                layer: self.layer,
            },
        }
    }
}

/// The effective policy of one package or virtual.
#[derive(Clone, Debug, Default)]
pub(crate) struct PkgPolicy<'p> {
    /// `buildable:` and where it was written.
    pub buildable: Option<(bool, &'p Loc)>,
    pub externals: Vec<&'p External>,
    pub require: Vec<Requirement<'p>>,
    pub prefer: Vec<&'p SpecRef>,
    pub version: Vec<&'p Spanned<String>>,
    /// The recipe is external-only (`build: {system: external}`): only an
    /// external satisfies it, whatever `buildable:` says.
    pub external_kind: bool,
}

impl PkgPolicy<'_> {
    /// Whether the package may be built from source.
    pub fn is_buildable(&self) -> bool {
        !self.external_kind && self.buildable.is_none_or(|(b, _)| b)
    }
}

/// The effective policy for `name` (a package when `recipe` is given, else a
/// virtual): each field from the package's own entry when written there,
/// else from `all`.
pub(crate) fn effective<'p>(
    policies: &'p Policies,
    name: &str,
    recipe: Option<&PackageRecipe>,
    cluster_file: &std::path::Path,
) -> PkgPolicy<'p> {
    let own = policies.get(name);
    // `all` does not apply to virtuals (its specs describe packages).
    let all = policies.all().filter(|_| recipe.is_some());
    let layer = |loc: &Loc| {
        if loc.path() == cluster_file {
            PolicyLayer::Cluster
        } else {
            PolicyLayer::Stack
        }
    };
    let pick = |f: fn(&'p PackagePolicy) -> bool| -> Option<&'p PackagePolicy> {
        own.filter(|p| f(p)).or(all.filter(|p| f(p)))
    };
    let mut out = PkgPolicy {
        external_kind: recipe.is_some_and(|r| r.build.system.kind.external_only()),
        ..PkgPolicy::default()
    };
    if let Some(p) = pick(|p| p.buildable.is_some()) {
        out.buildable = p.buildable.map(|b| (b, &p.loc));
    }
    if let Some(p) = own.filter(|p| p.externals.is_some()) {
        out.externals = p.externals.iter().flatten().collect();
    }
    if let Some(p) = pick(|p| p.require.is_some()) {
        let from_all = p.name == "all";
        for s in p.require.iter().flatten() {
            let mut effective = s.spec.clone();
            effective.deps.clear();
            if from_all {
                if let Some(r) = recipe {
                    effective.variants.retain(|k, _| r.variant(k).is_some());
                }
                effective.name = None;
            }
            out.require.push(Requirement {
                spec: s,
                key: &p.name,
                layer: layer(&s.loc),
                effective,
            });
        }
    }
    if let Some(p) = pick(|p| p.prefer.is_some()) {
        out.prefer = p.prefer.iter().flatten().collect();
    }
    if let Some(p) = pick(|p| p.version.is_some()) {
        out.version = p.version.iter().flatten().collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::PackagePolicy;

    fn spec_ref(text: &str, file: &str) -> SpecRef {
        SpecRef {
            spec: Spec::parse(text).unwrap(),
            text: text.into(),
            loc: Loc::new(file, 1, 1),
        }
    }

    #[test]
    fn own_fields_win_over_all_and_stack_over_cluster() {
        let mut cluster = Policies::default();
        let mut all = PackagePolicy::new("all", Loc::new("/c.yaml", 1, 1));
        all.prefer = Some(vec![spec_ref("+shared", "/c.yaml")]);
        all.require = Some(vec![spec_ref("+shared +nope", "/c.yaml")]);
        cluster.entries.insert("all".into(), all);
        let mut z = PackagePolicy::new("zlib", Loc::new("/c.yaml", 2, 1));
        z.buildable = Some(false);
        cluster.entries.insert("zlib".into(), z);
        let mut stack = Policies::default();
        let mut z2 = PackagePolicy::new("zlib", Loc::new("/s.yaml", 5, 1));
        z2.buildable = Some(true);
        z2.version = Some(vec![Spanned::new("1.2".into(), Loc::new("/s.yaml", 6, 1))]);
        stack.entries.insert("zlib".into(), z2);
        let merged = cluster.merged_with(&stack);
        let p = effective(&merged, "zlib", None, std::path::Path::new("/c.yaml"));
        assert!(p.is_buildable());
        assert_eq!(p.version.len(), 1);
        // `all` does not apply to virtuals (no recipe given)
        assert!(p.prefer.is_empty());
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("zlib.yaml");
        fs_err::write(
            &f,
            "name: zlib\ndescription: d\nversions: [{version: '1', url: x.tgz, sha256: '0000000000000000000000000000000000000000000000000000000000000000'}]\nvariants: {shared: {default: true}}\nbuild: {system: generic}\n",
        )
        .unwrap();
        let (recipe, diags) = crate::recipes::load_package(&f, tmp.path());
        assert!(!diags.has_errors(), "{diags:?}");
        let recipe = recipe.unwrap();
        let p = effective(
            &merged,
            "zlib",
            Some(&recipe),
            std::path::Path::new("/c.yaml"),
        );
        assert_eq!(p.prefer.len(), 1);
        assert_eq!(p.require.len(), 1);
        assert_eq!(p.require[0].effective.to_string(), "+shared");
        assert_eq!(p.require[0].layer, PolicyLayer::Cluster);
    }
}
