//! Build tools built twice (`resolve/separate.rs`): the shapes of
//! pytorch's py-cython and paraview's llvm in the alps-uenv recipes
//! (issue #15), with the recipes of `search_fixture`.

use petgraph::visit::EdgeRef;

use super::search_fixture::{Fixture, ok};
use crate::resolve::Plan;
use crate::resolve::render::render_choices;

/// `name@version` of every node called `name`, sorted.
fn versions(plan: &Plan, name: &str) -> Vec<String> {
    let mut v: Vec<String> = plan
        .graph
        .node_weights()
        .filter(|n| n.name == name)
        .map(|n| n.label())
        .collect();
    v.sort();
    v
}

/// The first node called `name`.
fn node_index(plan: &Plan, name: &str) -> petgraph::graph::NodeIndex {
    plan.graph
        .node_indices()
        .find(|i| plan.graph[*i].name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

/// `name`'s node spec meets `condition` (a `when:` the build tests).
fn assert_sees(plan: &Plan, name: &str, condition: &str) {
    let spec = &plan.graph[node_index(plan, name)].spec;
    let when = crate::spec::Spec::parse(condition).unwrap();
    assert!(
        spec.satisfies(&when),
        "{name}: {spec} does not meet {condition}"
    );
}

/// `name@version` of what `dependent`'s node depends on under `name`.
fn dependency(plan: &Plan, dependent: &str, name: &str) -> Vec<String> {
    let i = node_index(plan, dependent);
    plan.graph
        .edges(i)
        .map(|e| &plan.graph[e.target()])
        .filter(|n| n.name == name)
        .map(|n| n.label())
        .collect()
}

#[test]
fn a_build_tool_whose_build_only_requirements_clash_is_built_once_for_each_side() {
    let f = Fixture::new();
    let plan = ok(f.resolve("fastr, grpc"));
    assert_eq!(versions(&plan, "cy"), ["cy@3.0", "cy@3.1"]);
    assert_eq!(dependency(&plan, "fastr", "cy"), ["cy@3.0"]);
    assert_eq!(dependency(&plan, "grpc", "cy"), ["cy@3.1"]);
    // The library both builds link is the environment's one node.
    assert_eq!(versions(&plan, "zl"), ["zl@1.3"]);
    for n in plan
        .graph
        .node_indices()
        .filter(|i| plan.graph[*i].name == "cy")
    {
        let zl: Vec<_> = plan.graph.edges(n).map(|e| e.target()).collect();
        assert_eq!(zl.len(), 1);
        assert_eq!(plan.graph[zl[0]].label(), "zl@1.3");
    }
    // Both are in the environment, and `--explain` says why.
    let env = &plan.environments[0];
    assert_eq!(
        env.nodes
            .iter()
            .filter(|i| plan.graph[**i].name == "cy")
            .count(),
        2
    );
    let choices = render_choices(&plan);
    assert!(
        choices.contains("is built separately for `")
            && choices.contains("which needs it only to build"),
        "{choices}"
    );
}

#[test]
fn a_dependent_the_environments_build_tool_meets_shares_it() {
    let f = Fixture::new();
    // `cy@3.1` is a root: py-grpcio's requirement is met by it, py-fastrlock
    // gets a build of its own.
    let plan = ok(f.resolve("fastr, grpc, \"cy@3.1\""));
    assert_eq!(versions(&plan, "cy"), ["cy@3.0", "cy@3.1"]);
    assert_eq!(dependency(&plan, "grpc", "cy"), ["cy@3.1"]);
    assert_eq!(dependency(&plan, "fastr", "cy"), ["cy@3.0"]);
    // Without a clash there is one node, as before.
    let plan = ok(f.resolve("grpc, \"cy@3.1\""));
    assert_eq!(versions(&plan, "cy"), ["cy@3.1"]);
    let choices = render_choices(&plan);
    assert!(!choices.contains("built separately"), "{choices}");
}

#[test]
fn only_build_only_dependencies_on_build_tools_are_built_separately() {
    let f = Fixture::new();
    // Not a build tool: the clash is the failure.
    let text = f.resolve("fastn, grpcn").unwrap_err().to_string();
    assert!(
        text.contains("cn@3.0") && text.contains("cn@3.1:"),
        "{text}"
    );
    // A linked build tool is the environment's: the build-only side gets
    // its own build, the linked one cannot.
    let plan = ok(f.resolve("cylink, grpc"));
    assert_eq!(dependency(&plan, "cylink", "cy"), ["cy@3.0"]);
    assert_eq!(dependency(&plan, "grpc", "cy"), ["cy@3.1"]);
    let text = f.resolve("cylink, \"cy@3.1\"").unwrap_err().to_string();
    assert!(text.contains("cy@3.0"), "{text}");
}

/// A separate build reuses every other package of the environment: when it
/// cannot (`cyx@3.0` links `zl@1.2`, the environment has `zl@1.3`), its
/// failure says which build it is.
#[test]
fn a_separate_build_that_cannot_share_the_environments_packages_says_so() {
    let f = Fixture::new();
    let text = f.resolve("fx, gx, \"zl@1.3\"").unwrap_err().to_string();
    assert!(
        text.contains("in the separate build of `cyx` for `fx@1.0`"),
        "{text}"
    );
    assert!(
        text.contains("which this separate build of a build tool reuses"),
        "{text}"
    );
    assert!(
        text.contains("`fx@1.0` requires `cyx@3.0` to build"),
        "{text}"
    );
}

/// A dependent's conflict naming its separately built tool (`^cy@3.1`) is
/// checked against that build: the environment's search never saw it.
#[test]
fn a_conflict_naming_a_separately_built_tool_sees_that_build() {
    let f = Fixture::new();
    let text = f.resolve("fastr, grpcc").unwrap_err().to_string();
    assert!(
        text.contains("`grpcc@1.75` conflicts with `^cy@3.1`: cy 3.1 miscompiles it"),
        "{text}"
    );
    assert!(
        text.contains("which `grpcc@1.75` needs only to build and which is built for it"),
        "{text}"
    );
}

/// A build-time `when: "^cy@3.1"` of a dependent sees its separate build.
#[test]
fn a_build_condition_naming_a_separately_built_tool_sees_that_build() {
    let f = Fixture::new();
    let plan = ok(f.resolve("fastr, grpce"));
    assert_eq!(dependency(&plan, "grpce", "cy"), ["cy@3.1"]);
    assert_sees(&plan, "grpce", "^cy@3.1");
    // The environment's own libraries are there as well.
    assert_sees(&plan, "grpce", "^zl@1.3");
}

/// A separate build separates its own clashing build tools in turn: `nt`
/// is built for `nd1` and for `nd2`, and inside each, `nu@1` for `nt` and
/// `nu@2` for the `nl` it links.
#[test]
fn a_separate_build_separates_its_own_build_tools() {
    let f = Fixture::new();
    let plan = ok(f.resolve("nd1, nd2"));
    assert_eq!(versions(&plan, "nt"), ["nt@1.0", "nt@2.0"]);
    assert_eq!(dependency(&plan, "nd1", "nt"), ["nt@1.0"]);
    assert_eq!(dependency(&plan, "nd2", "nt"), ["nt@2.0"]);
    assert_eq!(versions(&plan, "nu"), ["nu@1.0", "nu@2.0"]);
    assert_eq!(dependency(&plan, "nl", "nu"), ["nu@2.0"]);
    for n in plan.graph.node_indices() {
        if plan.graph[n].name == "nt" {
            let nu: Vec<String> = plan
                .graph
                .edges(n)
                .map(|e| plan.graph[e.target()].label())
                .filter(|l| l.starts_with("nu@"))
                .collect();
            assert_eq!(nu, ["nu@1.0"]);
        }
    }
    // `nd1`'s `when: "^nu@1"` sees the `nu` its `nt` was built with.
    assert_sees(&plan, "nd1", "^nu@1");
    // Every node is in the environment, and `--explain` names each build.
    assert_eq!(plan.environments[0].nodes.len(), plan.graph.node_count());
    let choices = render_choices(&plan);
    assert!(
        choices.contains("`nu@1.0` is built separately for `nt@1.0`"),
        "{choices}"
    );
}
