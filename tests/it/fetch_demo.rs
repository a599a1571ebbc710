//! The demo stack's real sources (tests/fixtures/demo/dist, with their SHA256SUMS) go through the
//! same path a build uses: fetch (verify, cache) → stage (safe extraction) → patch.

use std::path::{Path, PathBuf};

use crate::harness::fetch::*;
use stack::fetch::{NoopReporter, Origin, fetch_all, stage};
use stack::patch::{PatchFile, apply};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn demo_sources_fetch_stage_and_patch() {
    let dist = repo_root().join("tests/fixtures/demo/dist");
    let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap();
    let requests: Vec<_> = sums
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (sha, file) = l.split_once("  ").unwrap();
            let (name, version) = file.trim_end_matches(".tar.gz").rsplit_once('-').unwrap();
            archive(name, version, dist.join(file).to_str().unwrap(), Some(sha))
        })
        .collect();
    assert!(requests.len() >= 5, "{requests:?}");

    let tmp = tempfile::tempdir().unwrap();
    let opts = options(&tmp.path().join("cache"));
    let fetched = fetch_all(&requests, &opts, &NoopReporter).unwrap();
    assert!(
        fetched
            .iter()
            .all(|f| matches!(f.origin, Origin::Upstream(_)))
    );
    let again = fetch_all(&requests, &opts, &NoopReporter).unwrap();
    assert!(again.iter().all(|f| f.origin == Origin::Cache));

    for f in &fetched {
        let dest = tmp.path().join("stage").join(&f.package);
        let staged = stage(f, &dest).unwrap_or_else(|e| panic!("{}: {e}", f.label()));
        assert!(
            staged.stripped.is_some(),
            "{}: release tarballs have one top-level directory",
            f.label()
        );
        assert!(staged.entries > 0);
    }

    // hello-make's recipe patch applies to its staged source.
    let patch = repo_root().join("stacks/demo/patches/hello-make/greet-patched-stack.patch");
    let text = std::fs::read(&patch).unwrap();
    let hello = tmp.path().join("stage/hello-make");
    let applied = apply(
        "hello-make@1.0",
        &hello,
        &[PatchFile {
            path: patch.clone(),
            sha256: sha(&text),
            level: 1,
            working_dir: None,
        }],
    )
    .unwrap();
    assert_eq!(applied[0].files, vec!["hellomsg.c"]);
    let source = std::fs::read_to_string(hello.join("hellomsg.c")).unwrap();
    assert!(source.contains("\"patched stack\""), "{source}");
    assert!(Path::new(&hello).join("Makefile").is_file());
}
