//! Helpers shared by the resolver's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use stack::resolve::{Node, Plan, ResolveError, ResolveOptions, resolve};
use stack::stacks::{InputOptions, Inputs, load_inputs};

/// `tests/fixtures/resolve`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/resolve")
}

pub fn cluster_dir(name: &str) -> PathBuf {
    fixtures().join("cluster-configs").join(name)
}

/// Load a stack recipe with one of the fixture clusters (no built-in recipes).
pub fn load(stack: &Path, cluster: &str) -> Inputs {
    load_with(stack, Some(cluster_dir(cluster)))
}

pub fn load_with(stack: &Path, cluster: Option<PathBuf>) -> Inputs {
    let opts = InputOptions {
        recipe: stack.to_path_buf(),
        cluster,
        no_builtin: true,
        ..InputOptions::default()
    };
    match load_inputs(&opts) {
        Ok(i) => i,
        Err(d) => panic!("{}: {:#?}", stack.display(), d),
    }
}

pub fn resolve_inputs(inputs: &Inputs, opts: &ResolveOptions) -> Result<Plan, ResolveError> {
    resolve(&inputs.recipe, &inputs.cluster, &inputs.repo, opts)
}

/// Resolve a stack recipe with stack's built-in recipes and `cluster`
/// (a cluster-config directory); panics with the diagnostics or the error.
pub fn plan_with_builtin(stack: PathBuf, cluster: PathBuf) -> Plan {
    let opts = InputOptions {
        recipe: stack,
        cluster: Some(cluster),
        ..InputOptions::default()
    };
    let inputs = load_inputs(&opts).unwrap_or_else(|d| panic!("{d:#?}"));
    resolve_inputs(&inputs, &ResolveOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Resolve a committed fixture stack (`tests/fixtures/resolve/stacks/<file>`).
pub fn resolve_fixture(file: &str, cluster: &str) -> Result<Plan, ResolveError> {
    let inputs = load(&fixtures().join("stacks").join(file), cluster);
    resolve_inputs(&inputs, &ResolveOptions::default())
}

/// A stack recipe written to a temporary directory, using the fixture
/// repository (`repos:` is added).
pub struct TempStack {
    pub dir: tempfile::TempDir,
    pub file: PathBuf,
}

pub fn temp_stack(body: &str) -> TempStack {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stack.yaml");
    let text = format!(
        "name: t\nrepos: [{}]\n{body}",
        fixtures().join("recipes").display()
    );
    std::fs::write(&file, text).unwrap();
    TempStack { dir, file }
}

/// Resolve the environments in `body` (YAML after `name:`/`repos:`).
pub fn resolve_yaml(body: &str, cluster: &str) -> Result<Plan, ResolveError> {
    let t = temp_stack(body);
    let inputs = load(&t.file, cluster);
    resolve_inputs(&inputs, &ResolveOptions::default())
}

pub fn ok(r: Result<Plan, ResolveError>) -> Plan {
    r.unwrap_or_else(|e| panic!("resolution failed:\n{e}"))
}

/// The nodes called `name`.
pub fn named<'p>(plan: &'p Plan, name: &str) -> Vec<&'p Node> {
    plan.graph
        .node_weights()
        .filter(|n| n.name == name)
        .collect()
}

/// The one node called `name`.
pub fn node<'p>(plan: &'p Plan, name: &str) -> &'p Node {
    let v = named(plan, name);
    assert_eq!(v.len(), 1, "expected one `{name}`, found {}", v.len());
    v[0]
}

/// Names of the nodes of environment `env`, sorted.
pub fn env_names(plan: &Plan, env: &str) -> Vec<String> {
    let e = plan.environment(env).expect("environment");
    let mut v: Vec<String> = e.nodes.iter().map(|i| plan.node(*i).name.clone()).collect();
    v.sort();
    v
}

/// Variants of a node as spec text (`+cuda fabrics=cxi,shm`).
pub fn variants(n: &Node) -> String {
    n.variants
        .iter()
        .map(|(k, v)| v.to_spec_text(k))
        .collect::<Vec<_>>()
        .join(" ")
}
