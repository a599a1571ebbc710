//! How much of a registry's answers is read: small fixed caps for
//! everything that is held in memory (manifests, indexes, referrer lists,
//! tag and catalog pages, token answers, error bodies), a page limit for
//! paginated lists, and the announced size for blobs.
//!
//! A registry (or something between it and us) can answer anything; none
//! of these answers may make `stack` buffer more than a few MiB or loop.

use futures_util::StreamExt;
use reqwest::Response;

use super::RegistryError;
use super::client::classify;

/// A manifest (image manifest or index): what distribution-spec asks
/// registries to accept at least, and what containerd reads at most.
pub const MANIFEST: u64 = 4 << 20;
/// A referrers list (an image index, from the API or the fallback tag).
pub const REFERRERS: u64 = 4 << 20;
/// One page of `tags/list` or `_catalog`.
pub const PAGE: u64 = 4 << 20;
/// A token server's answer.
pub const TOKEN: u64 = 64 << 10;
/// A small blob read into memory (a config, a signature layer).
pub const SMALL_BLOB: u64 = 1 << 20;
/// The part of an error answer read for its message.
pub const ERROR_BODY: u64 = 16 << 10;
/// Pages of one paginated list (`Link: <…>; rel="next"`).
pub const PAGES: usize = 1000;
/// Referrers of one artifact examined as signatures.
pub const SIGNATURES: usize = 100;

/// The body of `response`, refused as soon as it exceeds `cap` bytes
/// (announced by `Content-Length` or received); `what` names it.
pub async fn read_capped(
    url: &str,
    response: Response,
    cap: u64,
    what: &'static str,
) -> Result<Vec<u8>, RegistryError> {
    let too_large = || RegistryError::TooLarge {
        url: url.to_string(),
        what,
        limit: cap,
    };
    if response.content_length().is_some_and(|n| n > cap) {
        return Err(too_large());
    }
    let mut out = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| classify(url, &e))?;
        if out.len() as u64 + chunk.len() as u64 > cap {
            return Err(too_large());
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// At most the first `cap` bytes of `response`'s body (error messages:
/// the rest is not read).
pub async fn read_prefix(response: Response, cap: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(Ok(chunk)) = body.next().await {
        let room = (cap as usize).saturating_sub(out.len());
        out.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if out.len() as u64 >= cap {
            break;
        }
    }
    out
}
