//! Trust: ed25519 signatures over statements that bind a manifest digest
//! to the label it is published under.
//!
//! A signature signs a [`Statement`]:
//!
//! ```text
//! stack-signature-v2
//! kind uenv-image                  (or stack-prefix: a binary cache entry)
//! name prgenv-gnu
//! version 24.11
//! tag v2                           (a binary cache entry: the node hash)
//! digest sha256:<hex>              the manifest vouched for
//! meta sha256:<hex>                the uenv/meta referrer's manifest, or -
//! ```
//!
//! so it covers the manifest and, through its digests, every blob, and
//! the same bytes served under another name, version or tag (or as
//! another kind of artifact, or with another `meta/`) do not verify.
//! Keys are written as text:
//!
//! ```text
//! public:  ed25519:<base64 of the 32-byte public key>
//! secret:  ed25519-secret:<base64 of the 32-byte seed>    (a file with mode 0600)
//! ```
//!
//! A key's id is the first 16 hex digits of the sha256 of its public key.
//! This module knows nothing about registries: [`crate::binary_cache`] and
//! the image push attach signatures as referrers.

pub mod referrer;

use std::fmt;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_dalek::{Signer, Verifier};
use sha2::{Digest, Sha256};

const PUBLIC_PREFIX: &str = "ed25519:";
const SECRET_PREFIX: &str = "ed25519-secret:";

/// Errors of keys and signatures.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    #[error(
        "{what}: not a key: {message}\n  hint: public keys look like `ed25519:<base64>`; make a pair with `stack key generate`"
    )]
    BadKey { what: String, message: String },
    #[error("{path}: {message}")]
    KeyFile { path: String, message: String },
    #[error("cannot generate a key: {0}")]
    Random(String),
    #[error(
        "cannot sign `{value}` as the {field} of a statement: it must be one line of printable text"
    )]
    BadStatement { field: &'static str, value: String },
}

/// What a signature vouches for: `digest` is the manifest of a `kind`
/// artifact published as `name`/`version`:`tag`, with `meta` (the uenv
/// image's `meta/` referrer) when it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// [`KIND_IMAGE`] or [`KIND_PREFIX`].
    pub kind: &'static str,
    pub name: String,
    pub version: String,
    /// The image's tag; a cached prefix's node hash.
    pub tag: String,
    pub digest: String,
    pub meta: Option<String>,
}

/// The kind of a uenv image's statement.
pub const KIND_IMAGE: &str = "uenv-image";
/// The kind of a binary cache entry's statement.
pub const KIND_PREFIX: &str = "stack-prefix";

impl Statement {
    /// The signed bytes. Every value must be one line of printable text,
    /// so no value can forge another field.
    pub fn message(&self) -> Result<Vec<u8>, SignError> {
        let meta = self.meta.as_deref().unwrap_or("-");
        let fields = [
            ("kind", self.kind),
            ("name", &self.name),
            ("version", &self.version),
            ("tag", &self.tag),
            ("digest", &self.digest),
            ("meta", meta),
        ];
        let mut out = String::from("stack-signature-v2\n");
        for (field, value) in fields {
            if value.is_empty() || value.chars().any(|c| c.is_control() || c == ' ') {
                return Err(SignError::BadStatement {
                    field,
                    value: value.escape_debug().to_string(),
                });
            }
            out.push_str(&format!("{field} {value}\n"));
        }
        Ok(out.into_bytes())
    }

    /// Parse the text [`Statement::message`] makes.
    pub fn parse(text: &str) -> Option<Statement> {
        let mut lines = text.lines();
        if lines.next()? != "stack-signature-v2" {
            return None;
        }
        let mut field = |name: &str| -> Option<String> {
            let (k, v) = lines.next()?.split_once(' ')?;
            (k == name).then(|| v.to_string())
        };
        let kind = match field("kind")?.as_str() {
            KIND_IMAGE => KIND_IMAGE,
            KIND_PREFIX => KIND_PREFIX,
            _ => return None,
        };
        let s = Statement {
            kind,
            name: field("name")?,
            version: field("version")?,
            tag: field("tag")?,
            digest: field("digest")?,
            meta: Some(field("meta")?).filter(|m| m != "-"),
        };
        s.message().ok().map(|_| s)
    }

    /// `kind name/version:tag`, for messages.
    pub fn label(&self) -> String {
        format!("{} {}/{}:{}", self.kind, self.name, self.version, self.tag)
    }
}

/// A public key, trusted when it is configured.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey(ed25519_dalek::VerifyingKey);

/// A secret (signing) key.
pub struct SecretKey(ed25519_dalek::SigningKey);

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretKey({})", self.public().id())
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.id())
    }
}

impl fmt::Display for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PUBLIC_PREFIX}{}", B64.encode(self.0.as_bytes()))
    }
}

impl PublicKey {
    /// Parse `ed25519:<base64>`; `what` names where the text came from.
    pub fn parse(text: &str, what: &str) -> Result<PublicKey, SignError> {
        let bad = |message: &str| SignError::BadKey {
            what: what.to_string(),
            message: message.to_string(),
        };
        let b64 = text
            .trim()
            .strip_prefix(PUBLIC_PREFIX)
            .ok_or_else(|| bad("it does not start with `ed25519:`"))?;
        let bytes: [u8; 32] = B64
            .decode(b64)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad("not base64 of 32 bytes"))?;
        ed25519_dalek::VerifyingKey::from_bytes(&bytes)
            .map(PublicKey)
            .map_err(|_| bad("not a valid ed25519 point"))
    }

    /// The first 16 hex digits of the sha256 of the key.
    pub fn id(&self) -> String {
        hex::encode(&Sha256::digest(self.0.as_bytes())[..8])
    }

    /// Whether `signature` (base64) signs `statement` with this key.
    pub fn verify(&self, statement: &Statement, signature: &str) -> bool {
        let Ok(message) = statement.message() else {
            return false;
        };
        let Some(bytes) = B64
            .decode(signature.trim())
            .ok()
            .and_then(|b| <[u8; 64]>::try_from(b).ok())
        else {
            return false;
        };
        let sig = ed25519_dalek::Signature::from_bytes(&bytes);
        self.0.verify(&message, &sig).is_ok()
    }
}

impl SecretKey {
    /// A new random key.
    pub fn generate() -> Result<SecretKey, SignError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| SignError::Random(e.to_string()))?;
        Ok(SecretKey(ed25519_dalek::SigningKey::from_bytes(&seed)))
    }

    /// Parse `ed25519-secret:<base64 seed>`.
    pub fn parse(text: &str, what: &str) -> Result<SecretKey, SignError> {
        let bad = |message: &str| SignError::BadKey {
            what: what.to_string(),
            message: message.to_string(),
        };
        let b64 = text
            .trim()
            .strip_prefix(SECRET_PREFIX)
            .ok_or_else(|| bad("it does not start with `ed25519-secret:`"))?;
        let seed: [u8; 32] = B64
            .decode(b64)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad("not base64 of 32 bytes"))?;
        Ok(SecretKey(ed25519_dalek::SigningKey::from_bytes(&seed)))
    }

    /// Read a secret key file.
    pub fn read(path: &Path) -> Result<SecretKey, SignError> {
        let text = fs_err::read_to_string(path).map_err(|e| SignError::KeyFile {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        SecretKey::parse(&text, &path.display().to_string())
    }

    /// The text form (`ed25519-secret:<base64>`), for a 0600 file.
    pub fn to_text(&self) -> String {
        format!("{SECRET_PREFIX}{}\n", B64.encode(self.0.to_bytes()))
    }

    pub fn public(&self) -> PublicKey {
        PublicKey(self.0.verifying_key())
    }

    /// The signature (base64) of `statement`.
    pub fn sign(&self, statement: &Statement) -> Result<String, SignError> {
        Ok(B64.encode(self.0.sign(&statement.message()?).to_bytes()))
    }
}

/// Write a new key pair: `<stem>.key` (secret, mode 0600, never replaced)
/// and `<stem>.pub`. Returns the public key.
pub fn generate_files(stem: &Path) -> Result<PublicKey, SignError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let key = SecretKey::generate()?;
    let secret = stem.with_extension("key");
    let public = stem.with_extension("pub");
    let io = |p: &Path, e: std::io::Error| SignError::KeyFile {
        path: p.display().to_string(),
        message: e.to_string(),
    };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&secret)
        .map_err(|e| io(&secret, e))?;
    f.write_all(key.to_text().as_bytes())
        .map_err(|e| io(&secret, e))?;
    fs_err::write(&public, format!("{}\n", key.public())).map_err(|e| io(&public, e))?;
    Ok(key.public())
}

/// Which of `keys` made `signature` over `statement`.
pub fn trusted_signer<'k>(
    keys: &'k [PublicKey],
    statement: &Statement,
    signature: &str,
) -> Option<&'k PublicKey> {
    keys.iter().find(|k| k.verify(statement, signature))
}

/// A key or statement that cannot be read is the input's fault.
impl crate::diag::Classify for SignError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::input_if(!matches!(self, SignError::Random(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D1: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
    const D2: &str = "sha256:2222222222222222222222222222222222222222222222222222222222222222";

    fn statement(digest: &str) -> Statement {
        Statement {
            kind: KIND_IMAGE,
            name: "prgenv-gnu".into(),
            version: "24.11".into(),
            tag: "v1".into(),
            digest: digest.into(),
            meta: Some(D2.into()),
        }
    }

    #[test]
    fn signs_and_verifies_only_the_signed_digest_with_the_right_key() {
        let k = SecretKey::generate().unwrap();
        let other = SecretKey::generate().unwrap();
        let sig = k.sign(&statement(D1)).unwrap();
        assert!(k.public().verify(&statement(D1), &sig));
        assert!(!k.public().verify(&statement(D2), &sig));
        assert!(!other.public().verify(&statement(D1), &sig));
        assert!(!k.public().verify(&statement(D1), "not base64!"));
        let keys = [other.public(), k.public()];
        assert_eq!(trusted_signer(&keys, &statement(D1), &sig), Some(&keys[1]));
    }

    /// Issue 40, item 5: the signature binds the label and the meta/.
    #[test]
    fn a_signature_does_not_verify_under_another_label_kind_or_meta() {
        let k = SecretKey::generate().unwrap();
        let signed = statement(D1);
        let sig = k.sign(&signed).unwrap();
        let variants = [
            Statement {
                name: "other".into(),
                ..signed.clone()
            },
            Statement {
                version: "25.1".into(),
                ..signed.clone()
            },
            Statement {
                tag: "latest".into(),
                ..signed.clone()
            },
            Statement {
                kind: KIND_PREFIX,
                ..signed.clone()
            },
            Statement {
                meta: None,
                ..signed.clone()
            },
            Statement {
                meta: Some(D1.into()),
                ..signed.clone()
            },
        ];
        for v in variants {
            assert!(!k.public().verify(&v, &sig), "{v:?}");
        }
        let text = String::from_utf8(signed.message().unwrap()).unwrap();
        assert_eq!(Statement::parse(&text), Some(signed.clone()));
        assert_eq!(Statement::parse("stack-signature-v1\n"), None);
        // No value can carry a second line.
        let forged = Statement {
            tag: "v1\ndigest sha256:x".into(),
            ..signed
        };
        assert!(matches!(
            k.sign(&forged),
            Err(SignError::BadStatement { field: "tag", .. })
        ));
    }

    #[test]
    fn keys_round_trip_through_text_and_files() {
        let d = tempfile::tempdir().unwrap();
        let public = generate_files(&d.path().join("site")).unwrap();
        let text = fs_err::read_to_string(d.path().join("site.pub")).unwrap();
        assert_eq!(PublicKey::parse(&text, "site.pub").unwrap(), public);
        let secret = SecretKey::read(&d.path().join("site.key")).unwrap();
        assert_eq!(secret.public(), public);
        use std::os::unix::fs::PermissionsExt;
        let mode = fs_err::metadata(d.path().join("site.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Never overwrites a secret key.
        assert!(generate_files(&d.path().join("site")).is_err());
        assert!(PublicKey::parse("rsa:abc", "x").is_err());
        assert_eq!(public.id().len(), 16);
    }
}
