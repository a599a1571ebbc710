//! Which signatures to require before using what a registry serves.

use crate::registry::Registry;
use crate::sign::PublicKey;
use crate::sign::referrer::{Verdict, verify};

use super::DistributeError;

/// Trusted keys, and whether unsigned content is acceptable.
#[derive(Clone, Debug, Default)]
pub struct Trust {
    pub keys: Vec<PublicKey>,
    /// Accept content without a trusted signature (`--allow-unsigned`).
    pub allow_unsigned: bool,
}

impl Trust {
    /// Check the signatures of manifest `digest` in `repo`; `what` names it
    /// in errors. Returns the trusted signer's key id, `None` when unsigned
    /// content was allowed.
    pub fn check(
        &self,
        registry: &Registry,
        repo: &str,
        digest: &str,
        what: &str,
    ) -> Result<Option<String>, DistributeError> {
        if self.allow_unsigned && self.keys.is_empty() {
            return Ok(None);
        }
        let verdict = match verify(registry, repo, digest, &self.keys) {
            Ok(v) => v,
            Err(e) if self.allow_unsigned => {
                tracing::warn!("{what}: cannot check signatures ({e}); allowed unsigned");
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        match verdict {
            Verdict::Trusted(id) => Ok(Some(id)),
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
        }
    }
}
