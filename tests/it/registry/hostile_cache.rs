//! Issue 40, item 6, for the binary cache: a prefix blob streamed past its
//! descriptor's size stops there (the server gets little out), the entry is
//! rejected and the package built from source.

use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::proxy::{Action, Proxy};
use super::text;
use crate::harness::registry::TestRegistry;
use crate::harness::registry::stack_client;

/// `stack build` of the tiny project in `t` with the binary cache at `host`.
fn build(t: &Path, host: &str, extra: &[&str]) -> Output {
    let out = stack_client()
        .current_dir(t)
        .args([
            "build",
            "stacks/s.yaml",
            "--cluster",
            "cluster-configs/local",
        ])
        .args(["--cache", "cache", "--build", "build", "-j", "2"])
        .arg("--binary-cache")
        .arg(format!("oci://{host}/cache"))
        .args(["--plain-http", "--allow-unsigned", "--retries", "1"])
        .args(extra)
        .env_remove("STACK_REPOS")
        .output()
        .unwrap();
    eprintln!("{}", text(&out));
    out
}

#[test]
fn a_cached_prefix_larger_than_announced_stops_and_is_rebuilt() {
    let reg = TestRegistry::start_plain();
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    crate::verify_outside::project(t);
    let out = build(t, &reg.host(), &[]);
    assert!(out.status.success());
    assert!(text(&out).contains("1 pushed"), "{}", text(&out));
    let image = fs_err::read(t.join("build/store.squashfs")).unwrap();

    // A fresh build directory: the prefix blob streams zeros.
    fs_err::remove_dir_all(t.join("build")).unwrap();
    let sent = Arc::new(AtomicU64::new(0));
    let s = sent.clone();
    let gets = Arc::new(AtomicUsize::new(0));
    let proxy = Proxy::start(reg.port, move |seen| {
        // The first blob a fetch from the cache reads is the prefix tarball.
        if seen.method == "GET"
            && seen.path.contains("/blobs/sha256:")
            && gets.fetch_add(1, Ordering::SeqCst) == 0
        {
            return Action::Endless {
                status: 200,
                headers: vec![],
                announce: None,
                sent: s.clone(),
            };
        }
        Action::Forward
    });
    let out = build(t, &proxy.host(), &["--no-push"]);
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("more than announced"), "{shown}");
    assert!(shown.contains("0 installed, 1 rejected"), "{shown}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let n = sent.load(Ordering::SeqCst);
    assert!(n < 32 << 20, "the server got {n} bytes out");
    // Built from source instead: the same image.
    assert_eq!(image, fs_err::read(t.join("build/store.squashfs")).unwrap());
}
