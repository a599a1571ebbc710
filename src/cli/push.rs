//! `stack push BUILD_DIR|IMAGE.squashfs ADDRESS`: upload a uenv image.

use std::path::PathBuf;
use std::process::ExitCode;

use stack::settings::Flags;

use super::inputs::TlsArgs;
use super::output::{errln, outln};
use super::registry_args::RegistryArgs;
use super::transfer::TransferProgress;
use super::{CliError, Global};

/// Push a uenv image (store.squashfs and meta/) to an OCI registry.
///
/// The image becomes an artifact of type application/x-squashfs with one
/// layer titled store.squashfs at
/// REGISTRY/NAMESPACE/SYSTEM/UARCH/NAME/VERSION:TAG; meta/ is attached as a
/// referrer of type uenv/meta, as the uenv CLI (through oras) does. An
/// existing tag is not replaced unless --force.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stack push build/ localhost:5000/deploy/prgenv-gnu/24.11:v1@daint%gh200
  stack push build/store.squashfs registry.example/deploy/daint/gh200/prgenv-gnu/24.11:v1 --force
  echo \"$TOKEN\" | stack push build/ REF --username ci --password-stdin
  stack push build/ REF --sign-key site.key   # attach an ed25519 signature")]
pub struct Args {
    /// A build directory (its store.squashfs and meta/) or a .squashfs file
    /// (meta/ beside it, else extracted from the image).
    pub source: PathBuf,
    /// Where to: REGISTRY/NAMESPACE/name/version:tag@system%uarch, or the
    /// OCI form REGISTRY/NAMESPACE/system/uarch/name/version:tag.
    pub address: String,
    /// Replace the tag when it exists.
    #[arg(long)]
    pub force: bool,
    /// Sign the image with this ed25519 secret key (see `stack key
    /// generate`) [default: $STACK_SIGNING_KEY]. The signature covers the
    /// image, its meta/ and its name, version and tag.
    #[arg(long, value_name = "FILE")]
    pub sign_key: Option<PathBuf>,
    /// No progress bars.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub registry: RegistryArgs,
    #[command(flatten)]
    pub tls: TlsArgs,
}

impl Args {
    /// The flags the command's settings come from.
    pub fn flags(&self) -> Flags {
        Flags {
            sign_key: self.sign_key.clone(),
            ..self.registry.flags(&self.tls)
        }
    }
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let settings = super::settings::resolve(&args.flags(), None);
    let request = stack::ops::PushRequest {
        source: &args.source,
        address: &args.address,
        force: args.force,
        access: args.registry.access(),
    };
    let progress = TransferProgress::new("push", args.quiet);
    let result = stack::ops::push(&request, &settings, &progress);
    progress.finish();
    let pushed = result?;
    outln!("pushed {} ({})", pushed.address, pushed.label);
    outln!("digest {}", pushed.digest);
    if !pushed.meta {
        errln!("warning: no meta/ found; the image has no uenv/meta referrer");
    }
    if pushed.signed {
        outln!("signed");
    }
    Ok(ExitCode::SUCCESS)
}
