//! The OCI types `stack` reads and writes: descriptors, image manifests
//! (artifacts, with `artifactType` and `subject`) and image indexes (the
//! referrers list).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

/// `application/vnd.oci.image.manifest.v1+json`.
pub const MANIFEST_V1: &str = "application/vnd.oci.image.manifest.v1+json";
/// `application/vnd.oci.image.index.v1+json`.
pub const INDEX_V1: &str = "application/vnd.oci.image.index.v1+json";
/// The empty config of artifacts: `{}`.
pub const EMPTY_CONFIG: &str = "application/vnd.oci.empty.v1+json";
/// A plain file layer (what oras pushes a file as).
pub const LAYER_TAR: &str = "application/vnd.oci.image.layer.v1.tar";
/// A directory layer: a gzip-compressed tarball (what oras pushes a directory as).
pub const LAYER_TAR_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
/// The title annotation: the file name a layer is pulled to.
pub const TITLE: &str = "org.opencontainers.image.title";
/// oras' mark of a directory layer to unpack on pull.
pub const ORAS_UNPACK: &str = "io.deis.oras.content.unpack";
/// oras' digest of the uncompressed tarball of a directory layer.
pub const ORAS_CONTENT_DIGEST: &str = "io.deis.oras.content.digest";
/// The creation time annotation.
pub const CREATED: &str = "org.opencontainers.image.created";
/// Every manifest media type `stack` accepts on GET.
pub const ACCEPT: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json";

/// A content descriptor.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Descriptor {
    /// The descriptor of `bytes` with `media_type`.
    pub fn of_bytes(media_type: &str, bytes: &[u8]) -> Descriptor {
        Descriptor {
            media_type: media_type.to_string(),
            digest: sha256_digest(bytes),
            size: bytes.len() as u64,
            artifact_type: None,
            annotations: BTreeMap::new(),
        }
    }

    /// The `org.opencontainers.image.title` annotation.
    pub fn title(&self) -> Option<&str> {
        self.annotations.get(TITLE).map(String::as_str)
    }

    /// The descriptor of the empty config `{}`.
    pub fn empty_config() -> Descriptor {
        Descriptor::of_bytes(EMPTY_CONFIG, b"{}")
    }
}

/// An OCI image manifest (used for artifacts).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    #[serde(default)]
    pub layers: Vec<Descriptor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<Descriptor>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Manifest {
    /// An artifact manifest of `artifact_type` with the empty config.
    pub fn artifact(artifact_type: &str, layers: Vec<Descriptor>) -> Manifest {
        Manifest {
            schema_version: 2,
            media_type: Some(MANIFEST_V1.to_string()),
            artifact_type: Some(artifact_type.to_string()),
            config: Descriptor::empty_config(),
            layers,
            subject: None,
            annotations: BTreeMap::new(),
        }
    }

    /// The artifact type: `artifactType`, else the config's media type
    /// (how artifacts were typed before image-spec 1.1).
    pub fn kind(&self) -> &str {
        self.artifact_type
            .as_deref()
            .unwrap_or(&self.config.media_type)
    }

    /// The canonical bytes pushed for this manifest.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a manifest serialises")
    }

    /// The layer titled `title`.
    pub fn layer(&self, title: &str) -> Option<&Descriptor> {
        self.layers.iter().find(|l| l.title() == Some(title))
    }
}

/// An OCI image index (the referrers API answers with one).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Index {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default)]
    pub manifests: Vec<Descriptor>,
}

impl Index {
    pub fn new(manifests: Vec<Descriptor>) -> Index {
        Index {
            schema_version: 2,
            media_type: Some(INDEX_V1.to_string()),
            manifests,
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("an index serialises")
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The referrers tag schema's tag for `digest`: `sha256-<hex>`.
pub fn referrers_tag(digest: &str) -> String {
    digest.replacen(':', "-", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_config_digest_is_the_well_known_one() {
        assert_eq!(
            Descriptor::empty_config().digest,
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn artifact_manifest_round_trips_and_keeps_camel_case() {
        let mut layer = Descriptor::of_bytes(LAYER_TAR, b"squash");
        layer
            .annotations
            .insert(TITLE.into(), "store.squashfs".into());
        let m = Manifest::artifact("application/x-squashfs", vec![layer]);
        let text = String::from_utf8(m.to_bytes()).unwrap();
        assert!(
            text.contains(r#""artifactType":"application/x-squashfs""#),
            "{text}"
        );
        assert!(text.contains(r#""schemaVersion":2"#));
        let back: Manifest = serde_json::from_str(&text).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.kind(), "application/x-squashfs");
        assert!(back.layer("store.squashfs").is_some());
        assert_eq!(referrers_tag("sha256:ab"), "sha256-ab");
    }
}
