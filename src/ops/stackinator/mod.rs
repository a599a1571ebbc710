//! A stackinator recipe directory given where a stack recipe is expected:
//! translated ([`crate::stackinator`]) into a work directory under the
//! cache, then loaded as any stack recipe.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::stackinator::{TranslateOptions, translate, write};
use crate::stacks::{InputOptions, Inputs};

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
    match crate::stacks::load_inputs(&o) {
        Ok(mut inputs) => {
            inputs.warnings.extend(t.warnings);
            inputs.warnings.sort();
            Ok(inputs)
        }
        Err(d) => {
            let mut d = explain_rejected(d, &base.join("repos"), &t.compiler_packages);
            d.extend(t.warnings);
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

/// What `stack stackinator convert` wrote.
#[derive(Clone, Debug)]
pub struct Converted {
    /// The stack recipe.
    pub recipe: PathBuf,
    /// The cluster configuration directory (holding cluster.yaml).
    pub cluster: PathBuf,
    pub warnings: Diagnostics,
}

/// Translate a stackinator recipe and cluster into files of our own format:
/// `out` (the stack recipe), `<out's dir>/<cluster>/cluster.yaml`, and the
/// translated Spack repositories under `<out's dir>/spack-repos/`.
pub fn convert(
    recipe: &Path,
    cluster: &Path,
    out: &Path,
    spack_packages: Option<PathBuf>,
) -> Result<Converted, OpError> {
    let abs = |p: &Path| fs_err::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if !crate::stackinator::is_recipe_dir(recipe) {
        return Err(input_error(
            format!("{}: not a stackinator recipe directory", recipe.display()),
            "a recipe directory holds config.yaml, compilers.yaml and environments.yaml",
        ));
    }
    if !crate::stackinator::is_cluster_dir(cluster) {
        return Err(input_error(
            format!(
                "{}: not a stackinator cluster directory (no packages.yaml)",
                cluster.display()
            ),
            "e.g. alps-cluster-config/daint",
        ));
    }
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs_err::create_dir_all(parent).map_err(|e| {
        input_error(
            format!("cannot create {}: {e}", parent.display()),
            "give a writable --out",
        )
    })?;
    let parent = abs(parent);
    let t = translate(&TranslateOptions {
        recipe: abs(recipe),
        cluster: abs(cluster),
        spack_packages: spack_packages.map(|p| abs(&p)),
        cache: Some(parent.join("spack-repos")),
    })
    .map_err(OpError::Inputs)?;
    let fail =
        |e: std::io::Error| input_error(format!("cannot write: {e}"), "give a writable --out");
    let (tmp_recipe, cdir) = write(&t, &parent).map_err(fail)?;
    let file = parent.join(out.file_name().unwrap_or("stack.yaml".as_ref()));
    if tmp_recipe != file {
        fs_err::rename(&tmp_recipe, &file).map_err(fail)?;
    }
    Ok(Converted {
        recipe: file,
        cluster: cdir,
        warnings: t.warnings,
    })
}
