//! `stack gc BUILD`: source trees and stages that the plan in
//! BUILD/stack.lock does not use are removed (or listed, with --dry-run,
//! with the bytes they hold); this plan's are kept.

use std::path::Path;
use std::process::Output;

use crate::harness::{Stack, root};

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn tree(dir: &Path, bytes: usize) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/main.c"), vec![b'x'; bytes]).unwrap();
}

#[test]
fn gc_removes_what_the_plan_does_not_use_and_reports_the_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let build = tmp.path().join("build");
    std::fs::create_dir_all(&build).unwrap();
    let lock = build.join("stack.lock");
    // The real plan of the demo stack, as a build records it.
    let out = Stack::new()
        .current_dir(root())
        .args([
            "resolve".as_ref(),
            root().join("stacks/demo.yaml").as_os_str(),
            "--cluster".as_ref(),
            root().join("cluster-configs/local").as_os_str(),
            "--lock".as_ref(),
            "--lock-file".as_ref(),
            lock.as_os_str(),
        ])
        .output();
    assert!(out.status.success(), "{}", text(&out));
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    let node = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "libgreet")
        .unwrap();
    let current = format!(
        "libgreet-{}-{}",
        node["version"].as_str().unwrap(),
        &node["hash"].as_str().unwrap()[..8]
    );
    tree(&build.join("sources").join(&current), 10);
    tree(&build.join("stage").join(&current), 20);
    // A package dropped from the recipe, an old hash, a leftover resource.
    tree(&build.join("sources/dropped-1.0-0123abcd"), 1000);
    tree(&build.join("stage/libgreet-0.9-deadbeef"), 300);
    std::fs::create_dir_all(build.join("sources/x.resource-0")).unwrap();

    let args = |extra: &[&str]| {
        let mut a: Vec<std::ffi::OsString> = vec!["gc".into(), build.clone().into()];
        a.extend(extra.iter().map(Into::into));
        a
    };
    let dry: Vec<_> = args(&["--dry-run"]);
    let out = Stack::new()
        .current_dir(root())
        .args(dry.iter().map(|s| s.as_os_str()).collect::<Vec<_>>())
        .output();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("would remove 3 entries, 1300 bytes freed (dry run); kept 2 of this plan"),
        "{t}"
    );
    assert!(
        build.join("sources/dropped-1.0-0123abcd").exists(),
        "dry run removed"
    );

    let real = args(&[]);
    let out = Stack::new()
        .current_dir(root())
        .args(real.iter().map(|s| s.as_os_str()).collect::<Vec<_>>())
        .output();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("removed 3 entries, 1300 bytes freed; kept 2"),
        "{t}"
    );
    assert!(!build.join("sources/dropped-1.0-0123abcd").exists());
    assert!(!build.join("stage/libgreet-0.9-deadbeef").exists());
    assert!(!build.join("sources/x.resource-0").exists());
    assert!(
        build
            .join("sources")
            .join(&current)
            .join("src/main.c")
            .is_file()
    );
    assert!(
        build
            .join("stage")
            .join(&current)
            .join("src/main.c")
            .is_file()
    );
}

#[test]
fn gc_of_a_directory_without_a_plan_is_an_input_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Stack::new()
        .current_dir(root())
        .args(["gc".as_ref(), tmp.path().as_os_str()])
        .output();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("is not a build directory"), "{t}");
}
