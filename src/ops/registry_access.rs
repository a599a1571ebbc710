//! How a command reaches a registry (credentials, retries, timeouts) and
//! the binary cache its settings name, opened with its trust and signing
//! key: one rule for `stack build`, `stack ci generate` and the commands
//! that push and pull.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::binary_cache::BinaryCache;
use crate::oci::Trust;
use crate::registry::auth::docker_config_credentials;
use crate::registry::{ClientOptions, Credentials};
use crate::settings::{RegistrySettings, Settings};
use crate::sign::{PublicKey, SecretKey};

use super::OpError;

/// The registry options a command was given (`--username`,
/// `--password-stdin`, `--token-file`, `--retries`, `--timeout`, …).
#[derive(Clone, Debug)]
pub struct RegistryAccess {
    pub username: Option<String>,
    /// Read the password from the first line of stdin.
    pub password_stdin: bool,
    pub token_file: Option<PathBuf>,
    pub retries: u32,
    pub chunk_size: u64,
    /// Seconds a transfer may send or receive nothing.
    pub timeout: u64,
}

/// No credentials given; the client's retries, chunk size and timeout.
impl Default for RegistryAccess {
    fn default() -> Self {
        let client = ClientOptions::default();
        RegistryAccess {
            username: None,
            password_stdin: false,
            token_file: None,
            retries: client.attempts,
            chunk_size: client.chunk_size,
            timeout: client.idle_timeout.as_secs(),
        }
    }
}

impl RegistryAccess {
    /// Client options for `host`; credentials from the flags, else docker's
    /// config ([`RegistrySettings::docker_config`]); CA files and plain
    /// HTTP from `registry`.
    pub fn client_options(
        &self,
        host: &str,
        registry: &RegistrySettings,
    ) -> Result<ClientOptions, OpError> {
        let credentials = if let Some(path) = &self.token_file {
            Credentials::from_token_file(path, self.username.as_deref())?
        } else if let Some(user) = &self.username {
            if !self.password_stdin {
                return Err(OpError::BadValue(format!(
                    "--username needs --password-stdin or --token-file\n  hint: echo \"$TOKEN\" | stack ... --username {user} --password-stdin"
                )));
            }
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .map_err(OpError::Stdin)?;
            Credentials::Basic {
                username: user.clone(),
                password: line.trim_end_matches(['\n', '\r']).to_string(),
            }
        } else {
            match &registry.docker_config {
                Some(p) => docker_config_credentials(p, host)?.unwrap_or_default(),
                None => Credentials::Anonymous,
            }
        };
        Ok(ClientOptions {
            credentials,
            ca_files: registry.ca_files.clone(),
            plain_http: registry.plain_http,
            attempts: self.retries.max(1),
            chunk_size: self.chunk_size.max(1),
            idle_timeout: std::time::Duration::from_secs(self.timeout.max(1)),
            ..ClientOptions::default()
        })
    }
}

/// A public key given inline (`ed25519:…`) or as a file holding one
/// (`--trusted-key`).
pub fn public_key(text: &str) -> Result<PublicKey, OpError> {
    let (content, what) = if text.starts_with("ed25519:") {
        (text.to_string(), "--trusted-key".to_string())
    } else {
        let c = fs_err::read_to_string(text)
            .map_err(|e| OpError::BadValue(format!("--trusted-key {text}: {e}")))?;
        (c, text.to_string())
    };
    Ok(PublicKey::parse(&content, &what)?)
}

/// The secret key at `path` (`--sign-key`, `$STACK_SIGNING_KEY`).
pub fn secret_key(path: &Path) -> Result<SecretKey, OpError> {
    Ok(SecretKey::read(path)?)
}

/// A new signing key: `STEM.key` (secret, mode 0600) and `STEM.pub`, and
/// the public key (`stack key generate`).
pub fn generate_key(stem: &Path) -> Result<PublicKey, OpError> {
    if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs_err::create_dir_all(dir).map_err(OpError::Io)?;
    }
    Ok(crate::sign::generate_files(stem)?)
}

/// The signing key of `settings` (`--sign-key FILE`, else
/// `$STACK_SIGNING_KEY`, else none).
pub fn signing_key(settings: &Settings) -> Result<Option<SecretKey>, OpError> {
    settings.sign_key.as_deref().map(secret_key).transpose()
}

/// The binary cache `settings` name, if any, opened with its trust (the
/// `--trusted-key` flags and the cluster's `keys:`) and, when it pushes,
/// the signing key; `access` reaches its registry.
pub fn open_binary_cache(
    settings: &Settings,
    access: &RegistryAccess,
) -> Result<Option<Arc<BinaryCache>>, OpError> {
    let Some(config) = &settings.binary_cache else {
        return Ok(None);
    };
    let mut keys = config
        .trusted_keys
        .iter()
        .map(|k| public_key(k))
        .collect::<Result<Vec<_>, _>>()?;
    for k in &config.cluster_keys {
        keys.push(PublicKey::parse(k, "binary_cache.keys")?);
    }
    let key = match config.push {
        true => signing_key(settings)?,
        false => None,
    };
    let host = config
        .url
        .strip_prefix("oci://")
        .and_then(|r| r.split('/').next())
        .unwrap_or_default();
    let opts = access.client_options(host, &settings.registry)?;
    let trust = Trust {
        keys,
        allow_unsigned: config.allow_unsigned,
    };
    let cache = BinaryCache::open(&config.url, opts, trust, key)?;
    Ok(Some(Arc::new(cache.with_push(config.push))))
}
