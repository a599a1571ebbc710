//! Which cluster configuration and package repositories a command uses, and
//! why. Both are logged at info level (`-v`) at the start of every command
//! that reads them; a choice that depends on which binary runs (the source
//! tree's cluster configuration for a stack outside it) is a warning.

use std::path::{Path, PathBuf};

use crate::cluster::{self, CLUSTER_FILE};
use crate::diag::{Code, Diagnostic, Diagnostics, SourceFile, display_path};
use crate::recipes::{RepoDir, RepoSearch, absolutize};

use super::load::parse_stack_recipe;

/// The repository search a stack recipe sees (for `stack list --stack`,
/// `stack info --stack`): its `repos:`, then the nearest `recipes/` above
/// it, then the built-in repository, then its `fallback_repos:`;
/// `STACK_REPOS` from the environment.
/// Errors when the recipe cannot be read or parsed at all.
pub fn stack_repo_search(recipe: &Path) -> Result<RepoSearch, Diagnostics> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let path = absolutize(recipe, &cwd);
    let mut diags = Diagnostics::new();
    let src = SourceFile::read(&path).map_err(|e| {
        let mut d = Diagnostics::new();
        d.push(Diagnostic::error(
            Code::Io,
            format!("cannot read the stack recipe: {e}"),
        ));
        d
    })?;
    let parsed = parse_stack_recipe(&src, &mut diags).ok_or(diags)?;
    let mut search = RepoSearch::new(path.parent().unwrap_or(Path::new("/")));
    search.recipe_repos = parsed.repos;
    search.fallback_repos = parsed.fallback_repos;
    Ok(search)
}

/// The cluster configuration file to read, and why it was chosen.
#[derive(Clone, Debug)]
pub struct ClusterChoice {
    pub file: PathBuf,
    pub why: &'static str,
    /// Set when the choice deserves a warning.
    pub warning: Option<Diagnostic>,
}

/// The cluster file for `--cluster` (`flag`, absolute) or the default found
/// from the recipe's directory; `None` when there is none.
pub fn choose_cluster(flag: Option<PathBuf>, recipe_dir: &Path) -> Option<ClusterChoice> {
    if let Some(dir) = flag {
        let file = if dir.is_file() {
            dir
        } else {
            dir.join(CLUSTER_FILE)
        };
        return Some(ClusterChoice {
            file,
            why: "--cluster",
            warning: None,
        });
    }
    let found = cluster::locate_default(recipe_dir)?;
    let file = found.dir.join(CLUSTER_FILE);
    if !found.from_source_tree {
        return Some(ClusterChoice {
            file,
            why: "nearest cluster-configs/local above the recipe",
            warning: None,
        });
    }
    // The recipe's directory as the user knows it; the current directory
    // by its absolute path (an empty or `.` path names nothing).
    let dir = match display_path(recipe_dir) {
        d if d == "." => std::path::absolute(recipe_dir)
            .unwrap_or_else(|_| recipe_dir.to_path_buf())
            .display()
            .to_string(),
        d => d,
    };
    let warning = Diagnostic::warning(
        Code::BadPath,
        format!(
            "no cluster-configs/local in {dir} or above it; using {} from the source tree `stack` was built from",
            display_path(&file)
        ),
    )
    .with_help("the result depends on which `stack` binary runs: pass `--cluster DIR`, or create cluster-configs/local/cluster.yaml beside the stack");
    Some(ClusterChoice {
        file,
        why: "fallback: the source tree's cluster-configs/local",
        warning: Some(warning),
    })
}

/// Log the cluster file and the repositories, in search order (info level).
pub fn log_lookup(cluster: Option<&ClusterChoice>, repos: &[RepoDir]) {
    if let Some(c) = cluster {
        tracing::info!("cluster configuration: {} ({})", c.file.display(), c.why);
    }
    log_repositories(repos);
}

/// Log the package repositories, in search order (info level).
pub fn log_repositories(repos: &[RepoDir]) {
    if repos.is_empty() {
        tracing::info!("package repositories: none");
    }
    for (i, r) in repos.iter().enumerate() {
        tracing::info!(
            "package repository {}: {} ({})",
            i + 1,
            r.path.display(),
            r.origin.describe()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_outside_any_tree_gets_the_fallback_with_a_warning() {
        let tmp = tempfile::tempdir().unwrap();
        let c = choose_cluster(None, tmp.path()).expect("the source tree has one");
        assert!(c.file.starts_with(env!("CARGO_MANIFEST_DIR")));
        let w = c.warning.expect("a warning");
        assert!(
            w.to_string().contains(&format!(
                "no cluster-configs/local in {} or above it",
                tmp.path().display()
            )),
            "{w}"
        );
    }

    #[test]
    fn a_local_cluster_or_a_flag_needs_no_warning() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cluster-configs/local");
        fs_err::create_dir_all(&dir).unwrap();
        fs_err::write(dir.join(CLUSTER_FILE), "name: x\n").unwrap();
        fs_err::create_dir_all(tmp.path().join("stacks")).unwrap();
        let c = choose_cluster(None, &tmp.path().join("stacks")).unwrap();
        assert_eq!(c.file, dir.join(CLUSTER_FILE));
        assert!(c.warning.is_none());
        let c = choose_cluster(Some(dir.clone()), Path::new("/")).unwrap();
        assert_eq!((c.file, c.why), (dir.join(CLUSTER_FILE), "--cluster"));
    }
}
