//! One rule per setting, the same for every command: a command's flags
//! ([`Flags`]), the environment taken once ([`Env`]) and what the cluster
//! configuration says ([`ClusterDefaults`]) become [`Settings`], resolved
//! once at the start of the command (`Settings::resolve`). docs/cli.md
//! ("Settings") lists the rules.
//!
//! This module only decides; nothing here reads a file or the process
//! environment (that is [`Env::read`], beside the other variables in
//! `src/settings.rs`).

use std::ffi::OsString;
use std::path::PathBuf;

/// The environment variables settings come from, read once
/// ([`Env::read`]); empty variables are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// `STACK_CACHE`.
    pub stack_cache: Option<PathBuf>,
    /// `XDG_CACHE_HOME`.
    pub xdg_cache_home: Option<PathBuf>,
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `STACK_SIGNING_KEY`.
    pub signing_key: Option<PathBuf>,
    /// `DOCKER_CONFIG`.
    pub docker_config: Option<PathBuf>,
    /// `STACK_SPACK_PACKAGES`.
    pub spack_packages: Option<PathBuf>,
    /// `STACK_REPOS`.
    pub stack_repos: Option<OsString>,
    /// The system's temporary directory (`TMPDIR`, else `/tmp`).
    pub temp_dir: PathBuf,
}

/// What a cluster configuration says about the settings below (a plain
/// copy of its `binary_cache:` and `ci:` keys: this module sits below the
/// cluster loader).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterDefaults {
    /// `binary_cache:`.
    pub binary_cache: Option<ClusterBinaryCache>,
    /// `ci: {shared_store}`.
    pub shared_store: bool,
    /// `ci: {group_seconds}`.
    pub group_seconds: Option<u32>,
}

/// A cluster's `binary_cache: {url, keys, push}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterBinaryCache {
    pub url: String,
    pub keys: Vec<String>,
    pub push: bool,
}

/// The flags of a command that settings come from; a command leaves the
/// flags it does not have at their defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    /// `--cache DIR`.
    pub cache: Option<PathBuf>,
    /// `--binary-cache URL`.
    pub binary_cache: Option<String>,
    /// `--no-binary-cache`.
    pub no_binary_cache: bool,
    /// `--no-push`.
    pub no_push: bool,
    /// `--sign-key FILE`.
    pub sign_key: Option<PathBuf>,
    /// `--trusted-key KEY|FILE`.
    pub trusted_keys: Vec<String>,
    /// `--allow-unsigned`.
    pub allow_unsigned: bool,
    /// `--executor slurm` (a remote executor).
    pub remote_executor: bool,
    /// `--shared-store`.
    pub shared_store: bool,
    /// `--group-seconds SECS`.
    pub group_seconds: Option<f64>,
    /// `--spack-packages DIR`.
    pub spack_packages: Option<PathBuf>,
    /// `--docker-config FILE`.
    pub docker_config: Option<PathBuf>,
    /// `--plain-http`.
    pub plain_http: bool,
    /// `--ca-file FILE`.
    pub ca_files: Vec<PathBuf>,
}

/// Where a setting's value came from (for `-v` and the table test).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Flag,
    Env(&'static str),
    Cluster,
    Default,
}

/// The binary cache a command uses, and how far it trusts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryCacheSettings {
    /// `oci://REGISTRY/NAMESPACE`.
    pub url: String,
    /// The `--trusted-key` flags (a key or a file holding one).
    pub trusted_keys: Vec<String>,
    /// The cluster's `keys:` (keys).
    pub cluster_keys: Vec<String>,
    pub allow_unsigned: bool,
    /// Push what is built (`--no-push` and the cluster's `push: false` stop it).
    pub push: bool,
}

/// How a command reaches registries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegistrySettings {
    /// The docker client configuration with credentials.
    pub docker_config: Option<PathBuf>,
    pub plain_http: bool,
    /// Extra CA files (`--ca-file`; `SSL_CERT_FILE` is read by `tls`).
    pub ca_files: Vec<PathBuf>,
}

/// Every setting of a command, resolved once.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The base of the caches (`sources-v1/`, the recipe index, translated
    /// stackinator repositories).
    pub cache_base: PathBuf,
    /// The source cache: `--cache`, else [`Settings::cache_base`].
    pub source_cache: PathBuf,
    pub source_cache_origin: Origin,
    pub binary_cache: Option<BinaryCacheSettings>,
    /// The secret key pushes sign with (image pushes, binary cache pushes).
    pub sign_key: Option<PathBuf>,
    /// Builds go straight into a store the build nodes share.
    pub shared_store: bool,
    /// The Slurm and CI grouping threshold in seconds.
    pub group_seconds: f64,
    /// The spack-packages checkout a stackinator recipe's `spack.packages`
    /// stands for.
    pub spack_packages: Option<PathBuf>,
    /// `STACK_REPOS`.
    pub stack_repos: Option<OsString>,
    pub registry: RegistrySettings,
}

/// Slurm jobs and CI jobs of at most this many estimated seconds are
/// grouped, unless the flag or the cluster says otherwise.
pub const DEFAULT_GROUP_SECONDS: f64 = 60.0;

/// The directory below the temporary directory the caches fall back to
/// when neither `STACK_CACHE`, `XDG_CACHE_HOME` nor `HOME` is set.
pub const TEMP_CACHE_DIR: &str = "stack-cache";

impl Settings {
    /// The settings of a command given `flags`, in `env`, for a cluster
    /// saying `cluster` (`None`: the command reads no cluster).
    pub fn resolve(flags: &Flags, env: &Env, cluster: Option<&ClusterDefaults>) -> Settings {
        let cluster = cluster.cloned().unwrap_or_default();
        let (cache_base, base_origin) = cache_base(env);
        let (source_cache, source_cache_origin) = match &flags.cache {
            Some(c) => (c.clone(), Origin::Flag),
            None => (cache_base.clone(), base_origin),
        };
        Settings {
            cache_base,
            source_cache,
            source_cache_origin,
            binary_cache: binary_cache(flags, &cluster),
            sign_key: flags.sign_key.clone().or_else(|| env.signing_key.clone()),
            shared_store: flags.shared_store || (flags.remote_executor && cluster.shared_store),
            group_seconds: flags
                .group_seconds
                .or(cluster.group_seconds.map(f64::from))
                .unwrap_or(DEFAULT_GROUP_SECONDS),
            spack_packages: flags
                .spack_packages
                .clone()
                .or_else(|| env.spack_packages.clone()),
            stack_repos: env.stack_repos.clone(),
            registry: RegistrySettings {
                docker_config: flags.docker_config.clone().or_else(|| docker_config(env)),
                plain_http: flags.plain_http,
                ca_files: flags.ca_files.clone(),
            },
        }
    }
}

/// The base of the caches: `$STACK_CACHE`, else `$XDG_CACHE_HOME/stack`,
/// else `$HOME/.cache/stack`, else the temporary directory's `stack-cache`.
pub fn cache_base(env: &Env) -> (PathBuf, Origin) {
    if let Some(c) = &env.stack_cache {
        return (c.clone(), Origin::Env("STACK_CACHE"));
    }
    if let Some(x) = &env.xdg_cache_home {
        return (x.join("stack"), Origin::Env("XDG_CACHE_HOME"));
    }
    if let Some(h) = &env.home {
        return (h.join(".cache").join("stack"), Origin::Env("HOME"));
    }
    (env.temp_dir.join(TEMP_CACHE_DIR), Origin::Default)
}

/// `$DOCKER_CONFIG/config.json`, else `$HOME/.docker/config.json`.
pub fn docker_config(env: &Env) -> Option<PathBuf> {
    match (&env.docker_config, &env.home) {
        (Some(d), _) => Some(d.join("config.json")),
        (None, Some(h)) => Some(h.join(".docker").join("config.json")),
        (None, None) => None,
    }
}

/// `--binary-cache`, else the cluster's `binary_cache:`; none with
/// `--no-binary-cache`. Keys: the flags', then the cluster's; pushes unless
/// `--no-push` or the cluster's `push: false`.
fn binary_cache(flags: &Flags, cluster: &ClusterDefaults) -> Option<BinaryCacheSettings> {
    if flags.no_binary_cache {
        return None;
    }
    let config = cluster.binary_cache.as_ref();
    let url = flags
        .binary_cache
        .clone()
        .or_else(|| config.map(|c| c.url.clone()))?;
    Some(BinaryCacheSettings {
        url,
        trusted_keys: flags.trusted_keys.clone(),
        cluster_keys: config.map(|c| c.keys.clone()).unwrap_or_default(),
        allow_unsigned: flags.allow_unsigned,
        push: !flags.no_push && config.is_none_or(|c| c.push),
    })
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
