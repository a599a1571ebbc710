//! `stack resolve RECIPE`: concretize a stack into a hashed dependency
//! graph, print it, and optionally write or check the lock file.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use stack::ops::LockRules;
use stack::settings::Flags;

use super::inputs::InputArgs;
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
  stack resolve stacks/demo.yaml --lock       # write stacks/demo.lock
  stack resolve stacks/demo.yaml --locked     # fail if the plan differs from stacks/demo.lock
  stack resolve stacks/demo.yaml --explain    # also: providers chosen and why, variants flipped

The lock file (`<name>.lock` beside `<name>.yaml`: `stack.lock` for
`stack.yaml`; or --lock-file) records the whole plan, including the commits
of git branches (--lock asks each
repository for the commit of its branch, as `stack build` and `stack fetch`
do); when it exists, its commits are reused so that a moving branch does not
change the plan. The rules are the same for resolve, fetch and build.

Exit status: 0 resolved, 1 the plan differs from the lock (--locked), a file
could not be written or a repository could not be asked, 2 bad input (no
configuration satisfies the recipe, --locked without a lock file, the lock of
another recipe).")]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Tree)]
    pub format: Format,
    /// Write the plan to the lock file.
    #[arg(long, conflicts_with = "locked")]
    pub lock: bool,
    /// Refuse to deviate from the lock file; print what changed.
    #[arg(long)]
    pub locked: bool,
    /// The lock file [default: `<name>.lock` beside the recipe].
    #[arg(long, value_name = "FILE")]
    pub lock_file: Option<PathBuf>,
    /// Also print, per environment, what the solver chose that the recipe
    /// does not spell out: the provider of each virtual and why, variants
    /// that take their non-default value to avoid a conflict or a
    /// dependency's clash (after the tree; on stderr with --format json/dot).
    #[arg(long)]
    pub explain: bool,
    /// Override the recipe's mount point.
    #[arg(long, value_name = "PATH")]
    pub mount: Option<PathBuf>,
    /// Source cache, where `--lock` asks git repositories for the commits
    /// of branches and tags [default: $STACK_CACHE, else ~/.cache/stack].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    #[command(flatten)]
    pub tls: super::inputs::TlsArgs,
}

impl Args {
    /// The flags the command's settings come from.
    pub fn flags(&self) -> Flags {
        Flags {
            cache: self.cache.clone(),
            ca_files: self.tls.ca_files.clone(),
            ..Flags::default()
        }
    }
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let inputs = args.input.load()?;
    // The same lock file rules as `stack build` and `stack fetch`; branches
    // are pinned (asking their repositories) when the lock is written.
    let rules = LockRules {
        file: args.lock_file.clone(),
        locked: args.locked,
        write: args.lock,
        pin_git: args.lock,
        mount: args.mount.clone(),
        review: false,
    };
    let settings = super::settings::resolve(&args.flags(), Some(&inputs.cluster));
    let resolved = stack::ops::resolve(&inputs, &rules, &settings)?;
    let plan = &resolved.plan;
    if args.lock {
        let _ = writeln!(
            super::output::stderr(),
            "wrote {} ({} package{})",
            stack::diag::display_path(&resolved.lock_file),
            plan.graph.node_count(),
            if plan.graph.node_count() == 1 {
                ""
            } else {
                "s"
            }
        );
    }
    let mut text = match args.format {
        Format::Tree => resolved.tree(),
        Format::Json => resolved.json(),
        Format::Dot => resolved.dot(),
    };
    if args.explain {
        let choices = resolved.choices();
        if args.format == Format::Tree {
            text.push_str(&choices);
        } else {
            super::output::err_bytes(choices.as_bytes());
        }
    }
    // The process ends here: leave the plan and the parsed recipes to the
    // OS instead of freeing thousands of small objects one by one.
    std::mem::forget(resolved);
    std::mem::forget(inputs);
    // A closed pipe (`| head`) is not an error worth reporting.
    super::output::out_bytes(text.as_bytes());
    Ok(ExitCode::SUCCESS)
}
