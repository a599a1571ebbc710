//! `stack fetch` through the real binary on a one-package project whose
//! source is a local git repository: `--dry-run` shows a git source the
//! cache holds as cached, and a `--mirror` directory that does not exist is
//! bad input (with a warm cache it used to be ignored silently); progress
//! lines name where a source came from in words.

use std::path::Path;
use std::process::Command;

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
    let out = Command::new(env!("CARGO_BIN_EXE_stack"))
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
