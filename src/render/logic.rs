//! The build logic of a node whose kind runs it (`system: spack`): its
//! package files and those of its dependencies, its whole dependency
//! closure as the layer's request describes it, its spec flags (for the
//! package's `flag_handler`), and where the layer runs from.

use std::collections::BTreeMap;

use petgraph::graph::NodeIndex;

use crate::build_logic::job::LogicRuntime;
use crate::build_logic::request::{self, Dependency, Flags, NodeCompiler};
use crate::build_logic::{LogicJob, PackageFile};
use crate::recipes::DepTypes;
use crate::resolve::{Node, Plan};

/// Every dependency type.
const ALL: DepTypes = DepTypes {
    build: true,
    link: true,
    run: true,
    test: true,
};

/// The package files of a node built from package files (none for an
/// external or a YAML recipe), its own first.
fn package_files(node: &Node) -> Vec<PackageFile> {
    if node.is_external() || !node.recipe.build.system.kind.runs_build_logic() {
        return Vec::new();
    }
    node.recipe
        .build
        .system
        .package_files()
        .into_iter()
        .filter_map(|f| f.to_package_file())
        .collect()
}

fn compiler(c: &crate::resolve::NodeCompiler) -> NodeCompiler {
    NodeCompiler {
        name: c.name.clone(),
        version: c.version.to_string(),
    }
}

/// The languages a node needs from its compiler: what the importer
/// recorded (a conditional one when the node meets its condition), else C
/// and C++ (and Fortran when the compiler has it).
fn languages(plan: &Plan, idx: NodeIndex) -> Vec<String> {
    let node = plan.node(idx);
    if let Some(imp) = &node.recipe.imported
        && !imp.languages.is_empty()
    {
        let mut out: Vec<String> = Vec::new();
        for lang in imp.languages.iter().filter(|l| language_holds(node, l)) {
            if !out.contains(&lang.name) {
                out.push(lang.name.clone());
            }
        }
        return out;
    }
    let mut out = vec!["c".to_string(), "cxx".to_string()];
    let fc = super::compiler_paths(plan, idx).fc.is_some();
    if fc || node.languages.contains_key("fortran") {
        out.push("fortran".into());
    }
    out
}

/// Whether a recorded language applies to the node: always, or when the
/// node meets its `when` (a condition that does not parse counts as met,
/// so the compiler is offered rather than withheld).
fn language_holds(node: &Node, lang: &crate::recipes::imported::Language) -> bool {
    lang.when
        .as_deref()
        .is_none_or(|w| crate::spec::Spec::parse(w).map_or(true, |cond| node.satisfies(&cond)))
}

fn types(t: &DepTypes) -> Vec<String> {
    [
        (t.build, "build"),
        (t.link, "link"),
        (t.run, "run"),
        (t.test, "test"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, n)| n.to_string())
    .collect()
}

/// One node of the closure as the request describes it.
fn request_node(plan: &Plan, idx: NodeIndex) -> request::Node {
    let node = plan.node(idx);
    let own = package_files(node);
    let namespace = node
        .recipe
        .build
        .system
        .package_files()
        .first()
        .filter(|_| !own.is_empty())
        .and_then(|f| crate::build_logic::files::namespace(&f.file))
        .map(str::to_string);
    let langs = languages(plan, idx);
    let compilers = langs
        .iter()
        .map(|l| {
            let c = node.languages.get(l).unwrap_or(&node.compiler);
            (l.clone(), compiler(c))
        })
        .collect();
    let variants = match super::variants_value(node) {
        serde_json::Value::Object(m) => m.into_iter().collect(),
        _ => BTreeMap::new(),
    };
    let dependencies = plan
        .deps(idx)
        .into_iter()
        .map(|(d, t)| {
            let dep = plan.node(d);
            Dependency {
                hash: dep.hash.clone(),
                name: dep.name.clone(),
                types: types(&t),
                virtuals: node
                    .virtuals
                    .iter()
                    .filter(|(_, provider)| **provider == dep.name)
                    .map(|(v, _)| v.clone())
                    .collect(),
            }
        })
        .collect();
    request::Node {
        name: node.name.clone(),
        version: node.version.to_string(),
        namespace,
        module: own.first().map(|f| f.module.clone()),
        variants,
        compiler: compiler(&node.compiler),
        compilers,
        languages: langs,
        target: node.target.clone(),
        platform: "linux".into(),
        os: plan.os.clone(),
        prefix: node.prefix.clone(),
        external: node.is_external(),
        dependencies,
    }
}

/// The node's spec flags by Spack's names.
fn spec_flags(node: &Node) -> Flags {
    let mut flags = Flags::default();
    for (name, list) in &node.spec.flags {
        if let Some(v) = flags.get_mut(name) {
            v.extend(list.flags.iter().cloned());
        }
    }
    flags
}

/// The build logic of node `idx`; `None` when its kind does not run any.
pub fn logic_job(plan: &Plan, idx: NodeIndex, runtime: &LogicRuntime) -> Option<LogicJob> {
    let node = plan.node(idx);
    if !node.recipe.build.system.kind.runs_build_logic() {
        return None;
    }
    let closure = plan.closure(idx, ALL);
    let mut files: Vec<PackageFile> = package_files(node);
    let mut nodes = BTreeMap::new();
    // The node first, then its dependencies in build order: the first file
    // of a module wins (two packages importing the same base class).
    for dep in plan.topo_order().into_iter().rev() {
        if !closure.contains(&dep) {
            continue;
        }
        nodes.insert(plan.node(dep).hash.clone(), request_node(plan, dep));
        if dep != idx {
            for f in package_files(plan.node(dep)) {
                if !files.iter().any(|g| g.module == f.module) {
                    files.push(f);
                }
            }
        }
    }
    Some(LogicJob {
        python: runtime.python.clone(),
        layer_root: runtime.layer_root.clone(),
        files,
        nodes,
        flags: spec_flags(node),
    })
}
