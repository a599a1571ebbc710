//! `stack pull ADDRESS [--to DIR]`: download a uenv image.

use std::path::PathBuf;
use std::process::ExitCode;

use super::output::{errln, outln};
use super::registry_args::{RegistryArgs, TrustArgs};
use super::transfer::TransferProgress;
use super::{CliError, Global};

/// Pull a uenv image: DIR/store.squashfs and DIR/meta/.
///
/// The image and its uenv/meta referrer are downloaded into a staging
/// directory inside DIR, verified against their digests and only then moved
/// into place. The image must carry an ed25519 signature by a trusted key
/// (--trusted-key) unless --allow-unsigned.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stack pull localhost:5000/deploy/prgenv-gnu/24.11:v1@daint%gh200 --to img/ --trusted-key site.pub
  stack pull registry.example/deploy/daint/gh200/prgenv-gnu/24.11:v1 --allow-unsigned")]
pub struct Args {
    /// REGISTRY/NAMESPACE/name/version:tag@system%uarch, or the OCI form
    /// REGISTRY/NAMESPACE/system/uarch/name/version:tag.
    pub address: String,
    /// Where to put store.squashfs and meta/ [default: the current directory].
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub to: PathBuf,
    /// No progress bars.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub trust: TrustArgs,
    #[command(flatten)]
    pub registry: RegistryArgs,
    #[command(flatten)]
    pub tls: super::inputs::TlsArgs,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let settings = super::settings::resolve(&args.registry.flags(&args.tls), None);
    let request = stack::ops::PullRequest {
        address: &args.address,
        to: &args.to,
        trusted_keys: &args.trust.trusted_keys,
        allow_unsigned: args.trust.allow_unsigned,
        access: args.registry.access(),
    };
    let progress = TransferProgress::new("pull", args.quiet);
    let result = stack::ops::pull(&request, &settings, &progress);
    progress.finish();
    let pulled = result?;
    let outcome = &pulled.outcome;
    outln!("pulled {} ({})", pulled.address, pulled.label);
    outln!("digest {}", outcome.digest);
    outln!("image  {}", outcome.squashfs.display());
    match &outcome.meta {
        Some(m) => outln!("meta   {}", m.display()),
        None => errln!("warning: the image has no uenv/meta referrer"),
    }
    if let Some(id) = &outcome.signer {
        outln!("signed by {id}");
    }
    Ok(ExitCode::SUCCESS)
}
