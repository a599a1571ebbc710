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
//!    configuration (only build tools are ever built twice). That search
//!    is step 1 again: its own clashing build tools are separated in turn.
//! 3. [`check_conflicts`]: a dependent's conflicts naming its separate
//!    tools (`^llvm@…`) are checked against them.
//! 4. `assemble` adds those nodes and the dependents' edges to them; a
//!    dependent's `when: "^tool"` sees them ([`SeparateBuilds::dependent_spec`]).

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
    setup: impl Fn(BTreeSet<(usize, usize)>) -> EnvSetup<'a>,
) -> Result<Solver<'a>, Box<Solver<'a>>> {
    let max_rounds = match duplicates {
        Duplicates::Minimal => MAX_ROUNDS,
        Duplicates::None => 0,
    };
    let mut separate = BTreeSet::new();
    let mut round = 0;
    let mut solver = Solver::new(setup(BTreeSet::new()));
    loop {
        tracing::debug!(
            environment = solver.setup.name,
            slots = solver.slots.len(),
            separate = separate.len(),
            "resolving"
        );
        if solver.run().is_ok() {
            return Ok(solver);
        }
        let new: Vec<(usize, usize)> = solver.tool_clashes.difference(&separate).copied().collect();
        if new.is_empty() || round == max_rounds {
            return Err(Box::new(solver));
        }
        let names: Vec<(&str, &str)> = new
            .iter()
            .map(|&(d, t)| (solver.slots[d].name.as_str(), solver.slots[t].name.as_str()))
            .collect();
        tracing::debug!(pairs = ?names, "separating build-only dependencies on build tools");
        separate.extend(new);
        round += 1;
        solver = solver.again(setup(separate.clone()));
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
    /// The build tools that search separated in turn.
    pub builds: SeparateBuilds<'a>,
}

/// How deep separate builds nest (a build tool's own build tools, …).
const MAX_DEPTH: usize = 4;

/// Makes the search of a separate build: its roots, the (dependent, tool)
/// slot pairs it separates, the configurations it shares.
pub(super) type SetupFn<'f, 'a> =
    dyn Fn(Vec<RootInput<'a>>, BTreeSet<(usize, usize)>, Vec<Spec>) -> EnvSetup<'a> + 'f;

/// Resolve the build-only dependencies the environment's search left out
/// ([`super::solve::Concrete::separate`]); `setup` makes the search of one.
/// A separate search separates its own clashing build tools in turn, down
/// to [`MAX_DEPTH`].
pub(super) fn resolve_builds<'a>(
    main: &Solver<'a>,
    duplicates: Duplicates,
    setup: &SetupFn<'_, 'a>,
) -> Result<SeparateBuilds<'a>, ResolveError> {
    resolve_nested(main, duplicates, setup, 0)
}

fn resolve_nested<'a>(
    main: &Solver<'a>,
    duplicates: Duplicates,
    setup: &SetupFn<'_, 'a>,
    depth: usize,
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
            let roots: Vec<RootInput<'a>> = deps
                .iter()
                .map(|d| RootInput {
                    spec: &d.spec,
                    kind: RootKind::Spec,
                    from_cluster: false,
                })
                .collect();
            let shared = shared.get_or_insert_with(|| shared_configurations(main));
            let nested = if depth < MAX_DEPTH {
                duplicates
            } else {
                Duplicates::None
            };
            let solver = solve(nested, |separate| {
                let mut sub = setup(roots.clone(), separate, shared.clone());
                sub.built_for = Some(c.label());
                sub
            })
            .map_err(|solver| failed(main, s, tool, &solver))?;
            let own_builds = resolve_nested(&solver, duplicates, setup, depth + 1)?;
            let tool = solver.resolved(solver.index[tool]);
            builds.own.push(OwnBuild {
                dependent: s,
                solver,
                tool,
                types,
                builds: own_builds,
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

impl SeparateBuilds<'_> {
    /// The `stack resolve --explain` lines of these builds (dependents
    /// decided by `main`) and of those nested in them.
    pub fn choices(&self, main: &Solver<'_>) -> Vec<String> {
        let mut out = Vec::new();
        for own in &self.own {
            out.push(own.choice(main));
            out.extend(own.builds.choices(&own.solver));
        }
        out
    }

    /// The dependents with build tools of their own, or sharing the
    /// environment's node the search left out.
    pub(super) fn dependents(&self) -> BTreeSet<usize> {
        let same = self.same.iter().map(|&(s, _, _)| s);
        same.chain(self.own.iter().map(|o| o.dependent)).collect()
    }

    /// The build tools package `s` of `main` was given here: (the separate
    /// builds of the search that decided each, that search, its slot there).
    fn tools<'s>(
        &'s self,
        main: &'s Solver<'_>,
        s: usize,
    ) -> impl Iterator<Item = (&'s SeparateBuilds<'s>, &'s Solver<'s>, usize)> + 's {
        let same = self
            .same
            .iter()
            .filter(move |&&(d, _, _)| d == s)
            .map(move |&(_, t, _)| (self, main, t));
        let own = self
            .own
            .iter()
            .filter(move |o| o.dependent == s)
            .map(|o| (&o.builds, &o.solver, o.tool));
        same.chain(own)
    }

    /// Package `s`'s spec with its whole dependency closure, as a `when:`
    /// naming dependencies (`^cy@3.1`) is tested against it: the build
    /// tools it was given here first, each the same way (a `^tool`
    /// condition sees them before a node of the same name reached through a
    /// linked dependency), then the environment's packages. A package given
    /// none gets [`Solver::closure_spec`].
    pub(super) fn dependent_spec(&self, main: &Solver<'_>, s: usize) -> Spec {
        self.dependent_spec_at(main, s, 0)
    }

    /// [`Self::dependent_spec`], `depth` levels down: a tool's separate
    /// tools are followed to [`MAX_DEPTH`] levels (build tools that build
    /// each other, which assembly refuses as a cycle, stop there).
    fn dependent_spec_at(&self, main: &Solver<'_>, s: usize, depth: usize) -> Spec {
        let mut full = main.closure_spec(s, &main.closure(s));
        let mut deps: Vec<Spec> = self
            .tools(main, s)
            .map(|(builds, solver, t)| {
                if depth < MAX_DEPTH {
                    builds.dependent_spec_at(solver, t, depth + 1)
                } else {
                    solver.closure_spec(t, &solver.closure(t))
                }
            })
            .collect();
        deps.append(&mut full.deps);
        full.deps = deps;
        full
    }
}

/// A dependent's conflicts that name dependencies (`^cy@3.1`), checked
/// with the build tools it was given here: the environment's search could
/// not see them.
pub(super) fn check_conflicts(
    main: &Solver<'_>,
    builds: &SeparateBuilds<'_>,
) -> Result<(), ResolveError> {
    for own in &builds.own {
        check_conflicts(&own.solver, &own.builds)?;
    }
    for s in builds.dependents() {
        let Some(Decision::Node(c)) = &main.decided[s] else {
            continue;
        };
        if c.deferred.is_empty() {
            continue;
        }
        let spec = builds.dependent_spec(main, s);
        let Some(conflict) = c.deferred.iter().find(|k| spec.satisfies(&k.when.spec)) else {
            continue;
        };
        let mut e = main.explain_deferred(s, conflict, &[]);
        let tools: Vec<String> = builds
            .tools(main, s)
            .map(|(_, solver, t)| format!("`{}`", solver.describe(t)))
            .collect();
        e.lines.insert(
            0,
            ExplainLine {
                indent: 0,
                text: format!(
                    "with {}, which `{}` needs only to build and which is built for it because the environment's requirements on it clash",
                    tools.join(", "),
                    main.describe(s)
                ),
                loc: None,
            },
        );
        e.hint = Some(format!(
            "a separate build takes the newest version that meets `{}`'s requirements on the tool: narrow them in its `dependencies:`, or drop the conflict if it no longer holds",
            main.slots[s].name
        ));
        return Err(ResolveError::Unsatisfiable(Box::new(e)));
    }
    Ok(())
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
