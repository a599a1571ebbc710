//! `stack completions SHELL`: print a shell completion script.

use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use super::{Cli, CliError, Global};

/// Print a completion script for SHELL on standard output.
///
/// Examples:
///   stack completions bash > ~/.local/share/bash-completion/completions/stack
///   stack completions zsh > "${fpath[1]}/_stack"
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The shell to generate completions for.
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let mut cmd = Cli::command();
    // Generated into memory: clap_complete panics when a write fails (a
    // closed pipe), the CLI never does.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "stack", &mut script);
    super::output::out_bytes(&script);
    Ok(ExitCode::SUCCESS)
}
