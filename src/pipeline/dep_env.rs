//! The run environment of a node's dependencies in its build (Spack's
//! dependents' build environment): what a build or link dependency puts in
//! its `env:` (a python extension's `PYTHONPATH`, an MPI's `MPICC`) reaches
//! the builds that depend on it, not only views and modules.
//!
//! The node hash does not change: a dependency's `env:` is part of that
//! dependency's hash, which is part of the dependent's.

use petgraph::graph::NodeIndex;

use super::render::{RenderError, env_op, run_env};
use crate::build::EnvOp;
use crate::resolve::Plan;

/// The rendered `env:` operations of the direct build and link
/// dependencies of `idx`, dependencies before their dependents (the plan's
/// build order), each rendered with the dependency's own template context.
/// Externals are left out: their environment is the host's.
pub fn dependency_env(plan: &Plan, idx: NodeIndex, jobs: usize) -> Result<Vec<EnvOp>, RenderError> {
    let direct: Vec<NodeIndex> = plan
        .deps(idx)
        .into_iter()
        .filter(|(dep, types)| (types.build || types.link) && !plan.node(*dep).is_external())
        .map(|(dep, _)| dep)
        .collect();
    let mut out = Vec::new();
    if direct.is_empty() {
        return Ok(out);
    }
    for dep in plan.topo_order() {
        if !direct.contains(&dep) {
            continue;
        }
        for (kind, var, value) in run_env(plan, dep, jobs)? {
            out.push(env_op(kind, &var, value));
        }
    }
    Ok(out)
}
