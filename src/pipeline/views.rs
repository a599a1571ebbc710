//! From the plan and the recipe to the view stage's plain inputs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::recipes::EnvOpKind;
use crate::resolve::Plan;
use crate::stacks::{ModuleFlavour, StackRecipe, ViewLink};
use crate::view::{self, InstalledPackage, ModulesSpec, StoreContents, ViewSpec};

use super::PipelineError;
use super::render;

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
        let mut env: Vec<view::EnvOp> = render::run_env(plan, idx, jobs)?
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
            also: plan
                .environment(&env.name.value)
                .and_then(|e| e.compiler_node)
                .filter(|_| v.add_compilers)
                .map(|c| vec![plan.node(c).hash.clone()])
                .unwrap_or_default(),
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

/// The recipe's `modules:` section as a view-stage input.
pub fn modules_spec(recipe: &StackRecipe) -> Option<ModulesSpec> {
    let m = recipe.modules.as_ref()?;
    Some(ModulesSpec {
        flavour: match m.flavour {
            ModuleFlavour::Lmod => view::ModuleFlavour::Lmod,
            ModuleFlavour::Tcl => view::ModuleFlavour::Tcl,
        },
        projections: m.projections.iter().cloned().collect(),
        hide_implicits: m.hide_implicits,
        ..ModulesSpec::default()
    })
}
