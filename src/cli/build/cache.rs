//! `stack build`'s binary cache flags: `--binary-cache oci://…` (or the
//! cluster's `binary_cache:`), keys, credentials.

use std::path::PathBuf;
use std::sync::Arc;

use stack::binary_cache::BinaryCache;
use stack::oci::Trust;
use stack::settings::{Flags, Settings};
use stack::sign::PublicKey;

use super::super::CliError;
use super::super::inputs::TlsArgs;
use super::super::registry_args::{RegistryArgs, TrustArgs, signing_key};

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
    /// The flags settings come from: the binary cache, its trust, the
    /// signing key and the registry options.
    pub fn add_flags(&self, flags: &mut Flags) {
        let registry = self.registry.flags(&TlsArgs::default());
        flags.binary_cache = self.binary_cache.clone();
        flags.no_binary_cache = self.no_binary_cache;
        flags.no_push = self.no_push;
        flags.sign_key = self.sign_key.clone();
        flags.docker_config = registry.docker_config;
        flags.plain_http = registry.plain_http;
        self.trust.add_flags(flags);
    }

    /// The binary cache `settings` name, if any, opened with its trust
    /// and signing key.
    pub fn open(&self, settings: &Settings) -> Result<Option<Arc<BinaryCache>>, CliError> {
        let Some(config) = &settings.binary_cache else {
            return Ok(None);
        };
        let mut keys = self.trust.keys()?;
        for k in &config.cluster_keys {
            let key = PublicKey::parse(k, "binary_cache.keys")?;
            keys.push(key);
        }
        let key = match config.push {
            true => signing_key(settings)?,
            false => None,
        };
        let host = config
            .url
            .strip_prefix("oci://")
            .and_then(|r| r.split('/').next())
            .unwrap_or_default()
            .to_string();
        let opts = self.registry.options(&host, &settings.registry)?;
        let trust = Trust {
            keys,
            allow_unsigned: config.allow_unsigned,
        };
        let cache = BinaryCache::open(&config.url, opts, trust, key)?;
        Ok(Some(Arc::new(cache.with_push(config.push))))
    }
}
