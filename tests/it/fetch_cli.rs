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
