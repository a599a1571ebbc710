//! `stack push BUILD_DIR|IMAGE.squashfs ADDRESS`: upload a uenv image.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use stack::oci::{self, Address};

use stack::settings::Flags;

use super::inputs::TlsArgs;
use super::output::{errln, outln};
use super::registry_args::{RegistryArgs, signing_key};
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
    let address = Address::parse(&args.address)?;
    let (squashfs, meta, _extracted) = locate(&args.source)?;
    let settings = super::settings::resolve(&args.flags(), None);
    let key = signing_key(&settings)?;
    let registry = args
        .registry
        .connect(&address.registry, &settings.registry)?;
    let progress = TransferProgress::new("push", args.quiet);
    let result = oci::push_image(
        &registry,
        &address,
        &squashfs,
        meta.as_deref(),
        args.force,
        key.as_ref(),
        &progress,
    );
    progress.finish();
    let outcome = result?;
    outln!("pushed {} ({})", address, address.label());
    outln!("digest {}", outcome.digest);
    if !outcome.meta {
        errln!("warning: no meta/ found; the image has no uenv/meta referrer");
    }
    if outcome.signed {
        outln!("signed");
    }
    Ok(ExitCode::SUCCESS)
}

/// The squashfs and meta/ to push, and a temporary directory holding meta/
/// when it had to be extracted from the image.
fn locate(
    source: &Path,
) -> Result<(PathBuf, Option<PathBuf>, Option<tempfile::TempDir>), CliError> {
    let missing = |p: &Path, hint: &str| {
        CliError::input(miette::miette!(
            "{}: no such file\n  hint: {hint}",
            p.display()
        ))
    };
    if source.is_dir() {
        let squashfs = source.join("store.squashfs");
        if !squashfs.is_file() {
            return Err(missing(
                &squashfs,
                "build the stack first (`stack build`) or pack it (`stack image`)",
            ));
        }
        let meta = source.join("meta");
        return Ok((squashfs, meta.is_dir().then_some(meta), None));
    }
    if !source.is_file() {
        return Err(missing(
            source,
            "give a build directory or a .squashfs file",
        ));
    }
    if let Some(meta) = source
        .parent()
        .map(|d| d.join("meta"))
        .filter(|m| m.join("env.json").is_file())
    {
        return Ok((source.to_path_buf(), Some(meta), None));
    }
    // uenv keeps meta/ inside the image: extract it with unsquashfs.
    let tmp = tempfile::tempdir()?;
    let out = tmp.path().join("x");
    let status = std::process::Command::new("unsquashfs")
        .arg("-q")
        .arg("-no-xattrs")
        .arg("-d")
        .arg(&out)
        .arg(source)
        .arg("meta")
        .stdout(std::process::Stdio::null())
        .status();
    let meta = out.join("meta");
    match status {
        Ok(s) if s.success() && meta.is_dir() => Ok((source.to_path_buf(), Some(meta), Some(tmp))),
        _ => Ok((source.to_path_buf(), None, None)),
    }
}
