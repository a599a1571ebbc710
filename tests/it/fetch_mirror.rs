//! Mirrors: Spack-layout mirrors over HTTP and file://, tried before upstream; `mirror::create`
//! for air-gapped sites; the dry-run plan.

use crate::harness::fetch::*;
use crate::harness::http::{Behaviour, Body, Server};
use stack::fetch::{FetchError, NoopReporter, Origin, Source, SourceRequest, fetch_all, mirror};

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
fn http_mirror_hit_skips_upstream() {
    let mirror_srv = Server::start();
    let upstream = Server::start();
    let data = demo_archive();
    let digest = sha(&data);
    let cs_path = format!("/m/_source-cache/archive/{}/{digest}.tar.gz", &digest[..2]);
    mirror_srv.route(&cs_path, Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.mirrors = vec![mirror_srv.url("/m")];
    let req = archive(
        "demo",
        "1.0",
        &upstream.url("/demo-1.0.tar.gz"),
        Some(&digest),
    );
    let got = fetch_all(&[req], &opts, &NoopReporter).unwrap();
    assert_eq!(got[0].origin, Origin::Mirror(mirror_srv.url(&cs_path)));
    assert!(upstream.hits("/demo-1.0.tar.gz").is_empty());
}

#[test]
fn file_mirror_hit_by_name() {
    let upstream = Server::start();
    let data = demo_archive();
    let tmp = tempfile::tempdir().unwrap();
    let mdir = tmp.path().join("mirror");
    std::fs::create_dir_all(mdir.join("demo")).unwrap();
    std::fs::write(mdir.join("demo/demo-1.0.tar.gz"), &data).unwrap();
    let mut opts = options(&tmp.path().join("cache"));
    opts.mirrors = vec![format!("file://{}", mdir.display())];
    let req = archive(
        "demo",
        "1.0",
        &upstream.url("/demo-1.0.tar.gz"),
        Some(&sha(&data)),
    );
    let got = fetch_all(&[req], &opts, &NoopReporter).unwrap();
    assert!(
        matches!(&got[0].origin, Origin::Mirror(m) if m.ends_with("demo/demo-1.0.tar.gz")),
        "{:?}",
        got[0].origin
    );
    assert!(upstream.hits("/demo-1.0.tar.gz").is_empty());
}

#[test]
fn mirror_miss_then_upstream() {
    let mirror_srv = Server::start();
    let upstream = Server::start();
    let data = demo_archive();
    upstream.route("/demo-1.0.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    // The mirror has the named file, but with other content: a mismatch is a miss too.
    mirror_srv.route(
        "/m/demo/demo-1.0.tar.gz",
        Body::bytes(b"stale".to_vec()),
        Behaviour::Ok,
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.mirrors = vec![
        mirror_srv.url("/m"),
        format!("file://{}", tmp.path().join("no-such-mirror").display()),
    ];
    let rec = Recorder::default();
    let req = archive(
        "demo",
        "1.0",
        &upstream.url("/demo-1.0.tar.gz"),
        Some(&sha(&data)),
    );
    let got = fetch_all(&[req], &opts, &rec).unwrap();
    assert_eq!(
        got[0].origin,
        Origin::Upstream(upstream.url("/demo-1.0.tar.gz"))
    );
    assert_eq!(mirror_srv.hits("/m/demo/demo-1.0.tar.gz").len(), 1);
    // Two HTTP mirror paths and upstream; the missing file:// mirror files never start a transfer.
    assert_eq!(rec.count("transfer 0"), 3, "{:?}", rec.events());
}

#[test]
fn every_location_failing_lists_each() {
    let mirror_srv = Server::start();
    let upstream = Server::start();
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.mirrors = vec![mirror_srv.url("/m")];
    let req = archive(
        "demo",
        "1.0",
        &upstream.url("/demo-1.0.tar.gz"),
        Some(&"a".repeat(64)),
    );
    let err = fetch_all(&[req], &opts, &NoopReporter).unwrap_err();
    let FetchError::AllLocationsFailed { package, attempts } = &err else {
        panic!("{err}")
    };
    assert_eq!(package, "demo@1.0");
    assert_eq!(attempts.len(), 3);
    let msg = err.to_string();
    assert!(
        msg.contains("/m/_source-cache/archive/aa/") && msg.contains("/demo-1.0.tar.gz: HTTP 404"),
        "{msg}"
    );
}

#[test]
fn mirror_create_then_fetch_from_it_offline() {
    let srv = Server::start();
    let data = demo_archive();
    let payload = b"binary payload".to_vec();
    srv.route("/demo-1.0.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    srv.route("/tool.run", Body::bytes(payload.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let reqs = vec![
        archive(
            "demo",
            "1.0",
            &srv.url("/demo-1.0.tar.gz"),
            Some(&sha(&data)),
        ),
        SourceRequest {
            mirror_name: None,
            package: "tool".into(),
            version: "2".into(),
            source: Source::Archive {
                url: srv.url("/tool.run"),
                sha256: Some(sha(&payload)),
                expand: false,
                max_size: None,
            },
        },
    ];
    let mdir = tmp.path().join("mirror");
    let report = mirror::create(
        &reqs,
        &mdir,
        &options(&tmp.path().join("c1")),
        &NoopReporter,
    )
    .unwrap();
    assert_eq!(report.entries.len(), 2);
    assert!(report.entries.iter().all(|e| e.added));
    let d = sha(&data);
    assert_eq!(
        std::fs::read(mdir.join(format!("_source-cache/archive/{}/{d}.tar.gz", &d[..2]))).unwrap(),
        data
    );
    assert_eq!(
        std::fs::read(mdir.join("demo/demo-1.0.tar.gz")).unwrap(),
        data
    );
    let link = std::fs::read_link(mdir.join("tool/tool-2.run")).unwrap();
    assert!(link.starts_with("../_source-cache/archive"), "{link:?}");

    // Again: nothing new.
    let again = mirror::create(
        &reqs,
        &mdir,
        &options(&tmp.path().join("c1")),
        &NoopReporter,
    )
    .unwrap();
    assert!(again.entries.iter().all(|e| !e.added));

    // An air-gapped fetch: upstream points nowhere, fresh cache, mirror as a plain path.
    let offline: Vec<SourceRequest> = reqs
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if let Source::Archive { url, .. } = &mut r.source {
                *url = url.replace(&srv.base(), "http://127.0.0.1:9");
            }
            r
        })
        .collect();
    let mut opts = options(&tmp.path().join("c2"));
    opts.mirrors = vec![mdir.display().to_string()];
    let got = fetch_all(&offline, &opts, &NoopReporter).unwrap();
    assert!(got.iter().all(|f| matches!(f.origin, Origin::Mirror(_))));
}

#[test]
fn dry_run_plan_lists_cache_hits_and_locations() {
    let srv = Server::start();
    let data = demo_archive();
    srv.route("/demo-1.0.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.mirrors = vec!["file:///srv/mirror".into()];
    let digest = sha(&data);
    let reqs = vec![
        archive("demo", "1.0", &srv.url("/demo-1.0.tar.gz"), Some(&digest)),
        archive("nosum", "2", &srv.url("/nosum-2.zip"), None),
    ];
    let before = stack::fetch::plan(&reqs, &opts);
    assert_eq!(before[0].verified_by, format!("sha256:{digest}"));
    assert_eq!(before[0].cached, None);
    assert_eq!(
        before[0].locations,
        vec![
            format!(
                "file:///srv/mirror/_source-cache/archive/{}/{digest}.tar.gz",
                &digest[..2]
            ),
            "file:///srv/mirror/demo/demo-1.0.tar.gz".to_string(),
            srv.url("/demo-1.0.tar.gz"),
        ]
    );
    assert!(matches!(
        before[1].problem,
        Some(FetchError::MissingChecksum { .. })
    ));
    fetch_all(&reqs[..1], &opts, &NoopReporter).unwrap();
    let after = stack::fetch::plan(&reqs, &opts);
    assert!(after[0].cached.is_some());
    assert!(
        srv.hits("/nosum-2.zip").is_empty(),
        "a dry run never downloads"
    );
}
