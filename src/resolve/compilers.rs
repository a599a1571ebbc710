//! Which compiler each environment is built with: the stack's own
//! (`compilers:`, resolved first as the `compilers` environment with the
//! cluster's compiler) or a cluster compiler.
//!
//! An environment's `compiler:` wins, then the stack's `compiler:`, then the
//! cluster's first compiler. A name matches a stack compiler first (the
//! root of the `compilers` environment it resolved to), then a cluster one.
//! A stack compiler written with another's `%compiler` (`"nvhpc %gcc@14"`)
//! is built with that one, in the environment `compilers-gcc@14`.

use petgraph::graph::NodeIndex;

use crate::cluster::{Cluster, Compiler};
use crate::diag::Loc;
use crate::recipes::SpecRef;
use crate::stacks::{COMPILERS_ENVIRONMENT, Environment, StackRecipe};

use super::error::{ResolveError, short_loc};
use super::model::{CompilerOrigin, NodeCompiler, Plan};

/// A compiler chosen for an environment.
pub(crate) struct Chosen {
    pub compiler: NodeCompiler,
    /// Where the choice was made (for explanations).
    pub loc: Loc,
    /// The compiler's node when the stack builds it.
    pub node: Option<NodeIndex>,
}

/// A cluster compiler as a plan compiler.
pub(crate) fn system(c: &Compiler) -> Result<NodeCompiler, ResolveError> {
    Ok(NodeCompiler {
        name: c.spec.name().unwrap_or_default().to_string(),
        version: super::exact_version(&c.spec.spec).ok_or_else(|| ResolveError::Compiler {
            message: format!(
                "cluster compiler `{}` ({}) needs an exact version",
                c.spec.text,
                short_loc(&c.spec.loc)
            ),
            loc: Some(c.spec.loc.clone()),
        })?,
        origin: CompilerOrigin::System {
            identity: c.identity(),
        },
    })
}

/// The cluster compiler the stack's compilers (and environments without a
/// stack compiler) are built with: the stack's `compiler:` when it names a
/// cluster compiler, else the cluster's first.
pub(crate) fn cluster_default<'c>(
    recipe: &StackRecipe,
    cluster: &'c Cluster,
) -> Result<&'c Compiler, ResolveError> {
    if let Some(c) = &recipe.compiler {
        if let Some(found) = cluster.find_compiler(&c.spec) {
            return Ok(found);
        }
        if !is_stack_compiler(recipe, c) {
            return Err(unknown(c, cluster));
        }
    }
    cluster
        .default_compiler()
        .ok_or_else(|| ResolveError::Compiler {
            message: format!("cluster `{}` lists no compilers", cluster.name.value),
            loc: Some(cluster.name.loc.clone()),
        })
}

fn is_stack_compiler(recipe: &StackRecipe, c: &SpecRef) -> bool {
    recipe
        .compilers
        .iter()
        .any(|s| s.spec.name == c.spec.name && s.spec.versions.intersects(&c.spec.versions))
}

fn unknown(c: &SpecRef, cluster: &Cluster) -> ResolveError {
    ResolveError::Compiler {
        message: format!(
            "compiler `{}` ({}) is neither a stack compiler nor provided by cluster `{}`",
            c.text,
            short_loc(&c.loc),
            cluster.name.value
        ),
        loc: Some(c.loc.clone()),
    }
}

/// The compiler of `env`, once the `compilers` environment (if any) is in
/// `plan`.
pub(crate) fn for_environment(
    recipe: &StackRecipe,
    env: &Environment,
    cluster: &Cluster,
    plan: &Plan,
    default: &Chosen,
) -> Result<Chosen, ResolveError> {
    if env.name.value == COMPILERS_ENVIRONMENT && !recipe.compilers.is_empty() {
        return Ok(clone(default));
    }
    let Some(want) = env.compiler.as_ref().or(recipe.compiler.as_ref()) else {
        return Ok(clone(default));
    };
    find(want, cluster, plan)
}

/// The other compilers of `env` (`compiler: [gcc, nvhpc]`: `nvhpc`).
pub(crate) fn others(
    env: &Environment,
    cluster: &Cluster,
    plan: &Plan,
) -> Result<Vec<Chosen>, ResolveError> {
    env.other_compilers
        .iter()
        .map(|want| find(want, cluster, plan))
        .collect()
}

/// The compiler `want` names: a stack compiler already in `plan`, else a
/// cluster compiler.
fn find(want: &SpecRef, cluster: &Cluster, plan: &Plan) -> Result<Chosen, ResolveError> {
    let built = plan
        .environments
        .iter()
        .filter(|e| StackRecipe::is_compilers_environment(&e.name));
    for built in built {
        for root in &built.roots {
            let node = plan.node(root.node);
            if node.satisfies(&want.spec) || root.spec.spec.satisfies(&want.spec) {
                return Ok(Chosen {
                    compiler: NodeCompiler {
                        name: node.name.clone(),
                        version: node.version.clone(),
                        origin: CompilerOrigin::Built {
                            hash: node.hash.clone(),
                        },
                    },
                    loc: want.loc.clone(),
                    node: Some(root.node),
                });
            }
        }
    }
    match cluster.find_compiler(&want.spec) {
        Some(c) => Ok(Chosen {
            compiler: system(c)?,
            loc: want.loc.clone(),
            node: None,
        }),
        None => Err(unknown(want, cluster)),
    }
}

fn clone(c: &Chosen) -> Chosen {
    Chosen {
        compiler: c.compiler.clone(),
        loc: c.loc.clone(),
        node: c.node,
    }
}
