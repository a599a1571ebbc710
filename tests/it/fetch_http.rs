//! Fetching archives over HTTP from a real server on 127.0.0.1 (started by each test), through
//! the source cache (mirrors: tests/it/fetch_mirror.rs).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::harness::fetch::*;
use crate::harness::http::{Behaviour, Body, Server};
use stack::fetch::{
    FetchError, FetchedContent, NoopReporter, Origin, Source, SourceRequest, Verification,
    fetch_all, stage,
};

fn demo_archive() -> Vec<u8> {
    tar_gz(
        "demo-1.0",
        &[
            ("README", b"hello\n"),
            ("configure.sh", b"#!/bin/sh\necho ok\n"),
        ],
    )
}

#[test]
fn ok_download_is_verified_cached_and_staged() {
    let srv = Server::start();
    let data = demo_archive();
    let digest = sha(&data);
    srv.route("/demo-1.0.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let opts = options(&tmp.path().join("cache"));
    let req = archive("demo", "1.0", &srv.url("/demo-1.0.tar.gz"), Some(&digest));
    let rec = Recorder::default();

    let got = fetch_all(std::slice::from_ref(&req), &opts, &rec).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].origin, Origin::Upstream(req.url().to_string()));
    assert_eq!(got[0].verification, Verification::Sha256);
    let FetchedContent::File { path, size, .. } = &got[0].content else {
        panic!("file source")
    };
    assert_eq!(*size, data.len() as u64);
    assert_eq!(std::fs::read(path).unwrap(), data);
    assert!(path.ends_with(format!("sources-v1/archive/{}/{digest}", &digest[..2])));
    assert!(rec.count("started 0 demo@1.0") == 1 && rec.count("finished 0") == 1);
    assert!(rec.count("progress 0") >= 1);

    // Second fetch: cache hit, no request.
    let again = fetch_all(std::slice::from_ref(&req), &opts, &NoopReporter).unwrap();
    assert_eq!(again[0].origin, Origin::Cache);
    assert_eq!(srv.hits("/demo-1.0.tar.gz").len(), 1);

    // Stage strips the single top-level directory and keeps modes.
    let dest = tmp.path().join("stage");
    let staged = stage(&got[0], &dest).unwrap();
    assert_eq!(staged.stripped.as_deref(), Some("demo-1.0"));
    assert_eq!(std::fs::read(dest.join("README")).unwrap(), b"hello\n");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dest.join("configure.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "executable bit kept");
    let mtime = std::fs::metadata(dest.join("README"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        mtime
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
        1_600_000_000,
        "archive mtimes kept (autotools relies on them)"
    );
}

#[test]
fn wrong_sha256_names_url_and_both_digests_and_caches_nothing() {
    let srv = Server::start();
    let data = demo_archive();
    srv.route("/demo.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let wrong = "0".repeat(64);
    let req = archive("demo", "1.0", &srv.url("/demo.tar.gz"), Some(&wrong));
    let err = fetch_all(&[req], &options(&cache), &NoopReporter).unwrap_err();
    let FetchError::ChecksumMismatch {
        package,
        url,
        expected,
        actual,
        bytes,
        ..
    } = &err
    else {
        panic!("expected a checksum mismatch, got {err}")
    };
    assert_eq!(&**package, "demo@1.0");
    assert!(
        err.to_string()
            .starts_with("demo@1.0: sha256 mismatch for "),
        "{err}"
    );
    assert_eq!(url, &srv.url("/demo.tar.gz"));
    assert_eq!(expected, &wrong);
    assert_eq!(actual, &sha(&data));
    assert_eq!(*bytes, data.len() as u64);
    let msg = err.to_string();
    assert!(msg.contains(&wrong) && msg.contains(&sha(&data)) && msg.contains("/demo.tar.gz"));
    assert!(
        cache_archives(&cache).is_empty(),
        "{:?}",
        cache_archives(&cache)
    );
}

#[test]
fn not_found_is_reported_without_retries() {
    let srv = Server::start();
    let tmp = tempfile::tempdir().unwrap();
    let req = archive(
        "demo",
        "1.0",
        &srv.url("/nope.tar.gz"),
        Some(&"1".repeat(64)),
    );
    let err = fetch_all(&[req], &options(tmp.path()), &NoopReporter).unwrap_err();
    assert!(
        matches!(&err, FetchError::HttpStatus { status: 404, url } if url.ends_with("/nope.tar.gz")),
        "{err}"
    );
    assert!(err.to_string().contains("HTTP 404"), "{err}");
    assert_eq!(srv.hits("/nope.tar.gz").len(), 1, "a 404 is not retried");
}

#[test]
fn server_errors_are_retried_until_ok() {
    let srv = Server::start();
    let data = demo_archive();
    srv.route(
        "/flaky.tar.gz",
        Body::bytes(data.clone()),
        Behaviour::FailThenOk {
            status: 500,
            times: 2,
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let rec = Recorder::default();
    let req = archive("demo", "1.0", &srv.url("/flaky.tar.gz"), Some(&sha(&data)));
    let got = fetch_all(&[req], &options(tmp.path()), &rec).unwrap();
    assert_eq!(got[0].verification, Verification::Sha256);
    assert_eq!(srv.hits("/flaky.tar.gz").len(), 3);
    assert_eq!(rec.count("retrying 0"), 2, "{:?}", rec.events());
    assert!(rec.events().iter().any(|e| e.contains("HTTP 500")));
}

#[test]
fn persistent_server_errors_give_up_after_the_attempt_budget() {
    let srv = Server::start();
    srv.route(
        "/down.tar.gz",
        Body::bytes(b"x".to_vec()),
        Behaviour::Status(503),
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.attempts = 3;
    let req = archive(
        "demo",
        "1.0",
        &srv.url("/down.tar.gz"),
        Some(&"1".repeat(64)),
    );
    let err = fetch_all(&[req], &opts, &NoopReporter).unwrap_err();
    assert!(
        matches!(err, FetchError::HttpStatus { status: 503, .. }),
        "{err}"
    );
    assert_eq!(srv.hits("/down.tar.gz").len(), 3);
}

#[test]
fn truncated_body_is_resumed_with_a_range_request() {
    let srv = Server::start();
    let data: Vec<u8> = (0..300_000u32).flat_map(|i| i.to_le_bytes()).collect();
    srv.route(
        "/big.tar",
        Body::bytes(data.clone()),
        Behaviour::Truncate {
            times: 1,
            after: 500_000,
            ranges: true,
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let req = archive("big", "1", &srv.url("/big.tar"), Some(&sha(&data)));
    let got = fetch_all(&[req], &options(tmp.path()), &NoopReporter).unwrap();
    let hits = srv.hits("/big.tar");
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].range, None);
    let range = hits[1].range.as_deref().expect("second request resumes");
    let from: u64 = range
        .trim_start_matches("bytes=")
        .trim_end_matches('-')
        .parse()
        .unwrap();
    assert!(from > 0 && from <= 500_000, "{range}");
    let FetchedContent::File { path, .. } = &got[0].content else {
        panic!()
    };
    assert_eq!(std::fs::read(path).unwrap(), data);
}

#[test]
fn truncated_body_restarts_when_the_server_ignores_ranges() {
    let srv = Server::start();
    let data: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_be_bytes()).collect();
    srv.route(
        "/big.tar",
        Body::bytes(data.clone()),
        Behaviour::Truncate {
            times: 2,
            after: 100_000,
            ranges: false,
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let req = archive("big", "1", &srv.url("/big.tar"), Some(&sha(&data)));
    let got = fetch_all(&[req], &options(tmp.path()), &NoopReporter).unwrap();
    assert_eq!(srv.hits("/big.tar").len(), 3);
    let FetchedContent::File { path, .. } = &got[0].content else {
        panic!()
    };
    assert_eq!(
        std::fs::read(path).unwrap(),
        data,
        "restarted cleanly from byte 0"
    );
}

#[test]
fn slow_server_completes_and_reports_progress() {
    let srv = Server::start();
    let data: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 251) as u8).collect();
    srv.route(
        "/slow.tar",
        Body::bytes(data.clone()),
        Behaviour::Slow {
            chunk: 64 * 1024,
            delay: Duration::from_millis(15),
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.idle_timeout = Duration::from_secs(2);
    let rec = Recorder::default();
    let req = archive("slow", "1", &srv.url("/slow.tar"), Some(&sha(&data)));
    fetch_all(&[req], &opts, &rec).unwrap();
    assert_eq!(
        srv.hits("/slow.tar").len(),
        1,
        "slow is not stalled: no retry"
    );
    let progress: Vec<u64> = rec
        .events()
        .iter()
        .filter_map(|e| e.strip_prefix("progress 0 "))
        .map(|r| r.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(progress.len() >= 4, "{progress:?}");
    assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
    assert_eq!(*progress.last().unwrap(), data.len() as u64);
}

#[test]
fn stalled_server_times_out_and_is_retried() {
    let srv = Server::start();
    srv.route(
        "/stall.tar",
        Body::bytes(vec![7u8; 100_000]),
        Behaviour::Stall {
            after: 1000,
            hold: Duration::from_secs(5),
        },
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.idle_timeout = Duration::from_millis(300);
    opts.attempts = 2;
    let req = archive("stall", "1", &srv.url("/stall.tar"), Some(&"2".repeat(64)));
    let start = std::time::Instant::now();
    let err = fetch_all(&[req], &opts, &NoopReporter).unwrap_err();
    assert!(
        matches!(err, FetchError::Stalled { attempts: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("/stall.tar"), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(srv.hits("/stall.tar").len(), 2);
}

#[test]
fn missing_sha256_is_refused_unless_allowed() {
    let srv = Server::start();
    let data = demo_archive();
    srv.route("/demo.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    let req = archive("demo", "1.0", &srv.url("/demo.tar.gz"), None);
    let err = fetch_all(std::slice::from_ref(&req), &opts, &NoopReporter).unwrap_err();
    assert!(matches!(err, FetchError::MissingChecksum { .. }), "{err}");
    assert!(err.to_string().contains("--allow-unverified"));
    assert!(srv.hits("/demo.tar.gz").is_empty());

    opts.allow_unverified = true;
    let got = fetch_all(&[req], &opts, &NoopReporter).unwrap();
    assert_eq!(got[0].verification, Verification::Unverified);
    assert!(!got[0].is_verified());
    assert_eq!(
        got[0].sha256().unwrap().as_str(),
        sha(&data),
        "recorded for the lock"
    );
}

#[test]
fn invalid_sha256_and_url_are_input_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let bad_sha = archive("demo", "1.0", "/x.tar.gz", Some("abc"));
    let err = fetch_all(&[bad_sha], &options(tmp.path()), &NoopReporter).unwrap_err();
    assert!(matches!(err, FetchError::InvalidChecksum { .. }), "{err}");
    let rel = archive("demo", "1.0", "dist/x.tar.gz", Some(&"a".repeat(64)));
    let err = fetch_all(&[rel], &options(tmp.path()), &NoopReporter).unwrap_err();
    assert!(matches!(err, FetchError::InvalidUrl { .. }), "{err}");
}

#[test]
fn corrupt_cache_entry_is_detected_and_refetched() {
    let srv = Server::start();
    let data = demo_archive();
    srv.route("/demo.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let opts = options(tmp.path());
    let req = archive("demo", "1.0", &srv.url("/demo.tar.gz"), Some(&sha(&data)));
    let got = fetch_all(std::slice::from_ref(&req), &opts, &NoopReporter).unwrap();
    let FetchedContent::File { path, .. } = &got[0].content else {
        panic!()
    };
    std::fs::write(path, b"bit rot").unwrap();
    let again = fetch_all(&[req], &opts, &NoopReporter).unwrap();
    assert_eq!(again[0].origin, Origin::Upstream(srv.url("/demo.tar.gz")));
    assert_eq!(std::fs::read(path).unwrap(), data);
    assert_eq!(srv.hits("/demo.tar.gz").len(), 2);
}

#[test]
fn parallel_fetches_are_bounded_by_jobs() {
    let srv = Server::start();
    let mut reqs = Vec::new();
    for i in 0..6 {
        let data = format!("payload {i}").repeat(10_000).into_bytes();
        let path = format!("/p{i}.tar");
        srv.route(
            &path,
            Body::bytes(data.clone()),
            Behaviour::Slow {
                chunk: 16 * 1024,
                delay: Duration::from_millis(20),
            },
        );
        reqs.push(archive(
            &format!("p{i}"),
            "1",
            &srv.url(&path),
            Some(&sha(&data)),
        ));
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.jobs = 2;
    let inflight = InFlight::default();
    let got = fetch_all(&reqs, &opts, &inflight).unwrap();
    assert_eq!(got.len(), 6);
    for (r, f) in reqs.iter().zip(&got) {
        assert_eq!(r.package, f.package, "results come back in request order");
    }
    assert_eq!(inflight.max.load(Ordering::SeqCst), 2);
}

/// Counts sources in flight (between `started` and `finished`/`failed`).
#[derive(Default)]
struct InFlight {
    now: AtomicUsize,
    max: AtomicUsize,
}

impl stack::fetch::FetchReporter for InFlight {
    fn started(&self, _: usize, _: &SourceRequest, _: &str) {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(n, Ordering::SeqCst);
    }
    fn finished(&self, _: usize, _: &stack::fetch::Fetched) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
    fn failed(&self, _: usize, _: &FetchError) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
}

#[test]
fn several_failures_are_all_reported() {
    let srv = Server::start();
    let data = demo_archive();
    srv.route("/ok.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let reqs = vec![
        archive(
            "a",
            "1",
            &srv.url("/missing-a.tar.gz"),
            Some(&"1".repeat(64)),
        ),
        archive("b", "1", &srv.url("/ok.tar.gz"), Some(&sha(&data))),
        archive(
            "c",
            "1",
            &srv.url("/missing-c.tar.gz"),
            Some(&"2".repeat(64)),
        ),
    ];
    let rec = Recorder::default();
    let err = fetch_all(&reqs, &options(tmp.path()), &rec).unwrap_err();
    let FetchError::Multiple(errors) = &err else {
        panic!("{err}")
    };
    assert_eq!(errors.len(), 2);
    assert!(err.to_string().starts_with("2 sources failed"), "{err}");
    assert_eq!(
        rec.count("finished 1"),
        1,
        "the good source was still fetched"
    );
}

#[test]
fn unexpanded_payload_is_copied_as_is() {
    let srv = Server::start();
    let payload = b"#!/bin/sh\necho installer\n".to_vec();
    srv.route(
        "/dl/cuda_12.4_linux.run",
        Body::bytes(payload.clone()),
        Behaviour::Ok,
    );
    let tmp = tempfile::tempdir().unwrap();
    let req = SourceRequest {
        mirror_name: None,
        package: "cuda".into(),
        version: "12.4".into(),
        source: Source::Archive {
            url: srv.url("/dl/cuda_12.4_linux.run"),
            sha256: Some(sha(&payload)),
            expand: false,
            max_size: None,
        },
    };
    let got = fetch_all(&[req], &options(&tmp.path().join("c")), &NoopReporter).unwrap();
    let dest = tmp.path().join("stage");
    let staged = stage(&got[0], &dest).unwrap();
    assert_eq!(staged.stripped, None);
    assert_eq!(
        std::fs::read(dest.join("cuda_12.4_linux.run")).unwrap(),
        payload
    );
}
