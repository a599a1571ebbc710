//! The order in which the solver decides packages.
//!
//! Before solving an environment, every package and virtual that *could*
//! take part is collected (from the roots, through every dependency —
//! conditional ones included — and from each virtual to every provider its
//! policy allows).
//! In this over-approximation a package that could depend on `P` is decided
//! before `P`; when that graph is acyclic, every demand on `P` is known by
//! the time `P` is decided, so its version and variants are chosen with full
//! knowledge and only a real conflict needs backtracking. Cycles (possible
//! through conditional dependencies) are handled by deciding the members of
//! a strongly connected component in discovery order and checking late
//! demands against what was already decided.

use std::collections::{HashMap, VecDeque};

use petgraph::graph::DiGraph;

use crate::cluster::Policies;
use crate::recipes::PackageRepo;
use crate::spec::Spec;

/// Names of every package and virtual reachable from `start`, dependents
/// before their dependencies. A virtual leads only to the providers that
/// `policies` allow ([`Policies::allows_provider`]).
pub(crate) fn decision_order(
    repo: &PackageRepo,
    policies: &Policies,
    start: &[&str],
) -> Vec<String> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut intern = |name: &str, names: &mut Vec<String>, queue: &mut VecDeque<usize>| -> usize {
        if let Some(i) = index.get(name) {
            return *i;
        }
        let i = names.len();
        names.push(name.to_string());
        index.insert(name.to_string(), i);
        queue.push_back(i);
        i
    };
    for s in start {
        intern(s, &mut names, &mut queue);
    }
    while let Some(i) = queue.pop_front() {
        let name = names[i].clone();
        let mut targets: Vec<String> = Vec::new();
        if let Some(recipe) = repo.get(&name) {
            for d in &recipe.dependencies {
                spec_names(&d.spec.spec, &mut targets);
            }
        } else if repo.is_virtual(&name) {
            targets.extend(
                repo.providers(&name)
                    .iter()
                    .filter(|p| policies.allows_provider(&name, &p.package))
                    .map(|p| p.package.clone()),
            );
        }
        for t in targets {
            let j = intern(&t, &mut names, &mut queue);
            edges.push((i, j));
        }
    }
    let mut g: DiGraph<usize, ()> = DiGraph::with_capacity(names.len(), edges.len());
    let nodes: Vec<_> = (0..names.len()).map(|i| g.add_node(i)).collect();
    for (a, b) in edges {
        g.add_edge(nodes[a], nodes[b], ());
    }
    // Tarjan yields components dependencies-first; reverse for
    // dependents-first, and keep discovery order inside a component.
    let mut sccs = petgraph::algo::tarjan_scc(&g);
    sccs.reverse();
    let mut out = Vec::with_capacity(names.len());
    for mut scc in sccs {
        scc.sort_by_key(|n| g[*n]);
        out.extend(scc.into_iter().map(|n| names[g[n]].clone()));
    }
    out
}

/// The name of `spec` and of every `^dep` inside it.
pub(crate) fn spec_names(spec: &Spec, out: &mut Vec<String>) {
    if let Some(n) = &spec.name {
        out.push(n.clone());
    }
    for d in &spec.deps {
        spec_names(d, out);
    }
}
