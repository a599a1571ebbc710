//! Git pins after the search: [`Plan::with_git_pins`] gives the plan's
//! unpinned branches and tags their commits and hashes the nodes again,
//! dependencies first, so that a command that pins (`stack build`, `stack
//! fetch`, `stack resolve --lock`) searches once. The plan equals the one
//! resolving with [`super::ResolveOptions::git_pins`] gives: pins change a
//! node's source and so its hash and prefix, and the hashes of the nodes
//! that depend on it or are built with it, never which nodes the search
//! chose.

use std::collections::HashMap;
use std::path::PathBuf;

use petgraph::graph::NodeIndex;

use crate::recipes::{DepTypes, GitRef};

use super::assemble::GitPins;
use super::hash::{HashInputs, node_hash};
use super::model::{CompilerOrigin, Node, NodeCompiler, NodeSource, Plan};
use super::prefix::install_prefix;

/// What a node's hash is computed from besides the node's own fields.
#[derive(Clone, Debug, Default)]
pub struct HashBasis {
    /// The version as written in the recipe.
    pub(crate) version_text: String,
    /// The dependencies the hash names (test-only ones are left out: they
    /// do not change what is installed), without the edges that only order
    /// a node after the compiler the stack builds for it.
    pub(crate) deps: Vec<(NodeIndex, DepTypes)>,
}

/// The hash and prefix of `node` in `plan` (its dependencies are in the
/// plan already, with their final hashes).
pub(crate) fn hash_and_prefix(plan: &Plan, node: &Node) -> (String, PathBuf) {
    let basis = &node.hash_basis;
    let deps = basis
        .deps
        .iter()
        .map(|(i, ty)| {
            let d = &plan.graph[*i];
            (d.name.as_str(), d.hash.as_str(), *ty)
        })
        .collect();
    let hash = node_hash(&HashInputs {
        recipe: &node.recipe,
        spec: &node.spec,
        version_text: &basis.version_text,
        variants: &node.variants,
        compiler: &node.compiler,
        languages: &node.languages,
        target: &node.target,
        os: plan.os.as_deref(),
        libc: plan.libc.as_deref(),
        source: node.source.as_ref(),
        patches: &node.patches,
        deps,
        mount: &plan.mount,
        external: node.external.as_deref(),
    });
    let prefix = match &node.external {
        Some(p) => p.clone(),
        None => install_prefix(
            &plan.mount,
            &node.target,
            &node.recipe.name,
            &basis.version_text,
            &hash,
        ),
    };
    (hash, prefix)
}

impl Plan {
    /// The plan with `pins` (repository and branch or tag → commit) given
    /// to its git sources that have no commit yet, every node hashed
    /// again: what resolving with the pins in
    /// [`super::ResolveOptions::git_pins`] gives, without a second search.
    pub fn with_git_pins(mut self, pins: &GitPins) -> Plan {
        let mut changed = false;
        for idx in self.graph.node_indices().collect::<Vec<_>>() {
            changed |= pin_source(&mut self.graph[idx], pins);
        }
        if !changed {
            return self;
        }
        // Old hash → new hash, for the compilers the stack builds.
        let mut renamed: HashMap<String, String> = HashMap::new();
        // Dependencies and compilers come first: every node has an edge to
        // each node its hash names.
        for idx in self.topo_order() {
            let node = &mut self.graph[idx];
            rename_compilers(node, &renamed);
            let (hash, prefix) = hash_and_prefix(&self, &self.graph[idx]);
            let node = &mut self.graph[idx];
            if hash != node.hash {
                let old = std::mem::replace(&mut node.hash, hash);
                renamed.insert(old, node.hash.clone());
                node.prefix = prefix;
            }
        }
        for idx in self.graph.node_indices().collect::<Vec<_>>() {
            rename_compilers(&mut self.graph[idx], &renamed);
        }
        for e in &mut self.environments {
            rename(&mut e.compiler, &renamed);
            let graph = &self.graph;
            e.nodes.sort_by(|a, b| {
                let (x, y) = (&graph[*a], &graph[*b]);
                x.name.cmp(&y.name).then_with(|| x.hash.cmp(&y.hash))
            });
        }
        self
    }
}

/// Give `node`'s unpinned branch or tag its commit from `pins`; whether it
/// had one there.
fn pin_source(node: &mut Node, pins: &GitPins) -> bool {
    let Some(
        src @ NodeSource::Git {
            commit: None,
            reference: GitRef::Branch(_) | GitRef::Tag(_),
            ..
        },
    ) = &mut node.source
    else {
        return false;
    };
    let Some(pin) = src.git_pin_key().and_then(|k| pins.get(&k)) else {
        return false;
    };
    if let NodeSource::Git { commit, .. } = src {
        *commit = Some(pin.clone());
    }
    true
}

fn rename_compilers(node: &mut Node, renamed: &HashMap<String, String>) {
    rename(&mut node.compiler, renamed);
    for c in node.languages.values_mut() {
        rename(c, renamed);
    }
}

fn rename(compiler: &mut NodeCompiler, renamed: &HashMap<String, String>) {
    if let CompilerOrigin::Built { hash } = &mut compiler.origin {
        if let Some(new) = renamed.get(hash) {
            hash.clone_from(new);
        }
    }
}
