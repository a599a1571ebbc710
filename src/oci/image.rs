//! Push, pull and list uenv images.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::registry::manifest::{
    LAYER_TAR, LAYER_TAR_GZIP, MANIFEST_V1, ORAS_CONTENT_DIGEST, ORAS_UNPACK, TITLE,
};
use crate::registry::{Descriptor, Manifest, Registry, TransferReporter};
use crate::sign::{KIND_IMAGE, SecretKey, Statement};

use super::tarball::UnpackLimits;
use super::{Address, DistributeError, IMAGE_TYPE, META_TYPE, SQUASHFS_TITLE, Trust, tarball};

/// The largest `meta/` layer pulled (compressed): recipes, lock file and
/// reports are a few MiB.
const META_LAYER_MAX: u64 = 256 << 20;

/// What a push did.
#[derive(Clone, Debug)]
pub struct PushOutcome {
    /// The image manifest's digest.
    pub digest: String,
    pub size: u64,
    /// Whether `meta/` was attached.
    pub meta: bool,
    pub signed: bool,
}

/// Push `squashfs` (and `meta`, a directory) to `dest`. Refuses to replace
/// an existing tag unless `force`; signs the manifest with `key`.
pub fn push_image(
    registry: &Registry,
    dest: &Address,
    squashfs: &Path,
    meta: Option<&Path>,
    force: bool,
    key: Option<&SecretKey>,
    reporter: &dyn TransferReporter,
) -> Result<PushOutcome, DistributeError> {
    let reference = dest.reference();
    let repo = reference.repository.clone();
    if !force && let Some(digest) = registry.manifest_digest(&reference)? {
        return Err(DistributeError::TagExists {
            reference: reference.to_string(),
            digest,
        });
    }
    let config = Descriptor::empty_config();
    registry.push_blob_bytes(&repo, &config, b"{}")?;
    let mut layer = registry.push_blob_file(&repo, squashfs, LAYER_TAR, reporter)?;
    layer
        .annotations
        .insert(TITLE.to_string(), SQUASHFS_TITLE.to_string());
    let size = layer.size;
    let m = Manifest::artifact(IMAGE_TYPE, vec![layer]);
    let bytes = m.to_bytes();
    let (digest, _) = registry.put_manifest(&repo, &dest.tag, MANIFEST_V1, &bytes)?;
    let mut subject = Descriptor::of_bytes(MANIFEST_V1, &bytes);
    subject.artifact_type = Some(IMAGE_TYPE.to_string());
    let mut outcome = PushOutcome {
        digest,
        size,
        meta: false,
        signed: false,
    };
    let mut meta_digest = None;
    if let Some(meta) = meta {
        meta_digest = Some(attach_meta(registry, &repo, &subject, meta, reporter)?.digest);
        outcome.meta = true;
    }
    if let Some(key) = key {
        let statement = image_statement(dest, &subject.digest, meta_digest);
        crate::sign::referrer::attach(registry, &repo, &subject, key, &statement)?;
        outcome.signed = true;
    }
    Ok(outcome)
}

/// What a signature of the image `digest` at `address` states: the label
/// (name, version, tag) and the `meta/` referrer it is published with.
fn image_statement(address: &Address, digest: &str, meta: Option<String>) -> Statement {
    Statement {
        kind: KIND_IMAGE,
        name: address.name.clone(),
        version: address.version.clone(),
        tag: address.tag.clone(),
        digest: digest.to_string(),
        meta,
    }
}

/// Attach `meta` (a directory) to `subject` as a `uenv/meta` referrer: one
/// gzip tarball layer whose entries start with `meta/`, as oras writes it.
/// Returns the referrer's descriptor.
fn attach_meta(
    registry: &Registry,
    repo: &str,
    subject: &Descriptor,
    meta: &Path,
    reporter: &dyn TransferReporter,
) -> Result<Descriptor, DistributeError> {
    let tmp = tempfile::tempdir()?;
    let tar_path = tmp.path().join("meta.tar.gz");
    let file = fs_err::File::create(&tar_path)?;
    let hashing = HashingWriter::new(flate2::write::GzEncoder::new(
        file,
        flate2::Compression::default(),
    ));
    let hashing = tarball::write_tree(meta, "meta", hashing)?;
    let (gz, tar_digest) = hashing.finish();
    gz.finish()?;
    let mut layer = registry.push_blob_file(repo, &tar_path, LAYER_TAR_GZIP, reporter)?;
    layer.annotations = BTreeMap::from([
        (TITLE.to_string(), "meta".to_string()),
        (ORAS_UNPACK.to_string(), "true".to_string()),
        (ORAS_CONTENT_DIGEST.to_string(), tar_digest),
    ]);
    let config = Descriptor::empty_config();
    registry.push_blob_bytes(repo, &config, b"{}")?;
    let mut m = Manifest::artifact(META_TYPE, vec![layer]);
    m.subject = Some(subject.clone());
    Ok(registry.put_referrer(repo, &m)?)
}

/// What a pull wrote.
#[derive(Clone, Debug)]
pub struct PullOutcome {
    pub digest: String,
    pub squashfs: PathBuf,
    /// `DIR/meta`, when the image had a `uenv/meta` referrer.
    pub meta: Option<PathBuf>,
    /// The trusted signer's key id.
    pub signer: Option<String>,
}

/// Pull `src` into `to`: `to/store.squashfs` and `to/meta/`. Everything is
/// downloaded and verified in a staging directory inside `to` first, then
/// moved into place; an interrupted pull leaves no partial files.
///
/// With trusted keys, the image must carry a trusted signature for this
/// very label, and the `meta/` pulled is the one that signature covers
/// (found by its digest, not by the referrers list); a `meta/` referrer the
/// signature does not cover is an error. Nothing is written before that is
/// settled.
pub fn pull_image(
    registry: &Registry,
    src: &Address,
    to: &Path,
    trust: &Trust,
    reporter: &dyn TransferReporter,
) -> Result<PullOutcome, DistributeError> {
    let reference = src.reference();
    let repo = reference.repository.clone();
    let fetched = registry.get_manifest(&reference)?;
    let url = reference.to_string();
    let m = fetched.manifest(&url)?;
    let layer = m
        .layer(SQUASHFS_TITLE)
        .or(if m.layers.len() == 1 {
            m.layers.first()
        } else {
            None
        })
        .ok_or_else(|| DistributeError::NotAnImage {
            reference: url.clone(),
            message: format!("no layer titled {SQUASHFS_TITLE}"),
        })?
        .clone();
    if m.kind() != IMAGE_TYPE {
        tracing::warn!("{url}: artifact type `{}`, expected {IMAGE_TYPE}", m.kind());
    }
    let expected = image_statement(src, &fetched.digest, None);
    let signed = trust.check(registry, &repo, &expected, &url)?;
    let referrers = registry.referrers(&repo, &fetched.digest, Some(META_TYPE))?;
    let meta_digest = match &signed {
        Some(s) => {
            if s.meta.is_none()
                && let Some(other) = referrers.first()
            {
                return Err(DistributeError::MetaNotSigned {
                    what: url,
                    meta: other.digest.clone(),
                    signed: None,
                });
            }
            s.meta.clone()
        }
        None => referrers.first().map(|d| d.digest.clone()),
    };
    fs_err::create_dir_all(to)?;
    let stage = tempfile::Builder::new()
        .prefix(".stack-pull-")
        .tempdir_in(to)?;
    let squashfs = stage.path().join(SQUASHFS_TITLE);
    registry.pull_blob(&repo, &layer, &squashfs, reporter)?;
    let meta_staged = match &meta_digest {
        Some(d) => Some(pull_meta(
            registry,
            &repo,
            d,
            &fetched.digest,
            stage.path(),
            reporter,
        )?),
        None => None,
    };
    // Move into place: the squashfs last, so its presence means complete.
    let meta = match meta_staged {
        Some(staged) => {
            let dest = to.join("meta");
            if fs_err::symlink_metadata(&dest).is_ok() {
                if dest.is_symlink() || !dest.is_dir() {
                    fs_err::remove_file(&dest)?;
                } else {
                    fs_err::remove_dir_all(&dest)?;
                }
            }
            fs_err::rename(staged, &dest)?;
            Some(dest)
        }
        None => None,
    };
    let dest = to.join(SQUASHFS_TITLE);
    fs_err::rename(&squashfs, &dest)?;
    Ok(PullOutcome {
        digest: fetched.digest,
        squashfs: dest,
        meta,
        signer: signed.map(|s| s.signer),
    })
}

/// Download and unpack the `uenv/meta` referrer `digest` of the image
/// `subject` into `stage`; returns the `meta` directory. Nothing the
/// registry names (layer titles, entry names) selects a path outside
/// `stage`.
fn pull_meta(
    registry: &Registry,
    repo: &str,
    digest: &str,
    subject: &str,
    stage: &Path,
    reporter: &dyn TransferReporter,
) -> Result<PathBuf, DistributeError> {
    let at = crate::registry::Reference {
        registry: registry.host().to_string(),
        repository: repo.to_string(),
        tag: None,
        digest: Some(digest.to_string()),
    };
    let not_meta = |message: String| DistributeError::NotAnImage {
        reference: at.to_string(),
        message,
    };
    let m = registry.get_manifest(&at)?.manifest(&at.to_string())?;
    if m.kind() != META_TYPE || m.subject.as_ref().map(|d| d.digest.as_str()) != Some(subject) {
        return Err(not_meta(format!(
            "not the {META_TYPE} referrer of {subject}"
        )));
    }
    let layer = m
        .layers
        .first()
        .ok_or_else(|| not_meta("the uenv/meta referrer has no layer".into()))?;
    if layer.size > META_LAYER_MAX {
        return Err(not_meta(format!(
            "its layer announces {} bytes, more than the {META_LAYER_MAX} a meta/ may have",
            layer.size
        )));
    }
    let title = layer.title().unwrap_or("meta");
    let mut parts = Path::new(title).components();
    let plain = matches!(
        (parts.next(), parts.next()),
        (Some(std::path::Component::Normal(_)), None)
    );
    if !plain || title.contains('/') {
        return Err(not_meta(format!(
            "the layer title `{}` is not a plain directory name",
            title.escape_debug()
        )));
    }
    let blob = stage.join("meta.blob");
    registry.pull_blob(repo, layer, &blob, reporter)?;
    let out = stage.join("unpacked");
    fs_err::create_dir_all(&out)?;
    let f = fs_err::File::open(&blob)?;
    let unpacked = if layer.media_type.ends_with("gzip") {
        tarball::unpack(flate2::read::GzDecoder::new(f), &out, UnpackLimits::META)
    } else {
        tarball::unpack(f, &out, UnpackLimits::META)
    };
    unpacked.map_err(|e| not_meta(format!("its layer: {e}")))?;
    fs_err::remove_file(&blob)?;
    let dir = out.join(title);
    let is_dir = fs_err::symlink_metadata(&dir).is_ok_and(|m| m.is_dir());
    if !is_dir {
        return Err(not_meta(format!(
            "the uenv/meta layer does not hold a `{}/` directory",
            title.escape_debug()
        )));
    }
    Ok(dir)
}

/// One image in a listing.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ImageEntry {
    #[serde(flatten)]
    pub address: Address,
    pub label: String,
    pub digest: String,
    /// Size of store.squashfs in bytes.
    pub size: u64,
}

/// Every uenv image below `namespace` of the registry, sorted by label.
pub fn list_images(
    registry: &Registry,
    namespace: &str,
) -> Result<Vec<ImageEntry>, DistributeError> {
    let mut out = Vec::new();
    for repo in registry.catalog()? {
        if Address::from_repository(registry.host(), namespace, &repo, "x").is_none() {
            continue;
        }
        for tag in registry.tags(&repo)? {
            if tag.starts_with("sha256-") {
                continue; // referrers tags
            }
            let Some(address) = Address::from_repository(registry.host(), namespace, &repo, &tag)
            else {
                continue;
            };
            let fetched = registry.get_manifest(&address.reference())?;
            let Ok(m) = fetched.manifest(&address.to_string()) else {
                continue;
            };
            let Some(layer) = m.layer(SQUASHFS_TITLE) else {
                continue;
            };
            out.push(ImageEntry {
                label: address.label(),
                size: layer.size,
                digest: fetched.digest,
                address,
            });
        }
    }
    out.sort_by(|a, b| a.label.cmp(&b.label));
    Ok(out)
}

/// A writer that hashes what passes through (the uncompressed tarball's digest).
struct HashingWriter<W> {
    inner: W,
    hasher: sha2::Sha256,
}

impl<W> HashingWriter<W> {
    fn new(inner: W) -> Self {
        HashingWriter {
            inner,
            hasher: sha2::Digest::new(),
        }
    }

    fn finish(self) -> (W, String) {
        let d = sha2::Digest::finalize(self.hasher);
        (self.inner, format!("sha256:{}", hex::encode(d)))
    }
}

impl<W: std::io::Write> std::io::Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        sha2::Digest::update(&mut self.hasher, &buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
