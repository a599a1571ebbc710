//! `max_size:` of a version or resource (issue 13): the recipe raises or
//! lowers the default limits (16 GiB per download, 64 GiB per extraction);
//! the fetcher and the extractor enforce it with an error naming the source,
//! its recipe limit and the key to change. Over the loopback HTTP server.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use crate::harness::Stack;
use crate::harness::fetch::*;
use crate::harness::http::{Behaviour, Body, Server};
use stack::fetch::{NoopReporter, Source, fetch_all};

/// A project whose one package `big@1.0` comes from `url` with `extra`
/// (e.g. `max_size: 1 MiB`) in its version entry.
fn project(t: &Path, url: &str, sha256: &str, extra: &str) {
    let write = |rel: &str, text: &str| {
        let p = t.join(rel);
        fs_err::create_dir_all(p.parent().unwrap()).unwrap();
        fs_err::write(p, text).unwrap();
    };
    write(
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    write(
        "recipes/big.yaml",
        &format!(
            "name: big\ndescription: a large source\nversions:\n  - {{version: \"1.0\", url: \"{url}\", sha256: {sha256}{extra}}}\n\
             build:\n  system: generic\n  install: [{{copy: \"*\", to: share}}]\n"
        ),
    );
    write(
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [big]\n",
    );
}

#[test]
fn a_smaller_max_size_stops_the_download_naming_the_source_and_the_key() {
    let srv = Server::start();
    let data = vec![7u8; 3 << 20];
    srv.route("/big-1.0.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(
        t,
        &srv.url("/big-1.0.tar.gz"),
        &sha(&data),
        ", max_size: 1 MiB",
    );
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["fetch", "stacks/s.yaml"])
        .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
        .run()
        .code_flat();
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("big@1.0: "), "{out}");
    assert!(out.contains("the download exceeds 1048576 bytes"), "{out}");
    assert!(out.contains("the recipe's `max_size:`"), "{out}");
    assert_eq!(srv.hits("/big-1.0.tar.gz").len(), 1, "not retried");
    assert!(
        cache_archives(&t.join("cache")).is_empty(),
        "nothing cached"
    );

    // Without `max_size:` the default admits it.
    project(t, &srv.url("/big-1.0.tar.gz"), &sha(&data), "");
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["fetch", "stacks/s.yaml"])
        .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
        .run()
        .code_flat();
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_larger_max_size_admits_what_the_default_refuses() {
    let srv = Server::start();
    let data = vec![9u8; 3_000_000];
    srv.route("/big.tar.gz", Body::bytes(data.clone()), Behaviour::Ok);
    let tmp = tempfile::tempdir().unwrap();
    let mut opts = options(tmp.path());
    opts.max_download = 1_000_000;
    let plain = archive("big", "1.0", &srv.url("/big.tar.gz"), Some(&sha(&data)));
    let err = fetch_all(std::slice::from_ref(&plain), &opts, &NoopReporter).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("big@1.0: ") && text.contains("larger `max_size:`"),
        "{text}"
    );
    let mut raised = plain.clone();
    if let Source::Archive { max_size, .. } = &mut raised.source {
        *max_size = Some(4_000_000);
    }
    let fetched = fetch_all(&[raised], &opts, &NoopReporter).unwrap();
    assert_eq!(fetched[0].max_size, Some(4_000_000));
}

/// A 4 MiB file of zeros, compressed to a few KiB.
fn zeros_tarball(dir: &Path) -> std::path::PathBuf {
    let src = dir.join("big-1.0");
    fs_err::create_dir_all(&src).unwrap();
    let mut f = fs_err::File::create(src.join("zeros.bin")).unwrap();
    f.write_all(&vec![0u8; 4 << 20]).unwrap();
    let st = Command::new("tar")
        .args(["czf", "big-1.0.tar.gz", "big-1.0"])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success());
    dir.join("big-1.0.tar.gz")
}

#[test]
fn max_size_bounds_the_extraction_too() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fs_err::create_dir_all(t.join("src")).unwrap();
    let archive = zeros_tarball(&t.join("src"));
    let bytes = fs_err::read(&archive).unwrap();
    assert!(bytes.len() < 1 << 20, "the download is under the limit");
    let srv = Server::start();
    srv.route("/big-1.0.tar.gz", Body::bytes(bytes.clone()), Behaviour::Ok);
    project(
        t,
        &srv.url("/big-1.0.tar.gz"),
        &sha(&bytes),
        ", max_size: 1 MiB",
    );
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["build", "stacks/s.yaml", "--build", "build"])
        .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
        .run()
        .code_flat();
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("big@1.0"), "{out}");
    assert!(
        out.contains("expands the archive beyond 1048576 bytes, the recipe's `max_size:`"),
        "{out}"
    );

    project(
        t,
        &srv.url("/big-1.0.tar.gz"),
        &sha(&bytes),
        ", max_size: 5 MiB",
    );
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["build", "stacks/s.yaml", "--build", "build"])
        .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
        .run()
        .code_flat();
    assert_eq!(code, 0, "{out}");
}

#[test]
fn check_rejects_a_bad_max_size_with_its_position() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(
        t,
        "http://127.0.0.1:9/x.tar.gz",
        &"0".repeat(64),
        ", max_size: 2 GB",
    );
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["check", "stacks/s.yaml"])
        .args(["--cluster", "cluster-configs/local"])
        .run()
        .code_flat();
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("`max_size: 2 GB` is not a size: unknown unit `GB`"),
        "{out}"
    );
    assert!(out.contains("big.yaml:4:"), "{out}");
}
