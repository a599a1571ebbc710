//! A stackinator recipe directory given where a stack recipe is expected:
//! translated ([`crate::stackinator`]) into a work directory under the
//! cache, then loaded as any stack recipe.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::recipe::{InputOptions, Inputs};
use crate::stackinator::{TranslateOptions, translate, write};

use super::OpError;

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
    let base = crate::settings::cache_base()
        .unwrap_or_else(|| PathBuf::from(".stack-cache"))
        .join("stackinator");
    let t = translate(&TranslateOptions {
        recipe: recipe.clone(),
        cluster: cluster.clone(),
        spack_packages: crate::settings::spack_packages().map(|p| abs(&p)),
        cache: Some(base.join("repos")),
    })
    .map_err(OpError::Inputs)?;
    let mut h = Sha256::new();
    h.update(recipe.as_os_str().as_encoded_bytes());
    h.update(b"\0");
    h.update(cluster.as_os_str().as_encoded_bytes());
    let work = base.join("work").join(&format!("{:x}", h.finalize())[..16]);
    let (stack, cdir) = write(&t, &work).map_err(|e| {
        input_error(
            format!("cannot write the translation to {}: {e}", work.display()),
            "set STACK_CACHE to a writable directory",
        )
    })?;
    tracing::info!("stackinator recipe translated into {}", stack.display());
    let mut o = opts.clone();
    o.recipe = stack;
    o.cluster = Some(cdir);
    match crate::recipe::load_inputs(&o) {
        Ok(mut inputs) => {
            inputs.warnings.extend(t.warnings);
            inputs.warnings.sort();
            Ok(inputs)
        }
        Err(mut d) => {
            d.extend(t.warnings);
            d.sort();
            Err(OpError::Inputs(d))
        }
    }
}
