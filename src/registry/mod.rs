//! An OCI distribution client: what `stack push`, `stack pull`, `stack
//! images` and the binary cache use to talk to a registry.
//!
//! ```text
//! reference  REGISTRY/REPOSITORY[:TAG][@sha256:…]      (Reference)
//! auth       basic / bearer token flows, docker config.json, token files (Credentials)
//! client     one registry host: TLS (+ extra CAs), auth cache, retries (Registry)
//! blob       HEAD / monolithic PUT / chunked PATCH uploads, verified downloads
//! api        manifests, tags, catalog, referrers (API or `sha256-<hex>` tag fallback)
//! limits     caps on everything read into memory, page limits
//! ```
//!
//! The module depends on nothing else in the crate: it moves bytes and
//! verifies digests; what the bytes mean (uenv images, cached prefixes,
//! signatures) is decided by its callers. Methods block the calling thread.

mod api;
pub mod auth;
mod blob;
mod client;
mod error;
pub mod limits;
pub mod manifest;
mod reference;
mod reporter;

pub use api::FetchedManifest;
pub use auth::Credentials;
pub use blob::file_digest;
pub use client::{ClientOptions, Registry};
pub use error::RegistryError;
pub use manifest::{Descriptor, Index, Manifest};
pub use reference::{Reference, is_digest, is_path_component, is_tag};
pub use reporter::{NoopTransferReporter, TransferReporter};
