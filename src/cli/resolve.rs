//! `stack resolve RECIPE`: concretize a stack into a hashed dependency
//! graph, print it, and optionally write or check `stack.lock`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use stack::recipe::{InputOptions, load_inputs};
use stack::resolve::render::{render_dot, render_json, render_tree};
use stack::resolve::{Lock, ResolveError, ResolveOptions, lock_path, resolve};

use super::check::{check_repo_flags, render};
use super::{CliError, Global};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Indented trees per environment (versions, non-default variants,
    /// hashes, [external]/[build] marks).
    Tree,
    /// `{"nodes": [...]}` with name, version, hash, prefix, external,
    /// variants, patches, source and deps of every node.
    Json,
    /// A graphviz digraph (`dot -Tsvg`).
    Dot,
}

/// Resolve a stack recipe into a concrete, hashed dependency graph: exact
/// versions, every variant, sources and patches, externals, dependency
/// types, install prefixes.
///
/// Failures explain themselves: the requirements that collide, each with the
/// file and line where it was written, and why each package is in the stack.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack resolve stacks/demo.yaml
  stack resolve stacks/demo.yaml --format json > plan.json
  stack resolve stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200 --format dot | dot -Tsvg > plan.svg
  stack resolve stacks/demo.yaml --lock       # write stacks/stack.lock
  stack resolve stacks/demo.yaml --locked     # fail if the plan differs from stacks/stack.lock

The lock file (`stack.lock` beside the recipe, or --lock-file) records the
whole plan, including the commits of git branches; when it exists, its
commits are reused so that a moving branch does not change the plan.

Exit status: 0 resolved, 1 the plan differs from the lock (--locked) or a file
could not be written, 2 bad input or no configuration satisfies the recipe.")]
pub struct Args {
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
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Tree)]
    pub format: Format,
    /// Write the plan to the lock file.
    #[arg(long, conflicts_with = "locked")]
    pub lock: bool,
    /// Refuse to deviate from the lock file; print what changed.
    #[arg(long)]
    pub locked: bool,
    /// The lock file [default: stack.lock beside the recipe].
    #[arg(long, value_name = "FILE")]
    pub lock_file: Option<PathBuf>,
    /// Override the recipe's mount point.
    #[arg(long, value_name = "PATH")]
    pub mount: Option<PathBuf>,
}

fn input_error(e: ResolveError) -> CliError {
    if e.is_input_error() {
        CliError::input(miette::miette!("{e}"))
    } else {
        CliError::failure(miette::miette!("{e}"))
    }
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    check_repo_flags(&args.repos)?;
    let opts = InputOptions {
        recipe: args.recipe.clone(),
        cluster: args.cluster.clone(),
        repos: args.repos.clone(),
        env_repos: std::env::var_os("STACK_REPOS"),
        no_builtin: false,
    };
    let inputs = match load_inputs(&opts) {
        Ok(i) => i,
        Err(diags) => {
            render(&diags);
            return Err(CliError::input(miette::miette!(
                "{} has {} error{} (see above)",
                args.recipe.display(),
                diags.error_count(),
                if diags.error_count() == 1 { "" } else { "s" }
            )));
        }
    };
    render(&inputs.warnings);
    let recipe_file = inputs.recipe.file.clone();
    let recipe_name = recipe_file
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lock_file = args
        .lock_file
        .clone()
        .unwrap_or_else(|| lock_path(&recipe_file));
    let belongs = |l: &Lock| l.recipe == recipe_name && l.stack == inputs.recipe.name.value;
    let mut options = ResolveOptions {
        mount: args.mount.clone(),
        ..ResolveOptions::default()
    };
    if args.locked {
        if !lock_file.exists() {
            return Err(CliError::input(miette::miette!(
                help = "run `stack resolve RECIPE --lock` first",
                "--locked: there is no lock file {}",
                lock_file.display()
            )));
        }
        let lock = Lock::read(&lock_file).map_err(input_error)?;
        if !belongs(&lock) {
            return Err(CliError::input(miette::miette!(
                "--locked: {} belongs to recipe `{}` ({}), not to {}",
                lock_file.display(),
                lock.stack,
                lock.recipe,
                recipe_name
            )));
        }
        options.locked = Some(lock);
    } else if lock_file.exists() {
        // Reuse the commits the lock pinned for git branches and tags.
        match Lock::read(&lock_file) {
            Ok(lock) if belongs(&lock) => options.git_pins = lock.git_pins(),
            Ok(_) => {}
            Err(e) => tracing::warn!("ignoring the lock file: {e}"),
        }
    }
    let plan = match resolve(&inputs.recipe, &inputs.cluster, &inputs.repo, &options) {
        Ok(p) => p,
        Err(ResolveError::Unsatisfiable(e)) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            return Ok(ExitCode::from(2));
        }
        Err(e @ ResolveError::LockMismatch { .. }) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(input_error(e)),
    };
    if args.lock {
        if lock_file.exists() {
            if let Ok(old) = Lock::read(&lock_file) {
                if !belongs(&old) {
                    return Err(CliError::failure(miette::miette!(
                        help = "keep each stack recipe in its own directory, or pass --lock-file",
                        "{} holds the lock of recipe `{}` ({}); not overwriting it",
                        lock_file.display(),
                        old.stack,
                        old.recipe
                    )));
                }
            }
        }
        Lock::from_plan(&plan)
            .write(&lock_file)
            .map_err(|e| CliError::failure(miette::miette!("{e}")))?;
        let _ = writeln!(
            std::io::stderr(),
            "wrote {} ({} package{})",
            stack::diag::display_path(&lock_file),
            plan.graph.node_count(),
            if plan.graph.node_count() == 1 {
                ""
            } else {
                "s"
            }
        );
    }
    let text = match args.format {
        Format::Tree => render_tree(&plan),
        Format::Json => render_json(&plan),
        Format::Dot => render_dot(&plan),
    };
    // The process ends here: leave the plan and the parsed recipes to the
    // OS instead of freeing thousands of small objects one by one.
    std::mem::forget(plan);
    std::mem::forget(inputs);
    let mut out = std::io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .is_err()
    {
        // A closed pipe (`| head`) is not an error worth reporting.
        return Ok(ExitCode::SUCCESS);
    }
    Ok(ExitCode::SUCCESS)
}
