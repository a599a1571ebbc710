//! Virtual packages across a [`PackageRepo`]'s repositories: which
//! packages may provide each virtual (from the indexes, or from the
//! recipes whose text can declare `provides`), and their providers, parsed
//! on first use.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::{At, PackageRepo, Provider};

/// The providers of one virtual: the packages that may provide it (by an
/// index, or by their parsed recipe), and the providers found among them
/// on first use.
#[derive(Clone, Debug, Default)]
pub(super) struct VirtualEntry {
    candidates: Vec<String>,
    providers: OnceLock<Vec<Provider>>,
}

impl PackageRepo {
    /// Which packages may provide which virtuals, found on first use: the
    /// providers an index names, and the recipes of the other repositories
    /// whose text can declare `provides` (parsed now, in parallel). A
    /// recipe counts when it is the one that says what its package
    /// provides ([`Self::whole`] of the package's first file).
    fn virtuals(&self) -> &BTreeMap<String, VirtualEntry> {
        self.virtuals.get_or_init(|| {
            let mut virtuals: BTreeMap<String, VirtualEntry> = BTreeMap::new();
            let mut unindexed = Vec::new();
            let says = |at: At| self.top(self.name(at)).map(|t| self.whole(t)) == Some(at);
            for (li, layer) in self.layers.iter().enumerate() {
                match &layer.index {
                    Some(ix) => {
                        for (package, provides) in &ix.index.provides {
                            let Some(pos) = layer.names.find(package) else {
                                continue;
                            };
                            if !says(At { layer: li, pos }) {
                                continue;
                            }
                            for v in provides {
                                let c = &mut virtuals.entry(v.clone()).or_default().candidates;
                                c.push(package.clone());
                            }
                        }
                    }
                    None => unindexed.extend(
                        (0..layer.names.len())
                            .filter(|&pos| layer.may_provide(pos))
                            .map(|pos| At { layer: li, pos })
                            .filter(|&at| says(at)),
                    ),
                }
            }
            self.parse_parallel(unindexed.iter().copied());
            for at in unindexed {
                let name = self.name(at);
                for p in self.parsed(at).recipe.iter().flat_map(|r| &r.provides) {
                    let c = &mut virtuals.entry(p.name.clone()).or_default().candidates;
                    if c.last().map(String::as_str) != Some(name) {
                        c.push(name.to_string());
                    }
                }
            }
            for v in virtuals.values_mut() {
                v.candidates.sort_unstable();
                v.candidates.dedup();
            }
            virtuals
        })
    }

    /// The providers of virtual `name` among its candidates, parsed on
    /// first use (in parallel).
    fn virtual_providers<'a>(&'a self, name: &str, v: &'a VirtualEntry) -> &'a [Provider] {
        v.providers.get_or_init(|| {
            self.prefetch(v.candidates.iter().map(String::as_str));
            let mut out = Vec::new();
            for package in &v.candidates {
                let provides = self.get(package).into_iter().flat_map(|r| &r.provides);
                for p in provides.filter(|p| p.name == name) {
                    out.push(Provider {
                        package: package.clone(),
                        versions: p.versions.clone(),
                        when: p.when.clone(),
                    });
                }
            }
            out
        })
    }

    /// Whether `name` is a virtual (some package provides it).
    /// (By the indexes: the providers themselves are not parsed.)
    pub fn is_virtual(&self, name: &str) -> bool {
        self.virtuals().contains_key(name)
    }

    /// The packages providing virtual `name`, sorted by package name.
    pub fn providers(&self, name: &str) -> &[Provider] {
        match self.virtuals().get(name) {
            Some(v) => self.virtual_providers(name, v),
            None => &[],
        }
    }

    /// The packages that may provide virtual `name`, sorted: those its
    /// repository's index names (not parsed: unlike
    /// [`PackageRepo::providers`], this reads no recipe of an indexed
    /// repository), and those of the other repositories whose recipe
    /// declares it.
    pub fn provider_names(&self, name: &str) -> &[String] {
        self.virtuals()
            .get(name)
            .map(|v| v.candidates.as_slice())
            .unwrap_or_default()
    }

    /// All virtual names, sorted.
    pub fn virtual_names(&self) -> impl Iterator<Item = &str> {
        self.virtuals().keys().map(String::as_str)
    }
}
