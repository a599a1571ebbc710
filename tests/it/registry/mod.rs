//! `stack push`, `pull`, `images` and the binary cache against a real
//! registry (Debian's docker-registry on loopback, TLS with a test CA,
//! htpasswd basic auth), checked with skopeo and the oras Python client,
//! and with faults injected by a loopback proxy or by killing the registry.

mod cache;
mod ci;
mod faults;
mod hostile;
mod hostile_cache;
mod proxy;

use std::path::Path;
use std::process::{Command, Output};

use crate::harness::root;

use crate::harness::registry::{PASSWORD, TestRegistry, USER, stack_client};

/// Run with the password on stdin.
fn with_password(cmd: &mut Command, password: &str) -> Output {
    use std::io::Write;
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("spawn stack");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{password}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    eprintln!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `stack ARGS --ca-file CA --username alice --password-stdin`.
fn authed(reg: &TestRegistry, args: &[&str]) -> Output {
    let mut c = stack_client();
    c.args(args)
        .arg("--ca-file")
        .arg(reg.ca())
        .args(["--username", USER, "--password-stdin"]);
    with_password(&mut c, PASSWORD)
}

/// stdout and stderr, with miette's line wrapping undone.
fn text(o: &Output) -> String {
    let t = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    t.replace("\n  | ", " ").replace("  | ", "")
}

/// Deterministic pseudo-random bytes.
fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// A build directory as `stack push` takes it: store.squashfs and meta/.
fn image_dir(size: usize, seed: u64) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    fs_err::write(d.path().join("store.squashfs"), bytes(size, seed)).unwrap();
    fs_err::create_dir_all(d.path().join("meta/recipe")).unwrap();
    fs_err::write(d.path().join("meta/env.json"), r#"{"name":"demo"}"#).unwrap();
    fs_err::write(d.path().join("meta/recipe/stack.yaml"), "name: demo\n").unwrap();
    d
}

fn same_file(a: &Path, b: &Path) -> bool {
    fs_err::read(a).unwrap() == fs_err::read(b).unwrap()
}

fn skopeo_raw(reg: &TestRegistry, repo_tag: &str) -> serde_json::Value {
    let out = Command::new("skopeo")
        .args(["inspect", "--raw", "--tls-verify=false", "--creds"])
        .arg(format!("{USER}:{PASSWORD}"))
        .arg(format!("docker://{}/{repo_tag}", reg.host()))
        .output()
        .expect("skopeo is installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn push_pull_and_list_over_tls_with_basic_auth() {
    let reg = TestRegistry::start_tls();
    let img = image_dir(300_000, 1);
    let label = format!("{}/deploy/demo/1.0:v1@testsys%zen3", reg.host());
    let out = authed(&reg, &["push", img.path().to_str().unwrap(), &label, "-q"]);
    assert!(out.status.success());
    assert!(text(&out).contains("demo/1.0:v1@testsys%zen3"));

    // The layout uenv (through oras) reads, as skopeo sees it.
    let m = skopeo_raw(&reg, "deploy/testsys/zen3/demo/1.0:v1");
    assert_eq!(m["artifactType"], "application/x-squashfs");
    assert_eq!(
        m["config"]["mediaType"],
        "application/vnd.oci.empty.v1+json"
    );
    assert_eq!(m["layers"].as_array().unwrap().len(), 1);
    assert_eq!(
        m["layers"][0]["annotations"]["org.opencontainers.image.title"],
        "store.squashfs"
    );
    assert_eq!(m["layers"][0]["size"], 300_000);
    // meta/ is a referrer, found through the referrers tag schema (distribution 2.8 has no API).
    let out = authed(&reg, &["push", img.path().to_str().unwrap(), &label]);
    assert_eq!(out.status.code(), Some(1), "an existing tag is refused");
    assert!(text(&out).contains("already exists") && text(&out).contains("--force"));
    let out = authed(
        &reg,
        &[
            "push",
            img.path().to_str().unwrap(),
            &label,
            "--force",
            "-q",
        ],
    );
    assert!(out.status.success());

    let to = tempfile::tempdir().unwrap();
    let out = authed(
        &reg,
        &[
            "pull",
            &label,
            "--to",
            to.path().to_str().unwrap(),
            "--allow-unsigned",
            "-q",
        ],
    );
    assert!(out.status.success());
    assert!(same_file(
        &to.path().join("store.squashfs"),
        &img.path().join("store.squashfs")
    ));
    assert_eq!(
        fs_err::read_to_string(to.path().join("meta/recipe/stack.yaml")).unwrap(),
        "name: demo\n"
    );
    let leftovers: Vec<_> = fs_err::read_dir(to.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        leftovers.len(),
        2,
        "only store.squashfs and meta/: {leftovers:?}"
    );

    // The OCI form of the address is the same image.
    let oci = format!("{}/deploy/testsys/zen3/demo/1.0:v2", reg.host());
    assert!(
        authed(&reg, &["push", img.path().to_str().unwrap(), &oci, "-q"])
            .status
            .success()
    );
    let out = authed(
        &reg,
        &[
            "images",
            &format!("{}/deploy", reg.host()),
            "--format",
            "json",
        ],
    );
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let labels: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["demo/1.0:v1@testsys%zen3", "demo/1.0:v2@testsys%zen3"]
    );
    assert_eq!(list[0]["size"], 300_000);
    assert_eq!(list[0]["system"], "testsys");
    assert_eq!(list[0]["uarch"], "zen3");
}

#[test]
fn wrong_password_and_unknown_ca_are_clear_errors_without_secrets() {
    let reg = TestRegistry::start_tls();
    let img = image_dir(1000, 2);
    let label = format!("{}/deploy/demo/1.0:v1@s%u", reg.host());
    let mut c = stack_client();
    c.args(["push", img.path().to_str().unwrap(), &label, "--ca-file"])
        .arg(reg.ca())
        .args(["--username", USER, "--password-stdin"]);
    let out = with_password(&mut c, "wrong-password-xyz");
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out);
    assert!(t.contains("authentication failed (HTTP 401)"), "{t}");
    assert!(!t.contains("wrong-password-xyz"));
    // Without the test CA the certificate is not trusted.
    let mut c = stack_client();
    c.args(["push", img.path().to_str().unwrap(), &label])
        .args(["--username", USER, "--password-stdin", "--retries", "1"]);
    let out = with_password(&mut c, PASSWORD);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).to_lowercase().contains("certificate"),
        "{}",
        text(&out)
    );
    // Credentials from a docker config.json.
    let cfg = tempfile::tempdir().unwrap();
    use base64::Engine;
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    fs_err::write(
        cfg.path().join("config.json"),
        format!(r#"{{"auths":{{"{}":{{"auth":"{auth}"}}}}}}"#, reg.host()),
    )
    .unwrap();
    let out = stack_client()
        .args([
            "push",
            img.path().to_str().unwrap(),
            &label,
            "-q",
            "--ca-file",
        ])
        .arg(reg.ca())
        .env("DOCKER_CONFIG", cfg.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn signed_images_verify_and_unsigned_or_foreign_ones_are_refused() {
    let reg = TestRegistry::start_tls();
    let keys = tempfile::tempdir().unwrap();
    for k in ["site", "other"] {
        let out = stack_client()
            .args(["key", "generate"])
            .arg(keys.path().join(k))
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    let key = |n: &str| keys.path().join(n).to_str().unwrap().to_string();
    let img = image_dir(5000, 3);
    let signed = format!("{}/deploy/demo/1.0:signed@s%u", reg.host());
    let unsigned = format!("{}/deploy/demo/2.0:unsigned@s%u", reg.host());
    let src = img.path().to_str().unwrap();
    assert!(
        authed(
            &reg,
            &["push", src, &signed, "--sign-key", &key("site.key"), "-q"]
        )
        .status
        .success()
    );
    assert!(
        authed(&reg, &["push", src, &unsigned, "-q"])
            .status
            .success()
    );
    let to = tempfile::tempdir().unwrap();
    let dir = to.path().to_str().unwrap();
    let out = authed(
        &reg,
        &[
            "pull",
            &signed,
            "--to",
            dir,
            "--trusted-key",
            &key("site.pub"),
            "-q",
        ],
    );
    assert!(out.status.success());
    assert!(text(&out).contains("signed by"));
    let out = authed(
        &reg,
        &[
            "pull",
            &signed,
            "--to",
            dir,
            "--trusted-key",
            &key("other.pub"),
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("no signature by a trusted key"),
        "{}",
        text(&out)
    );
    fs_err::remove_dir_all(to.path()).unwrap();
    let out = authed(
        &reg,
        &[
            "pull",
            &unsigned,
            "--to",
            dir,
            "--trusted-key",
            &key("site.pub"),
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("not signed"));
    assert!(
        !to.path().join("store.squashfs").exists(),
        "nothing installed"
    );
    let out = authed(
        &reg,
        &["pull", &unsigned, "--to", dir, "--allow-unsigned", "-q"],
    );
    assert!(out.status.success());
}

#[test]
fn oras_reads_what_stack_writes_and_the_other_way_round() {
    let reg = TestRegistry::start_tls();
    let img = image_dir(200_000, 4);
    let script = root().join("tests/fixtures/registry/oras_client.py");
    let oras = |args: &[&str]| {
        let out = Command::new("python3")
            .arg(&script)
            .args(args)
            .env("ORAS_USER", USER)
            .env("ORAS_PASSWORD", PASSWORD)
            .env("ORAS_CA", reg.ca())
            .output()
            .expect("python3");
        assert!(
            out.status.success(),
            "oras: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // oras pulls what stack pushed.
    let label = format!("{}/deploy/demo/1.0:v1@s%u", reg.host());
    assert!(
        authed(&reg, &["push", img.path().to_str().unwrap(), &label, "-q"])
            .status
            .success()
    );
    let out = tempfile::tempdir().unwrap();
    oras(&[
        "pull",
        &format!("{}/deploy/s/u/demo/1.0:v1", reg.host()),
        out.path().to_str().unwrap(),
    ]);
    assert!(same_file(
        &out.path().join("store.squashfs"),
        &img.path().join("store.squashfs")
    ));
    // stack pulls what oras pushed, meta/ included.
    let other = image_dir(100_000, 5);
    oras(&[
        "push",
        &format!("{}/deploy/s/u/orasimg/2.0:v1", reg.host()),
        other.path().to_str().unwrap(),
    ]);
    let to = tempfile::tempdir().unwrap();
    let out = authed(
        &reg,
        &[
            "pull",
            &format!("{}/deploy/orasimg/2.0:v1@s%u", reg.host()),
            "--to",
            to.path().to_str().unwrap(),
            "--allow-unsigned",
            "-q",
        ],
    );
    assert!(out.status.success());
    assert!(same_file(
        &to.path().join("store.squashfs"),
        &other.path().join("store.squashfs")
    ));
    assert!(to.path().join("meta/env.json").is_file());
}
