//! The trust roots of every HTTPS connection `stack` makes — to a
//! registry, a source URL, a mirror or a git remote: one configuration,
//! so that what one trusts the others trust.
//!
//! Trusted are the roots built into `stack` (Mozilla's, through
//! webpki-roots), the system's store (the first PEM bundle found where
//! Linux distributions keep it, as Go's `crypto/x509` looks for it), the
//! file `SSL_CERT_FILE` names, and every `--ca-file`: a site CA or a
//! TLS-inspecting proxy trusted by the system is trusted by `stack` too.
//! An unreadable `SSL_CERT_FILE` or `--ca-file` is an error; a missing
//! system bundle is not (the built-in roots remain).
//!
//! Git remotes over https use the same client configuration: libgit2
//! speaks git's protocol over stack's own HTTP transport
//! (`fetch/git/transport.rs`), so OpenSSL is not involved.

use std::path::{Path, PathBuf};

/// Where Linux distributions keep the system's PEM bundle (Debian and
/// Ubuntu, Fedora and RHEL 6, openSUSE, OpenELEC, CentOS and RHEL 7+,
/// Alpine); the first one found is the system store.
pub const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/cacert.pem",
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
    "/etc/ssl/cert.pem",
];

/// A CA file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot read the CA file: {message}", path.display())]
pub struct TlsError {
    pub path: PathBuf,
    pub message: String,
}

/// What HTTPS connections trust besides the built-in roots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustRoots {
    /// Extra PEM files (`--ca-file`, then `SSL_CERT_FILE`).
    pub ca_files: Vec<PathBuf>,
    /// Also trust the system's store ([`SYSTEM_BUNDLES`]).
    pub system: bool,
}

impl TrustRoots {
    /// The system's store, `ca_files` and the file `SSL_CERT_FILE` names.
    pub fn new(ca_files: &[PathBuf]) -> TrustRoots {
        let mut files = ca_files.to_vec();
        if let Some(f) = crate::settings::ssl_cert_file()
            && !files.contains(&f)
        {
            files.push(f);
        }
        TrustRoots {
            ca_files: files,
            system: true,
        }
    }

    /// The certificates of the extra files, each file checked.
    fn extra_certificates(&self) -> Result<Vec<reqwest::Certificate>, TlsError> {
        let mut out = Vec::new();
        for path in &self.ca_files {
            let certs = read_bundle(path)?;
            if certs.is_empty() {
                return Err(TlsError {
                    path: path.clone(),
                    message: "no PEM certificate in it".into(),
                });
            }
            out.extend(certs);
        }
        Ok(out)
    }

    /// `builder` trusting these roots (besides its built-in ones).
    pub fn apply(
        &self,
        mut builder: reqwest::ClientBuilder,
    ) -> Result<reqwest::ClientBuilder, TlsError> {
        if self.system
            && let Some(bundle) = system_bundle()
        {
            match read_bundle(&bundle) {
                Ok(certs) => {
                    for c in certs {
                        builder = builder.add_root_certificate(c);
                    }
                }
                Err(e) => tracing::debug!("the system's CA bundle is not used: {e}"),
            }
        }
        for c in self.extra_certificates()? {
            builder = builder.add_root_certificate(c);
        }
        Ok(builder)
    }
}

/// The system's PEM bundle, if this machine has one.
pub fn system_bundle() -> Option<PathBuf> {
    SYSTEM_BUNDLES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn read_bundle(path: &Path) -> Result<Vec<reqwest::Certificate>, TlsError> {
    let err = |message: String| TlsError {
        path: path.to_path_buf(),
        message,
    };
    let pem = fs_err::read(path).map_err(|e| err(e.to_string()))?;
    reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_or_empty_ca_files_are_errors() {
        let d = tempfile::tempdir().unwrap();
        let empty = d.path().join("empty.pem");
        fs_err::write(&empty, "not a certificate\n").unwrap();
        let roots = TrustRoots {
            ca_files: vec![empty.clone()],
            system: false,
        };
        let err = roots.apply(reqwest::Client::builder()).unwrap_err();
        assert_eq!(err.path, empty);
        assert!(err.to_string().contains("no PEM certificate"), "{err}");
        let missing = TrustRoots {
            ca_files: vec![d.path().join("missing.pem")],
            system: false,
        };
        assert!(missing.apply(reqwest::Client::builder()).is_err());
        assert!(
            TrustRoots::default()
                .apply(reqwest::Client::builder())
                .is_ok()
        );
    }
}
