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

/// Write the stack recipe equivalent to a stackinator recipe directory.
///
/// `stack check|resolve|fetch|build RECIPE_DIR --cluster CLUSTER_DIR` read
/// stackinator directories directly (translated on the fly); `convert`
/// writes the translation once, to move a recipe over for good: OUT, the
/// cluster configuration as `<OUT's dir>/<cluster>/cluster.yaml`, and the
/// Spack repositories it names translated under `<OUT's dir>/spack-repos/`.
///
/// compilers.yaml's gcc (`gcc: {version: "14"}`, v1 `gcc: {specs: [gcc@14]}`)
/// becomes `compilers: [gcc@14]` and the compiler of every environment: gcc
/// is built with the cluster's gcc, then everything else with it
/// (`version: system` keeps the cluster's). Stack's own recipes win over
/// spack-packages' translations of the same packages.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack stackinator convert alps-uenv/recipes/prgenv-gnu/26.3/gh200 alps-cluster-config/daint --out prgenv/stack.yaml
  stack stackinator convert recipe/ cluster/local --out /tmp/s/stack.yaml --spack-packages ~/src/spack-packages
  stack check prgenv/stack.yaml --cluster prgenv/daint

Unsupported fields are warnings with their file and line. See docs/stackinator.md.")]
pub struct ConvertArgs {
    /// The stackinator recipe directory (config.yaml, compilers.yaml, environments.yaml).
    #[arg(value_name = "RECIPE_DIR")]
    pub recipe: PathBuf,
    /// The stackinator cluster directory (packages.yaml, network.yaml, repos.yaml).
    #[arg(value_name = "CLUSTER_DIR")]
    pub cluster: PathBuf,
    /// The stack recipe to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// A spack-packages checkout, translated for `spack.packages` [default: $STACK_SPACK_PACKAGES].
    #[arg(long, value_name = "DIR")]
    pub spack_packages: Option<PathBuf>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let Sub::Convert(a) = args.command;
    let spack = a.spack_packages.or_else(stack::settings::spack_packages);
    let done = stack::ops::stackinator_convert(&a.recipe, &a.cluster, &a.out, spack).map_err(
        |e| match e {
            OpError::Inputs(d) => {
                super::check::render(&d);
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
    super::check::render(&done.warnings);
    outln!(
        "wrote {} and {}/cluster.yaml ({} warning{})",
        done.recipe.display(),
        done.cluster.display(),
        done.warnings.len(),
        if done.warnings.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}
