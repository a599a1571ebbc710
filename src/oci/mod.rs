//! uenv images in an OCI registry: `stack push`, `stack pull`, `stack images`.
//!
//! ```text
//! <registry>/<namespace>/<system>/<uarch>/<name>/<version>:<tag>
//!   manifest  artifactType application/x-squashfs, config {} (application/vnd.oci.empty.v1+json)
//!     layer   application/vnd.oci.image.layer.v1.tar, title store.squashfs
//!   referrer  artifactType uenv/meta: one layer, meta/ as a gzip tarball (title meta, oras' unpack mark)
//!   referrer  artifactType application/vnd.stack.signature.v1 (when pushed with a key)
//! ```
//!
//! The layout is the one the uenv CLI writes and reads with `oras`, so each
//! side reads what the other pushed. Depends on [`crate::registry`] (bytes)
//! and [`crate::sign`] (trust); nothing here knows about builds.

mod image;
mod label;
pub mod tarball;
mod trust;

use std::path::PathBuf;

pub use image::{ImageEntry, PullOutcome, PushOutcome, list_images, pull_image, push_image};
pub use label::Address;
pub use trust::{Signed, Trust};

use crate::registry::RegistryError;

/// The artifact type of uenv images.
pub const IMAGE_TYPE: &str = "application/x-squashfs";
/// The artifact type of the `meta/` referrer.
pub const META_TYPE: &str = "uenv/meta";
/// The title of the image layer.
pub const SQUASHFS_TITLE: &str = "store.squashfs";

/// Errors of pushing, pulling and listing images (and cached prefixes).
#[derive(Debug, thiserror::Error)]
pub enum DistributeError {
    #[error(
        "invalid image address `{text}`: {message}\n  hint: REGISTRY/NAMESPACE/name/version:tag@system%uarch, e.g. localhost:5000/deploy/prgenv-gnu/24.11:v1@daint%gh200"
    )]
    BadAddress { text: String, message: String },

    #[error("{reference} already exists (digest {digest})\n  hint: pass --force to replace it")]
    TagExists { reference: String, digest: String },

    #[error("{reference} is not a uenv image: {message}")]
    NotAnImage { reference: String, message: String },

    #[error(
        "{what}: not signed\n  hint: configure the publisher's public key (`binary_cache: keys:` in the cluster config, or --trusted-key), or pass --allow-unsigned to accept unsigned content"
    )]
    Unsigned { what: String },

    #[error("{what}: no signature by a trusted key (signed by {})\n  hint: add the signer's public key to the trusted keys if you trust it", signers.join(", "))]
    Untrusted { what: String, signers: Vec<String> },

    #[error(
        "{what}: signed by a trusted key as `{signed}`, not as `{expected}`: refusing content published under another label\n  hint: pull it by the label it was signed for, or sign it again for this one"
    )]
    OtherLabel {
        what: String,
        expected: String,
        signed: String,
    },

    #[error(
        "{what}: the uenv/meta referrer {meta} is not covered by the trusted signature{}\n  hint: the signature vouches for the image only as pushed with its meta/; push and sign again",
        signed.as_deref().map(|s| format!(" (which covers {s})")).unwrap_or_else(|| " (which covers no meta/)".into())
    )]
    MetaNotSigned {
        what: String,
        meta: String,
        signed: Option<String>,
    },

    #[error(transparent)]
    Signature(#[from] crate::sign::referrer::SignatureError),

    #[error("{}: {message}", path.display())]
    Input { path: PathBuf, message: String },

    #[error(transparent)]
    Registry(#[from] RegistryError),

    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A bad address or input is the input's fault; what the registry
/// answered (and what trust refused) is a failure.
impl crate::diag::Classify for DistributeError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::input_if(matches!(
            self,
            DistributeError::BadAddress { .. } | DistributeError::Input { .. }
        ))
    }
}
