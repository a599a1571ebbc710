//! `stack resolve` as a process: the demo stack in every format (JSON
//! deterministic and snapshot-tested), `--lock` and `--locked`.

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn stack(args: &[&str], dir: &Path) -> Output {
    Command::cargo_bin("stack")
        .unwrap()
        .current_dir(dir)
        .env_remove("STACK_REPOS")
        .args(args)
        .args(["--color", "never"])
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Replace the checkout's absolute path (source URLs, patch files) so the
/// snapshots do not depend on where the repository lives.
fn portable(text: &str) -> String {
    text.replace(ROOT, "[ROOT]")
}

#[test]
fn demo_json_is_deterministic_and_matches_the_snapshot() {
    let root = Path::new(ROOT);
    let a = stdout(&stack(
        &["resolve", "stacks/demo.yaml", "--format", "json"],
        root,
    ));
    let b = stdout(&stack(
        &["resolve", "stacks/demo.yaml", "--format", "json"],
        root,
    ));
    assert_eq!(a, b, "same bytes twice");
    // also from another working directory
    let c = stdout(&stack(
        &["resolve", "demo.yaml", "--format", "json"],
        &root.join("stacks"),
    ));
    assert_eq!(a, c);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    let keys: Vec<&str> = v["nodes"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "name", "version", "hash", "prefix", "external", "variants", "patches", "source",
            "deps", "compiler"
        ]
    );
    insta::assert_snapshot!(portable(&a));
}

#[test]
fn demo_tree_and_dot() {
    let root = Path::new(ROOT);
    let tree = stdout(&stack(&["resolve", "stacks/demo.yaml"], root));
    insta::assert_snapshot!("demo_tree", tree);
    let dot = stdout(&stack(
        &["resolve", "stacks/demo.yaml", "--format", "dot"],
        root,
    ));
    assert!(dot.starts_with("digraph \"demo\" {"));
    assert!(dot.contains("style=dashed")); // the zlib external, build-only edges
    insta::assert_snapshot!("demo_dot", dot);
}

#[test]
fn alps_like_tree_on_gh200() {
    let root = Path::new(ROOT);
    let tree = stdout(&stack(
        &[
            "resolve",
            "tests/fixtures/resolve/stacks/alps-like.yaml",
            "--cluster",
            "tests/fixtures/resolve/cluster-configs/gh200",
        ],
        root,
    ));
    insta::assert_snapshot!(tree);
}

/// A copy of the demo stack in a temporary directory (its repository, hooks
/// and sources stay where they are).
fn demo_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(Path::new(ROOT).join("stacks/demo.yaml"))
        .unwrap()
        .replace(
            "repos: [demo/recipes]",
            &format!("repos: [{ROOT}/stacks/demo/recipes]"),
        )
        .replace("demo/hooks/", &format!("{ROOT}/stacks/demo/hooks/"));
    let file = dir.path().join("demo.yaml");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

#[test]
fn lock_then_locked() {
    let (dir, file) = demo_copy();
    let cluster = format!("{ROOT}/cluster-configs/local");
    let f = file.to_str().unwrap();
    let out = stack(&["resolve", f, "--cluster", &cluster, "--lock"], dir.path());
    stdout(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote"));
    let lock_file = dir.path().join("stack.lock");
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&lock_file).unwrap()).unwrap();
    assert_eq!(lock["lock_version"], 3);
    assert_eq!(lock["os"], "debian12");
    assert_eq!(lock["compilers"][0]["spec"], "gcc@12.2.0");
    assert_eq!(lock["compilers"][0]["origin"], "cluster");
    assert_eq!(lock["stack"], "demo");
    assert_eq!(lock["environments"][0]["name"], "tools");
    // unchanged: --locked passes
    stdout(&stack(
        &["resolve", f, "--cluster", &cluster, "--locked"],
        dir.path(),
    ));
    // a changed variant: --locked refuses and says what changed
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "\"libgreet greeting=Hello\"",
        "\"libgreet greeting=Servus\"",
    );
    std::fs::write(&file, text).unwrap();
    let out = stack(
        &["resolve", f, "--cluster", &cluster, "--locked"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr).replace(dir.path().to_str().unwrap(), "[TMP]");
    insta::assert_snapshot!(err);
    // without --locked the new plan is printed
    stdout(&stack(&["resolve", f, "--cluster", &cluster], dir.path()));
}

#[test]
fn lock_refuses_to_overwrite_another_recipes_lock() {
    let (dir, file) = demo_copy();
    let cluster = format!("{ROOT}/cluster-configs/local");
    let f = file.to_str().unwrap();
    stdout(&stack(
        &["resolve", f, "--cluster", &cluster, "--lock"],
        dir.path(),
    ));
    let other = dir.path().join("other.yaml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace("name: demo", "name: other"),
    )
    .unwrap();
    let out = stack(
        &[
            "resolve",
            other.to_str().unwrap(),
            "--cluster",
            &cluster,
            "--lock",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not overwriting"));
    // --lock-file puts it elsewhere
    let elsewhere = dir.path().join("other.lock");
    stdout(&stack(
        &[
            "resolve",
            other.to_str().unwrap(),
            "--cluster",
            &cluster,
            "--lock",
            "--lock-file",
            elsewhere.to_str().unwrap(),
        ],
        dir.path(),
    ));
    assert!(elsewhere.is_file());
}

#[test]
fn locked_without_a_lock_is_an_input_error() {
    let (dir, file) = demo_copy();
    let out = stack(
        &[
            "resolve",
            file.to_str().unwrap(),
            "--cluster",
            &format!("{ROOT}/cluster-configs/local"),
            "--locked",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no lock file"));
}

#[test]
fn help_has_examples() {
    let out = stack(&["resolve", "--help"], Path::new(ROOT));
    let text = stdout(&out);
    assert!(text.contains("Examples:"));
    assert!(text.contains("--format"));
    assert!(text.contains("--locked"));
}
