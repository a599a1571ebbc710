//! Build tools built twice: the solver's side.
//!
//! A package marked `build_tool` (Spack's `build-tools` and `compiler`
//! tags) may be needed by some dependents only while they build. When the
//! requirements on it clash and one side is such a build-only dependency,
//! the search notes the pair (dependent, tool) in
//! [`Solver::tool_clashes`]; `resolve/separate.rs` then searches again with
//! those pairs in [`super::EnvSetup::separate`]: their dependencies are left
//! out of the search ([`super::Concrete::separate`]) and resolved afterwards as
//! builds of their own, as Spack's `duplicates: strategy: minimal` does.

use crate::recipes::{DepTypes, Dependency, PackageRecipe};
use crate::spec::Spec;

use super::super::requirement::{Origin, Req};
use super::{SlotKind, Solver};

/// Needed only while the dependent builds: not linked, not run.
pub(crate) fn build_only(types: DepTypes) -> bool {
    types.build && !types.link && !types.run
}

impl<'a> Solver<'a> {
    /// Whether slot `t` is a package marked `build_tool`.
    fn is_build_tool(&self, t: usize) -> bool {
        matches!(self.slots[t].kind, SlotKind::Package(r) if r.build_tool)
    }

    /// Take out of `deps` the build tools that `recipe` (configured as
    /// `spec`) needs only to build and that [`super::EnvSetup::separate`]
    /// names for it; their active dependency entries are returned.
    pub(super) fn separate_dependencies(
        &self,
        recipe: &'a PackageRecipe,
        spec: &Spec,
        deps: &mut Vec<(usize, DepTypes)>,
    ) -> Vec<&'a Dependency> {
        if self.setup.separate.is_empty() {
            return Vec::new();
        }
        let s = self.index[&recipe.name];
        let mut out = Vec::new();
        deps.retain(|&(t, types)| {
            let separate =
                build_only(types) && self.is_build_tool(t) && self.setup.separate.contains(&(s, t));
            if separate {
                let tool = &self.slots[t].name;
                out.extend(recipe.dependencies.iter().filter(|d| {
                    d.name() == tool && d.when.as_ref().is_none_or(|w| spec.satisfies(&w.spec))
                }));
            }
            !separate
        });
        out
    }

    /// For a clash on slot `t` between `reqs`, the (dependent, tool) pairs
    /// whose build-only requirement on a build tool took part (for
    /// [`Solver::tool_clashes`]).
    pub(super) fn tool_clash(&self, t: usize, reqs: &[&Req<'a>]) -> Vec<(usize, usize)> {
        if !self.is_build_tool(t) {
            return Vec::new();
        }
        reqs.iter()
            .filter_map(|r| match r.origin {
                Origin::Dependency { parent, dep } if build_only(dep.types) => Some((parent, t)),
                _ => None,
            })
            .collect()
    }
}
