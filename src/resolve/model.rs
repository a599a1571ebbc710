//! The resolver's output: a [`Plan`], a DAG of concrete [`Node`]s with
//! typed edges, per-environment roots and views.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::cluster::Compiler;
use crate::recipes::{
    DepTypes, GitRef, PackageRecipe, PatchSource, Placement, Resource, ResourceGit, SpecRef,
};
use crate::spec::{Spec, VariantValue, Version};
use crate::stacks::View;

/// The compiler a node is built with (`gcc@12.2.0`): a cluster compiler
/// (an external-like node of the plan) or a compiler the stack builds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeCompiler {
    pub name: String,
    pub version: Version,
    pub origin: CompilerOrigin,
}

/// Where a [`NodeCompiler`] comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CompilerOrigin {
    /// A cluster compiler: its identity (`gcc@12.2.0 cc=/usr/bin/gcc
    /// fingerprint=…`, [`Compiler::identity`]).
    System { identity: String },
    /// Built by this stack (`compilers:`): the compiler node's hash.
    Built { hash: String },
}

impl NodeCompiler {
    /// What node hashes record of the compiler.
    pub fn identity(&self) -> String {
        match &self.origin {
            CompilerOrigin::System { identity } => identity.clone(),
            CompilerOrigin::Built { hash } => format!("{self} built {hash}"),
        }
    }

    /// The hash of the compiler node when the stack builds it.
    pub fn built_hash(&self) -> Option<&str> {
        match &self.origin {
            CompilerOrigin::Built { hash } => Some(hash),
            CompilerOrigin::System { .. } => None,
        }
    }
}

impl fmt::Display for NodeCompiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.name, self.version)
    }
}

/// Where a node's sources come from (`None` on [`Node::source`] for
/// externals, which are not built).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeSource {
    /// A downloadable file, usually an archive.
    Archive {
        /// Resolved: a remote URL, or an absolute local path.
        url: Resource,
        /// As written in the recipe.
        url_text: String,
        /// Lower-case hex; `None` only when the stack allows unverified sources.
        sha256: Option<String>,
        /// Extract the archive (`false`: keep the file as is).
        expand: bool,
        /// More files unpacked into the same tree (`resources:`), in order.
        resources: Vec<NodeResource>,
    },
    /// A git repository.
    Git {
        /// Resolved: a remote URL, or an absolute local path.
        repo: Resource,
        /// As written in the recipe.
        repo_text: String,
        /// The tag, branch or commit the recipe names.
        reference: GitRef,
        /// The commit to check out, when known: the recipe's `commit:` (or a
        /// `commit` reference), else a pin from the lock or the fetch stage.
        /// `None` for a branch or tag that has not been resolved yet (see
        /// [`Plan::unpinned_git_sources`]).
        commit: Option<String>,
        submodules: bool,
        /// The package's resources whose `when:` holds, in order.
        resources: Vec<NodeResource>,
    },
}

/// One resource of a node: an extra file (or git checkout) unpacked into
/// its source tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeResource {
    /// The recipe's `name:`.
    pub name: Option<String>,
    /// The file's URL, or with `git` the repository.
    pub url: Resource,
    pub url_text: String,
    /// A git resource's revision.
    pub git: Option<ResourceGit>,
    pub sha256: Option<String>,
    pub expand: bool,
    /// Strip an archive's single top-level directory.
    pub strip: bool,
    /// A relative directory of the source tree; `None`: its top.
    pub destination: Option<String>,
    pub placement: Placement,
    /// The recipe's `max_size:` in bytes (not part of the node hash).
    pub max_size: Option<u64>,
}

impl NodeSource {
    /// The resources unpacked into the source tree, in order.
    pub fn resources(&self) -> &[NodeResource] {
        match self {
            NodeSource::Archive { resources, .. } | NodeSource::Git { resources, .. } => resources,
        }
    }
}

impl NodeSource {
    /// The key under which a git pin for this source is looked up
    /// ([`crate::resolve::ResolveOptions::git_pins`]): the repository as
    /// resolved (URL, or absolute path) and the branch or tag name.
    pub fn git_pin_key(&self) -> Option<(String, String)> {
        match self {
            NodeSource::Git {
                repo,
                reference: GitRef::Branch(r) | GitRef::Tag(r),
                ..
            } => Some((repo.to_string(), r.clone())),
            _ => None,
        }
    }
}

/// A patch applied to a node, in order.
#[derive(Clone, Debug)]
pub struct NodePatch {
    /// A file below the repository's `patches/` dir (absolute path), or a URL.
    pub source: PatchSource,
    /// Lower-case hex.
    pub sha256: String,
    /// Strip level (`patch -p<level>`).
    pub level: u32,
    /// The directory of the source tree it applies in (`None`: the top).
    pub working_dir: Option<String>,
}

/// One concrete package in the plan.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    /// The exact version (as written in the recipe's `versions:` or in the
    /// external's spec).
    pub version: Version,
    /// Every variant that exists for this configuration, with its value.
    pub variants: BTreeMap<String, VariantValue>,
    pub compiler: NodeCompiler,
    /// The languages built with another compiler than `compiler`
    /// (`%fortran=nvhpc`): `c`, `cxx`, `fortran`.
    pub languages: BTreeMap<String, NodeCompiler>,
    /// The cluster's target (`x86_64`, `neoverse_v2`).
    pub target: String,
    /// `None` for externals.
    pub source: Option<NodeSource>,
    /// The recipe's patches whose `when:` holds, in declaration order.
    pub patches: Vec<NodePatch>,
    /// The prefix of an external installation; such a node is not built and
    /// has no dependencies in the plan.
    pub external: Option<PathBuf>,
    /// SHA-256 (64 lower-case hex digits) of the node's build inputs; see
    /// `docs/resolve.md` and [`crate::resolve::hash`].
    pub hash: String,
    /// Where the node is installed: `<mount>/<target>/<name>-<version>-<hash8>`,
    /// or the external prefix.
    pub prefix: PathBuf,
    /// The package recipe (build section, env, …).
    pub recipe: Arc<PackageRecipe>,
    /// The node as a concrete spec (name, `@=version`, variants, `%compiler`,
    /// `target=`, `os=`, `platform=`): test recipe `when:` conditions with
    /// [`Node::satisfies`]. When the recipe has conditions that name
    /// dependencies (`when: "^openmpi"`) in its patches, build section or
    /// env, the spec also lists every package of its dependency closure as
    /// `^dep`s, so those conditions can be tested too.
    pub spec: Spec,
    /// The virtuals this node depends on and the package chosen to provide
    /// each (`mpi` → `cray-mpich`): what `deps.mpi.prefix` in a template
    /// refers to.
    pub virtuals: BTreeMap<String, String>,
    /// What [`Node::hash`] is computed from besides these fields (for
    /// [`Plan::with_git_pins`]).
    pub(crate) hash_basis: super::pins::HashBasis,
}

impl Node {
    /// The first 8 hex digits of the hash (shown in prefixes and trees).
    pub fn short_hash(&self) -> &str {
        &self.hash[..8.min(self.hash.len())]
    }

    pub fn is_external(&self) -> bool {
        self.external.is_some()
    }

    /// Whether the node meets `condition` (a recipe `when:`).
    pub fn satisfies(&self, condition: &Spec) -> bool {
        self.spec.satisfies(condition)
    }

    /// `name@version`.
    pub fn label(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }
}

/// Why a root is in an environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootKind {
    /// `specs:`
    Spec,
    /// `network.mpi` / `network.specs` (the environment's or the cluster's).
    Network,
}

/// A root spec of an environment and the node it resolved to.
#[derive(Clone, Debug)]
pub struct PlanRoot {
    pub spec: SpecRef,
    pub kind: RootKind,
    pub node: NodeIndex,
}

/// One environment of the plan.
#[derive(Clone, Debug)]
pub struct PlanEnvironment {
    pub name: String,
    /// In recipe order: `specs:` then network specs.
    pub roots: Vec<PlanRoot>,
    /// Every node of the environment, sorted by name then hash.
    pub nodes: Vec<NodeIndex>,
    /// The environment's views, as in the recipe.
    pub views: Vec<View>,
    /// The compiler its packages are built with.
    pub compiler: NodeCompiler,
    /// That compiler's node when the stack builds it.
    pub compiler_node: Option<NodeIndex>,
    /// What the solver chose that the recipe did not spell out, one line
    /// each: the provider of every virtual and why, variants that take
    /// their non-default value to avoid a conflict or a dependency's clash
    /// (`stack resolve --explain`; not part of any hash, not in the lock
    /// file).
    pub choices: Vec<String>,
}

/// A concrete, hashed build plan: the DAG of every node of every
/// environment. Edges go from a package to its dependency and carry the
/// dependency types. Nodes that are identical in several environments (same
/// hash) are one node.
#[derive(Clone, Debug)]
pub struct Plan {
    pub graph: DiGraph<Node, DepTypes>,
    pub environments: Vec<PlanEnvironment>,
    /// The stack recipe's name.
    pub stack: String,
    /// The stack recipe file (absolute).
    pub recipe_file: PathBuf,
    /// The cluster configuration's name.
    pub cluster: String,
    /// The mount point every prefix lives under.
    pub mount: PathBuf,
    pub target: String,
    /// The cluster compiler: the stack's compilers (`compilers:`) and the
    /// environments without a stack compiler are built with it.
    pub compiler: NodeCompiler,
    /// That compiler as the cluster configuration describes it (paths of
    /// `cc`, `cxx`, `fc`).
    pub cluster_compiler: Compiler,
    /// Every cluster compiler (environments may name any of them).
    pub cluster_compilers: Vec<Compiler>,
    /// The cluster's `os:` (part of every node hash).
    pub os: Option<String>,
    /// The target's C library (`glibc@2.36`; part of every node hash).
    pub libc: Option<String>,
}

/// A git source whose branch or tag has no commit yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpinnedGit {
    pub node: NodeIndex,
    /// As in [`NodeSource::git_pin_key`]: the repository (resolved).
    pub repo: String,
    /// The branch or tag.
    pub reference: String,
}

impl Plan {
    /// Every compiler of the plan, each once, in environment order: the
    /// cluster compiler first.
    pub fn compilers(&self) -> Vec<(&NodeCompiler, Option<NodeIndex>)> {
        let mut out: Vec<(&NodeCompiler, Option<NodeIndex>)> = vec![(&self.compiler, None)];
        for e in &self.environments {
            if !out.iter().any(|(c, _)| **c == e.compiler) {
                out.push((&e.compiler, e.compiler_node));
            }
        }
        out
    }

    /// The cluster compiler that `compiler` names.
    pub fn cluster_compiler_of(&self, compiler: &NodeCompiler) -> &Compiler {
        self.cluster_compilers
            .iter()
            .find(|c| {
                c.spec.name() == Some(compiler.name.as_str())
                    && c.spec.spec.versions.contains(&compiler.version)
            })
            .unwrap_or(&self.cluster_compiler)
    }

    pub fn node(&self, idx: NodeIndex) -> &Node {
        &self.graph[idx]
    }

    /// All nodes, sorted by name, version, hash.
    pub fn nodes_sorted(&self) -> Vec<NodeIndex> {
        let mut v: Vec<NodeIndex> = self.graph.node_indices().collect();
        v.sort_by(|a, b| {
            let (x, y) = (&self.graph[*a], &self.graph[*b]);
            x.name
                .cmp(&y.name)
                .then_with(|| x.version.cmp(&y.version))
                .then_with(|| x.hash.cmp(&y.hash))
        });
        v
    }

    /// The node with this full hash.
    pub fn find_hash(&self, hash: &str) -> Option<NodeIndex> {
        self.graph
            .node_indices()
            .find(|i| self.graph[*i].hash == hash)
    }

    /// The direct dependencies of `idx` with their types, sorted by name.
    pub fn deps(&self, idx: NodeIndex) -> Vec<(NodeIndex, DepTypes)> {
        let mut v: Vec<(NodeIndex, DepTypes)> = self
            .graph
            .edges_directed(idx, Direction::Outgoing)
            .map(|e| (e.target(), *e.weight()))
            .collect();
        v.sort_by(|a, b| {
            let (x, y) = (&self.graph[a.0], &self.graph[b.0]);
            x.name.cmp(&y.name).then_with(|| x.hash.cmp(&y.hash))
        });
        v
    }

    /// The nodes that depend on `idx`.
    pub fn dependents(&self, idx: NodeIndex) -> Vec<NodeIndex> {
        self.graph
            .neighbors_directed(idx, Direction::Incoming)
            .collect()
    }

    /// Every node, dependencies before their dependents (a build order);
    /// ties broken by name and hash so the order is deterministic.
    pub fn topo_order(&self) -> Vec<NodeIndex> {
        let sorted = self.nodes_sorted();
        let rank: BTreeMap<NodeIndex, usize> =
            sorted.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut missing: BTreeMap<NodeIndex, usize> = sorted
            .iter()
            .map(|n| {
                (
                    *n,
                    self.graph.edges_directed(*n, Direction::Outgoing).count(),
                )
            })
            .collect();
        let mut ready: std::collections::BTreeSet<(usize, NodeIndex)> = missing
            .iter()
            .filter(|(_, m)| **m == 0)
            .map(|(n, _)| (rank[n], *n))
            .collect();
        let mut out = Vec::with_capacity(sorted.len());
        while let Some(first) = ready.pop_first() {
            let n = first.1;
            out.push(n);
            for d in self.graph.neighbors_directed(n, Direction::Incoming) {
                let m = missing.get_mut(&d).expect("node");
                *m -= 1;
                if *m == 0 {
                    ready.insert((rank[&d], d));
                }
            }
        }
        out
    }

    /// Git sources whose branch or tag is not pinned to a commit yet: the
    /// fetch stage resolves them and passes the commits back through
    /// [`crate::resolve::ResolveOptions::git_pins`].
    pub fn unpinned_git_sources(&self) -> Vec<UnpinnedGit> {
        self.nodes_sorted()
            .into_iter()
            .filter_map(|i| match &self.graph[i].source {
                Some(
                    src @ NodeSource::Git {
                        commit: None,
                        reference: GitRef::Branch(_) | GitRef::Tag(_),
                        ..
                    },
                ) => {
                    let (repo, reference) = src.git_pin_key()?;
                    Some(UnpinnedGit {
                        node: i,
                        repo,
                        reference,
                    })
                }
                _ => None,
            })
            .collect()
    }

    pub fn environment(&self, name: &str) -> Option<&PlanEnvironment> {
        self.environments.iter().find(|e| e.name == name)
    }

    /// Every node reachable from `idx` (itself included), following edges
    /// whose types intersect `types`.
    pub fn closure(&self, idx: NodeIndex, types: DepTypes) -> Vec<NodeIndex> {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![idx];
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            for e in self.graph.edges_directed(n, Direction::Outgoing) {
                let w = e.weight();
                if (w.build && types.build)
                    || (w.link && types.link)
                    || (w.run && types.run)
                    || (w.test && types.test)
                {
                    stack.push(e.target());
                }
            }
        }
        seen.into_iter().collect()
    }
}
