//! `stack fetch` through the real binary on a one-package project whose
//! source is a local git repository: `--dry-run` shows a git source the
//! cache holds as cached, and a `--mirror` directory that does not exist is
//! bad input (with a warm cache it used to be ignored silently); progress
//! lines name where a source came from in words.

use std::path::Path;
use std::process::Command;

use crate::harness::Stack;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A project with one package built from `upstream` at tag v1.
fn project(t: &Path) {
    let up = t.join("upstream");
    std::fs::create_dir_all(&up).unwrap();
    git(&up, &["init", "-q"]);
    std::fs::write(up.join("README"), "hello\n").unwrap();
    git(&up, &["add", "README"]);
    git(&up, &["commit", "-qm", "one"]);
    git(&up, &["tag", "v1"]);
    let commit = git(&up, &["rev-parse", "HEAD"]);
    let write = |rel: &str, text: String| {
        let p = t.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n"
            .into(),
    );
    write(
        "recipes/gitpkg.yaml",
        format!(
            "name: gitpkg\ndescription: from git\nversions:\n  - {{version: \"1.0\", git: {}, tag: v1, commit: {commit}}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share}}\n",
            up.display()
        ),
    );
    write(
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [gitpkg]\n".into(),
    );
}

fn fetch(t: &Path, extra: &[&str]) -> (i32, String) {
    let out = Stack::bare()
        .command()
        .args(["--color", "never", "fetch", "stacks/s.yaml"])
        .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
        .args(extra)
        .env_remove("STACK_REPOS")
        .current_dir(t)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn dry_run_shows_cached_git_sources_and_missing_mirrors_are_errors() {
    let t = tempfile::tempdir().unwrap();
    project(t.path());
    let (code, text) = fetch(t.path(), &["--dry-run"]);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("[cached]"), "{text}");
    let (code, text) = fetch(t.path(), &[]);
    assert_eq!(code, 0, "{text}");
    // Written for a user, not a Rust debug value (`(Upstream("/path"))`).
    assert!(text.contains("fetched gitpkg@1.0 from /"), "{text}");
    assert!(
        !text.contains("Upstream(") && !text.contains("(Cache)"),
        "{text}"
    );
    let (code, text) = fetch(t.path(), &["--dry-run"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("[cached]"), "{text}");

    for m in ["nowhere", "file:///nonexistent/mirror"] {
        let (code, text) = fetch(t.path(), &["--mirror", m]);
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("no such directory"), "{text}");
    }
    std::fs::create_dir(t.path().join("mirror")).unwrap();
    assert_eq!(fetch(t.path(), &["--mirror", "mirror"]).0, 0);
}

/// Issue 40, item 13: a mirror whose entries fail their checksum is warned
/// about, entry and mirror named, and the summary says how many; the
/// source still comes (verified) from upstream.
#[test]
fn a_corrupt_mirror_is_a_warning_naming_the_entry_and_the_mirror() {
    use sha2::Digest;
    let t = tempfile::tempdir().unwrap();
    project(t.path());
    // An archive source beside the git one.
    let dist = t.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    let tarball = dist.join("tarpkg-1.0.tar.gz");
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    let mut h = tar::Header::new_gnu();
    h.set_size(6);
    h.set_mode(0o644);
    b.append_data(&mut h, "tarpkg-1.0/README", &b"hello\n"[..])
        .unwrap();
    let bytes = b.into_inner().unwrap().finish().unwrap();
    std::fs::write(&tarball, &bytes).unwrap();
    let sha = hex::encode(sha2::Sha256::digest(&bytes));
    std::fs::write(
        t.path().join("recipes/tarpkg.yaml"),
        format!(
            "name: tarpkg\ndescription: from a tarball\nversions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share}}\n",
            tarball.display()
        ),
    )
    .unwrap();
    std::fs::write(
        t.path().join("stacks/s.yaml"),
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [gitpkg, tarpkg]\n",
    )
    .unwrap();
    // The mirror holds other bytes at both paths fetching tries.
    let m = t.path().join("mirror");
    for rel in [
        format!("_source-cache/archive/{}/{sha}.tar.gz", &sha[..2]),
        "tarpkg/tarpkg-1.0.tar.gz".to_string(),
    ] {
        let p = m.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"corrupt").unwrap();
    }
    let mirror = format!("file://{}", m.display());
    let (code, text) = fetch(t.path(), &["--mirror", &mirror]);
    assert_eq!(code, 0, "{text}");
    for entry in [
        format!("{mirror}/_source-cache/archive/{}/{sha}.tar.gz", &sha[..2]),
        format!("{mirror}/tarpkg/tarpkg-1.0.tar.gz"),
    ] {
        let warned = text.lines().any(|l| {
            l.contains("WARN")
                && l.contains("tarpkg@1.0")
                && l.contains(&format!("mirror {mirror}:"))
                && l.contains(&entry)
                && l.contains("fails its checksum")
        });
        assert!(warned, "no warning for {entry}:\n{text}");
    }
    assert!(
        text.contains("from mirrors, 2 upstream")
            && text.contains("2 mirror entries failed their checksum"),
        "{text}"
    );
}

/// A loopback HTTPS file server (`openssl s_server -WWW`) with a
/// certificate of a CA made here; killed when dropped.
struct HttpsFiles {
    child: std::process::Child,
    port: u16,
}

impl HttpsFiles {
    fn start(certs: &Path, root: &Path) -> HttpsFiles {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("openssl")
            .args(["s_server", "-quiet", "-WWW", "-accept"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("-cert")
            .arg(certs.join("server.pem"))
            .arg("-key")
            .arg(certs.join("server.key"))
            .current_dir(root)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("openssl is installed");
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed().as_secs() < 20, "s_server did not start");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        HttpsFiles { child, port }
    }
}

impl Drop for HttpsFiles {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue 40, item 15: https sources and mirrors trust what the registry
/// client trusts: the built-in roots and the system's store plus
/// `SSL_CERT_FILE` and `--ca-file` — here a CA that exists only in a
/// bundle made by the test.
#[test]
fn https_sources_and_mirrors_trust_ssl_cert_file_and_ca_file() {
    use sha2::Digest;
    let t = tempfile::tempdir().unwrap();
    let certs = t.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    crate::harness::registry::make_ca_and_cert(&certs);
    let www = t.path().join("www");
    std::fs::create_dir_all(www.join("mirror/tarpkg")).unwrap();
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    let mut h = tar::Header::new_gnu();
    h.set_size(6);
    h.set_mode(0o644);
    b.append_data(&mut h, "tarpkg-1.0/README", &b"hello\n"[..])
        .unwrap();
    let bytes = b.into_inner().unwrap().finish().unwrap();
    std::fs::write(www.join("tarpkg-1.0.tar.gz"), &bytes).unwrap();
    std::fs::write(www.join("mirror/tarpkg/tarpkg-1.0.tar.gz"), &bytes).unwrap();
    let sha = hex::encode(sha2::Sha256::digest(&bytes));
    let server = HttpsFiles::start(&certs, &www);
    let base = format!("https://127.0.0.1:{}", server.port);
    let write = |rel: &str, text: String| {
        let p = t.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n"
            .into(),
    );
    write(
        "recipes/tarpkg.yaml",
        format!(
            "name: tarpkg\ndescription: over https\nversions:\n  - {{version: \"1.0\", url: {base}/no-such-dir/tarpkg-1.0.tar.gz, sha256: {sha}}}\n  - {{version: \"0.9\", url: {base}/tarpkg-1.0.tar.gz, sha256: {sha}}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share}}\n"
        ),
    );
    let stack_for = |version: &str| {
        write(
            "stacks/s.yaml",
            format!(
                "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [tarpkg@{version}]\n"
            ),
        );
    };
    let run = |cache: &str, env: Option<&Path>, extra: &[&str]| {
        let mut c = Stack::bare().command();
        c.args(["--color", "never", "fetch", "stacks/s.yaml"])
            .args(["--cluster", "cluster-configs/local", "--cache", cache])
            .args(extra)
            .env_remove("STACK_REPOS")
            .env_remove("SSL_CERT_FILE")
            .current_dir(t.path());
        if let Some(f) = env {
            c.env("SSL_CERT_FILE", f);
        }
        let out = c.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let ca = certs.join("ca.pem");
    let ca_text = ca.to_str().unwrap();
    // The upstream URL.
    stack_for("0.9");
    let (code, text) = run("c1", None, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(text.to_lowercase().contains("certificate"), "{text}");
    let (code, text) = run("c2", Some(&ca), &[]);
    assert_eq!(code, 0, "SSL_CERT_FILE: {text}");
    let (code, text) = run("c3", None, &["--ca-file", ca_text]);
    assert_eq!(code, 0, "--ca-file: {text}");
    // A mirror (upstream is a 404 there): the same trust.
    stack_for("1.0");
    let mirror = format!("{base}/mirror");
    let (code, text) = run("c4", None, &["--mirror", &mirror]);
    assert_eq!(code, 1, "{text}");
    let (code, text) = run("c5", None, &["--mirror", &mirror, "--ca-file", ca_text]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("1 from mirrors"), "{text}");
}
