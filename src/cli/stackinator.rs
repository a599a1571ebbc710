//! `stack stackinator convert`: a stackinator recipe and cluster directory
//! → a stack recipe and cluster configuration of our own format.

use std::path::PathBuf;
use std::process::ExitCode;

use stack::ops::OpError;

use super::output::outln;
use super::{CliError, Global};

/// Stackinator recipes (alps-uenv) and cluster configurations.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    Convert(ConvertArgs),
}

/// Convert a stackinator recipe directory into a directory a site can commit.
///
/// `stack check|resolve|fetch|build RECIPE_DIR --cluster CLUSTER_DIR` read
/// stackinator directories directly (translated on the fly, in the cache);
/// `convert` writes the translation once into OUT: the stack recipe
/// (`stack.yaml`), the cluster configuration (`<cluster>/cluster.yaml`),
/// the hooks and `extra/`, the translated package recipes the stack reaches
/// (`repos/<repository>/`, with their patches) and a README saying how to
/// convert again when the pinned spack-packages commit changes. Every path
/// in it is relative; nothing else is copied.
///
/// compilers.yaml's gcc (`gcc: {version: "14"}`, v1 `gcc: {specs: [gcc@14]}`)
/// becomes `compilers: [gcc@14]` and the compiler of every environment: gcc
/// is built with the cluster's gcc, then everything else with it
/// (`version: system` keeps the cluster's). Stack's own recipes win over
/// spack-packages' translations of the same packages.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack stackinator convert alps-uenv/recipes/prgenv-gnu/26.3/gh200 alps-cluster-config/daint --out site/prgenv-gnu
  stack stackinator convert recipe/ cluster/local --out /tmp/s --spack-packages ~/src/spack-packages
  stack check site/prgenv-gnu/stack.yaml --cluster site/prgenv-gnu/daint

OUT is a directory (new, empty, or written by convert before); `--out DIR/NAME.yaml`
names the recipe file. Every key of the stackinator files is translated or
warned about with its file and line. See docs/stackinator.md.")]
pub struct ConvertArgs {
    /// The stackinator recipe directory (config.yaml, compilers.yaml, environments.yaml).
    #[arg(value_name = "RECIPE_DIR")]
    pub recipe: PathBuf,
    /// The stackinator cluster directory (packages.yaml, network.yaml, repos.yaml).
    #[arg(value_name = "CLUSTER_DIR")]
    pub cluster: PathBuf,
    /// The directory to write (or `DIR/NAME.yaml`: the recipe file in it).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// A spack-packages checkout, translated for `spack.packages` [default: $STACK_SPACK_PACKAGES].
    #[arg(long, value_name = "DIR")]
    pub spack_packages: Option<PathBuf>,
}

impl ConvertArgs {
    /// The flags the command's settings come from.
    pub fn flags(&self) -> stack::settings::Flags {
        stack::settings::Flags {
            spack_packages: self.spack_packages.clone(),
            ..Default::default()
        }
    }
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let Sub::Convert(a) = args.command;
    let spack = super::settings::resolve(&a.flags(), None).spack_packages;
    let done = stack::ops::stackinator_convert(&a.recipe, &a.cluster, &a.out, spack).map_err(
        |e| match e {
            OpError::Inputs(d) => {
                super::output::diagnostics(&d);
                CliError::input(miette::miette!(
                    "{} found {} error{} in the stackinator inputs",
                    a.recipe.display(),
                    d.error_count(),
                    if d.error_count() == 1 { "" } else { "s" }
                ))
            }
            e => e.into(),
        },
    )?;
    super::output::diagnostics(&done.warnings);
    let recipes: Vec<String> = done
        .recipes
        .iter()
        .map(|(layer, n)| format!("{n} from {layer}"))
        .collect();
    outln!(
        "wrote {}: {}, {}/cluster.yaml, {} translated package recipe{}{}, README.md ({} kB; {} warning{})",
        stack::diag::display_path(&done.dir),
        done.recipe
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        done.cluster
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        done.recipes.iter().map(|(_, n)| n).sum::<usize>(),
        if done.recipes.iter().map(|(_, n)| n).sum::<usize>() == 1 {
            ""
        } else {
            "s"
        },
        if recipes.is_empty() {
            String::new()
        } else {
            format!(" ({})", recipes.join(", "))
        },
        done.bytes.div_ceil(1024),
        done.warnings.len(),
        if done.warnings.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}
