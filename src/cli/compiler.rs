//! `stack compiler find`: the compilers of this machine, as cluster
//! configuration lines.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{CliError, Global};

/// Compilers for a cluster configuration.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: CompilerCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CompilerCommand {
    Find(FindArgs),
}

/// Find the C/C++/Fortran compilers (gcc, clang) on PATH and print them as
/// the `compilers:` of a cluster.yaml.
///
/// Each `gcc`, `gcc-N`, `clang`, `clang-N` is asked for its version; its C++
/// and Fortran compilers are the matching `g++`/`gfortran` (`clang++`/`flang`)
/// beside it. The same compiler under two names is listed once.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack compiler find
  stack compiler find --path /opt/gcc-13/bin --path /usr/bin
  stack compiler find >> cluster-configs/local/compilers.txt   # then paste into cluster.yaml

Exit status: 0 compilers found, 1 none found.")]
pub struct FindArgs {
    /// Search these directories instead of PATH (repeatable, in order).
    #[arg(long = "path", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let CompilerCommand::Find(f) = args.command;
    let (found, dirs) = stack::ops::find_compilers(f.dirs);
    if found.is_empty() {
        return Err(CliError::failure(miette::miette!(
            help = "install gcc or clang, or pass --path DIR",
            "no gcc or clang found in {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(":")
        )));
    }
    let mut out = super::output::stdout();
    let _ = writeln!(out, "compilers:");
    for c in found {
        let _ = writeln!(out, "  - {}", c.yaml());
    }
    Ok(ExitCode::SUCCESS)
}
