//! A plan without some of its nodes: what `stack build --partial` makes its
//! image of when packages fail. A node that is left out takes every node that
//! depends on it along (a dependent cannot be in the image without it), so
//! the rest is closed under dependencies and its hashes are unchanged.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::Direction;
use petgraph::graph::NodeIndex;

use super::model::{Plan, PlanEnvironment};

impl Plan {
    /// The nodes whose hash is in `hashes` and, transitively, every node
    /// that depends on one of them.
    pub fn with_dependents(&self, hashes: &BTreeSet<String>) -> BTreeSet<NodeIndex> {
        let mut out = BTreeSet::new();
        let mut todo: Vec<NodeIndex> = self
            .graph
            .node_indices()
            .filter(|i| hashes.contains(&self.graph[*i].hash))
            .collect();
        while let Some(n) = todo.pop() {
            if out.insert(n) {
                todo.extend(self.graph.neighbors_directed(n, Direction::Incoming));
            }
        }
        out
    }

    /// This plan without the nodes whose hash is in `hashes` and their
    /// dependents: the roots and views of each environment keep what is
    /// left; an environment whose stack-built compiler is left out keeps no
    /// compiler node.
    pub fn without(&self, hashes: &BTreeSet<String>) -> Plan {
        let gone = self.with_dependents(hashes);
        let graph = self.graph.filter_map(
            |i, n| (!gone.contains(&i)).then(|| n.clone()),
            |_, e| Some(*e),
        );
        // `filter_map` keeps the order of the nodes it keeps.
        let new_index: BTreeMap<NodeIndex, NodeIndex> = self
            .graph
            .node_indices()
            .filter(|i| !gone.contains(i))
            .enumerate()
            .map(|(k, i)| (i, NodeIndex::new(k)))
            .collect();
        let environments = self
            .environments
            .iter()
            .map(|e| keep_in(e, &new_index))
            .collect();
        Plan {
            graph,
            environments,
            ..self.clone_header()
        }
    }

    /// Everything of the plan but its graph and environments.
    fn clone_header(&self) -> Plan {
        Plan {
            graph: Default::default(),
            environments: Vec::new(),
            stack: self.stack.clone(),
            recipe_file: self.recipe_file.clone(),
            cluster: self.cluster.clone(),
            mount: self.mount.clone(),
            target: self.target.clone(),
            compiler: self.compiler.clone(),
            cluster_compiler: self.cluster_compiler.clone(),
            cluster_compilers: self.cluster_compilers.clone(),
            os: self.os.clone(),
            libc: self.libc.clone(),
        }
    }
}

/// An environment with its node indices moved to the smaller plan.
fn keep_in(env: &PlanEnvironment, new_index: &BTreeMap<NodeIndex, NodeIndex>) -> PlanEnvironment {
    let mut roots = env.roots.clone();
    roots.retain_mut(|r| match new_index.get(&r.node) {
        Some(n) => {
            r.node = *n;
            true
        }
        None => false,
    });
    PlanEnvironment {
        roots,
        nodes: env
            .nodes
            .iter()
            .filter_map(|n| new_index.get(n).copied())
            .collect(),
        compiler_node: env.compiler_node.and_then(|c| new_index.get(&c).copied()),
        ..env.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use crate::resolve::{Plan, ResolveOptions, resolve};
    use crate::stacks::{InputOptions, load_inputs};

    /// A repository of `name -> dependencies` recipes and a stack of `roots`, resolved.
    fn plan_of(dir: &Path, packages: &[(&str, &[&str])], roots: &[&str]) -> Plan {
        let repo = dir.join("repo");
        fs_err::create_dir_all(&repo).unwrap();
        for (name, deps) in packages {
            let deps: Vec<String> = deps.iter().map(|d| format!("{{spec: {d}}}")).collect();
            let text = format!(
                "name: {name}\ndescription: d\nversions: [{{version: \"1.0\", url: \"https://example.org/{name}-1.0.tar.gz\", sha256: {}}}]\ndependencies: [{}]\nbuild: {{system: autotools}}\n",
                "0".repeat(64),
                deps.join(", ")
            );
            fs_err::write(repo.join(format!("{name}.yaml")), text).unwrap();
        }
        let stack = dir.join("stack.yaml");
        let specs = roots.join(", ");
        fs_err::write(
            &stack,
            format!("name: t\nenvironments:\n  e: {{specs: [{specs}]}}\n"),
        )
        .unwrap();
        let opts = InputOptions {
            recipe: stack,
            cluster: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster-configs/local")),
            repos: vec![repo],
            no_builtin: true,
            ..InputOptions::default()
        };
        let inputs = load_inputs(&opts).unwrap_or_else(|d| panic!("{d:#?}"));
        resolve(
            &inputs.recipe,
            &inputs.cluster,
            &inputs.repo,
            &ResolveOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn names(plan: &Plan, nodes: impl Iterator<Item = petgraph::graph::NodeIndex>) -> Vec<&str> {
        nodes.map(|n| plan.node(n).name.as_str()).collect()
    }

    #[test]
    fn a_left_out_node_takes_its_dependents_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let plan = plan_of(
            dir.path(),
            &[
                ("app", &["lib"]),
                ("lib", &["base"]),
                ("base", &[]),
                ("tool", &["base"]),
                ("other", &[]),
            ],
            &["app", "tool", "other"],
        );
        let lib = plan
            .graph
            .node_weights()
            .find(|n| n.name == "lib")
            .unwrap()
            .hash
            .clone();
        let smaller = plan.without(&BTreeSet::from([lib]));
        let mut left: Vec<&str> = smaller
            .graph
            .node_weights()
            .map(|n| n.name.as_str())
            .collect();
        left.sort();
        assert_eq!(left, ["base", "other", "tool"]);
        // The edge tool -> base survives, both ends renumbered.
        let tool = smaller
            .graph
            .node_indices()
            .find(|i| smaller.node(*i).name == "tool")
            .unwrap();
        assert_eq!(
            names(&smaller, smaller.deps(tool).into_iter().map(|d| d.0)),
            ["base"]
        );
        // Roots and environment nodes name the same packages as before.
        let env = &smaller.environments[0];
        assert_eq!(
            names(&smaller, env.roots.iter().map(|r| r.node)),
            ["tool", "other"]
        );
        let nodes: BTreeSet<&str> = names(&smaller, env.nodes.iter().copied())
            .into_iter()
            .collect();
        assert_eq!(nodes, BTreeSet::from(["base", "tool", "other"]));
        // Hashes are those of the full plan.
        for n in smaller.graph.node_weights() {
            assert!(plan.find_hash(&n.hash).is_some(), "{}", n.name);
        }
    }

    #[test]
    fn leaving_out_nothing_keeps_the_plan() {
        let dir = tempfile::tempdir().unwrap();
        let plan = plan_of(dir.path(), &[("a", &["b"]), ("b", &[])], &["a", "b"]);
        let same = plan.without(&BTreeSet::new());
        assert_eq!(same.graph.node_count(), plan.graph.node_count());
        assert_eq!(same.graph.edge_count(), plan.graph.edge_count());
        assert_eq!(same.environments[0].roots.len(), 2);
        assert_eq!(
            same.environments[0].nodes.len(),
            plan.environments[0].nodes.len()
        );
    }
}
