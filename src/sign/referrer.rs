//! Signatures in a registry: an artifact of type
//! `application/vnd.stack.signature.v1` whose subject is the signed manifest,
//! with one JSON layer (`digest`, `key`, `signature`) and the same facts in
//! its annotations, so that the referrers list alone is enough to verify.

use std::collections::BTreeMap;

use crate::registry::manifest::EMPTY_CONFIG;
use crate::registry::{Descriptor, Manifest, Registry, RegistryError};

use super::{PublicKey, SecretKey, trusted_signer};

/// The artifact type of signatures.
pub const SIGNATURE_TYPE: &str = "application/vnd.stack.signature.v1";
/// The media type of the signature layer.
pub const SIGNATURE_LAYER: &str = "application/vnd.stack.signature.v1+json";
/// Annotation: the base64 signature.
pub const ANN_SIGNATURE: &str = "dev.stack.signature";
/// Annotation: the signing public key (`ed25519:…`).
pub const ANN_KEY: &str = "dev.stack.signature.key";

/// What a verification found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Signed by this trusted key (its id).
    Trusted(String),
    /// No signature at all.
    Unsigned,
    /// Signatures, but none by a trusted key over this digest (their key ids).
    Untrusted(Vec<String>),
}

/// Sign the manifest `subject` of `repo` and attach the signature.
pub fn attach(
    registry: &Registry,
    repo: &str,
    subject: &Descriptor,
    key: &SecretKey,
) -> Result<(), RegistryError> {
    let signature = key.sign(&subject.digest);
    let public = key.public().to_string();
    let body = serde_json::json!({
        "digest": subject.digest,
        "key": public,
        "signature": signature,
    });
    let bytes = serde_json::to_vec(&body).expect("JSON serialises");
    let layer = Descriptor::of_bytes(SIGNATURE_LAYER, &bytes);
    registry.push_blob_bytes(repo, &layer, &bytes)?;
    let config = Descriptor::empty_config();
    registry.push_blob_bytes(repo, &config, b"{}")?;
    debug_assert_eq!(config.media_type, EMPTY_CONFIG);
    let mut m = Manifest::artifact(SIGNATURE_TYPE, vec![layer]);
    m.subject = Some(subject.clone());
    m.annotations = BTreeMap::from([
        (ANN_SIGNATURE.to_string(), signature),
        (ANN_KEY.to_string(), public),
    ]);
    registry.put_referrer(repo, &m)?;
    Ok(())
}

/// Look for a signature of `digest` in `repo` by one of `keys`.
pub fn verify(
    registry: &Registry,
    repo: &str,
    digest: &str,
    keys: &[PublicKey],
) -> Result<Verdict, RegistryError> {
    let found = registry.referrers(repo, digest, Some(SIGNATURE_TYPE))?;
    if found.is_empty() {
        return Ok(Verdict::Unsigned);
    }
    let mut others = Vec::new();
    for desc in found {
        let (sig, key) = match (
            desc.annotations.get(ANN_SIGNATURE),
            desc.annotations.get(ANN_KEY),
        ) {
            (Some(s), Some(k)) => (s.clone(), k.clone()),
            _ => match signature_from_manifest(registry, repo, &desc)? {
                Some(pair) => pair,
                None => continue,
            },
        };
        if let Some(k) = trusted_signer(keys, digest, &sig) {
            return Ok(Verdict::Trusted(k.id()));
        }
        others.push(
            PublicKey::parse(&key, "signature")
                .map(|k| k.id())
                .unwrap_or(key),
        );
    }
    Ok(Verdict::Untrusted(others))
}

/// (signature, key) from a signature manifest's annotations or layer.
fn signature_from_manifest(
    registry: &Registry,
    repo: &str,
    desc: &Descriptor,
) -> Result<Option<(String, String)>, RegistryError> {
    let at = crate::registry::Reference {
        registry: registry.host().to_string(),
        repository: repo.to_string(),
        tag: None,
        digest: Some(desc.digest.clone()),
    };
    let fetched = registry.get_manifest(&at)?;
    let m = fetched.manifest(&at.to_string())?;
    if let (Some(s), Some(k)) = (m.annotations.get(ANN_SIGNATURE), m.annotations.get(ANN_KEY)) {
        return Ok(Some((s.clone(), k.clone())));
    }
    let Some(layer) = m.layers.first() else {
        return Ok(None);
    };
    let bytes = registry.pull_blob_bytes(repo, layer)?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let field = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    Ok(field("signature").zip(field("key")))
}
