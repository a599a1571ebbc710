//! Build tools built twice, as Spack's `duplicates: strategy: minimal`
//! allows: a package marked `build_tool` (Spack's `build-tools` and
//! `compiler` tags) may get a build of its own for the dependents that need
//! it only while they build, when the environment's requirements on it
//! clash (paraview's ispc needs a build-only `llvm +clang`, mesa links an
//! `llvm ~clang`; py-fastrlock builds with `py-cython@3.0`, py-grpcio with
//! `py-cython@3.1.1:`).
//!
//! 1. [`solve`]: the environment is searched as usual; when it fails and
//!    the search met clashes in which a build-only dependency on a build
//!    tool took part, those (dependent, tool) pairs are left out and the
//!    search runs again (a few rounds at most). A stack that resolves with
//!    one node per package never gets here, so its plan does not change.
//! 2. [`resolve_builds`]: each left-out dependency uses the environment's
//!    own node of the tool when that meets it, and otherwise is resolved
//!    as a search of its own, rooted at the dependency's specs, in which
//!    every other package the environment has takes the environment's
//!    configuration (only build tools are ever built twice).
//! 3. `assemble` adds those nodes and the dependents' edges to them.

use std::collections::{BTreeMap, BTreeSet};

use crate::recipes::{DepTypes, Dependency};
use crate::spec::Spec;
use crate::stacks::Duplicates;

use super::error::{ExplainLine, ResolveError};
use super::model::RootKind;
use super::requirement::Req;
use super::solve::{Decision, EnvSetup, RootInput, Solver};

/// How many times an environment is searched again with more build tools
/// separated.
const MAX_ROUNDS: usize = 4;

/// Search the environment, separating the build tools whose build-only
/// requirements clashed, round by round (none with `duplicates: none`);
/// the last failed search when no round resolves.
pub(super) fn solve<'a>(
    duplicates: Duplicates,
    setup: impl Fn(BTreeSet<(String, String)>) -> EnvSetup<'a>,
) -> Result<Solver<'a>, Box<Solver<'a>>> {
    let max_rounds = match duplicates {
        Duplicates::Minimal => MAX_ROUNDS,
        Duplicates::None => 0,
    };
    let mut separate = BTreeSet::new();
    let mut round = 0;
    loop {
        let mut solver = Solver::new(setup(separate.clone()));
        tracing::debug!(
            environment = solver.setup.name,
            slots = solver.slots.len(),
            separate = separate.len(),
            "resolving"
        );
        if solver.run().is_ok() {
            return Ok(solver);
        }
        let new: Vec<(String, String)> =
            solver.tool_clashes.difference(&separate).cloned().collect();
        if new.is_empty() || round == max_rounds {
            return Err(Box::new(solver));
        }
        tracing::debug!(pairs = ?new, "separating build-only dependencies on build tools");
        separate.extend(new);
        round += 1;
    }
}

/// The build tools of an environment that some dependents do not share.
#[derive(Default)]
pub(crate) struct SeparateBuilds<'a> {
    /// (dependent slot, tool slot, types): the environment's own node of
    /// the tool meets the dependent's requirements after all.
    pub same: Vec<(usize, usize, DepTypes)>,
    /// Builds of their own.
    pub own: Vec<OwnBuild<'a>>,
}

/// A build tool resolved for one dependent.
pub(crate) struct OwnBuild<'a> {
    pub dependent: usize,
    /// The search rooted at the dependent's requirements on the tool.
    pub solver: Solver<'a>,
    /// The tool's slot in that search.
    pub tool: usize,
    pub types: DepTypes,
}

/// Resolve the build-only dependencies the environment's search left out
/// ([`super::solve::Concrete::separate`]); `setup` makes the search of one
/// from its roots and the configurations it must share.
pub(super) fn resolve_builds<'a>(
    main: &Solver<'a>,
    setup: impl Fn(Vec<RootInput<'a>>, Vec<Spec>) -> EnvSetup<'a>,
) -> Result<SeparateBuilds<'a>, ResolveError> {
    let mut builds = SeparateBuilds::default();
    let mut shared: Option<Vec<Spec>> = None;
    for s in 0..main.slots.len() {
        let Some(Decision::Node(c)) = &main.decided[s] else {
            continue;
        };
        let mut by_tool: BTreeMap<&str, Vec<&'a Dependency>> = BTreeMap::new();
        for &d in &c.separate {
            by_tool.entry(d.name()).or_default().push(d);
        }
        for (tool, deps) in by_tool {
            let types = deps.iter().fold(DepTypes::NONE, |mut a, d| {
                a.build |= d.types.build;
                a.test |= d.types.test;
                a
            });
            let t = main.index[tool];
            if let Some(Decision::Node(own)) = &main.decided[t] {
                if deps
                    .iter()
                    .all(|d| own.spec.satisfies(&Req::node_part(&d.spec.spec)))
                {
                    builds.same.push((s, t, types));
                    continue;
                }
            }
            let roots = deps
                .iter()
                .map(|d| RootInput {
                    spec: &d.spec,
                    kind: RootKind::Spec,
                    from_cluster: false,
                })
                .collect();
            let shared = shared.get_or_insert_with(|| shared_configurations(main));
            let mut sub = setup(roots, shared.clone());
            sub.built_for = Some(c.label());
            let mut solver = Solver::new(sub);
            if solver.run().is_err() {
                return Err(failed(main, s, tool, &solver));
            }
            let tool = solver.resolved(solver.index[tool]);
            builds.own.push(OwnBuild {
                dependent: s,
                solver,
                tool,
                types,
            });
        }
    }
    Ok(builds)
}

/// The configuration of every package the environment decided, except the
/// build tools: a separate build reuses them.
fn shared_configurations(main: &Solver<'_>) -> Vec<Spec> {
    main.decided
        .iter()
        .filter_map(|d| match d {
            Some(Decision::Node(c)) if !c.recipe.build_tool => Some(c.spec.clone()),
            _ => None,
        })
        .collect()
}

/// The error of a separate build that does not resolve.
fn failed(main: &Solver<'_>, dependent: usize, tool: &str, solver: &Solver<'_>) -> ResolveError {
    let mut e = super::unsatisfiable(main.setup.name, solver);
    if let ResolveError::Unsatisfiable(x) = &mut e {
        // a dependent is never an external (externals have no dependencies)
        let label = main.describe(dependent);
        x.lines.insert(
            0,
            ExplainLine {
                indent: 0,
                text: format!(
                    "in the separate build of `{tool}` for `{label}`, which needs it only to build and whose requirements on it clash with the environment's"
                ),
                loc: None,
            },
        );
    }
    e
}

impl OwnBuild<'_> {
    /// The `stack resolve --explain` line of this build.
    pub fn choice(&self, main: &Solver<'_>) -> String {
        let tool = match &self.solver.decided[self.tool] {
            Some(Decision::Node(c)) => c.label(),
            _ => self.solver.slots[self.tool].name.clone(),
        };
        let dependent = main.describe(self.dependent);
        let name = &self.solver.slots[self.tool].name;
        format!(
            "`{tool}` is built separately for `{dependent}`, which needs it only to build: the requirements on `{name}` in the environment clash"
        )
    }
}
