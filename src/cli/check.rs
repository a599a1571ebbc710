//! `stack check RECIPE`: validate a stack recipe, its cluster configuration
//! and every package recipe it can reach.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stack::diag::Diagnostics;

use super::inputs::InputArgs;
use super::{CliError, Global};

/// Validate a stack recipe, its cluster configuration and its packages.
///
/// Checks the stack recipe, the cluster configuration and every package
/// recipe reachable from the recipe's specs (through dependencies,
/// conditional ones included, and the providers of virtuals). All problems are reported at once, each with file:line:col, what was
/// expected and, where possible, a suggestion.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack check stacks/demo.yaml
  stack check stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200
  stack check my-stack.yaml --repo ./my-recipes --repo ../site-recipes

Package repositories are searched in this order: --repo flags, STACK_REPOS,
the recipe's `repos:`, the nearest `recipes/` above the recipe.

Exit status: 0 valid (warnings may be printed), 2 problems found (all of them
are printed on stderr).")]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    // Problems are printed (all of them) and exit 2 inside `load`.
    let inputs = args.input.load()?;
    let envs = inputs.recipe.environments.len();
    let pkgs = inputs.packages.len();
    let _ = writeln!(
        std::io::stdout(),
        "{}: ok — {envs} environment{}, {pkgs} package{} checked (cluster `{}`)",
        args.input.recipe.display(),
        plural(envs),
        plural(pkgs),
        inputs.cluster.name.value,
    );
    Ok(ExitCode::SUCCESS)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `--repo` flags must name directories.
pub(super) fn check_repo_flags(repos: &[PathBuf]) -> Result<(), CliError> {
    for r in repos {
        if !r.is_dir() {
            return Err(CliError::input(
                miette::miette!("--repo {}: no such directory", r.display())
                    .wrap_err("bad package repository"),
            ));
        }
    }
    Ok(())
}

/// Print every diagnostic on stderr (miette, with source snippets).
pub(super) fn render(diags: &Diagnostics) {
    let mut err = std::io::stderr().lock();
    for d in diags {
        let _ = writeln!(err, "{:?}", miette::Report::new(d.clone()));
    }
}

/// The current directory (for repository discovery).
pub(super) fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| Path::new(".").to_path_buf())
}
