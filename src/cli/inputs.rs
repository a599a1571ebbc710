//! Argument groups shared by the subcommands that read a stack recipe
//! and fetch its sources.

use std::path::PathBuf;

use stack::fetch::SourceCache;
use stack::pipeline::SourceSettings;
use stack::recipe::{InputOptions, Inputs, load_inputs};

use super::CliError;

/// RECIPE, --cluster, --repo.
#[derive(Debug, Clone, clap::Args)]
pub struct InputArgs {
    /// The stack recipe (YAML).
    #[arg(value_name = "RECIPE")]
    pub recipe: PathBuf,
    /// Cluster configuration directory (holding cluster.yaml) [default:
    /// cluster-configs/local found walking up from the recipe's directory,
    /// else the source tree's, with a warning; `-v` shows which].
    #[arg(long, value_name = "DIR")]
    pub cluster: Option<PathBuf>,
    /// An extra package repository, searched before the others (repeatable).
    #[arg(long = "repo", value_name = "DIR")]
    pub repos: Vec<PathBuf>,
}

impl InputArgs {
    /// Load and check the recipe, cluster and packages; problems exit 2.
    pub fn load(&self) -> Result<Inputs, CliError> {
        super::check::check_repo_flags(&self.repos)?;
        load_inputs(&InputOptions {
            recipe: self.recipe.clone(),
            cluster: self.cluster.clone(),
            repos: self.repos.clone(),
            env_repos: std::env::var_os("STACK_REPOS"),
            no_builtin: false,
        })
        .map_err(|d| {
            super::check::render(&d);
            CliError::input(miette::miette!(
                "{}: {} error(s) in the inputs",
                self.recipe.display(),
                d.error_count()
            ))
        })
    }
}

/// --cache, --mirror, --fetch-jobs, --allow-unverified.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// Source cache [default: $STACK_CACHE, else ~/.cache/stack].
    #[arg(long, env = "STACK_CACHE", hide_env = true, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// A source mirror tried before upstream (file://, http(s)://, or a path; repeatable).
    #[arg(long = "mirror", value_name = "URL")]
    pub mirrors: Vec<String>,
    /// Sources downloaded at once.
    #[arg(long, default_value_t = stack::fetch::DEFAULT_JOBS, value_name = "N")]
    pub fetch_jobs: usize,
    /// Accept sources without sha256 and unpinned git refs (recorded as unverified).
    #[arg(long)]
    pub allow_unverified: bool,
}

impl SourceArgs {
    pub fn settings(&self) -> Result<SourceSettings, CliError> {
        let cache = match &self.cache {
            Some(c) => SourceCache::new(c.clone()),
            None => SourceCache::new(SourceCache::default_base().ok_or_else(|| {
                CliError::input(miette::miette!(
                    help = "pass --cache DIR or set STACK_CACHE",
                    "no home directory for the default source cache"
                ))
            })?),
        };
        Ok(SourceSettings {
            cache,
            mirrors: self.mirrors.clone(),
            fetch_jobs: self.fetch_jobs,
            allow_unverified: self.allow_unverified,
        })
    }
}

/// A pipeline error at the edge: an unsatisfiable recipe is bad input (2),
/// anything else a failed operation (1).
pub fn pipeline_error(e: stack::pipeline::PipelineError) -> CliError {
    match &e {
        stack::pipeline::PipelineError::Resolve(r) if r.is_input_error() => {
            CliError::input(miette::miette!("{e}"))
        }
        _ => CliError::failure(miette::miette!("{e}")),
    }
}
