//! Errors of the OCI distribution client.

/// What went wrong talking to a registry. Every variant names the registry
/// URL it was talking to; none carries a credential.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error(
        "invalid reference `{text}`: {message}\n  hint: write REGISTRY/REPOSITORY[:TAG|@sha256:DIGEST], e.g. localhost:5000/deploy/daint/gh200/prgenv-gnu/24.11:v1"
    )]
    BadReference { text: String, message: String },

    #[error("{url}: authentication failed (HTTP {status}){}\n  hint: give credentials with --username and --password-stdin, --token-file, or `auths` in ~/.docker/config.json", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    Unauthorized {
        url: String,
        status: u16,
        detail: Option<String>,
    },

    #[error("{url}: not found (HTTP 404){}", what.as_deref().map(|w| format!(": {w}")).unwrap_or_default())]
    NotFound { url: String, what: Option<String> },

    #[error("{url}: HTTP {status}{}", body.as_deref().map(|b| format!(": {b}")).unwrap_or_default())]
    Status {
        url: String,
        status: u16,
        body: Option<String>,
    },

    #[error("{url}: {message} (after {attempts} attempt{})", if *attempts == 1 { "" } else { "s" })]
    Network {
        url: String,
        message: String,
        attempts: u32,
    },

    #[error("{url}: {message}")]
    Request { url: String, message: String },

    #[error(
        "{what}: digest mismatch: expected {expected}, got {actual}\n  hint: the registry (or something between it and us) served different bytes; nothing was installed"
    )]
    DigestMismatch {
        what: String,
        expected: String,
        actual: String,
    },

    #[error("{what}: size mismatch: expected {expected} bytes, got {actual}")]
    SizeMismatch {
        what: String,
        expected: u64,
        actual: u64,
    },

    #[error("{url}: invalid response: {message}")]
    BadResponse { url: String, message: String },

    #[error(
        "{url}: the {what} is larger than {limit} bytes; not reading more\n  hint: the registry (or something between it and us) answers more than any registry should"
    )]
    TooLarge {
        url: String,
        what: &'static str,
        limit: u64,
    },

    #[error(
        "{url}: {what} does not end (more than {pages} pages, or a page links back to an earlier one)"
    )]
    EndlessPages {
        url: String,
        what: &'static str,
        pages: usize,
    },

    #[error("{path}: {message}")]
    Credentials { path: String, message: String },

    #[error("{path}: cannot read the CA file: {message}")]
    CaFile { path: String, message: String },

    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl RegistryError {
    /// Worth another attempt: connection problems and server errors.
    pub fn is_transient(&self) -> bool {
        match self {
            RegistryError::Network { .. } => true,
            RegistryError::Status { status, .. } => {
                *status >= 500 || *status == 429 || *status == 408
            }
            _ => false,
        }
    }

    /// A 404 from the registry.
    pub fn is_not_found(&self) -> bool {
        matches!(self, RegistryError::NotFound { .. })
    }
}

/// A bad reference, credentials or CA file is the input's fault; what the
/// registry or the network answered is a failure.
impl crate::diag::Classify for RegistryError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::input_if(matches!(
            self,
            RegistryError::BadReference { .. }
                | RegistryError::Credentials { .. }
                | RegistryError::CaFile { .. }
        ))
    }
}
