//! The compiler flags of a node being decided: asked for (`cflags=-fPIC`,
//! `require:`), preferred (`prefer:`), or propagated from a dependent
//! (`cflags==-fPIC`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::spec::{FlagList, Spec};

/// The compiler flags of a node: those the requirements ask for, and for
/// each flag name they do not set, the first `prefer:` spec's that does.
pub(super) fn node_flags(
    wanted: &Spec,
    prefer: &[&crate::recipes::SpecRef],
) -> BTreeMap<String, FlagList> {
    let mut flags = wanted.flags.clone();
    for p in prefer {
        for (k, f) in &p.spec.flags {
            flags.entry(k.clone()).or_insert_with(|| f.clone());
        }
    }
    flags
}

/// The requirement on a dependency with the flags `parent` propagates
/// (`cflags==-fPIC`) added: Spack's propagation, along link and run
/// dependencies (not to build tools) that name a package (not a virtual).
pub(super) fn with_propagated<'s>(
    spec: Cow<'s, Spec>,
    parent: &Spec,
    dep: &crate::recipes::Dependency,
    package: bool,
) -> Cow<'s, Spec> {
    let propagated: BTreeMap<String, FlagList> = parent
        .flags
        .iter()
        .filter(|(_, f)| f.propagate)
        .map(|(k, f)| (k.clone(), f.clone()))
        .collect();
    if propagated.is_empty() || !package || !(dep.types.link || dep.types.run) {
        return spec;
    }
    let mut spec = spec.into_owned();
    let extra = Spec {
        flags: propagated,
        ..Spec::default()
    };
    // flags never conflict
    let _ = spec.constrain(&extra);
    Cow::Owned(spec)
}
