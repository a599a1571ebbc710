//! The `resolve` stage: a stack recipe, its cluster configuration and the
//! package repository become a [`Plan`] — a DAG of concrete, hashed nodes
//! with typed edges — and `stack.lock` records it.
//!
//! ```text
//! resolve(&StackRecipe, &Cluster, &PackageRepo, &ResolveOptions) -> Result<Plan, ResolveError>
//! ```
//!
//! Per environment (`unify: true`: one node per package name, but for build
//! tools built twice):
//! 1. `order`: every package and virtual that could take part, dependents
//!    before dependencies;
//! 2. `solve`: decisions in that order — requirements merged
//!    (`requirement`), policies applied (`policy`: cluster, then the
//!    environment, later wins per package; `all`), candidates tried in
//!    preference order (`candidates`: externals, pinned/preferred/newest
//!    versions, branches only when named), variants chosen (`variants`),
//!    conflicts checked, virtuals given providers; conflict-directed
//!    backjumping when a choice leads to a conflict;
//!    When the search fails on a build tool's build-only requirements,
//!    `separate` runs it again with those dependencies left out and
//!    resolves each as a build of its own (Spack's `duplicates: minimal`);
//! 3. `explain`: a failure becomes an [`Explanation`] listing the
//!    requirements that collide with their `file:line`;
//! 4. `assemble`: sources, patches, [`hash`]es and [`prefix`]es; nodes with
//!    equal hashes are shared between environments.
//!
//! Then [`lockfile`] writes/reads/compares `stack.lock`, and [`render`] prints
//! a plan as a tree, JSON or graphviz dot. User documentation:
//! `docs/resolve.md`.

mod assemble;
mod candidates;
mod compilers;
mod error;
mod explain;
mod git_versions;
pub mod hash;
pub mod lockfile;
mod model;
mod order;
mod partial;
mod pins;
mod policy;
pub mod prefix;
mod provider_defaults;
pub mod render;
mod requirement;
mod separate;
mod solve;
mod variants;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use crate::cluster::Cluster;
use crate::recipes::PackageRepo;
use crate::spec::{CompilerSpec, Spec, TargetConstraint, VersionConstraint, VersionRange};
use crate::stacks::StackRecipe;

pub use assemble::GitPins;
pub use error::{ExplainLine, Explanation, LockChange, ResolveError, short_loc};
pub use hash::HASH_FORMAT;
pub use lockfile::{LOCK_FILE, LOCK_VERSION, Lock, lock_path};
pub use model::{
    CompilerOrigin, Node, NodeCompiler, NodePatch, NodeResource, NodeSource, Plan, PlanEnvironment,
    PlanRoot, RootKind, UnpinnedGit,
};
pub use prefix::{install_prefix, is_prefix_name};
pub use solve::SearchStats;

/// How to resolve.
#[derive(Clone, Debug, Default)]
pub struct ResolveOptions {
    /// `--locked`: the plan must equal this lock (its git commits are used);
    /// any difference is a [`ResolveError::LockMismatch`] listing what
    /// changed.
    pub locked: Option<Lock>,
    /// Commits for git branches and tags, keyed by (repository as resolved —
    /// [`NodeSource::git_pin_key`] — and branch or tag name). They win over
    /// the commits in `locked`; a recipe's own `commit:` wins over both.
    pub git_pins: GitPins,
    /// Overrides the recipe's `mount:`.
    pub mount: Option<PathBuf>,
    /// How many alternatives the search of one environment may try before
    /// it gives up (default 200,000; a few seconds).
    pub max_steps: Option<usize>,
    /// Search without forward checking and with the whole conflict sets
    /// (every requirement's creator): slower, the same plans — for
    /// comparing the two searches.
    pub plain_backjumping: bool,
    /// Search without conflict learning (no nogoods): slower, the same
    /// plans — for comparing the two searches.
    pub no_learning: bool,
    /// When set, the counters of each environment's search are added here
    /// (environment name, counters), in the order resolved.
    pub search_stats: Option<SearchStatsLog>,
}

/// Where [`ResolveOptions::search_stats`] adds each environment's counters.
pub type SearchStatsLog = std::sync::Arc<std::sync::Mutex<Vec<(String, SearchStats)>>>;

/// The one version a spec asks for (`gcc@12.2.0` of a compiler, `@=1.0`,
/// `@1.0:1.0`): compilers, externals and git versions.
fn exact_version(spec: &Spec) -> Option<crate::spec::Version> {
    if let Some(v) = spec.versions.is_exact() {
        return Some(v.clone());
    }
    match spec.versions.ranges() {
        [
            VersionRange::Between {
                lo: Some(lo),
                hi: Some(hi),
            },
        ] if lo.as_str() == hi.as_str() => Some(lo.clone()),
        _ => None,
    }
}

/// Resolve every environment of `recipe` into one [`Plan`]: the stack's
/// compilers first (`resolve/compilers.rs`), then the recipe's environments.
pub fn resolve(
    recipe: &StackRecipe,
    cluster: &Cluster,
    repo: &PackageRepo,
    opts: &ResolveOptions,
) -> Result<Plan, ResolveError> {
    let compiler = compilers::cluster_default(recipe, cluster)?;
    let default = compilers::Chosen {
        compiler: compilers::system(compiler)?,
        loc: recipe
            .compiler
            .as_ref()
            .filter(|c| cluster.find_compiler(&c.spec).is_some())
            .map(|c| c.loc.clone())
            .unwrap_or_else(|| compiler.loc.clone()),
        node: None,
    };
    let mut pins = opts.locked.as_ref().map(Lock::git_pins).unwrap_or_default();
    pins.extend(opts.git_pins.iter().map(|(k, v)| (k.clone(), v.clone())));

    let mut plan = Plan {
        graph: Default::default(),
        environments: Vec::new(),
        stack: recipe.name.value.clone(),
        recipe_file: recipe.file.clone(),
        cluster: cluster.name.value.clone(),
        mount: opts.mount.clone().unwrap_or_else(|| recipe.mount.clone()),
        target: cluster.target.value.clone(),
        compiler: default.compiler.clone(),
        cluster_compiler: compiler.clone(),
        cluster_compilers: cluster.compilers.clone(),
        os: cluster.os.clone(),
        libc: cluster.libc.clone(),
    };
    let mut by_hash = HashMap::new();
    for env in recipe.all_environments() {
        let chosen = compilers::for_environment(recipe, &env, cluster, &plan, &default)?;
        let others = compilers::others(&env, cluster, &plan)?;
        let env_compilers = EnvCompilers {
            chosen: &chosen,
            others: &others,
        };
        resolve_environment(
            &mut plan,
            &mut by_hash,
            &env,
            cluster,
            repo,
            &env_compilers,
            (
                &pins,
                opts.max_steps.unwrap_or(solve::MAX_STEPS),
                opts.plain_backjumping,
                opts,
            ),
        )?;
    }
    if let Some(lock) = &opts.locked {
        let changes = lock.compare(&plan);
        if !changes.is_empty() {
            return Err(ResolveError::LockMismatch {
                path: lock.path.clone().unwrap_or_else(|| lock_path(&recipe.file)),
                changes,
            });
        }
    }
    Ok(plan)
}

/// The compilers of one environment: its default and the others it offers.
struct EnvCompilers<'c> {
    chosen: &'c compilers::Chosen,
    others: &'c [compilers::Chosen],
}

/// Solve one environment with its compilers and add it to `plan`.
fn resolve_environment(
    plan: &mut Plan,
    by_hash: &mut HashMap<String, petgraph::graph::NodeIndex>,
    env: &crate::stacks::Environment,
    cluster: &Cluster,
    repo: &PackageRepo,
    compilers: &EnvCompilers<'_>,
    (pins, max_steps, plain, opts): (&GitPins, usize, bool, &ResolveOptions),
) -> Result<(), ResolveError> {
    let learn = !opts.no_learning;
    let chosen = compilers.chosen;
    let target = cluster.target.value.as_str();
    let base = Spec {
        compiler: Some(CompilerSpec {
            name: chosen.compiler.name.clone(),
            versions: VersionConstraint::exact(chosen.compiler.version.clone()),
        }),
        target: Some(TargetConstraint::exact(target)),
        os: cluster.os.clone(),
        platform: Some("linux".to_string()),
        ..Spec::default()
    };
    let policies = env.policies(cluster);
    let mut roots: Vec<solve::RootInput> = env
        .specs
        .iter()
        .map(|s| solve::RootInput {
            spec: s,
            kind: RootKind::Spec,
            from_cluster: false,
        })
        .collect();
    roots.extend(
        env.network_specs(cluster)
            .into_iter()
            .map(|s| solve::RootInput {
                spec: s,
                kind: RootKind::Network,
                from_cluster: s.loc.path() == cluster.file,
            }),
    );
    let git_versioned =
        git_versions::with_git_versions(repo, &policies, roots.iter().map(|r| r.spec));
    let setup = one_lifetime(|roots, separate, shared| solve::EnvSetup {
        name: &env.name.value,
        repo,
        git_versioned: &git_versioned,
        policies: &policies,
        cluster_file: &cluster.file,
        env_variants: &env.variants,
        base: base.clone(),
        target,
        target_loc: &cluster.target.loc,
        compiler: &chosen.compiler,
        compiler_loc: &chosen.loc,
        others: compilers
            .others
            .iter()
            .map(|c| c.compiler.clone())
            .collect(),
        roots,
        max_steps,
        plain,
        learn,
        separate,
        shared,
        built_for: None,
    });
    let solver = separate::solve(env.duplicates, |separate| {
        setup(roots.clone(), separate, Vec::new())
    })
    .map_err(|solver| {
        report_stats(opts, &env.name.value, &solver);
        unsatisfiable(&env.name.value, &solver)
    })?;
    report_stats(opts, &env.name.value, &solver);
    let builds = separate::resolve_builds(&solver, env.duplicates, &setup)?;
    separate::check_conflicts(&solver, &builds)?;
    assemble::add_environment(plan, by_hash, env, (&solver, &builds), pins, chosen.node)
}

/// Log the counters of `solver`'s search of `environment`, and add them to
/// [`ResolveOptions::search_stats`].
fn report_stats(opts: &ResolveOptions, environment: &str, solver: &solve::Solver<'_>) {
    let stats = solver.stats();
    tracing::debug!(
        environment,
        steps = solver.steps,
        decisions = stats.decisions,
        backjumps = stats.backjumps,
        learned = stats.learned,
        pruned = stats.pruned,
        "searched"
    );
    if let Some(all) = &opts.search_stats {
        all.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push((environment.to_string(), stats));
    }
}

/// `f` as a closure whose roots live as long as the setup it makes.
fn one_lifetime<'x, F>(f: F) -> F
where
    F: Fn(Vec<solve::RootInput<'x>>, BTreeSet<(usize, usize)>, Vec<Spec>) -> solve::EnvSetup<'x>,
{
    f
}

/// The error for a search that ran out of alternatives or gave up: the
/// failure that ended it, the first clash met below it when that differs.
fn unsatisfiable(environment: &str, solver: &solve::Solver<'_>) -> ResolveError {
    // The failure that ended the search (its chain of first causes from the
    // root), unless the step limit cut it short; the first clash met is
    // kept below it when it differs.
    let first = solver.first_failure.clone();
    let last = solver.final_failure.clone().filter(|_| !solver.gave_up());
    let earlier = match (&first, &last) {
        (Some(f), Some(l)) if f.problem != l.problem => Some(f.problem.clone()),
        _ => None,
    };
    let mut e = last.or(first).unwrap_or_else(|| Explanation {
        environment: environment.to_string(),
        problem: "no configuration satisfies every requirement".into(),
        lines: Vec::new(),
        tried: Vec::new(),
        hint: None,
    });
    e.tried = solver.tried.clone();
    if let Some(problem) = earlier {
        e.lines.push(error::ExplainLine {
            indent: 0,
            text: format!("the first clash met, which backtracking went past: {problem}"),
            loc: None,
        });
    }
    if solver.gave_up() {
        // What is shown is the first clash met, which the search may have
        // got past: say so, whatever the failure's own hint.
        e.lines.push(error::ExplainLine {
            indent: 0,
            text: format!(
                "the search gave up after trying {} alternatives: the failure above is the first clash it met, and later choices may have got past it",
                solver.steps
            ),
            loc: None,
        });
        let narrow =
            "pin versions (`@…`) or variants of the packages named above to narrow the search";
        e.hint = Some(match e.hint.take() {
            Some(h) => format!("{h}; {narrow}"),
            None => narrow.to_string(),
        });
    }
    ResolveError::Unsatisfiable(Box::new(e))
}
