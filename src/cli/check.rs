//! `stack check RECIPE`: validate a stack recipe, its cluster configuration
//! and every package recipe it can reach.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use stack::ops::InputOptions;

use super::inputs::InputArgs;
use super::output::{Format, print_json};
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
the recipe's `repos:`, the nearest `recipes/` above the recipe, the built-in
repository, and last the recipe's `fallback_repos:`. On success the check
prints them in this order; `-v` also logs the cluster file.

  stack check my-stack.yaml --format json | jq '.diagnostics[] | .file + \":\" + (.line|tostring)'

Exit status: 0 valid (warnings may be printed), 2 problems found (all of them
are printed on stderr, or with --format json listed in `diagnostics`).")]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: text (diagnostics on stderr) or json (one object on
    /// stdout: ok, cluster, environments, packages, repositories, diagnostics).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    if args.format == Format::Json {
        super::inputs::check_repo_flags(&args.input.repos)?;
        let opts = InputOptions {
            recipe: args.input.recipe.clone(),
            cluster: args.input.cluster.clone(),
            repos: args.input.repos.clone(),
            env_repos: stack::settings::stack_repos(),
            no_builtin: false,
        };
        return check_json(&args.input.recipe, &opts);
    }
    // Problems are printed (all of them) and exit 2 inside `load`.
    let inputs = args.input.load()?;
    let envs = inputs.recipe.environments.len();
    let pkgs = inputs.packages.len();
    let _ = writeln!(
        super::output::stdout(),
        "{}: ok — {envs} environment{}, {pkgs} package{} checked (cluster `{}`)",
        args.input.recipe.display(),
        plural(envs),
        plural(pkgs),
        inputs.cluster.name.value,
    );
    print_repositories(inputs.repo.dirs());
    Ok(ExitCode::SUCCESS)
}

/// The package repositories in search order (the first that has a
/// package defines it), one per line with why it is searched.
fn print_repositories(dirs: &[stack::recipes::RepoDir]) {
    let mut out = super::output::stdout();
    let _ = writeln!(out, "package repositories, first wins:");
    for (i, d) in dirs.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}. {} ({})",
            i + 1,
            stack::diag::display_path(&d.path),
            d.origin.describe()
        );
    }
}

/// `stack check --format json`: the verdict and every diagnostic as JSON.
fn check_json(recipe: &Path, opts: &InputOptions) -> Result<ExitCode, CliError> {
    let loaded = stack::ops::check(opts).map_err(|e| match e {
        stack::ops::OpError::Inputs(d) => d,
        other => {
            let mut d = stack::diag::Diagnostics::new();
            d.push(stack::diag::Diagnostic::error(
                stack::diag::Code::Io,
                other.to_string(),
            ));
            d
        }
    });
    let (ok, value) = match loaded {
        Ok(inputs) => (
            true,
            serde_json::json!({
                "recipe": recipe,
                "ok": true,
                "cluster": inputs.cluster.name.value,
                "environments": inputs.recipe.environments.iter().map(|e| &e.name.value).collect::<Vec<_>>(),
                "packages": inputs.packages,
                "repositories": inputs.repo.dirs().iter().map(|d| serde_json::json!({
                    "path": d.path, "origin": d.origin.describe(),
                })).collect::<Vec<_>>(),
                "errors": 0,
                "warnings": inputs.warnings.len(),
                "diagnostics": inputs.warnings.to_json(),
            }),
        ),
        Err(diags) => (
            false,
            serde_json::json!({
                "recipe": recipe,
                "ok": false,
                "errors": diags.error_count(),
                "warnings": diags.len() - diags.error_count(),
                "diagnostics": diags.to_json(),
            }),
        ),
    };
    print_json(&value);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
