//! Argument groups shared by the subcommands that read a stack recipe
//! and fetch its sources.

use std::path::{Path, PathBuf};

use stack::ops::{InputOptions, Inputs, OpError, SourceFlags, SourceSettings};
use stack::settings::{Flags, Settings};

use super::CliError;

/// RECIPE, --cluster, --repo.
#[derive(Debug, Clone, clap::Args)]
pub struct InputArgs {
    /// The stack recipe (YAML), or a stackinator recipe directory
    /// (config.yaml + environments.yaml; needs --cluster, see docs/stackinator.md).
    #[arg(value_name = "RECIPE")]
    pub recipe: PathBuf,
    /// Cluster configuration directory (holding cluster.yaml, or a stackinator
    /// cluster directory with packages.yaml) [default:
    /// cluster-configs/local found walking up from the recipe's directory,
    /// else the source tree's, with a warning; `-v` shows which].
    #[arg(long, value_name = "DIR")]
    pub cluster: Option<PathBuf>,
    /// An extra package repository, searched before the others (repeatable).
    #[arg(long = "repo", value_name = "DIR")]
    pub repos: Vec<PathBuf>,
}

impl InputArgs {
    /// Load and check the recipe, cluster and packages ([`stack::ops::check`]);
    /// problems are printed with source snippets and exit 2.
    pub fn load(&self) -> Result<Inputs, CliError> {
        super::inputs::check_repo_flags(&self.repos)?;
        load_options(&InputOptions {
            recipe: self.recipe.clone(),
            cluster: self.cluster.clone(),
            repos: self.repos.clone(),
            env_repos: stack::settings::stack_repos(),
            no_builtin: false,
        })
    }
}

/// Load and check the inputs `opts` names; problems are printed with
/// source snippets and exit 2.
pub fn load_options(opts: &InputOptions) -> Result<Inputs, CliError> {
    {
        let inputs = stack::ops::check(opts).map_err(|e| match e {
            OpError::Inputs(d) => {
                super::output::diagnostics(&d);
                CliError::input(miette::miette!(
                    "{} found {} error{} in the inputs",
                    opts.recipe.display(),
                    d.error_count(),
                    if d.error_count() == 1 { "" } else { "s" }
                ))
            }
            e => e.into(),
        })?;
        super::output::diagnostics(&inputs.warnings);
        Ok(inputs)
    }
}

/// --cache, --mirror, --fetch-jobs, --allow-unverified.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// Source cache [default: $STACK_CACHE, else ~/.cache/stack].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// A source mirror tried before upstream (file://, http(s)://, or a path; repeatable).
    #[arg(long = "mirror", value_name = "URL")]
    pub mirrors: Vec<String>,
    /// Sources downloaded at once (1 to 256).
    #[arg(long, default_value_t = stack::ops::DEFAULT_FETCH_JOBS, value_name = "N",
          value_parser = count_in(1, 256))]
    pub fetch_jobs: usize,
    /// Accept sources without sha256 and unpinned git refs (recorded as unverified).
    #[arg(long)]
    pub allow_unverified: bool,
    #[command(flatten)]
    pub tls: TlsArgs,
}

/// `--ca-file`: what HTTPS connections trust besides the built-in roots and
/// the system's store (sources, mirrors, git remotes, registries).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TlsArgs {
    /// Also trust the CA certificates (PEM) in FILE for HTTPS: sources,
    /// mirrors, git remotes and registries, beside the built-in roots, the
    /// system's store and $SSL_CERT_FILE (repeatable).
    #[arg(long = "ca-file", value_name = "FILE", help_heading = "TLS")]
    pub ca_files: Vec<PathBuf>,
}

impl TlsArgs {
    /// `--ca-file FILE` for each file, for a CI job.
    pub fn job_flags(&self) -> Vec<String> {
        self.ca_files
            .iter()
            .flat_map(|f| ["--ca-file".into(), f.to_string_lossy().into_owned()])
            .collect()
    }
}

impl SourceArgs {
    /// The flags that give a CI job the same sources: mirrors, unverified
    /// sources, parallel downloads (the source cache is the job's own:
    /// `STACK_CACHE`; `--ca-file` goes with the registry's flags).
    pub fn job_flags(&self) -> Vec<String> {
        let mut v = Vec::new();
        for m in &self.mirrors {
            v.extend(["--mirror".into(), m.clone()]);
        }
        if self.allow_unverified {
            v.push("--allow-unverified".into());
        }
        if self.fetch_jobs != stack::ops::DEFAULT_FETCH_JOBS {
            v.extend(["--fetch-jobs".into(), self.fetch_jobs.to_string()]);
        }
        v
    }

    /// The flags settings come from: `--cache`, `--ca-file`.
    pub fn flags(&self) -> Flags {
        Flags {
            cache: self.cache.clone(),
            ca_files: self.tls.ca_files.clone(),
            ..Flags::default()
        }
    }

    /// How sources are fetched, in the command's `settings` (the source
    /// cache: [`Settings::source_cache`]).
    pub fn sources(&self, settings: &Settings) -> Result<SourceSettings, CliError> {
        for m in &self.mirrors {
            check_local_mirror(m)?;
        }
        let flags = SourceFlags {
            mirrors: self.mirrors.clone(),
            fetch_jobs: self.fetch_jobs,
            allow_unverified: self.allow_unverified,
        };
        Ok(stack::ops::source_settings(settings, flags))
    }
}

/// A clap parser for a count between `min` and `max` (a clear error instead
/// of a failure deep inside, e.g. `-j 100000` and the jobserver pipe).
pub fn count_in(min: usize, max: usize) -> impl Fn(&str) -> Result<usize, String> + Clone {
    move |s: &str| {
        let n: usize = s
            .parse()
            .map_err(|_| format!("`{s}` is not a number (expected {min} to {max})"))?;
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(format!("{n} is out of range (expected {min} to {max})"))
        }
    }
}

/// A `--mirror` that is a local directory (a path or `file://`) must exist:
/// with a warm cache it would otherwise be ignored without a word.
fn check_local_mirror(m: &str) -> Result<(), CliError> {
    if m.contains("://") && !m.starts_with("file://") {
        return Ok(());
    }
    let dir = std::path::Path::new(m.strip_prefix("file://").unwrap_or(m));
    if dir.is_dir() {
        return Ok(());
    }
    Err(CliError::input(miette::miette!(
        help = "give an existing mirror directory (made with `stack mirror`), or an http(s):// URL",
        "--mirror {m}: no such directory"
    )))
}

/// `--repo` flags must name directories.
pub fn check_repo_flags(repos: &[PathBuf]) -> Result<(), CliError> {
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

/// The current directory (for repository discovery).
pub fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| Path::new(".").to_path_buf())
}
