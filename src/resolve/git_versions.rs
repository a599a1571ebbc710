//! Git versions a requirement asks for and no recipe entry lists
//! (`conduit: require: "@git.df1394ba…=0.9.6"` in a cluster's packages.yaml),
//! made versions of the recipe as Spack makes them: the package's git
//! repository (the one its other git versions use) at that ref, treated as
//! the version after `=` for every comparison.
//!
//! The ref is a commit when it is 40 hex digits, a tag when it reads as a
//! version (`v2.3.0rc1`, `2.3.0`), else a branch (`release/shs-13.0.0`),
//! which `stack fetch --lock` pins like any branch.

use std::collections::HashMap;
use std::sync::Arc;

use crate::cluster::Policies;
use crate::recipes::{GitRef, GitSource, PackageRecipe, PackageRepo, SpecRef, VersionEntry};
use crate::spec::{Spec, Version};

/// Recipes of `repo` with the git versions that `policies` and `roots` ask
/// for added, by package name; recipes that need none are not listed.
pub(crate) fn with_git_versions<'r>(
    repo: &PackageRepo,
    policies: &Policies,
    roots: impl IntoIterator<Item = &'r SpecRef>,
) -> HashMap<String, Arc<PackageRecipe>> {
    let mut asked: Vec<(String, Version, &SpecRef)> = Vec::new();
    for p in policies.entries.values() {
        let specs = p.require.iter().chain(p.prefer.iter()).flatten();
        for s in specs {
            let name = s.spec.name.clone().unwrap_or_else(|| p.name.clone());
            collect(&name, &s.spec, s, &mut asked);
        }
    }
    for r in roots {
        if let Some(name) = &r.spec.name {
            collect(name, &r.spec, r, &mut asked);
        }
    }
    let mut out: HashMap<String, Arc<PackageRecipe>> = HashMap::new();
    for (name, version, at) in asked {
        let Some(base) = out.get(&name).cloned().or_else(|| repo.get(&name).cloned()) else {
            continue;
        };
        if base.versions.iter().any(|e| e.version == version) {
            continue;
        }
        let Some(entry) = git_entry(&base, &version, at) else {
            continue;
        };
        let mut recipe = (*base).clone();
        recipe.versions.push(entry);
        out.insert(name, Arc::new(recipe));
    }
    out
}

/// The exact git versions of `spec` (for `name`) and of its `^` deps.
fn collect<'s>(
    name: &str,
    spec: &Spec,
    at: &'s SpecRef,
    out: &mut Vec<(String, Version, &'s SpecRef)>,
) {
    if let Some(v) = super::exact_version(spec).filter(|v| v.git_ref().is_some()) {
        out.push((name.to_string(), v, at));
    }
    for d in &spec.deps {
        if let Some(n) = &d.name {
            collect(n, d, at, out);
        }
    }
}

/// A version entry for `version` from the recipe's git repository; `None`
/// when the recipe has no git version to take the repository from.
fn git_entry(recipe: &PackageRecipe, version: &Version, at: &SpecRef) -> Option<VersionEntry> {
    let git = recipe.versions.iter().find_map(|e| match &e.source {
        crate::recipes::Source::Git(g) => Some(g),
        _ => None,
    })?;
    let r = version.git_ref()?.to_string();
    let reference = if crate::recipes::is_commit_id(&r) {
        GitRef::Commit(r.to_ascii_lowercase())
    } else if r
        .trim_start_matches('v')
        .starts_with(|c: char| c.is_ascii_digit())
    {
        GitRef::Tag(r)
    } else {
        GitRef::Branch(r)
    };
    Some(VersionEntry {
        version: version.clone(),
        text: version.to_string(),
        loc: at.loc.clone(),
        source: crate::recipes::Source::Git(GitSource {
            repo: git.repo.clone(),
            repo_text: git.repo_text.clone(),
            reference,
            commit: None,
            submodules: git.submodules,
            loc: at.loc.clone(),
        }),
        preferred: false,
    })
}
