//! `stack build-env PKG [-- CMD]`: run a command (or a shell) in a staged
//! package's build environment.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{CliError, Global};

/// Run a command (default: a shell) in a failed or kept package's stage,
/// with exactly its build environment.
///
/// The same variables (with the run environment, `env:`, of the package's
/// build and link dependencies, e.g. py-pip's PYTHONPATH), PATH (declared
/// tools only), compiler wrapper and working directory (the stage's build
/// directory) as the build's commands, in the same sandbox when builds run in the private mount
/// namespace. The environment is recorded as BUILD/stage/<pkg>-<ver>-<h8>/
/// build-env.json when the package is staged; stages stay for failed
/// packages and, with `stack build --keep-stage`, for all.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack build-env libcalc --build build/demo -- make
  stack build-env libcalc --build build/demo -- env
  stack build-env tally                      # a shell; the build dir is found under ./build/

Exit status: the command's; 2 when no stage of the package is found.")]
pub struct Args {
    /// The package (as staged).
    #[arg(value_name = "PKG")]
    pub package: String,
    /// Build directory [default: the one under ./build/ that staged PKG].
    #[arg(long, value_name = "DIR")]
    pub build: Option<PathBuf>,
    /// The command and its arguments (after `--`) [default: $SHELL, else sh].
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let argv = if args.command.is_empty() {
        vec![stack::settings::user_var("SHELL").unwrap_or_else(|| "sh".into())]
    } else {
        args.command
    };
    let status = stack::ops::run_in_build_env(args.build.as_deref(), &args.package, &argv)?;
    Ok(ExitCode::from(
        status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1)),
    ))
}
