//! A download larger than `FetchOptions::max_download` (announced, or
//! streamed past the limit) stops with a clear error instead of filling the
//! disk, and is not retried.

use crate::harness::fetch::*;
use crate::harness::http::{Behaviour, Body, Server};
use stack::fetch::{FetchError, NoopReporter, fetch_all};

#[test]
fn oversized_bodies_are_cut_off() {
    let srv = Server::start();
    let data = vec![7u8; 3_000_000];
    srv.route("/big.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.max_download = 1_000_000;
    let req = archive("big", "1.0", &srv.url("/big.tar.gz"), Some(&sha(&data)));
    let err = fetch_all(&[req], &opts, &NoopReporter).unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(
            err,
            FetchError::TooLarge {
                limit: 1_000_000,
                announced: Some(3_000_000),
                ..
            }
        ) || text.contains("exceeds 1000000 bytes (announced: 3000000 bytes)"),
        "{text}"
    );
    assert_eq!(srv.hits("/big.tar.gz").len(), 1, "not retried");
    assert!(
        cache_archives(tmp.path()).is_empty(),
        "nothing entered the cache"
    );
}
