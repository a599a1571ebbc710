//! The package repositories a command that looks packages up by name sees
//! (`stack info`, `stack list`, `stack checksum`, `stack edit`, `stack
//! dependents`): from the current directory or as a stack recipe sees them,
//! plus `--repo`.

use std::path::{Path, PathBuf};

use crate::recipes::{PackageRepo, RepoSearch};

use super::OpError;

/// The recipes that depend on a package (`stack dependents`).
pub use crate::recipes::dependents::{Dependent, dependents, dependents_transitive};

/// The repositories seen from `cwd` (or by the stack recipe `stack`) plus
/// `flags`, searched in that order (logged); their index is cached below
/// `cache_base` ([`crate::settings::Settings::cache_base`]).
pub fn package_repo(
    flags: Vec<PathBuf>,
    stack: Option<&Path>,
    cwd: PathBuf,
    cache_base: &Path,
) -> Result<PackageRepo, OpError> {
    let mut search = match stack {
        None => RepoSearch::new(cwd),
        Some(recipe) => crate::stacks::lookup::stack_repo_search(recipe).map_err(|problems| {
            OpError::StackRepos {
                recipe: recipe.to_path_buf(),
                problems,
            }
        })?,
    };
    search.flags = flags;
    let dirs = search.dirs();
    crate::stacks::lookup::log_repositories(&dirs);
    let index_cache = cache_base.join("recipe-index");
    let parsed_cache = cache_base.join(crate::recipes::parsed_cache::CACHE_DIR);
    Ok(PackageRepo::load_with_caches(
        dirs,
        Some(&index_cache),
        Some(&parsed_cache),
    ))
}
