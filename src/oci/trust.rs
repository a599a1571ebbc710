//! Which signatures to require before using what a registry serves.

use crate::registry::Registry;
use crate::sign::referrer::{Verdict, verify};
use crate::sign::{PublicKey, Statement};

use super::DistributeError;

/// Trusted keys, and whether unsigned content is acceptable.
#[derive(Clone, Debug, Default)]
pub struct Trust {
    pub keys: Vec<PublicKey>,
    /// Accept content without a trusted signature (`--allow-unsigned`).
    pub allow_unsigned: bool,
}

/// A trusted signature: who made it and which `meta/` it covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    /// The signer's key id.
    pub signer: String,
    /// The digest of the `meta/` referrer's manifest the signature covers.
    pub meta: Option<String>,
}

impl Trust {
    /// Whether what is read must be covered by a trusted signature.
    pub fn requires_signatures(&self) -> bool {
        !self.keys.is_empty()
    }

    /// Check the signatures of `expected` (its digest, in `repo`): one by a
    /// trusted key over exactly this kind, name, version and tag. `what`
    /// names it in errors. `None` when unsigned content was allowed.
    pub fn check(
        &self,
        registry: &Registry,
        repo: &str,
        expected: &Statement,
        what: &str,
    ) -> Result<Option<Signed>, DistributeError> {
        if self.allow_unsigned && self.keys.is_empty() {
            return Ok(None);
        }
        let verdict = match verify(registry, repo, expected, &self.keys) {
            Ok(v) => v,
            Err(e) if self.allow_unsigned => {
                tracing::warn!("{what}: cannot check signatures ({e}); allowed unsigned");
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        match verdict {
            Verdict::Trusted { key, meta } => Ok(Some(Signed { signer: key, meta })),
            _ if self.allow_unsigned => {
                tracing::warn!("{what}: no trusted signature; allowed by --allow-unsigned");
                Ok(None)
            }
            Verdict::Unsigned => Err(DistributeError::Unsigned {
                what: what.to_string(),
            }),
            Verdict::Untrusted(signers) => Err(DistributeError::Untrusted {
                what: what.to_string(),
                signers,
            }),
            Verdict::OtherLabel(signed) => Err(DistributeError::OtherLabel {
                what: what.to_string(),
                expected: expected.label(),
                signed,
            }),
        }
    }
}
