//! From solved environments to the [`Plan`]: sources, patches, hashes and
//! prefixes per node, nodes shared across environments when their hashes
//! are equal.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use petgraph::graph::NodeIndex;

use crate::recipes::{
    ArgList, DepTypes, ExtraFile, GitRef, PackageRecipe, Setting, Source, Toggle, When,
};
use crate::spec::Spec;
use crate::stacks::Environment;

use super::error::{ExplainLine, Explanation, ResolveError};
use super::model::{Node, NodePatch, NodeResource, NodeSource, Plan, PlanEnvironment, PlanRoot};
use super::pins::{HashBasis, hash_and_prefix};
use super::separate::SeparateBuilds;
use super::solve::{Concrete, Decision, RootInput, Solver};

/// Git pins: (repository, branch or tag) → commit.
pub type GitPins = BTreeMap<(String, String), String>;

fn union(a: &mut DepTypes, b: DepTypes) {
    a.build |= b.build;
    a.link |= b.link;
    a.run |= b.run;
    a.test |= b.test;
}

/// Whether a `when:` that the build stage evaluates (patches, build
/// section, env) names dependencies (`^openmpi`): such a node's spec then
/// carries its dependencies so that `Node::satisfies` can test them.
fn uses_dep_conditions(r: &PackageRecipe) -> bool {
    let has = |w: &Option<When>| w.as_ref().is_some_and(|w| !w.spec.deps.is_empty());
    let args = |l: &ArgList| l.iter().any(|c| has(&c.when));
    let toggle = |t: &Toggle| matches!(t, Toggle::When(w) if !w.spec.deps.is_empty());
    let b = &r.build;
    let system = b.system.settings.iter().any(|(_, s)| match s {
        Setting::Toggle(t) => toggle(t),
        Setting::Args(l) | Setting::Words(l) => args(l),
        Setting::Relocate(rel) => rel.needed.iter().any(|n| has(&n.when)),
        Setting::Flag(_) | Setting::Text(_) | Setting::File(_) | Setting::Files(_) => false,
    });
    system
        || r.patches.iter().any(|p| has(&p.when))
        || r.resources.iter().any(|x| has(&x.when))
        || r.versions.iter().any(|v| match &v.source {
            Source::Archive(a) => a.resources.iter().any(|x| has(&x.when)),
            Source::Git(_) | Source::None => false,
        })
        || r.env.iter().any(|e| has(&e.when))
        || r.dependent_build_env.iter().any(|e| has(&e.when))
        || b.build_env.iter().any(|e| has(&e.when))
        || b.steps.iter().any(|s| has(&s.when))
        || b.install.iter().any(|s| has(&s.when))
        || b.filters.iter().any(|f| has(&f.when))
}

fn node_source(c: &Concrete<'_>, pins: &GitPins, spec: &Spec) -> Option<NodeSource> {
    let entry = c.entry?;
    let applies = |r: &&ExtraFile| r.when.as_ref().is_none_or(|w| spec.satisfies(&w.spec));
    let package_level = c.recipe.resources.iter().filter(applies);
    Some(match &entry.source {
        Source::Archive(a) => NodeSource::Archive {
            url: a.url.clone(),
            url_text: a.url_text.clone(),
            sha256: a.sha256.clone(),
            expand: a.expand,
            resources: a
                .resources
                .iter()
                .filter(applies)
                .chain(package_level)
                .map(node_resource)
                .collect(),
        },
        Source::Git(g) => {
            let commit = match &g.reference {
                GitRef::Commit(c) => Some(c.clone()),
                GitRef::Branch(r) | GitRef::Tag(r) => g
                    .commit
                    .clone()
                    .or_else(|| pins.get(&(g.repo.to_string(), r.clone())).cloned()),
            };
            NodeSource::Git {
                repo: g.repo.clone(),
                repo_text: g.repo_text.clone(),
                reference: g.reference.clone(),
                commit,
                submodules: g.submodules,
                resources: package_level.map(node_resource).collect(),
            }
        }
        Source::None => return None,
    })
}

fn node_resource(r: &ExtraFile) -> NodeResource {
    NodeResource {
        name: r.name.clone(),
        url: r.url.clone(),
        url_text: r.url_text.clone(),
        git: r.git.clone(),
        sha256: r.sha256.clone(),
        expand: r.expand,
        strip: r.strip,
        destination: r.destination.clone(),
        placement: r.placement.clone(),
        max_size: r.max_size.as_ref().map(|m| m.bytes),
    }
}

/// Package slots and their dependency slots (virtuals resolved), in slot
/// order.
type SlotDeps = BTreeMap<usize, Vec<(usize, DepTypes)>>;

/// Adds the solved environment `env` to `plan`.
pub(crate) fn add_environment(
    plan: &mut Plan,
    by_hash: &mut HashMap<String, NodeIndex>,
    env: &Environment,
    (solver, builds): (&Solver<'_>, &SeparateBuilds<'_>),
    pins: &GitPins,
    compiler_node: Option<NodeIndex>,
) -> Result<(), ResolveError> {
    let mut added = Vec::new();
    let node_of = add_search(plan, by_hash, env, (solver, builds), pins, &mut added)?;
    let mut roots = Vec::new();
    for r in &solver.setup.roots {
        let slot = solver.resolved(solver.index[r.spec.name().unwrap_or_default()]);
        let node = node_of[&slot];
        check_root_deps(plan, env, solver, r, node)?;
        roots.push(PlanRoot {
            spec: r.spec.clone(),
            kind: r.kind,
            node,
        });
    }
    let mut nodes: Vec<NodeIndex> = added
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    nodes.sort_by(|a, b| {
        let (x, y) = (&plan.graph[*a], &plan.graph[*b]);
        x.name.cmp(&y.name).then_with(|| x.hash.cmp(&y.hash))
    });
    if let Some(c) = compiler_node {
        built_after_compiler(plan, &nodes, c);
    }
    built_after_other_compilers(plan, &nodes);
    plan.environments.push(PlanEnvironment {
        name: env.name.value.clone(),
        roots,
        nodes,
        views: env.views.clone(),
        compiler: solver.setup.compiler.clone(),
        compiler_node,
        choices: solver
            .choices()
            .into_iter()
            .chain(builds.choices(solver))
            .collect(),
    });
    Ok(())
}

/// Add the nodes of `solver`'s search and of its separate builds
/// (`builds`, first: the nodes they share with the search are its own, by
/// equal hashes), pushing every node added to `added`; each slot's node.
fn add_search(
    plan: &mut Plan,
    by_hash: &mut HashMap<String, NodeIndex>,
    env: &Environment,
    (solver, builds): (&Solver<'_>, &SeparateBuilds<'_>),
    pins: &GitPins,
    added: &mut Vec<NodeIndex>,
) -> Result<HashMap<usize, NodeIndex>, ResolveError> {
    let mut extra: HashMap<usize, Vec<(NodeIndex, DepTypes)>> = HashMap::new();
    for own in &builds.own {
        let node_of = add_search(plan, by_hash, env, (&own.solver, &own.builds), pins, added)?;
        extra
            .entry(own.dependent)
            .or_default()
            .push((node_of[&own.tool], own.types));
    }
    let mut deps = dependency_slots(solver);
    for &(s, t, types) in &builds.same {
        let ds = deps.get_mut(&s).expect("a decided package");
        match ds.iter_mut().find(|(x, _)| *x == t) {
            Some((_, ty)) => union(ty, types),
            None => ds.push((t, types)),
        }
    }
    let node_of = add_nodes(plan, by_hash, env, (solver, builds), deps, &extra, pins)?;
    added.extend(node_of.values().copied());
    Ok(node_of)
}

/// Add the package slots `solver` decided (with their dependency slots
/// `deps`, and `extra` dependencies on nodes already in the plan: the
/// separate builds `builds` of their build tools) as nodes, dependencies
/// first; each slot's node.
fn add_nodes(
    plan: &mut Plan,
    by_hash: &mut HashMap<String, NodeIndex>,
    env: &Environment,
    search: (&Solver<'_>, &SeparateBuilds<'_>),
    deps: SlotDeps,
    extra: &HashMap<usize, Vec<(NodeIndex, DepTypes)>>,
    pins: &GitPins,
) -> Result<HashMap<usize, NodeIndex>, ResolveError> {
    let order = dependencies_first(env, search.0, &deps)?;
    let mut node_of: HashMap<usize, NodeIndex> = HashMap::new();
    for s in order {
        let dep_nodes: Vec<(NodeIndex, DepTypes)> = deps[&s]
            .iter()
            .map(|(t, ty)| (node_of[t], *ty))
            .chain(extra.get(&s).into_iter().flatten().copied())
            .collect();
        let idx = add_node(plan, by_hash, search, s, &dep_nodes, pins);
        node_of.insert(s, idx);
    }
    Ok(node_of)
}

/// Every package built with a stack-built compiler (node `c`) is built
/// after it.
fn built_after_compiler(plan: &mut Plan, nodes: &[NodeIndex], c: NodeIndex) {
    for &n in nodes {
        if n != c && !plan.graph[n].is_external() && plan.graph.find_edge(n, c).is_none() {
            plan.graph.add_edge(
                n,
                c,
                DepTypes {
                    build: true,
                    link: false,
                    run: false,
                    test: false,
                },
            );
        }
    }
}

/// A package built with another stack-built compiler of its environment
/// (`%nvhpc`, `%fortran=nvhpc`) is built after that compiler.
fn built_after_other_compilers(plan: &mut Plan, nodes: &[NodeIndex]) {
    for &n in nodes {
        let node = &plan.graph[n];
        if node.is_external() {
            continue;
        }
        let hashes: Vec<String> = std::iter::once(&node.compiler)
            .chain(node.languages.values())
            .filter_map(|c| c.built_hash().map(str::to_string))
            .collect();
        for h in hashes {
            if let Some(c) = plan.find_hash(&h) {
                if c != n && plan.graph.find_edge(n, c).is_none() {
                    built_after_compiler(plan, &[n], c);
                }
            }
        }
    }
}

/// Every package slot the solver decided, with its dependency slots
/// (virtuals resolved to their providers, types of repeated edges joined).
fn dependency_slots(solver: &Solver<'_>) -> SlotDeps {
    let mut deps = SlotDeps::new();
    for s in 0..solver.slots.len() {
        if let Some(Decision::Node(c)) = &solver.decided[s] {
            let mut ds: Vec<(usize, DepTypes)> = Vec::new();
            for &(t, types) in &c.deps {
                let r = solver.resolved(t);
                match ds.iter_mut().find(|(x, _)| *x == r) {
                    Some((_, ty)) => union(ty, types),
                    None => ds.push((r, types)),
                }
            }
            deps.insert(s, ds);
        }
    }
    deps
}

/// The package slots, dependencies first (Kahn), ties by slot order; a
/// cycle is an error naming the slots on it.
fn dependencies_first(
    env: &Environment,
    solver: &Solver<'_>,
    deps: &SlotDeps,
) -> Result<Vec<usize>, ResolveError> {
    let mut missing: BTreeMap<usize, usize> = deps.iter().map(|(s, d)| (*s, d.len())).collect();
    let mut users: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (s, ds) in deps {
        for (t, _) in ds {
            users.entry(*t).or_default().push(*s);
        }
    }
    let mut ready: BTreeSet<usize> = missing
        .iter()
        .filter(|(_, m)| **m == 0)
        .map(|(s, _)| *s)
        .collect();
    let mut order = Vec::with_capacity(deps.len());
    while let Some(s) = ready.pop_first() {
        order.push(s);
        for u in users.get(&s).into_iter().flatten() {
            let m = missing.get_mut(u).expect("package slot");
            *m -= 1;
            if *m == 0 {
                ready.insert(*u);
            }
        }
    }
    if order.len() < deps.len() {
        let stuck: Vec<String> = missing
            .iter()
            .filter(|(_, m)| **m > 0)
            .map(|(s, _)| solver.describe(*s))
            .collect();
        return Err(ResolveError::Cycle {
            environment: env.name.value.clone(),
            cycle: stuck.join(" → "),
        });
    }
    Ok(order)
}

/// The node of package slot `s` (whose dependencies are `dep_nodes`),
/// added to the plan unless a node with its hash is there already.
fn add_node(
    plan: &mut Plan,
    by_hash: &mut HashMap<String, NodeIndex>,
    (solver, builds): (&Solver<'_>, &SeparateBuilds<'_>),
    s: usize,
    dep_nodes: &[(NodeIndex, DepTypes)],
    pins: &GitPins,
) -> NodeIndex {
    let Some(Decision::Node(c)) = &solver.decided[s] else {
        unreachable!("only package slots are ordered");
    };
    let spec = node_spec((solver, builds), s, c);
    let source = node_source(c, pins, &spec);
    let patches = node_patches(c, &spec);
    let version_text = c
        .entry
        .map(|e| e.text.clone())
        .unwrap_or_else(|| c.version.to_string());
    let external = c.external.map(|e| e.prefix.clone());
    let (compiler, languages) = match external {
        Some(_) => (solver.setup.compiler.clone(), BTreeMap::new()),
        None => solver.setup.node_compilers(&c.spec),
    };
    let mut node = Node {
        name: c.recipe.name.clone(),
        version: c.version.clone(),
        variants: c.spec.variants.clone(),
        compiler,
        languages,
        target: solver.setup.target.to_string(),
        source,
        patches,
        external,
        hash: String::new(),
        prefix: Default::default(),
        recipe: c.recipe.clone(),
        spec,
        virtuals: node_virtuals(solver, c),
        // Test-only dependencies do not change what is installed.
        hash_basis: HashBasis {
            version_text,
            deps: dep_nodes
                .iter()
                .filter(|(_, ty)| !ty.test_only())
                .copied()
                .collect(),
        },
    };
    let (hash, prefix) = hash_and_prefix(plan, &node);
    if let Some(i) = by_hash.get(&hash) {
        return *i;
    }
    node.hash = hash.clone();
    node.prefix = prefix;
    let i = plan.graph.add_node(node);
    for (d, ty) in dep_nodes {
        plan.graph.add_edge(i, *d, *ty);
    }
    by_hash.insert(hash, i);
    i
}

/// The node's spec: with its dependencies' specs when a `when:` the build
/// evaluates names dependencies (see [`uses_dep_conditions`]), the
/// separate builds of its build tools first
/// ([`SeparateBuilds::dependent_spec`]).
fn node_spec(
    (solver, builds): (&Solver<'_>, &SeparateBuilds<'_>),
    s: usize,
    c: &Concrete<'_>,
) -> crate::spec::Spec {
    if c.external.is_some() || !uses_dep_conditions(c.recipe) {
        return c.spec.clone();
    }
    builds.dependent_spec(solver, s)
}

/// Virtual name → the package that provides it, for the virtuals `c`
/// depends on.
fn node_virtuals(solver: &Solver<'_>, c: &Concrete<'_>) -> BTreeMap<String, String> {
    c.deps
        .iter()
        .filter(|(t, _)| matches!(solver.decided[*t], Some(Decision::Provider { .. })))
        .map(|(t, _)| {
            (
                solver.slots[*t].name.clone(),
                solver.slots[solver.resolved(*t)].name.clone(),
            )
        })
        .collect()
}

/// The recipe's patches that apply to `spec` (none for an external).
fn node_patches(c: &Concrete<'_>, spec: &crate::spec::Spec) -> Vec<NodePatch> {
    if c.external.is_some() {
        return Vec::new();
    }
    c.recipe
        .patches
        .iter()
        .filter(|p| p.when.as_ref().is_none_or(|w| spec.satisfies(&w.spec)))
        .map(|p| NodePatch {
            source: p.source.clone(),
            sha256: p.sha256.clone(),
            level: p.level,
            working_dir: p.working_dir.clone(),
        })
        .collect()
}

/// `^dep` constraints of the root `r` (at `node`) must name packages in
/// its closure.
fn check_root_deps(
    plan: &Plan,
    env: &Environment,
    solver: &Solver<'_>,
    r: &RootInput<'_>,
    node: NodeIndex,
) -> Result<(), ResolveError> {
    let closure: BTreeSet<&str> = plan
        .closure(
            node,
            DepTypes {
                build: true,
                link: true,
                run: true,
                test: true,
            },
        )
        .into_iter()
        .map(|i| plan.graph[i].name.as_str())
        .collect();
    let mut names = Vec::new();
    super::order::spec_names(&r.spec.spec, &mut names);
    let Some(missing) = names.iter().skip(1).find(|n| {
        !closure.contains(n.as_str())
            && solver
                .index
                .get(n.as_str())
                .is_none_or(|&t| !closure.contains(solver.slots[solver.resolved(t)].name.as_str()))
    }) else {
        return Ok(());
    };
    let label = plan.graph[node].label();
    Err(ResolveError::Unsatisfiable(Box::new(Explanation {
        environment: env.name.value.clone(),
        problem: format!(
            "the stack asks for `{}` ({}), but `{label}` does not depend on `{missing}`",
            r.spec.text,
            super::error::short_loc(&r.spec.loc)
        ),
        lines: vec![ExplainLine {
            indent: 0,
            text: format!(
                "a `^{missing}` constraint only applies to a package in the root's dependencies"
            ),
            loc: None,
        }],
        tried: Vec::new(),
        hint: Some(format!(
            "add `{missing}` as a root spec of its own, or drop `^{missing}`"
        )),
    })))
}
