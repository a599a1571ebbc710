//! `stack resolve` as a process: the demo stack in every format (JSON
//! deterministic and snapshot-tested), `--lock` and `--locked`.

use std::path::Path;
use std::process::Output;

use crate::harness::Stack;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

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
    let a = stdout(
        &Stack::new()
            .current_dir(root)
            .args(["resolve", "stacks/demo.yaml", "--format", "json"])
            .output(),
    );
    let b = stdout(
        &Stack::new()
            .current_dir(root)
            .args(["resolve", "stacks/demo.yaml", "--format", "json"])
            .output(),
    );
    assert_eq!(a, b, "same bytes twice");
    // also from another working directory
    let c = stdout(
        &Stack::new()
            .current_dir(root.join("stacks"))
            .args(["resolve", "demo.yaml", "--format", "json"])
            .output(),
    );
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
    let tree = stdout(
        &Stack::new()
            .current_dir(root)
            .args(["resolve", "stacks/demo.yaml"])
            .output(),
    );
    insta::assert_snapshot!("demo_tree", tree);
    let dot = stdout(
        &Stack::new()
            .current_dir(root)
            .args(["resolve", "stacks/demo.yaml", "--format", "dot"])
            .output(),
    );
    assert!(dot.starts_with("digraph \"demo\" {"));
    assert!(dot.contains("style=dashed")); // the zlib external, build-only edges
    insta::assert_snapshot!("demo_dot", dot);
}

#[test]
fn alps_like_tree_on_gh200() {
    let root = Path::new(ROOT);
    let tree = stdout(
        &Stack::new()
            .current_dir(root)
            .args([
                "resolve",
                "tests/fixtures/resolve/stacks/alps-like.yaml",
                "--cluster",
                "tests/fixtures/resolve/cluster-configs/gh200",
            ])
            .output(),
    );
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
    let out = Stack::new()
        .current_dir(dir.path())
        .args(["resolve", f, "--cluster", &cluster, "--lock"])
        .output();
    stdout(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote"));
    let lock_file = dir.path().join("demo.lock");
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&lock_file).unwrap()).unwrap();
    assert_eq!(lock["lock_version"], 3);
    assert_eq!(lock["os"], "debian12");
    assert_eq!(lock["compilers"][0]["spec"], "gcc@12.2.0");
    assert_eq!(lock["compilers"][0]["origin"], "cluster");
    assert_eq!(lock["stack"], "demo");
    assert_eq!(lock["environments"][0]["name"], "tools");
    // unchanged: --locked passes
    stdout(
        &Stack::new()
            .current_dir(dir.path())
            .args(["resolve", f, "--cluster", &cluster, "--locked"])
            .output(),
    );
    // a changed variant: --locked refuses and says what changed
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "\"libgreet greeting=Hello\"",
        "\"libgreet greeting=Servus\"",
    );
    std::fs::write(&file, text).unwrap();
    let out = Stack::new()
        .current_dir(dir.path())
        .args(["resolve", f, "--cluster", &cluster, "--locked"])
        .output();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr).replace(dir.path().to_str().unwrap(), "[TMP]");
    insta::assert_snapshot!(err);
    // Without --locked: the new plan has two libgreet@1.0 and two
    // libcalc@1.2 (greetings differ between the environments) whose modules
    // would have one name; resolve says so, before anything is built
    // (issue 36: found after building everything).
    let out = Stack::new()
        .current_dir(dir.path())
        .args(["resolve", f, "--cluster", &cluster])
        .output();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("both project to"), "{err}");
    assert!(err.contains("the module `libcalc/1.2`"), "{err}");
    assert!(err.contains("demo.yaml:"), "{err}");
    // With a projection that tells them apart, it resolves.
    let text = std::fs::read_to_string(&file).unwrap();
    let unique = text.replace(
        "projections: {all: \"{name}/{version}\"}",
        "projections: {all: \"{name}/{version}-{hash:7}\"}",
    );
    assert_ne!(unique, text);
    std::fs::write(&file, unique).unwrap();
    stdout(
        &Stack::new()
            .current_dir(dir.path())
            .args(["resolve", f, "--cluster", &cluster])
            .output(),
    );
}

#[test]
fn lock_refuses_to_overwrite_another_recipes_lock() {
    let (dir, file) = demo_copy();
    let cluster = format!("{ROOT}/cluster-configs/local");
    let f = file.to_str().unwrap();
    stdout(
        &Stack::new()
            .current_dir(dir.path())
            .args(["resolve", f, "--cluster", &cluster, "--lock"])
            .output(),
    );
    let other = dir.path().join("other.yaml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace("name: demo", "name: other"),
    )
    .unwrap();
    // Each recipe writes its own lock; naming another recipe's lock with
    // --lock-file is refused.
    let demo_lock = dir.path().join("demo.lock");
    let out = Stack::new()
        .current_dir(dir.path())
        .args([
            "resolve",
            other.to_str().unwrap(),
            "--cluster",
            &cluster,
            "--lock",
            "--lock-file",
            demo_lock.to_str().unwrap(),
        ])
        .output();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not overwriting"), "{stderr}");
    stdout(
        &Stack::new()
            .current_dir(dir.path())
            .args([
                "resolve",
                other.to_str().unwrap(),
                "--cluster",
                &cluster,
                "--lock",
            ])
            .output(),
    );
    assert!(dir.path().join("other.lock").is_file());
}

#[test]
fn locked_without_a_lock_is_an_input_error() {
    let (dir, file) = demo_copy();
    let out = Stack::new()
        .current_dir(dir.path())
        .args([
            "resolve",
            file.to_str().unwrap(),
            "--cluster",
            &format!("{ROOT}/cluster-configs/local"),
            "--locked",
        ])
        .output();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no lock file"));
}

#[test]
fn help_has_examples() {
    let out = Stack::new()
        .current_dir(Path::new(ROOT))
        .args(["resolve", "--help"])
        .output();
    let text = stdout(&out);
    assert!(text.contains("Examples:"));
    assert!(text.contains("--format"));
    assert!(text.contains("--locked"));
}

/// Each recipe of a directory has its own lock (issue 36: they shared one
/// `stack.lock`, and every recipe but the last ignored it): `<name>.lock`
/// beside `<name>.yaml`, `stack.lock` beside `stack.yaml`; a `stack.lock`
/// written for `<name>.yaml` by an older stack stays in use until
/// `<name>.lock` exists.
#[test]
fn each_recipe_of_a_directory_has_its_own_lock() {
    let (dir, demo) = demo_copy();
    let cluster = format!("{ROOT}/cluster-configs/local");
    let d = dir.path();
    let text = std::fs::read_to_string(&demo).unwrap();
    std::fs::write(d.join("stack.yaml"), &text).unwrap();
    std::fs::write(
        d.join("other.yaml"),
        text.replace("name: demo", "name: other"),
    )
    .unwrap();
    for recipe in ["demo.yaml", "other.yaml", "stack.yaml"] {
        let out = Stack::new()
            .current_dir(d)
            .args(["resolve", recipe, "--cluster", &cluster, "--lock"])
            .output();
        stdout(&out);
    }
    for (lock, name) in [
        ("demo.lock", "demo"),
        ("other.lock", "other"),
        ("stack.lock", "demo"),
    ] {
        let l: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(lock)).unwrap()).unwrap();
        assert_eq!(l["stack"], name, "{lock}");
    }
    for recipe in ["demo.yaml", "other.yaml", "stack.yaml"] {
        let out = Stack::new()
            .current_dir(d)
            .args(["resolve", recipe, "--cluster", &cluster, "--locked"])
            .output();
        stdout(&out);
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("ignoring"),
            "{recipe}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // An older stack.lock of demo.yaml: still demo's lock until demo.lock exists.
    std::fs::remove_file(d.join("demo.lock")).unwrap();
    std::fs::remove_file(d.join("stack.yaml")).unwrap();
    let old = std::fs::read_to_string(d.join("stack.lock")).unwrap();
    std::fs::write(
        d.join("stack.lock"),
        old.replace("\"recipe\": \"stack.yaml\"", "\"recipe\": \"demo.yaml\""),
    )
    .unwrap();
    let out = Stack::new()
        .current_dir(d)
        .args(["resolve", "demo.yaml", "--cluster", &cluster, "--locked"])
        .output();
    stdout(&out);
    assert!(!d.join("demo.lock").exists());
}
