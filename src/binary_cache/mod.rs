//! A binary cache of installed prefixes in an OCI registry.
//!
//! ```text
//! oci://REGISTRY/NAMESPACE
//!   NAMESPACE/<package name>:<node hash>     one artifact per installed prefix
//!     manifest  artifactType application/vnd.stack.prefix.v1, config {}
//!               annotations dev.stack.{name,version,hash,prefix}, and
//!               dev.stack.build_seconds when the pusher built it (see seconds.rs)
//!       layer   application/vnd.stack.prefix.v1.tar+zstd, title <name>-<version>-<hash8>.tar.zst
//!               the prefix (with .stack/installed.json and manifest.json), reproducible tarball
//!     referrer  application/vnd.stack.signature.v1 (ed25519 over the manifest digest)
//! ```
//!
//! The node hash already covers the mount point, so a cached prefix is
//! unpacked where it was built, never relocated. Fetching downloads into
//! a temporary file, checks the digest and the signature, unpacks into a
//! temporary sibling of the prefix (named like a prefix, so that a
//! leftover is pruned from the store by the next build) and renames it into
//! place: a corrupt, truncated or untrusted artifact is never installed,
//! and the package is built instead. Pushes are idempotent: the same
//! prefix gives the same bytes, so two builds pushing it at once write the
//! same blob; their manifests differ only in the build seconds (the last
//! one written is the tag's, each is signed).

mod prefixes;
mod seconds;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use prefixes::{CacheOutcome, CachePrefixes, PushSummary};
pub use seconds::{BUILD_SECONDS, add_cached_costs, recorded_seconds};

use crate::oci::{DistributeError, Trust, tarball};
use crate::registry::manifest::MANIFEST_V1;
use crate::registry::{
    ClientOptions, Descriptor, Manifest, NoopTransferReporter, Reference, Registry,
};
use crate::sign::SecretKey;

/// The artifact type of cached prefixes.
pub const PREFIX_TYPE: &str = "application/vnd.stack.prefix.v1";
/// The layer media type.
pub const PREFIX_LAYER: &str = "application/vnd.stack.prefix.v1.tar+zstd";
/// zstd level of the tarballs.
const ZSTD_LEVEL: i32 = 3;

/// One prefix, as the cache sees it.
#[derive(Clone, Debug)]
pub struct CacheEntry {
    pub name: String,
    pub version: String,
    pub hash: String,
    /// Under the mount point.
    pub prefix: PathBuf,
    /// Where it is on this host.
    pub host_prefix: PathBuf,
    /// Wall time of its build, when this process built it (pushed as
    /// [`BUILD_SECONDS`]).
    pub build_seconds: Option<f64>,
}

/// What a lookup found.
#[derive(Debug)]
pub enum Fetched {
    /// Installed from the cache.
    Installed,
    /// Not in the cache.
    Miss,
    /// In the cache but not usable (corrupt, untrusted, wrong prefix); the
    /// reason. Nothing was installed.
    Rejected(String),
}

/// A binary cache in a registry.
pub struct BinaryCache {
    registry: Registry,
    namespace: String,
    trust: Trust,
    key: Option<SecretKey>,
    url: String,
    push: bool,
}

impl BinaryCache {
    /// Open `oci://REGISTRY/NAMESPACE` (nothing is sent yet).
    pub fn open(
        url: &str,
        opts: ClientOptions,
        trust: Trust,
        key: Option<SecretKey>,
    ) -> Result<BinaryCache, DistributeError> {
        let bad = |message: &str| DistributeError::BadAddress {
            text: url.to_string(),
            message: message.to_string(),
        };
        let rest = url
            .strip_prefix("oci://")
            .ok_or_else(|| bad("a binary cache is `oci://REGISTRY/NAMESPACE`"))?;
        let (host, namespace) = rest
            .split_once('/')
            .ok_or_else(|| bad("no namespace after the registry"))?;
        let namespace = namespace.trim_end_matches('/');
        if namespace.is_empty() || !namespace.split('/').all(crate::registry::is_path_component) {
            return Err(bad("the namespace must be lowercase path components"));
        }
        Ok(BinaryCache {
            registry: Registry::new(host, opts)?,
            namespace: namespace.to_string(),
            trust,
            key,
            url: url.to_string(),
            push: true,
        })
    }

    /// Whether builds push to this cache (default yes).
    pub fn with_push(mut self, push: bool) -> Self {
        self.push = push;
        self
    }

    /// Whether builds push to this cache.
    pub fn pushes(&self) -> bool {
        self.push
    }

    /// `oci://…` as given.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether pushed prefixes are signed.
    pub fn signs(&self) -> bool {
        self.key.is_some()
    }

    fn reference(&self, e: &CacheEntry) -> Reference {
        self.tagged(&e.name, e.hash.clone())
    }

    /// The cache's repository of package `name`.
    fn repository(&self, name: &str) -> String {
        format!("{}/{}", self.namespace, repo_name(name))
    }

    /// `tag` in the repository of package `name`.
    fn tagged(&self, name: &str, tag: String) -> Reference {
        Reference {
            registry: self.registry.host().to_string(),
            repository: self.repository(name),
            tag: Some(tag),
            digest: None,
        }
    }

    /// Whether the cache holds `e` (its manifest is there; nothing is
    /// downloaded or checked).
    pub fn contains(&self, e: &CacheEntry) -> Result<bool, DistributeError> {
        Ok(self.registry.manifest_digest(&self.reference(e))?.is_some())
    }

    /// Install `e` from the cache when it is there and trusted. Errors are
    /// reserved for local problems (I/O in the store) and an unreachable
    /// registry; everything wrong with the cached artifact is `Rejected`.
    pub fn fetch(&self, e: &CacheEntry) -> Result<Fetched, DistributeError> {
        let r = self.reference(e);
        let fetched = match self.registry.get_manifest(&r) {
            Ok(f) => f,
            Err(err) if err.is_not_found() => return Ok(Fetched::Miss),
            Err(err) => return Err(err.into()),
        };
        let what = r.to_string();
        let m = match fetched.manifest(&what) {
            Ok(m) => m,
            Err(err) => return Ok(Fetched::Rejected(err.to_string())),
        };
        let ann = |k: &str| m.annotations.get(k).map(String::as_str);
        if ann("dev.stack.hash") != Some(e.hash.as_str())
            || ann("dev.stack.prefix") != Some(&*e.prefix.to_string_lossy())
        {
            return Ok(Fetched::Rejected(format!(
                "{what}: made for another hash or prefix"
            )));
        }
        let Some(layer) = m.layers.iter().find(|l| l.media_type == PREFIX_LAYER) else {
            return Ok(Fetched::Rejected(format!(
                "{what}: no {PREFIX_LAYER} layer"
            )));
        };
        match self.trust.check(
            &self.registry,
            &r.repository,
            &statement(e, &fetched.digest),
            &what,
        ) {
            Ok(_) => {}
            Err(
                err @ (DistributeError::Unsigned { .. }
                | DistributeError::Untrusted { .. }
                | DistributeError::OtherLabel { .. }
                | DistributeError::Signature(crate::sign::referrer::SignatureError::TooMany {
                    ..
                })),
            ) => {
                return Ok(Fetched::Rejected(err.to_string()));
            }
            Err(err) => return Err(err),
        }
        self.install(e, &r.repository, layer)
    }

    /// Download, verify, unpack beside the prefix, rename into place.
    fn install(
        &self,
        e: &CacheEntry,
        repo: &str,
        layer: &Descriptor,
    ) -> Result<Fetched, DistributeError> {
        let parent = e.host_prefix.parent().unwrap_or(Path::new("."));
        fs_err::create_dir_all(parent)?;
        let tmp = parent.join(temp_name(e));
        crate::store::wipe(&tmp).map_err(store_err)?;
        fs_err::create_dir_all(&tmp)?;
        let blob = tmp.join("blob.tar.zst");
        match self
            .registry
            .pull_blob(repo, layer, &blob, &NoopTransferReporter)
        {
            Ok(()) => {}
            Err(
                err @ (crate::registry::RegistryError::DigestMismatch { .. }
                | crate::registry::RegistryError::SizeMismatch { .. }),
            ) => {
                crate::store::wipe(&tmp).map_err(store_err)?;
                return Ok(Fetched::Rejected(err.to_string()));
            }
            Err(err) => {
                crate::store::wipe(&tmp).map_err(store_err)?;
                return Err(err.into());
            }
        }
        let tree = tmp.join("tree");
        fs_err::create_dir_all(&tree)?;
        let unpacked = fs_err::File::open(&blob)
            .and_then(zstd::Decoder::new)
            .and_then(|d| tarball::unpack(d, &tree, tarball::UnpackLimits::PREFIX));
        let check = unpacked.map_err(|e| e.to_string()).and_then(|()| {
            match crate::store::read_record(&tree) {
                Ok(Some(rec)) if rec.hash == e.hash && rec.prefix == e.prefix => Ok(()),
                Ok(_) => Err("the tarball's install record does not match".to_string()),
                Err(err) => Err(err.to_string()),
            }
        });
        if let Err(reason) = check {
            crate::store::wipe(&tmp).map_err(store_err)?;
            return Ok(Fetched::Rejected(format!("{repo}:{}: {reason}", e.hash)));
        }
        crate::store::wipe(&e.host_prefix).map_err(store_err)?;
        fs_err::rename(&tree, &e.host_prefix)?;
        crate::store::wipe(&tmp).map_err(store_err)?;
        Ok(Fetched::Installed)
    }

    /// Push the installed prefix `e` (unless the cache has it already), and
    /// sign it when there is a key. `scratch` holds the tarball meanwhile.
    pub fn push(&self, e: &CacheEntry, scratch: &Path) -> Result<bool, DistributeError> {
        let r = self.reference(e);
        if self.registry.manifest_digest(&r)?.is_some() {
            return Ok(false);
        }
        fs_err::create_dir_all(scratch)?;
        let tmp = tempfile::Builder::new()
            .prefix("push-")
            .tempdir_in(scratch)?;
        let file_name = format!(
            "{}.tar.zst",
            e.host_prefix
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| e.name.clone())
        );
        let path = tmp.path().join(&file_name);
        let out = fs_err::File::create(&path)?;
        let enc = zstd::Encoder::new(out, ZSTD_LEVEL)?;
        tarball::write_tree(&e.host_prefix, "", enc)?.finish()?;
        let repo = &r.repository;
        let config = Descriptor::empty_config();
        self.registry.push_blob_bytes(repo, &config, b"{}")?;
        let mut layer =
            self.registry
                .push_blob_file(repo, &path, PREFIX_LAYER, &NoopTransferReporter)?;
        layer
            .annotations
            .insert(crate::registry::manifest::TITLE.into(), file_name);
        let mut m = Manifest::artifact(PREFIX_TYPE, vec![layer]);
        m.annotations = BTreeMap::from([
            ("dev.stack.name".to_string(), e.name.clone()),
            ("dev.stack.version".to_string(), e.version.clone()),
            ("dev.stack.hash".to_string(), e.hash.clone()),
            (
                "dev.stack.prefix".to_string(),
                e.prefix.to_string_lossy().into_owned(),
            ),
        ]);
        if let Some(secs) = e.build_seconds {
            m.annotations
                .insert(BUILD_SECONDS.to_string(), seconds::format_seconds(secs));
        }
        let bytes = m.to_bytes();
        self.registry
            .put_manifest(repo, &e.hash, MANIFEST_V1, &bytes)?;
        if let Some(key) = &self.key {
            let mut subject = Descriptor::of_bytes(MANIFEST_V1, &bytes);
            subject.artifact_type = Some(PREFIX_TYPE.to_string());
            crate::sign::referrer::attach(
                &self.registry,
                repo,
                &subject,
                key,
                &statement(e, &subject.digest),
            )?;
        }
        Ok(true)
    }
}

/// What a signature of the cached prefix `e` (manifest `digest`) states:
/// its name, version and node hash.
fn statement(e: &CacheEntry, digest: &str) -> crate::sign::Statement {
    crate::sign::Statement {
        kind: crate::sign::KIND_PREFIX,
        name: e.name.clone(),
        version: e.version.clone(),
        tag: e.hash.clone(),
        digest: digest.to_string(),
        meta: None,
    }
}

/// A package name as a repository path component.
fn repo_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '.' | '_' | '-') => c,
            _ => '-',
        })
        .collect();
    s.trim_matches(|c: char| !c.is_ascii_alphanumeric())
        .to_string()
}

/// The temporary sibling of a prefix: named like a prefix (so the store
/// pruning of the next build removes a leftover) but never like this plan's.
fn temp_name(e: &CacheEntry) -> String {
    format!(".cache-tmp-{}-{}", e.name, &e.hash[..8.min(e.hash.len())])
}

fn store_err(e: crate::store::StoreError) -> DistributeError {
    match e {
        crate::store::StoreError::Io(io) => DistributeError::Io(io),
        other => DistributeError::Io(std::io::Error::other(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_become_repository_components() {
        assert_eq!(repo_name("cassini-headers"), "cassini-headers");
        assert_eq!(repo_name("Py_Foo+x"), "py_foo-x");
        assert!(crate::resolve::is_prefix_name(&temp_name(&CacheEntry {
            name: "zlib".into(),
            version: "1".into(),
            hash: "0123456789abcdef".into(),
            prefix: "/m/zlib".into(),
            host_prefix: "/s/zlib".into(),
            build_seconds: None,
        })));
    }

    #[test]
    fn cache_urls_are_checked() {
        let opts = ClientOptions::default;
        assert!(BinaryCache::open("127.0.0.1:5000/x", opts(), Trust::default(), None).is_err());
        assert!(BinaryCache::open("oci://127.0.0.1:5000", opts(), Trust::default(), None).is_err());
        assert!(
            BinaryCache::open("oci://127.0.0.1:5000/Bad", opts(), Trust::default(), None).is_err()
        );
        let c = BinaryCache::open(
            "oci://127.0.0.1:5000/cache/",
            opts(),
            Trust::default(),
            None,
        )
        .unwrap();
        assert_eq!(c.namespace, "cache");
    }
}
