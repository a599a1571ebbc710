//! A stackinator recipe directory given where a stack recipe is expected:
//! translated ([`crate::stackinator`]) into a work directory under the
//! cache, then loaded as any stack recipe.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::stackinator::{Labels, TranslateOptions, translate, write};
use crate::stacks::{InputOptions, Inputs};

use super::OpError;

mod convert;

/// Whether `recipe` is a stackinator recipe directory.
pub fn is_stackinator(recipe: &Path) -> bool {
    recipe.is_dir() && crate::stackinator::is_recipe_dir(recipe)
}

fn input_error(msg: String, help: &str) -> OpError {
    let mut d = Diagnostics::new();
    d.push(Diagnostic::error(Code::BadPath, msg).with_help(help.to_string()));
    OpError::Inputs(d)
}

/// Translate, write and load a stackinator recipe with its cluster.
pub fn check_stackinator(opts: &InputOptions) -> Result<Inputs, OpError> {
    let Some(cluster) = &opts.cluster else {
        return Err(input_error(
            format!(
                "{} is a stackinator recipe: it needs `--cluster DIR` (a stackinator cluster directory)",
                opts.recipe.display()
            ),
            "e.g. --cluster alps-cluster-config/daint (packages.yaml, network.yaml, repos.yaml)",
        ));
    };
    let abs = |p: &Path| fs_err::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (recipe, cluster) = (abs(&opts.recipe), abs(cluster));
    if !crate::stackinator::is_cluster_dir(&cluster) {
        return Err(input_error(
            format!(
                "--cluster {}: not a stackinator cluster directory (no packages.yaml)",
                cluster.display()
            ),
            "a stackinator recipe needs a stackinator cluster configuration (packages.yaml, network.yaml, repos.yaml)",
        ));
    }
    let base = translation_cache();
    let t = translate(&TranslateOptions {
        recipe: recipe.clone(),
        cluster: cluster.clone(),
        spack_packages: crate::settings::spack_packages().map(|p| abs(&p)),
        cache: Some(base.join("repos")),
    })
    .map_err(OpError::Inputs)?;
    load_translation(&t, opts, &work_dir(&base, &recipe, &cluster), "stack.yaml")
}

/// Where translations are cached: `stackinator/` in the caches' base
/// ([`crate::settings::Settings::cache_base`]).
fn translation_cache() -> PathBuf {
    crate::settings::cache_base().join("stackinator")
}

/// The work directory of one recipe with one cluster, under the cache.
fn work_dir(base: &Path, recipe: &Path, cluster: &Path) -> PathBuf {
    let mut h = Sha256::new();
    h.update(recipe.as_os_str().as_encoded_bytes());
    h.update(b"\0");
    h.update(cluster.as_os_str().as_encoded_bytes());
    base.join("work").join(&format!("{:x}", h.finalize())[..16])
}

/// Write `t` into `work` and load it as a stack; diagnostics point at the
/// user's files (the written ones carry their span maps).
fn load_translation(
    t: &crate::stackinator::Translation,
    opts: &InputOptions,
    work: &Path,
    stack_file: &str,
) -> Result<Inputs, OpError> {
    let labels = Labels {
        recipe: t.recipe_dir.display().to_string(),
        cluster: t.cluster_dir.display().to_string(),
    };
    let written = write(t, work, stack_file, &labels).map_err(|e| {
        input_error(
            format!("cannot write the translation to {}: {e}", work.display()),
            "set STACK_CACHE to a writable directory",
        )
    })?;
    tracing::info!(
        "stackinator recipe translated into {}",
        written.stack.path().display()
    );
    let mut o = opts.clone();
    o.recipe = written.stack.path().to_path_buf();
    o.cluster = Some(written.cluster_dir.clone());
    let given = [written.stack.clone(), written.cluster.clone()];
    match crate::stacks::load_inputs_from(&o, &given) {
        Ok(mut inputs) => {
            inputs.warnings.extend(t.warnings.clone());
            inputs.warnings.sort();
            Ok(inputs)
        }
        Err(d) => {
            let cache = translation_cache().join("repos");
            let mut d = explain_rejected(d, &cache, &t.compiler_packages);
            d.extend(t.warnings.clone());
            d.sort();
            Err(OpError::Inputs(d))
        }
    }
}

/// An unknown package whose Spack translation was set aside (its recipe
/// did not load) gets a help line naming the reason file; a compiler of
/// compilers.yaml without a recipe one saying where it could come from.
fn explain_rejected(diags: Diagnostics, repos: &Path, compilers: &[String]) -> Diagnostics {
    let rejected: Vec<PathBuf> = fs_err::read_dir(repos)
        .map(|rd| rd.flatten().map(|e| e.path().join("rejected")).collect())
        .unwrap_or_default();
    let mut out = Diagnostics::new();
    for mut d in diags {
        if d.code == Code::UnknownPackage {
            if let Some(name) = d.subject.as_deref() {
                let compiler = compilers.iter().any(|c| c == name);
                if let Some(help) = unknown_package_help(name, compiler, &rejected) {
                    d.help = Some(help);
                }
            }
        }
        out.push(d);
    }
    out
}

/// Where package `name` could have come from: its set-aside translation's
/// reason file, or (for a compiler of compilers.yaml) a repository with its
/// recipe.
fn unknown_package_help(name: &str, compiler: bool, rejected: &[PathBuf]) -> Option<String> {
    let why = rejected
        .iter()
        .map(|r| r.join(format!("{name}.txt")))
        .find(|p| p.is_file());
    if let Some(why) = why {
        return Some(format!(
            "the Spack package `{name}` was translated, but its recipe does not load (an untranslated construct): see {}",
            why.display()
        ));
    }
    compiler.then(|| {
        format!(
            "compilers.yaml's `{name}` is built from a package recipe `{name}`, and no repository has one: stack ships none; set STACK_SPACK_PACKAGES to a spack-packages checkout (its translation), or add packages/{}/package.py to the recipe's repo/",
            crate::import::dir_name(name)
        )
    })
}

pub use convert::{Converted, convert};
