//! `stack build`'s binary cache flags: `--binary-cache oci://…` (or the
//! cluster's `binary_cache:`), keys, credentials; the operations open it
//! ([`stack::ops::open_binary_cache`]).

use std::path::PathBuf;

use stack::settings::Flags;

use super::super::inputs::TlsArgs;
use super::super::registry_args::{RegistryArgs, TrustArgs};

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
}
