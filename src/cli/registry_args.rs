//! Flags shared by the commands that talk to a registry (push, pull,
//! images, build --binary-cache): credentials, TLS, trust.

use std::io::BufRead;
use std::path::PathBuf;

use stack::registry::auth::{docker_config_credentials, docker_config_path};
use stack::registry::{ClientOptions, Credentials, Registry};
use stack::sign::{PublicKey, SecretKey};

use super::CliError;

/// How to reach and authenticate to the registry.
#[derive(Debug, Clone, clap::Args)]
pub struct RegistryArgs {
    /// User name for the registry (the password comes from --password-stdin
    /// or --token-file; without a user name, credentials are taken from the
    /// docker config).
    #[arg(long, value_name = "USER", help_heading = "Registry")]
    pub username: Option<String>,
    /// Read the password (or access token) from the first line of stdin.
    #[arg(long, requires = "username", help_heading = "Registry")]
    pub password_stdin: bool,
    /// Read a token from FILE: the password of --username, or a bearer token
    /// without one.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "password_stdin",
        help_heading = "Registry"
    )]
    pub token_file: Option<PathBuf>,
    /// Docker client config with `auths` [default: $DOCKER_CONFIG/config.json, ~/.docker/config.json].
    #[arg(long, value_name = "FILE", help_heading = "Registry")]
    pub docker_config: Option<PathBuf>,
    /// Extra trusted CA certificates (PEM) for the registry's TLS certificate.
    #[arg(
        long,
        env = "SSL_CERT_FILE",
        value_name = "FILE",
        help_heading = "Registry"
    )]
    pub ca_file: Option<PathBuf>,
    /// Talk plain HTTP instead of HTTPS (a registry on loopback).
    #[arg(long, help_heading = "Registry")]
    pub plain_http: bool,
    /// Attempts per request on connection errors and 5xx answers.
    #[arg(long, default_value_t = 4, value_name = "N", help_heading = "Registry")]
    pub retries: u32,
    /// Upload blobs larger than this many bytes in chunks of this size.
    #[arg(long, default_value_t = 256 << 20, value_name = "BYTES", hide = true)]
    pub chunk_size: u64,
    /// Fail a transfer that sends or receives nothing for this many seconds.
    #[arg(
        long,
        default_value_t = 60,
        value_name = "SECONDS",
        help_heading = "Registry"
    )]
    pub timeout: u64,
}

impl RegistryArgs {
    /// Client options for `host`; credentials from the flags, else docker's config.
    pub fn options(&self, host: &str) -> Result<ClientOptions, CliError> {
        let credentials = if let Some(path) = &self.token_file {
            Credentials::from_token_file(path, self.username.as_deref())
                .map_err(|e| CliError::input(miette::miette!("{e}")))?
        } else if let Some(user) = &self.username {
            if !self.password_stdin {
                return Err(CliError::input(miette::miette!(
                    "--username needs --password-stdin or --token-file\n  hint: echo \"$TOKEN\" | stack ... --username {user} --password-stdin"
                )));
            }
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map_err(|e| {
                CliError::failure(miette::miette!("reading the password from stdin: {e}"))
            })?;
            Credentials::Basic {
                username: user.clone(),
                password: line.trim_end_matches(['\n', '\r']).to_string(),
            }
        } else {
            let path = self.docker_config.clone().or_else(docker_config_path);
            match path {
                Some(p) => docker_config_credentials(&p, host)
                    .map_err(|e| CliError::input(miette::miette!("{e}")))?
                    .unwrap_or_default(),
                None => Credentials::Anonymous,
            }
        };
        Ok(ClientOptions {
            credentials,
            ca_files: self.ca_file.iter().cloned().collect(),
            plain_http: self.plain_http,
            attempts: self.retries.max(1),
            chunk_size: self.chunk_size.max(1),
            idle_timeout: std::time::Duration::from_secs(self.timeout.max(1)),
            ..ClientOptions::default()
        })
    }

    /// A connection to `host`.
    pub fn connect(&self, host: &str) -> Result<Registry, CliError> {
        Registry::new(host, self.options(host)?)
            .map_err(|e| CliError::input(miette::miette!("{e}")))
    }
}

/// Keys: which to trust when reading, which to sign with when writing.
#[derive(Debug, Clone, clap::Args)]
pub struct TrustArgs {
    /// A trusted public key (`ed25519:…`) or a file holding one; repeatable.
    #[arg(long = "trusted-key", value_name = "KEY|FILE", help_heading = "Trust")]
    pub trusted_keys: Vec<String>,
    /// Accept content that has no signature by a trusted key.
    #[arg(long, help_heading = "Trust")]
    pub allow_unsigned: bool,
}

impl TrustArgs {
    pub fn keys(&self) -> Result<Vec<PublicKey>, CliError> {
        self.trusted_keys
            .iter()
            .map(|k| parse_public_key(k))
            .collect()
    }
}

/// A public key given inline or as a file.
pub fn parse_public_key(text: &str) -> Result<PublicKey, CliError> {
    let (content, what) = if text.starts_with("ed25519:") {
        (text.to_string(), "--trusted-key".to_string())
    } else {
        let c = fs_err::read_to_string(text)
            .map_err(|e| CliError::input(miette::miette!("--trusted-key {text}: {e}")))?;
        (c, text.to_string())
    };
    PublicKey::parse(&content, &what).map_err(|e| CliError::input(miette::miette!("{e}")))
}

/// The signing key at `path`.
pub fn read_secret_key(path: &std::path::Path) -> Result<SecretKey, CliError> {
    SecretKey::read(path).map_err(|e| CliError::input(miette::miette!("{e}")))
}
