//! The run environment of a node's dependencies in its build (Spack's
//! dependents' build environment): what a build or link dependency puts in
//! its `env:` (a python extension's `PYTHONPATH`, an MPI's `MPICC`) reaches
//! the builds that depend on it, not only views and modules.
//!
//! A dependency built from package files (`system: spack`) adds the run
//! environment its `setup_run_environment` recorded in its prefix
//! (`.stack/run-env.json`, read when the dependent's build starts).
//!
//! A dependency's `dependent_build_env:` (Spack's
//! `setup_dependent_build_environment`: CMake 4 setting
//! `CMAKE_POLICY_VERSION_MINIMUM` for the projects it configures) follows its
//! `env:` there, and reaches nothing else.
//!
//! The node hash does not change: a dependency's `env:`,
//! `dependent_build_env:` (and its package files) are part of that
//! dependency's hash, which is part of the dependent's.

use std::collections::BTreeSet;

use petgraph::graph::NodeIndex;

use super::{RenderError, dependent_build_env, env_op, run_env};
use crate::build::EnvOp;
use crate::recipes::DepTypes;
use crate::resolve::Plan;

/// The rendered `env:` operations of the direct build and link
/// dependencies of `idx` and of what those need at run time (their `run`
/// dependencies, transitively: a python extension's imports), dependencies
/// before their dependents (the plan's build order), each rendered with the
/// dependency's own template context. Externals are left out: their
/// environment is the host's.
pub fn dependency_env(plan: &Plan, idx: NodeIndex, jobs: usize) -> Result<Vec<EnvOp>, RenderError> {
    let run_only = DepTypes {
        build: false,
        link: false,
        run: true,
        test: false,
    };
    let mut wanted = BTreeSet::new();
    for (dep, types) in plan.deps(idx) {
        if types.build || types.link {
            wanted.extend(plan.closure(dep, run_only));
        }
    }
    wanted.remove(&idx);
    wanted.retain(|d| !plan.node(*d).is_external());
    let mut out = Vec::new();
    if wanted.is_empty() {
        return Ok(out);
    }
    for dep in plan.topo_order() {
        if wanted.contains(&dep) {
            let own = run_env(plan, dep, jobs)?;
            for (kind, var, value) in own.into_iter().chain(dependent_build_env(plan, dep, jobs)?) {
                out.push(env_op(kind, &var, value));
            }
            let n = plan.node(dep);
            if n.recipe.build.system.kind.runs_build_logic() {
                // Its `setup_run_environment`, recorded when it was built.
                out.push(EnvOp::RecordedRunEnv(n.prefix.clone()));
            }
        }
    }
    Ok(out)
}
