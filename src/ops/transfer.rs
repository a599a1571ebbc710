//! Images in a registry: `stack push`, `stack pull`, `stack images`. The
//! connection follows the command's settings ([`Settings::registry`]) and
//! registry options ([`RegistryAccess`]).

use std::path::{Path, PathBuf};

use crate::oci::{self, Address, ImageEntry, Trust};
use crate::registry::{Registry, TransferReporter};
use crate::settings::Settings;

use super::{OpError, RegistryAccess, public_key, signing_key};

/// What `stack push` pushes.
pub struct PushRequest<'a> {
    /// A build directory (its store.squashfs and meta/) or a .squashfs
    /// file (meta/ beside it, else extracted from the image).
    pub source: &'a Path,
    /// Where to (`ADDRESS`, both forms).
    pub address: &'a str,
    /// Replace the tag when it exists.
    pub force: bool,
    pub access: RegistryAccess,
}

/// What was pushed.
pub struct Pushed {
    /// The address as given, and its uenv label.
    pub address: String,
    pub label: String,
    pub digest: String,
    /// Whether meta/ was attached.
    pub meta: bool,
    pub signed: bool,
}

/// Push an image and its meta/ (`stack push`), signed with the settings'
/// signing key when there is one.
pub fn push(
    req: &PushRequest<'_>,
    settings: &Settings,
    reporter: &dyn TransferReporter,
) -> Result<Pushed, OpError> {
    let address = Address::parse(req.address)?;
    let (squashfs, meta, _extracted) = locate(req.source)?;
    let key = signing_key(settings)?;
    let registry = connect(&req.access, &address.registry, settings)?;
    let outcome = oci::push_image(
        &registry,
        &address,
        &squashfs,
        meta.as_deref(),
        req.force,
        key.as_ref(),
        reporter,
    )?;
    Ok(Pushed {
        address: address.to_string(),
        label: address.label(),
        digest: outcome.digest,
        meta: outcome.meta,
        signed: outcome.signed,
    })
}

/// What `stack pull` pulls.
pub struct PullRequest<'a> {
    pub address: &'a str,
    /// Where store.squashfs and meta/ go.
    pub to: &'a Path,
    /// `--trusted-key`: keys inline (`ed25519:…`) or files holding one.
    pub trusted_keys: &'a [String],
    pub allow_unsigned: bool,
    pub access: RegistryAccess,
}

/// What was pulled.
pub struct Pulled {
    /// The address as given, and its uenv label.
    pub address: String,
    pub label: String,
    pub outcome: oci::PullOutcome,
}

/// Pull an image and its meta/ (`stack pull`), checked against the trusted
/// keys.
pub fn pull(
    req: &PullRequest<'_>,
    settings: &Settings,
    reporter: &dyn TransferReporter,
) -> Result<Pulled, OpError> {
    let address = Address::parse(req.address)?;
    let trust = Trust {
        keys: req
            .trusted_keys
            .iter()
            .map(|k| public_key(k))
            .collect::<Result<_, _>>()?,
        allow_unsigned: req.allow_unsigned,
    };
    let registry = connect(&req.access, &address.registry, settings)?;
    let outcome = oci::pull_image(&registry, &address, req.to, &trust, reporter)?;
    Ok(Pulled {
        address: address.to_string(),
        label: address.label(),
        outcome,
    })
}

/// The uenv images below `namespace` of the registry `host` (`stack
/// images`).
pub fn list_images(
    host: &str,
    namespace: &str,
    access: &RegistryAccess,
    settings: &Settings,
) -> Result<Vec<ImageEntry>, OpError> {
    let registry = connect(access, host, settings)?;
    Ok(oci::list_images(&registry, namespace)?)
}

/// A connection to `host`.
fn connect(access: &RegistryAccess, host: &str, settings: &Settings) -> Result<Registry, OpError> {
    Ok(Registry::new(
        host,
        access.client_options(host, &settings.registry)?,
    )?)
}

/// The squashfs and meta/ to push, and a temporary directory holding meta/
/// when it had to be extracted from the image.
fn locate(source: &Path) -> Result<(PathBuf, Option<PathBuf>, Option<tempfile::TempDir>), OpError> {
    let missing = |p: &Path, hint: &str| {
        OpError::BadValue(format!("{}: no such file\n  hint: {hint}", p.display()))
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
    let tmp = tempfile::tempdir().map_err(OpError::Io)?;
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
