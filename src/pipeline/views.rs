//! From the plan and the recipe to the view stage's plain inputs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::recipes::EnvOpKind;
use crate::resolve::Plan;
use crate::stacks::{ModuleFlavour, StackRecipe, ViewLink};
use crate::view::{self, InstalledPackage, ModulesSpec, StoreContents, ViewSpec};

use super::PipelineError;

/// A view's operation; `append_flags` (only in `build_env:`, which views
/// never see) has none.
fn view_op(kind: EnvOpKind, var: String, value: String) -> Option<view::EnvOp> {
    Some(match kind {
        EnvOpKind::Set => view::EnvOp::Set { var, value },
        EnvOpKind::Unset => view::EnvOp::Unset { var },
        EnvOpKind::PrependPath => view::EnvOp::PrependPath { var, value },
        EnvOpKind::AppendPath => view::EnvOp::AppendPath { var, value },
        EnvOpKind::AppendFlags => return None,
    })
}

/// The run environment a node's build logic recorded in its prefix
/// (`.stack/run-env.json`, its `setup_run_environment`), as view
/// operations; a removal or a list with another separator than `:` has
/// none and is left out with a warning.
fn recorded_run_env(
    plan: &Plan,
    store_dir: &std::path::Path,
    node: &crate::resolve::Node,
) -> Result<Vec<view::EnvOp>, PipelineError> {
    use crate::build_logic::run_env::OpKind;
    let host = crate::store::host_path(&plan.mount, store_dir, &node.prefix)
        .unwrap_or_else(|| node.prefix.clone());
    let ops = crate::build_logic::run_env::read_recorded(&host)
        .map_err(|e| PipelineError::Internal(format!("{}: {e}", node.name)))?;
    let mut out = Vec::new();
    for op in ops {
        let (name, value) = (op.name.clone(), op.value().to_string());
        out.push(match op.op {
            OpKind::Set => view::EnvOp::set(name, value),
            OpKind::Unset => view::EnvOp::unset(name),
            OpKind::PrependPath if op.separator() == ":" => view::EnvOp::prepend_path(name, value),
            OpKind::AppendPath if op.separator() == ":" => view::EnvOp::append_path(name, value),
            _ => {
                tracing::warn!(
                    "{}: its run environment edits {name} ({:?} `{value}`, separator `{}`); \
                     views, modules and env.json cannot express that, it is left out",
                    node.name,
                    op.op,
                    op.separator()
                );
                continue;
            }
        });
    }
    Ok(out)
}

/// Every node of the plan as an installed package, roots first (in recipe
/// order), then the rest by name.
pub fn store_contents(
    plan: &Plan,
    store_dir: PathBuf,
    jobs: usize,
) -> Result<StoreContents, PipelineError> {
    let mut order = Vec::new();
    for env in &plan.environments {
        for root in &env.roots {
            if !order.contains(&root.node) {
                order.push(root.node);
            }
        }
    }
    for idx in plan.nodes_sorted() {
        if !order.contains(&idx) {
            order.push(idx);
        }
    }
    let mut packages = Vec::new();
    for idx in order {
        let node = plan.node(idx);
        let mut deps = Vec::new();
        let mut build_deps = Vec::new();
        for (dep, types) in plan.deps(idx) {
            let hash = plan.node(dep).hash.clone();
            if types.link || types.run {
                deps.push(hash);
            } else {
                build_deps.push(hash);
            }
        }
        let root_in = plan
            .environments
            .iter()
            .filter(|e| e.roots.iter().any(|r| r.node == idx))
            .map(|e| e.name.clone())
            .collect();
        let mut env: Vec<view::EnvOp> = crate::render::run_env(plan, idx, jobs)?
            .into_iter()
            .filter_map(|(k, var, value)| view_op(k, var, value))
            .collect();
        if !node.is_external() && node.recipe.build.system.kind.runs_build_logic() {
            env.extend(recorded_run_env(plan, &store_dir, node)?);
        }
        packages.push(InstalledPackage {
            name: node.name.clone(),
            version: node.version.to_string(),
            hash: node.hash.clone(),
            description: node.recipe.description.clone(),
            prefix: node.prefix.clone(),
            deps,
            build_deps,
            root_in,
            external: node.is_external(),
            env,
        });
    }
    Ok(StoreContents {
        mount: plan.mount.clone(),
        store_dir,
        packages,
    })
}

/// The recipe's views as view-stage inputs.
pub fn view_specs(recipe: &StackRecipe, plan: &Plan) -> Vec<ViewSpec> {
    recipe
        .views()
        .map(|(env, v)| ViewSpec {
            also: if v.add_compilers {
                stack_compilers_of(env, plan)
            } else {
                Vec::new()
            },
            env_name: env.name.value.clone(),
            name: v.name.value.clone(),
            link: match v.link {
                ViewLink::Roots => view::LinkType::Roots,
                ViewLink::All => view::LinkType::All,
                ViewLink::Run => view::LinkType::Run,
            },
            select: v.select.iter().map(|s| s.value.clone()).collect(),
            exclude: v.exclude.iter().map(|s| s.value.clone()).collect(),
            description: v.description.clone().unwrap_or_default(),
            prefix_paths: v.prefix_paths.iter().cloned().collect::<BTreeMap<_, _>>(),
            env_vars: v
                .env_vars
                .iter()
                .filter_map(|op| view_op(op.kind, op.var.clone(), op.value.clone()))
                .collect(),
            conflicts: view::ConflictPolicy::FirstWins,
        })
        .collect()
}

/// The hashes of the stack-built compilers of an environment: its compiler
/// and the others it names (`compiler: [gcc@14, nvhpc]`), what
/// `add_compilers` links into its views.
fn stack_compilers_of(env: &crate::stacks::Environment, plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = plan
        .environment(&env.name.value)
        .and_then(|e| e.compiler_node)
        .map(|c| plan.node(c).hash.clone())
        .into_iter()
        .collect();
    let built = plan
        .environments
        .iter()
        .filter(|e| StackRecipe::is_compilers_environment(&e.name))
        .flat_map(|e| e.roots.iter().map(|r| r.node));
    let built: Vec<_> = built.collect();
    for c in &env.other_compilers {
        if let Some(n) = built.iter().find(|&&n| plan.node(n).satisfies(&c.spec)) {
            let hash = plan.node(*n).hash.clone();
            if !out.contains(&hash) {
                out.push(hash);
            }
        }
    }
    out
}

/// The recipe's `modules:` section as a view-stage input: its specs
/// (`exclude`, `include`, projection and environment keys) matched against
/// the plan's packages.
pub fn modules_spec(recipe: &StackRecipe, plan: &Plan) -> Option<ModulesSpec> {
    let m = recipe.modules.as_ref()?;
    let nodes: Vec<&crate::resolve::Node> = plan.graph.node_weights().collect();
    let matching = |specs: &[crate::recipes::SpecRef]| -> BTreeSet<String> {
        nodes
            .iter()
            .filter(|n| specs.iter().any(|s| n.satisfies(&s.spec)))
            .map(|n| n.hash.clone())
            .collect()
    };
    let parse = |key: &str| crate::spec::Spec::parse(key).ok();
    let mut projections = BTreeMap::new();
    let mut projection_of = BTreeMap::new();
    for (key, template) in &m.projections {
        match key.as_str() {
            "all" => {
                projections.insert(key.clone(), template.clone());
            }
            _ => {
                // The first key a package satisfies wins (as in Spack).
                let Some(spec) = parse(key) else { continue };
                for n in nodes.iter().filter(|n| n.satisfies(&spec)) {
                    projection_of
                        .entry(n.hash.clone())
                        .or_insert_with(|| template.clone());
                }
            }
        }
    }
    let mut env: BTreeMap<String, Vec<view::EnvOp>> = BTreeMap::new();
    for (key, ops) in &m.environment {
        let spec = match key.value.as_str() {
            "all" => None,
            k => match parse(k) {
                Some(s) => Some(s),
                None => continue,
            },
        };
        let ops: Vec<view::EnvOp> = ops
            .iter()
            .filter_map(|op| view_op(op.kind, op.var.clone(), op.value.clone()))
            .collect();
        for n in nodes
            .iter()
            .filter(|n| spec.as_ref().is_none_or(|s| n.satisfies(s)))
        {
            env.entry(n.hash.clone())
                .or_default()
                .extend(ops.iter().cloned());
        }
    }
    Some(ModulesSpec {
        flavour: match m.flavour {
            ModuleFlavour::Lmod => view::ModuleFlavour::Lmod,
            ModuleFlavour::Tcl => view::ModuleFlavour::Tcl,
        },
        projections,
        projection_of,
        hide_implicits: m.hide_implicits,
        exclude_implicits: m.exclude_implicits,
        autoload: m.autoload,
        prefix_inspections: m.prefix_inspections.clone(),
        exclude: matching(&m.exclude),
        include: matching(&m.include),
        env,
        ..ModulesSpec::default()
    })
}

/// Two packages of the plan whose modules would have one name: found when
/// the plan is made, before anything is built.
pub fn check_module_names(recipe: &StackRecipe, plan: &Plan) -> Result<(), PipelineError> {
    let (Some(m), Some(spec)) = (&recipe.modules, modules_spec(recipe, plan)) else {
        return Ok(());
    };
    let packages: Vec<InstalledPackage> = plan
        .nodes_sorted()
        .into_iter()
        .map(|i| {
            let n = plan.node(i);
            let root_in = plan
                .environments
                .iter()
                .filter(|e| e.roots.iter().any(|r| r.node == i))
                .map(|e| e.name.clone())
                .collect();
            InstalledPackage {
                name: n.name.clone(),
                version: n.version.to_string(),
                hash: n.hash.clone(),
                description: String::new(),
                prefix: n.prefix.clone(),
                deps: Vec::new(),
                build_deps: Vec::new(),
                root_in,
                external: n.is_external(),
                env: Vec::new(),
            }
        })
        .collect();
    let with_module: Vec<&InstalledPackage> =
        packages.iter().filter(|p| spec.has_module(p)).collect();
    match view::modules::module_names(&with_module, &spec) {
        Ok(_) => Ok(()),
        Err(view::ViewError::ModuleNameClash {
            module,
            first,
            second,
        }) => {
            let hash = |label: &str, skip: usize| {
                packages
                    .iter()
                    .filter(|p| p.label() == label)
                    .nth(skip)
                    .map(|p| p.hash[..8.min(p.hash.len())].to_string())
                    .unwrap_or_default()
            };
            let same = first == second;
            Err(PipelineError::ModuleClash {
                module,
                first: format!("{first} /{}", hash(&first, 0)),
                second: format!("{second} /{}", hash(&second, usize::from(same))),
                at: m.loc.clone(),
            })
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::resolve::{ResolveOptions, resolve};
    use crate::stacks::{InputOptions, load_inputs};

    /// The demo with a `modules:` section whose entries are specs.
    fn demo_plan(modules: &str) -> (crate::stacks::Inputs, Plan) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = tempfile::tempdir().unwrap();
        let text = fs_err::read_to_string(root.join("stacks/demo.yaml")).unwrap();
        let start = text.find("\nmodules:\n").unwrap() + 1;
        let end = start + text[start..].find("\n#").unwrap() + 1;
        let text = format!("{}{modules}{}", &text[..start], &text[end..])
            .replace(
                "repos: [demo/recipes]",
                &format!("repos: [{}/stacks/demo/recipes]", root.display()),
            )
            .replace(
                "demo/hooks/",
                &format!("{}/stacks/demo/hooks/", root.display()),
            );
        let file = dir.path().join("demo.yaml");
        fs_err::write(&file, text).unwrap();
        let inputs = load_inputs(&InputOptions {
            recipe: file,
            cluster: Some(root.join("cluster-configs/local")),
            ..InputOptions::default()
        })
        .unwrap_or_else(|d| panic!("{d}"));
        let plan = resolve(
            &inputs.recipe,
            &inputs.cluster,
            &inputs.repo,
            &ResolveOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        (inputs, plan)
    }

    fn hash_of(plan: &Plan, name: &str) -> String {
        plan.graph
            .node_weights()
            .find(|n| n.name == name)
            .unwrap()
            .hash
            .clone()
    }

    /// `exclude`, `include`, projection and environment keys are specs,
    /// matched against the plan's packages (compilers included:
    /// `%gcc@12.2.0`, as stackinator's modules.yaml writes them).
    #[test]
    fn module_specs_are_matched_against_the_plan() {
        let (inputs, plan) = demo_plan(
            "modules:\n  flavour: tcl\n  exclude: [\"%gcc@12.2.0\"]\n  include: [libgreet]\n  projections: {all: \"{name}/{version}\", \"libcalc+shared\": \"{name}-shared/{version}\"}\n  environment:\n    hello-make: {set: [{HELLO: \"1\"}]}\n",
        );
        let spec = modules_spec(&inputs.recipe, &plan).unwrap();
        // Everything the demo builds is built with the cluster's gcc 12.2.0.
        assert!(spec.exclude.contains(&hash_of(&plan, "hello-make")));
        assert!(spec.include.contains(&hash_of(&plan, "libgreet")));
        assert_eq!(spec.include.len(), 1);
        assert_eq!(
            spec.projection_of
                .get(&hash_of(&plan, "libcalc"))
                .map(String::as_str),
            Some("{name}-shared/{version}")
        );
        assert_eq!(spec.env[&hash_of(&plan, "hello-make")].len(), 1);
        assert_eq!(spec.env.len(), 1);
        check_module_names(&inputs.recipe, &plan).unwrap();
    }
}
