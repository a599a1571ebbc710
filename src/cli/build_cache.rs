//! `stack build`'s binary cache flags: `--binary-cache oci://…` (or the
//! cluster's `binary_cache:`), keys, credentials.

use std::path::PathBuf;
use std::sync::Arc;

use stack::binary_cache::BinaryCache;
use stack::cluster::Cluster;
use stack::distribute::Trust;
use stack::sign::PublicKey;

use super::CliError;
use super::inputs::TlsArgs;
use super::registry_args::{RegistryArgs, TrustArgs, signing_key};

/// Binary cache options of `stack build`.
#[derive(Debug, Clone, clap::Args)]
pub struct CacheArgs {
    /// Install prefixes from, and push built ones to, this binary cache
    /// (oci://REGISTRY/NAMESPACE) [default: the cluster's `binary_cache:`].
    #[arg(long, value_name = "URL", help_heading = "Binary cache")]
    pub binary_cache: Option<String>,
    /// Do not use any binary cache (not even the cluster's).
    #[arg(long, conflicts_with = "binary_cache", help_heading = "Binary cache")]
    pub no_binary_cache: bool,
    /// Only install from the binary cache; push nothing.
    #[arg(long, help_heading = "Binary cache")]
    pub no_push: bool,
    /// Sign pushed prefixes with this ed25519 secret key (see `stack key
    /// generate`) [default: $STACK_SIGNING_KEY].
    #[arg(long, value_name = "FILE", help_heading = "Binary cache")]
    pub sign_key: Option<PathBuf>,
    #[command(flatten)]
    pub trust: TrustArgs,
    #[command(flatten)]
    pub registry: RegistryArgs,
}

impl CacheArgs {
    /// The binary cache to use, if any; `tls` the extra CA files.
    pub fn open(
        &self,
        cluster: &Cluster,
        tls: &TlsArgs,
    ) -> Result<Option<Arc<BinaryCache>>, CliError> {
        if self.no_binary_cache {
            return Ok(None);
        }
        let config = cluster.binary_cache.as_ref();
        let url = match (&self.binary_cache, config) {
            (Some(u), _) => u.clone(),
            (None, Some(c)) => c.url.value.clone(),
            (None, None) => return Ok(None),
        };
        let mut keys = self.trust.keys()?;
        if let Some(c) = config {
            for k in &c.keys {
                let key = PublicKey::parse(&k.value, "binary_cache.keys")
                    .map_err(|e| CliError::input(miette::miette!("{e}")))?;
                keys.push(key);
            }
        }
        let push = !self.no_push && config.is_none_or(|c| c.push);
        let key = match push {
            true => signing_key(self.sign_key.as_deref())?,
            false => None,
        };
        let host = url
            .strip_prefix("oci://")
            .and_then(|r| r.split('/').next())
            .unwrap_or_default()
            .to_string();
        let opts = self.registry.options(&host, tls)?;
        let trust = Trust {
            keys,
            allow_unsigned: self.trust.allow_unsigned,
        };
        let cache = BinaryCache::open(&url, opts, trust, key)
            .map_err(|e| CliError::input(miette::miette!("{e}")))?;
        Ok(Some(Arc::new(cache.with_push(push))))
    }
}
