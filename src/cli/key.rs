//! `stack key generate NAME`: make an ed25519 signing key pair.

use std::path::PathBuf;
use std::process::ExitCode;

use super::output::outln;
use super::{CliError, Global};

/// Manage signing keys for images and the binary cache.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: KeyCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum KeyCommand {
    /// Write a new key pair: STEM.key (secret, mode 0600, never overwritten)
    /// and STEM.pub (`ed25519:…`, for `binary_cache: keys:` in the cluster
    /// config or --trusted-key).
    #[command(
        after_help = "Examples:\n  stack key generate ~/.config/stack/site   # site.key, site.pub"
    )]
    Generate {
        /// Path of the pair without extension.
        stem: PathBuf,
    },
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    match args.command {
        KeyCommand::Generate { stem } => {
            let public = stack::ops::generate_key(&stem)?;
            outln!("secret {}", stem.with_extension("key").display());
            outln!("public {}", stem.with_extension("pub").display());
            outln!("{public}  (id {})", public.id());
            Ok(ExitCode::SUCCESS)
        }
    }
}
