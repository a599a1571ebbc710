//! `--repo` / `--stack` for the commands that look packages up by name
//! (checksum, edit, dependents), and the "unknown package" error.

use std::path::PathBuf;
use std::sync::Arc;

use std::path::Path;

use stack::recipes::{GitRef, PackageRecipe, PackageRepo, Source, VersionEntry};

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
    Ok(stack::ops::package_repo(
        flags,
        stack,
        super::inputs::cwd(),
        &stack::settings::cache_base(),
    )?)
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
