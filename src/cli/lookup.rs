//! `--repo` / `--stack` for the commands that look packages up by name
//! (checksum, edit, dependents), and the "unknown package" error.

use std::path::PathBuf;
use std::sync::Arc;

use std::path::Path;

use stack::recipes::{GitRef, PackageRecipe, PackageRepo, RepoSearch, Source, VersionEntry};

use super::CliError;

/// --repo, --stack.
#[derive(Debug, Clone, clap::Args)]
pub struct RepoArgs {
    /// An extra package repository, searched before the others (repeatable).
    #[arg(long = "repo", value_name = "DIR")]
    pub repos: Vec<PathBuf>,
    /// Look packages up as this stack recipe does (its `repos:`, the
    /// `recipes/` above it).
    #[arg(long, value_name = "RECIPE")]
    pub stack: Option<PathBuf>,
}

impl RepoArgs {
    /// The repositories, in search order (logged with `-v`).
    pub fn load(&self) -> Result<PackageRepo, CliError> {
        let repo = super::lookup::load_repo(self.repos.clone(), self.stack.as_deref())?;
        super::output::diagnostics(repo.problems());
        Ok(repo)
    }
}

/// The recipe of `name`, or an input error with the nearest name.
pub fn recipe(repo: &PackageRepo, name: &str) -> Result<Arc<PackageRecipe>, CliError> {
    if let Some(r) = repo.get(name) {
        return Ok(r.clone());
    }
    if repo.contains(name) {
        super::output::diagnostics(&repo.check(name));
        return Err(CliError::input(miette::miette!(
            "the recipe of `{name}` does not parse"
        )));
    }
    let help = match repo.suggest(name) {
        Some(s) => format!("did you mean `{s}`? (`stack list` shows all packages)"),
        None => {
            "`stack list` shows all packages; `--repo DIR` or `--stack RECIPE` add repositories"
                .into()
        }
    };
    Err(CliError::input(miette::miette!(
        help = help,
        "unknown package `{name}`"
    )))
}

/// The repositories seen from the current directory (or by the stack
/// recipe `stack`) plus `flags`; the search order is logged (`-v`).
pub fn load_repo(flags: Vec<PathBuf>, stack: Option<&Path>) -> Result<PackageRepo, CliError> {
    super::inputs::check_repo_flags(&flags)?;
    let mut search = match stack {
        None => RepoSearch::new(super::inputs::cwd()),
        Some(recipe) => stack::stacks::lookup::stack_repo_search(recipe).map_err(|d| {
            super::output::diagnostics(&d);
            CliError::input(miette::miette!(
                "{}: cannot read the stack recipe's `repos:`",
                recipe.display()
            ))
        })?,
    };
    search.flags = flags;
    let dirs = search.dirs();
    stack::stacks::lookup::log_repositories(&dirs);
    let index_cache = Some(stack::settings::cache_base().join("recipe-index"));
    Ok(PackageRepo::load_cached(dirs, index_cache.as_deref()))
}

/// The version `stack list` shows: preferred, else newest non-branch, else newest.
pub fn latest(r: &PackageRecipe) -> Option<&VersionEntry> {
    let sorted = r.versions_newest_first();
    let is_branch = |v: &&VersionEntry| {
        v.version.is_branch()
            || matches!(&v.source, Source::Git(g) if matches!(g.reference, GitRef::Branch(_)))
    };
    sorted
        .iter()
        .find(|v| v.preferred)
        .or_else(|| sorted.iter().find(|v| !is_branch(v)))
        .or_else(|| sorted.first())
        .copied()
}
