//! Trust: ed25519 signatures over manifest digests.
//!
//! A signature signs the message `stack-signature-v1\n<digest>\n`, where
//! `<digest>` is the `sha256:<hex>` of the manifest it vouches for (so it
//! covers the manifest and, through it, every blob). Keys are written as
//! text:
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

    /// Whether `signature` (base64) signs `digest` with this key.
    pub fn verify(&self, digest: &str, signature: &str) -> bool {
        let Some(bytes) = B64
            .decode(signature.trim())
            .ok()
            .and_then(|b| <[u8; 64]>::try_from(b).ok())
        else {
            return false;
        };
        let sig = ed25519_dalek::Signature::from_bytes(&bytes);
        self.0.verify(&message(digest), &sig).is_ok()
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

    /// The signature (base64) of `digest`.
    pub fn sign(&self, digest: &str) -> String {
        B64.encode(self.0.sign(&message(digest)).to_bytes())
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

/// Which of `keys` made `signature` over `digest`.
pub fn trusted_signer<'k>(
    keys: &'k [PublicKey],
    digest: &str,
    signature: &str,
) -> Option<&'k PublicKey> {
    keys.iter().find(|k| k.verify(digest, signature))
}

fn message(digest: &str) -> Vec<u8> {
    format!("stack-signature-v1\n{digest}\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    const D1: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
    const D2: &str = "sha256:2222222222222222222222222222222222222222222222222222222222222222";

    #[test]
    fn signs_and_verifies_only_the_signed_digest_with_the_right_key() {
        let k = SecretKey::generate().unwrap();
        let other = SecretKey::generate().unwrap();
        let sig = k.sign(D1);
        assert!(k.public().verify(D1, &sig));
        assert!(!k.public().verify(D2, &sig));
        assert!(!other.public().verify(D1, &sig));
        assert!(!k.public().verify(D1, "not base64!"));
        let keys = [other.public(), k.public()];
        assert_eq!(trusted_signer(&keys, D1, &sig), Some(&keys[1]));
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
