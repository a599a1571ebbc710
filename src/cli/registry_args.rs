//! Flags shared by the commands that talk to a registry (push, pull,
//! images, build --binary-cache): credentials, TLS, trust.

use std::path::PathBuf;

use stack::ops::RegistryAccess;
use stack::settings::Flags;

use super::inputs::TlsArgs;

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
    /// The flags settings come from: `--docker-config`, `--plain-http`,
    /// and `tls`'s `--ca-file`.
    pub fn flags(&self, tls: &TlsArgs) -> Flags {
        Flags {
            docker_config: self.docker_config.clone(),
            plain_http: self.plain_http,
            ca_files: tls.ca_files.clone(),
            ..Flags::default()
        }
    }

    /// How to reach a registry, as the operations take it.
    pub fn access(&self) -> RegistryAccess {
        RegistryAccess {
            username: self.username.clone(),
            password_stdin: self.password_stdin,
            token_file: self.token_file.clone(),
            retries: self.retries,
            chunk_size: self.chunk_size,
            timeout: self.timeout,
        }
    }

    /// The flags that give another `stack` process (a CI job) these
    /// options: TLS, plain HTTP, credential files, retries and timeouts.
    /// Credentials given on stdin cannot be passed on: such jobs read them
    /// from `DOCKER_CONFIG` (a CI variable).
    pub fn job_flags(&self, tls: &TlsArgs) -> Vec<String> {
        let mut v = tls.job_flags();
        if self.plain_http {
            v.push("--plain-http".into());
        }
        if let Some(f) = &self.docker_config {
            v.extend(["--docker-config".into(), f.to_string_lossy().into_owned()]);
        }
        if let Some(f) = &self.token_file {
            if let Some(u) = &self.username {
                v.extend(["--username".into(), u.clone()]);
            }
            v.extend(["--token-file".into(), f.to_string_lossy().into_owned()]);
        }
        let defaults = RegistryAccess::default();
        if self.retries != defaults.retries {
            v.extend(["--retries".into(), self.retries.to_string()]);
        }
        if self.timeout != defaults.timeout {
            v.extend(["--timeout".into(), self.timeout.to_string()]);
        }
        if self.chunk_size != defaults.chunk_size {
            v.extend(["--chunk-size".into(), self.chunk_size.to_string()]);
        }
        v
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
    /// The flags settings come from: `--trusted-key`, `--allow-unsigned`.
    pub fn add_flags(&self, flags: &mut Flags) {
        flags.trusted_keys = self.trusted_keys.clone();
        flags.allow_unsigned = self.allow_unsigned;
    }

    /// The flags that give a CI job the same trust.
    pub fn job_flags(&self) -> Vec<String> {
        let mut v = Vec::new();
        for k in &self.trusted_keys {
            v.extend(["--trusted-key".into(), k.clone()]);
        }
        if self.allow_unsigned {
            v.push("--allow-unsigned".into());
        }
        v
    }
}
