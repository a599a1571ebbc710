//! `stack list`: the packages in the repositories, one line each.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::lookup::{latest, load_repo};
use super::output::diagnostics as render;
use super::output::{Format, print_json};
use super::{CliError, Global};

/// List the available packages (name, latest version, description).
///
/// One line per package, sorted by name.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack list
  stack list --repo ./my-recipes
  stack list | grep -i fabric
  stack list --stack my-stack.yaml   # with the recipe's `repos:`
  stack list --format json | jq -r '.[].name'

Packages come from --repo flags, STACK_REPOS, the `repos:` of the --stack
recipe, the nearest `recipes/` above the current directory (or the --stack
recipe), and last the built-in repository; `-v` logs them in order. The latest version is the preferred one if a recipe
marks one, else the newest release (git branches only when there is nothing
else).")]
pub struct Args {
    /// An extra package repository, searched before the others (repeatable).
    #[arg(long = "repo", value_name = "DIR")]
    pub repos: Vec<PathBuf>,
    /// See the packages as this stack recipe does (its `repos:`, the
    /// `recipes/` above it).
    #[arg(long, value_name = "RECIPE")]
    pub stack: Option<PathBuf>,
    /// Output format: text (aligned columns) or json (an array of
    /// {name, version, description, recipe}).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let repo = load_repo(args.repos, args.stack.as_deref())?;
    render(repo.problems());
    if repo.is_empty() {
        return Err(CliError::input(miette::miette!(
            help = "run from a tree with a `recipes/` directory, or pass `--repo DIR`",
            "no package recipes found"
        )));
    }
    let rows: Vec<(String, String, String)> = repo
        .names()
        .map(|name| match repo.get(name) {
            Some(r) => (
                name.to_string(),
                latest(r)
                    .map(|v| v.text.clone())
                    .unwrap_or_else(|| "-".into()),
                r.description.lines().next().unwrap_or_default().to_string(),
            ),
            None => (
                name.to_string(),
                "?".into(),
                format!("(invalid recipe: run `stack info {name}`)"),
            ),
        })
        .collect();
    if args.format == Format::Json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|(name, version, desc)| {
                serde_json::json!({
                    "name": name,
                    "version": (version != "?" && version != "-").then_some(version),
                    "description": desc,
                    "valid": repo.get(name).is_some(),
                    "recipe": repo.file(name),
                })
            })
            .collect();
        print_json(&serde_json::Value::Array(items));
        return Ok(ExitCode::SUCCESS);
    }
    let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let mut out = super::output::stdout();
    for (name, version, desc) in rows {
        let _ = writeln!(out, "{name:<w0$}  {version:<w1$}  {desc}");
    }
    Ok(ExitCode::SUCCESS)
}
