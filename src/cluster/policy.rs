//! Package policies (`packages:` in a cluster configuration or a stack
//! environment): buildable, externals, requirements and preferences.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::diag::{Loc, Spanned};
use crate::recipes::SpecRef;

/// The `packages:` mapping: per package (or virtual, or `all`) policy.
#[derive(Clone, Debug, Default)]
pub struct Policies {
    pub entries: BTreeMap<String, PackagePolicy>,
}

/// What is required or preferred of one package. A field that is `None` was
/// not written (and so does not override a lower layer when merging).
#[derive(Clone, Debug)]
pub struct PackagePolicy {
    /// The package, virtual, or `all`.
    pub name: String,
    /// Location of the key.
    pub loc: Loc,
    /// `false`: never build it; an external must be used.
    pub buildable: Option<bool>,
    /// Installations that exist outside the stack.
    pub externals: Option<Vec<External>>,
    /// Specs the package must satisfy (`@1.2:`, `+shared`; for a virtual,
    /// the provider's name: `cray-mpich`).
    pub require: Option<Vec<SpecRef>>,
    /// Specs preferred when there is a choice.
    pub prefer: Option<Vec<SpecRef>>,
    /// Preferred versions, most preferred first (as written).
    pub version: Option<Vec<Spanned<String>>>,
}

impl PackagePolicy {
    /// An empty policy for `name`.
    pub fn new(name: impl Into<String>, loc: Loc) -> Self {
        PackagePolicy {
            name: name.into(),
            loc,
            buildable: None,
            externals: None,
            require: None,
            prefer: None,
            version: None,
        }
    }

    /// Shallow merge: every field set in `over` replaces the one here.
    pub fn merge_from(&mut self, over: &PackagePolicy) {
        if over.buildable.is_some() {
            self.buildable = over.buildable;
        }
        if over.externals.is_some() {
            self.externals.clone_from(&over.externals);
        }
        if over.require.is_some() {
            self.require.clone_from(&over.require);
        }
        if over.prefer.is_some() {
            self.prefer.clone_from(&over.prefer);
        }
        if over.version.is_some() {
            self.version.clone_from(&over.version);
        }
        self.loc = over.loc.clone();
    }

    /// Whether the package may be built (default true).
    pub fn is_buildable(&self) -> bool {
        self.buildable.unwrap_or(true)
    }
}

/// An installation outside the stack (`{spec: zlib@1.2.13, prefix: /usr}`).
#[derive(Clone, Debug)]
pub struct External {
    /// Names the package and a concrete version.
    pub spec: SpecRef,
    /// Absolute.
    pub prefix: PathBuf,
    pub loc: Loc,
}

impl Policies {
    /// The policy for `name` (not including `all`).
    pub fn get(&self, name: &str) -> Option<&PackagePolicy> {
        self.entries.get(name)
    }

    /// Whether the policy of virtual `virt` lets `provider` provide it:
    /// every `require` spec that names a package names `provider` (the
    /// resolver never picks another one, so walks over what a stack could
    /// use skip the others).
    pub fn allows_provider(&self, virt: &str, provider: &str) -> bool {
        self.get(virt)
            .and_then(|p| p.require.as_ref())
            .is_none_or(|reqs| {
                reqs.iter()
                    .all(|r| r.spec.name.as_deref().is_none_or(|n| n == provider))
            })
    }

    /// The `all` entry.
    pub fn all(&self) -> Option<&PackagePolicy> {
        self.entries.get("all")
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `over` merged over `self` (later wins): per package, field by field
    /// (a field written in `over` replaces the whole field here; lists are
    /// not concatenated).
    pub fn merged_with(&self, over: &Policies) -> Policies {
        let mut out = self.clone();
        for (name, pol) in &over.entries {
            match out.entries.get_mut(name) {
                Some(base) => base.merge_from(pol),
                None => {
                    out.entries.insert(name.clone(), pol.clone());
                }
            }
        }
        out
    }

    /// The effective policy for `name`: `all` with the package's own entry
    /// merged over it.
    pub fn effective(&self, name: &str) -> Option<PackagePolicy> {
        match (self.all(), self.get(name)) {
            (None, None) => None,
            (Some(all), None) => {
                let mut p = all.clone();
                p.name = name.to_string();
                Some(p)
            }
            (None, Some(p)) => Some(p.clone()),
            (Some(all), Some(p)) => {
                let mut out = all.clone();
                out.merge_from(p);
                out.name = name.to_string();
                Some(out)
            }
        }
    }
}
