//! `stack ldd` (not implemented yet).

use std::process::ExitCode;

use super::{CliError, Global};

/// Not implemented yet.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    Err(CliError::failure(miette::miette!(
        "`stack ldd` is not implemented yet"
    )))
}
