//! `stack build-env PKG [-- CMD]`: run a command (or a shell) in a staged
//! package's build environment.

use std::path::PathBuf;
use std::process::ExitCode;

use stack::build::build_env::{self, BuildEnvError, BuildEnvRecord};

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
    let rec = find(&args)?;
    let argv = if args.command.is_empty() {
        vec![stack::settings::user_var("SHELL").unwrap_or_else(|| "sh".into())]
    } else {
        args.command
    };
    let status = build_env::command(&rec, &argv)?
        .status()
        .map_err(|e| {
            CliError::failure(miette::miette!(
                help = "the program must be on the build PATH: a base tool or a declared build dependency (docs/build.md)",
                "cannot run `{}` in the build environment of {}: {e}",
                argv[0],
                rec.package
            ))
        })?;
    Ok(ExitCode::from(
        status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1)),
    ))
}

/// The record in `--build`, else in the one directory of `./build/` that has it.
fn find(args: &Args) -> Result<BuildEnvRecord, BuildEnvError> {
    if let Some(dir) = &args.build {
        return build_env::find(dir, &args.package);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("build")
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort();
    let mut first_err = None;
    for dir in dirs {
        match build_env::find(&dir, &args.package) {
            Ok(rec) => return Ok(rec),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| BuildEnvError::NoStage {
        package: args.package.clone(),
        stage_dir: PathBuf::from("build/*/stage"),
        others: Vec::new(),
    }))
}
