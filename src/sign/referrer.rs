//! Signatures in a registry: an artifact of type
//! `application/vnd.stack.signature.v1` whose subject is the signed manifest,
//! with one JSON layer (`statement`, `key`, `signature`) and the same facts
//! in its annotations, so that the referrers list alone is enough to verify.

use std::collections::BTreeMap;

use crate::registry::manifest::EMPTY_CONFIG;
use crate::registry::{Descriptor, Manifest, Registry, RegistryError, limits};

use super::{PublicKey, SecretKey, Statement, trusted_signer};

/// The artifact type of signatures.
pub const SIGNATURE_TYPE: &str = "application/vnd.stack.signature.v1";
/// The media type of the signature layer.
pub const SIGNATURE_LAYER: &str = "application/vnd.stack.signature.v1+json";
/// Annotation: the base64 signature.
pub const ANN_SIGNATURE: &str = "dev.stack.signature";
/// Annotation: the signing public key (`ed25519:…`).
pub const ANN_KEY: &str = "dev.stack.signature.key";
/// Annotation: the signed statement (its text).
pub const ANN_STATEMENT: &str = "dev.stack.signature.statement";

/// What a verification found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Signed by this trusted key (its id), for the expected label; the
    /// `meta/` referrer the signature covers, if any.
    Trusted { key: String, meta: Option<String> },
    /// No signature at all.
    Unsigned,
    /// Signatures, but none by a trusted key over this digest (their key ids).
    Untrusted(Vec<String>),
    /// A trusted key signed this digest, but for another label (what it
    /// signed, as `kind name/version:tag`).
    OtherLabel(String),
}

/// Errors of signing and verifying in a registry.
#[derive(Debug, thiserror::Error)]
pub enum SignatureError {
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Sign(#[from] super::SignError),
    #[error(
        "{what}: more than {limit} signature referrers; not examining them all\n  hint: remove stale signatures from the registry"
    )]
    TooMany { what: String, limit: usize },
}

/// Sign `statement` (whose digest is the manifest `subject` of `repo`) and
/// attach the signature.
pub fn attach(
    registry: &Registry,
    repo: &str,
    subject: &Descriptor,
    key: &SecretKey,
    statement: &Statement,
) -> Result<(), SignatureError> {
    debug_assert_eq!(statement.digest, subject.digest);
    let signature = key.sign(statement)?;
    let text = String::from_utf8(statement.message()?).expect("statements are text");
    let public = key.public().to_string();
    let body = serde_json::json!({
        "statement": text,
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
        (ANN_STATEMENT.to_string(), text),
    ]);
    registry.put_referrer(repo, &m)?;
    Ok(())
}

/// One signature as found: (signature, key, statement text).
type Found = (String, String, String);

/// Look for a signature by one of `keys` of `expected` (its digest in
/// `repo`); the `meta` of `expected` is ignored: the signature says which
/// `meta/` it covers, and that is what [`Verdict::Trusted`] returns.
pub fn verify(
    registry: &Registry,
    repo: &str,
    expected: &Statement,
    keys: &[PublicKey],
) -> Result<Verdict, SignatureError> {
    let found = registry.referrers(repo, &expected.digest, Some(SIGNATURE_TYPE))?;
    if found.is_empty() {
        return Ok(Verdict::Unsigned);
    }
    if found.len() > limits::SIGNATURES {
        return Err(SignatureError::TooMany {
            what: format!("{repo}@{}", expected.digest),
            limit: limits::SIGNATURES,
        });
    }
    let mut others = Vec::new();
    let mut other_label = None;
    for desc in found {
        let ann = |k: &str| desc.annotations.get(k).cloned();
        let (sig, key, text) = match (ann(ANN_SIGNATURE), ann(ANN_KEY), ann(ANN_STATEMENT)) {
            (Some(s), Some(k), Some(t)) => (s, k, t),
            _ => match signature_from_manifest(registry, repo, &desc)? {
                Some(found) => found,
                None => continue,
            },
        };
        // What the signature claims only chooses the meta/ to check: every
        // other field is what we expect.
        let claimed = Statement::parse(&text);
        let candidate = Statement {
            meta: claimed.as_ref().and_then(|c| c.meta.clone()),
            ..expected.clone()
        };
        if let Some(k) = trusted_signer(keys, &candidate, &sig) {
            return Ok(Verdict::Trusted {
                key: k.id(),
                meta: candidate.meta,
            });
        }
        if let Some(c) = claimed
            && c.digest == expected.digest
            && trusted_signer(keys, &c, &sig).is_some()
        {
            other_label = Some(c.label());
        }
        others.push(
            PublicKey::parse(&key, "signature")
                .map(|k| k.id())
                .unwrap_or_else(|_| key.escape_debug().to_string()),
        );
    }
    Ok(match other_label {
        Some(label) => Verdict::OtherLabel(label),
        None => Verdict::Untrusted(others),
    })
}

/// (signature, key, statement) from a signature manifest's annotations or layer.
fn signature_from_manifest(
    registry: &Registry,
    repo: &str,
    desc: &Descriptor,
) -> Result<Option<Found>, RegistryError> {
    let at = crate::registry::Reference {
        registry: registry.host().to_string(),
        repository: repo.to_string(),
        tag: None,
        digest: Some(desc.digest.clone()),
    };
    let fetched = registry.get_manifest(&at)?;
    let m = fetched.manifest(&at.to_string())?;
    let ann = |k: &str| m.annotations.get(k).cloned();
    if let (Some(s), Some(k), Some(t)) = (ann(ANN_SIGNATURE), ann(ANN_KEY), ann(ANN_STATEMENT)) {
        return Ok(Some((s, k, t)));
    }
    let Some(layer) = m.layers.first() else {
        return Ok(None);
    };
    let bytes = registry.pull_blob_bytes(repo, layer)?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let field = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    Ok(
        match (field("signature"), field("key"), field("statement")) {
            (Some(s), Some(k), Some(t)) => Some((s, k, t)),
            _ => None,
        },
    )
}
