//! Two fetches sharing one cache at the same time (two threads, and two processes) both succeed,
//! download each source once, and leave a valid cache.

use std::process::Command;
use std::time::Duration;

use crate::harness::fetch::*;
use crate::harness::http::{Behaviour, Body, Server};
use stack::fetch::{SourceRequest, fetch_all, sha256_file};

const CHILD_ENV: &str = "STACK_FETCH_TEST_CHILD";

/// Four sources of 1 MiB each, served slowly enough that two fetches overlap.
fn serve(srv: &Server) -> Vec<SourceRequest> {
    (0..4u8)
        .map(|i| {
            let data: Vec<u8> = (0..(1u32 << 20))
                .map(|j| (j as u8).wrapping_mul(i + 3))
                .collect();
            let path = format!("/src{i}.tar");
            srv.route(
                &path,
                Body::bytes(data.clone()),
                Behaviour::Slow {
                    chunk: 128 * 1024,
                    delay: Duration::from_millis(40),
                },
            );
            archive(
                &format!("pkg{i}"),
                "1.0",
                &srv.url(&path),
                Some(&sha(&data)),
            )
        })
        .collect()
}

/// Every archive in the cache is named by its content's sha256, and no temp file is left.
fn assert_cache_valid(cache: &std::path::Path, expected: usize) {
    let files = cache_archives(cache);
    assert_eq!(files.len(), expected, "{files:?}");
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(sha256_file(&f).unwrap().as_str(), name, "{}", f.display());
    }
}

#[test]
fn two_threads_share_one_cache() {
    let srv = Server::start();
    let reqs = serve(&srv);
    let tmp = tempfile::tempdir().unwrap();
    let opts = options(tmp.path());
    let (ra, rb) = (Recorder::default(), Recorder::default());
    std::thread::scope(|s| {
        let a = s.spawn(|| fetch_all(&reqs, &opts, &ra));
        let b = s.spawn(|| fetch_all(&reqs, &opts, &rb));
        let (a, b) = (a.join().unwrap().unwrap(), b.join().unwrap().unwrap());
        assert_eq!(a.len(), 4);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.content, y.content);
        }
    });
    for i in 0..4 {
        assert_eq!(
            srv.hits(&format!("/src{i}.tar")).len(),
            1,
            "downloaded once"
        );
    }
    assert_cache_valid(tmp.path(), 4);
    // They really overlapped: one of them waited for the other's entry locks.
    assert!(ra.count("waiting") + rb.count("waiting") >= 1);
}

#[test]
fn two_processes_share_one_cache() {
    let srv = Server::start();
    let reqs = serve(&srv);
    let tmp = tempfile::tempdir().unwrap();
    let spec: Vec<String> = reqs
        .iter()
        .map(|r| {
            let stack::fetch::Source::Archive { url, sha256, .. } = &r.source else {
                unreachable!()
            };
            format!("{} {url} {}", r.package, sha256.as_deref().unwrap())
        })
        .collect();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "fetch_concurrent::child_fetch",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_ENV, spec.join("\n"))
                .env("STACK_FETCH_TEST_CACHE", tmp.path())
                .output_async()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "child failed:\n{text}");
        assert!(text.contains("child fetched 4"), "{text}");
        if let Some(line) = text.lines().find(|l| l.contains("child fetched")) {
            eprintln!("{line}");
        }
    }
    for i in 0..4 {
        assert_eq!(
            srv.hits(&format!("/src{i}.tar")).len(),
            1,
            "downloaded once"
        );
    }
    assert_cache_valid(tmp.path(), 4);
}

/// The body of each child process of `two_processes_share_one_cache` (a no-op otherwise).
#[test]
fn child_fetch() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let cache = std::env::var("STACK_FETCH_TEST_CACHE").unwrap();
    let reqs: Vec<SourceRequest> = spec
        .lines()
        .map(|l| {
            let mut it = l.split(' ');
            let (name, url, sha) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            archive(name, "1.0", url, Some(sha))
        })
        .collect();
    let rec = Recorder::default();
    let got = fetch_all(&reqs, &options(std::path::Path::new(&cache)), &rec).unwrap();
    println!(
        "child fetched {} (waited for {} locks)",
        got.len(),
        rec.count("waiting")
    );
}

trait SpawnExt {
    fn output_async(&mut self) -> std::process::Child;
}

impl SpawnExt for Command {
    fn output_async(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }
}
