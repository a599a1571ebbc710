//! `stack external find [PKG…]`: installations on this system, as cluster
//! configuration externals.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::lookup::RepoArgs;
use super::{CliError, Global};

/// Externals for a cluster configuration.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: ExternalCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ExternalCommand {
    Find(FindArgs),
}

/// Find packages installed on this system (pkg-config modules, programs on
/// PATH) and print them as `packages:` externals of a cluster.yaml.
///
/// Without PKG, every package of the repositories is looked for. A package
/// is found by `pkg-config` (version and prefix of the module of that
/// name), else as a program of that name on PATH (`NAME --version`; the
/// prefix is the directory above `bin/`).
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack external find cmake ninja perl zlib
  stack external find                      # every package of the repositories
  stack external find --stack my-stack.yaml --path /opt/tools/bin

Paste the lines under `packages:` of cluster.yaml; add `buildable: false`
where the system installation must be used.

Exit status: 0 something found, 1 nothing found.")]
pub struct FindArgs {
    /// Packages to look for [default: every package of the repositories].
    #[arg(value_name = "PKG")]
    pub packages: Vec<String>,
    /// Search these directories for programs instead of PATH (repeatable).
    #[arg(long = "path", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub lookup: RepoArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let ExternalCommand::Find(f) = args.command;
    let names: Vec<String> = if f.packages.is_empty() {
        f.lookup.load()?.names().map(str::to_string).collect()
    } else {
        f.packages.clone()
    };
    let found = stack::ops::find_externals(&names, f.dirs);
    if found.is_empty() {
        return Err(CliError::failure(miette::miette!(
            "none of {} package(s) found with pkg-config or on the search path",
            names.len()
        )));
    }
    let mut out = super::output::stdout();
    let _ = writeln!(out, "packages:");
    for e in found {
        let _ = writeln!(out, "  {}   # {}", e.yaml(), e.how);
    }
    Ok(ExitCode::SUCCESS)
}
