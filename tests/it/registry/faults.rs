//! Faults: 5xx answers, dropped connections, truncated and corrupted
//! bodies, a slow server, and the registry killed mid-push and mid-pull.
//! The registry speaks plain HTTP behind a loopback proxy that injects them.

use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::time::Duration;

use super::proxy::{Action, Proxy, Seen};
use super::{image_dir, same_file, text};
use crate::harness::registry::TestRegistry;
use crate::harness::registry::stack_client;

fn plain(proxy: &Proxy, args: &[&str]) -> Output {
    let out = stack_client()
        .args(args)
        .args(["--plain-http", "-q"])
        .output()
        .unwrap();
    eprintln!("{}", text(&out));
    let _ = proxy;
    out
}

fn is_blob_get(s: &Seen) -> bool {
    s.method == "GET" && s.path.contains("/blobs/sha256:")
}

/// Every entry in `dir` (to check nothing half-installed is left).
fn entries(dir: &std::path::Path) -> Vec<String> {
    fs_err::read_dir(dir)
        .map(|r| {
            r.map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn transient_failures_are_retried_and_chunked_uploads_resume() {
    let reg = TestRegistry::start_plain();
    let patches = Arc::new(AtomicUsize::new(0));
    let blob_gets = Arc::new(AtomicUsize::new(0));
    let (p, b) = (patches.clone(), blob_gets.clone());
    let proxy = Proxy::start(reg.port, move |s| {
        if s.n == 1 {
            return Action::Status(503);
        }
        if s.method == "PATCH" && p.fetch_add(1, Ordering::SeqCst) == 1 {
            return Action::Drop; // the second chunk dies on the way
        }
        if is_blob_get(s) && b.fetch_add(1, Ordering::SeqCst) == 0 {
            return Action::Truncate(10_000); // the first download is cut short
        }
        Action::Forward
    });
    let img = image_dir(150_000, 7);
    let label = format!("{}/deploy/demo/1.0:v1@s%u", proxy.host());
    let out = plain(
        &proxy,
        &[
            "push",
            img.path().to_str().unwrap(),
            &label,
            "--chunk-size",
            "40000",
        ],
    );
    assert!(out.status.success());
    assert!(
        patches.load(Ordering::SeqCst) >= 5,
        "4 chunks and one retried"
    );
    let to = tempfile::tempdir().unwrap();
    let out = plain(
        &proxy,
        &[
            "pull",
            &label,
            "--to",
            to.path().to_str().unwrap(),
            "--allow-unsigned",
        ],
    );
    assert!(out.status.success());
    assert!(same_file(
        &to.path().join("store.squashfs"),
        &img.path().join("store.squashfs")
    ));
}

#[test]
fn persistent_5xx_corrupt_blobs_and_slow_servers_fail_clearly_leaving_nothing() {
    let reg = TestRegistry::start_plain();
    let img = image_dir(50_000, 8);
    let label = format!("{}/deploy/demo/1.0:v1@s%u", reg.host());
    let out = plain(
        &Proxy::start(reg.port, |_| Action::Forward),
        &["push", img.path().to_str().unwrap(), &label],
    );
    assert!(out.status.success());
    let pull = |rule: fn(&Seen) -> Action, extra: &[&str]| {
        let proxy = Proxy::start(reg.port, rule);
        let to = tempfile::tempdir().unwrap();
        let label = format!("{}/deploy/demo/1.0:v1@s%u", proxy.host());
        let mut args = vec![
            "pull",
            &label,
            "--to",
            to.path().to_str().unwrap(),
            "--allow-unsigned",
            "--retries",
            "2",
        ];
        args.extend_from_slice(extra);
        let out = plain(&proxy, &args);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            entries(to.path()).is_empty(),
            "left {:?}",
            entries(to.path())
        );
        text(&out)
    };
    let t = pull(|_| Action::Status(503), &[]);
    assert!(t.contains("HTTP 503"), "{t}");
    let t = pull(
        |s| {
            if is_blob_get(s) {
                Action::Corrupt
            } else {
                Action::Forward
            }
        },
        &[],
    );
    assert!(t.contains("digest mismatch"), "{t}");
    let t = pull(
        |s| {
            if is_blob_get(s) {
                Action::Delay(Duration::from_secs(3))
            } else {
                Action::Forward
            }
        },
        &["--timeout", "1"],
    );
    assert!(
        t.contains("timed out") && t.contains("after 2 attempts"),
        "{t}"
    );
    let t = pull(|_| Action::Status(401), &[]);
    assert!(t.contains("authentication failed (HTTP 401)"), "{t}");
}

#[test]
fn the_registry_killed_mid_push_and_mid_pull() {
    let mut reg = TestRegistry::start_plain();
    let pid = Arc::new(AtomicU32::new(reg.pid()));
    let kill_on_patch = Arc::new(AtomicBool::new(true));
    let kill_on_get = Arc::new(AtomicBool::new(false));
    let (p, kp, kg) = (pid.clone(), kill_on_patch.clone(), kill_on_get.clone());
    let kill = move |pid: u32| {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    };
    let proxy = Proxy::start(reg.port, move |s| {
        let armed = if s.method == "PATCH" {
            &kp
        } else if is_blob_get(s) {
            &kg
        } else {
            return Action::Forward;
        };
        if armed.swap(false, Ordering::SeqCst) {
            kill(p.load(Ordering::SeqCst));
            return Action::Drop;
        }
        Action::Forward
    });
    let img = image_dir(120_000, 9);
    let label = format!("{}/deploy/demo/1.0:v1@s%u", proxy.host());
    let src = img.path().to_str().unwrap();
    let out = plain(
        &proxy,
        &[
            "push",
            src,
            &label,
            "--chunk-size",
            "30000",
            "--retries",
            "2",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("after 2 attempts"), "{}", text(&out));
    reg.restart();
    pid.store(reg.pid(), Ordering::SeqCst);
    // Nothing was tagged: a push now is not refused as existing, and succeeds.
    let out = plain(&proxy, &["push", src, &label, "--chunk-size", "30000"]);
    assert!(out.status.success());
    kill_on_get.store(true, Ordering::SeqCst);
    let to = tempfile::tempdir().unwrap();
    let dir = to.path().to_str().unwrap();
    let out = plain(
        &proxy,
        &[
            "pull",
            &label,
            "--to",
            dir,
            "--allow-unsigned",
            "--retries",
            "2",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        entries(to.path()).is_empty(),
        "left {:?}",
        entries(to.path())
    );
    reg.restart();
    pid.store(reg.pid(), Ordering::SeqCst);
    let out = plain(&proxy, &["pull", &label, "--to", dir, "--allow-unsigned"]);
    assert!(out.status.success());
    assert!(same_file(
        &to.path().join("store.squashfs"),
        &img.path().join("store.squashfs")
    ));
}

/// A registry behind a bearer-token gate: 401 with a `Bearer` challenge
/// pointing at a token endpoint (on the proxy) that hands out `tok-123` for
/// alice's basic credentials; requests pass only with that token.
fn token_gate(upstream: u16) -> Proxy {
    Proxy::start(upstream, |s| {
        let basic = format!(
            "Basic {}",
            base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                format!(
                    "{}:{}",
                    crate::harness::registry::USER,
                    crate::harness::registry::PASSWORD
                )
            )
        );
        if s.path.starts_with("/token?") {
            return match s.auth.as_deref() == Some(basic.as_str())
                && s.path.contains("service=test-registry")
                && s.path.contains("scope=")
            {
                true => Action::Respond(200, vec![], r#"{"token":"tok-123"}"#.into()),
                false => Action::Respond(401, vec![], "bad credentials".into()),
            };
        }
        if s.auth.as_deref() == Some("Bearer tok-123") {
            return Action::Forward;
        }
        let challenge = format!(
            r#"Bearer realm="http://127.0.0.1:{}/token",service="test-registry",scope="repository:deploy:pull,push""#,
            s.port
        );
        Action::Respond(
            401,
            vec![("WWW-Authenticate".into(), challenge)],
            "{}".into(),
        )
    })
}

#[test]
fn bearer_tokens_from_the_realm_or_a_token_file() {
    let reg = TestRegistry::start_plain();
    let proxy = token_gate(reg.port);
    let img = image_dir(20_000, 11);
    let label = format!("{}/deploy/demo/1.0:v1@s%u", proxy.host());
    let mut c = stack_client();
    c.args([
        "push",
        img.path().to_str().unwrap(),
        &label,
        "--plain-http",
        "-q",
    ])
    .args([
        "--username",
        crate::harness::registry::USER,
        "--password-stdin",
    ]);
    let out = super::with_password(&mut c, crate::harness::registry::PASSWORD);
    assert!(out.status.success());
    // The wrong password gets no token.
    let mut c = stack_client();
    c.args([
        "images",
        &format!("{}/deploy", proxy.host()),
        "--plain-http",
    ])
    .args([
        "--username",
        crate::harness::registry::USER,
        "--password-stdin",
    ]);
    let out = super::with_password(&mut c, "nope");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("HTTP 401"), "{}", text(&out));
    // A token file is sent as the bearer token as it is.
    let tok = tempfile::tempdir().unwrap();
    fs_err::write(tok.path().join("token"), "tok-123\n").unwrap();
    let to = tempfile::tempdir().unwrap();
    let out = stack_client()
        .args([
            "pull",
            &label,
            "--plain-http",
            "--allow-unsigned",
            "-q",
            "--to",
        ])
        .arg(to.path())
        .arg("--token-file")
        .arg(tok.path().join("token"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(same_file(
        &to.path().join("store.squashfs"),
        &img.path().join("store.squashfs")
    ));
}
