//! `resources:` of archive sources through resolve, the lock and fetch
//! (issue 20): `stack resolve --format json` and `stack.lock` list them per
//! node (url, sha256, expand, destination); `stack fetch --locked` fetches
//! exactly the locked ones and refuses a recipe whose resources differ; a
//! build unpacks each into its `destination:`.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::harness::Stack;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn cluster() -> String {
    format!("{ROOT}/cluster-configs/local")
}

fn sha256(path: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

/// A tarball `dist/<name>.tar.gz` of one top directory holding `file`.
fn tarball(t: &Path, name: &str, file: &str, text: &str) -> PathBuf {
    let src = t.join("trees").join(name);
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join(file), text).unwrap();
    std::fs::create_dir_all(t.join("dist")).unwrap();
    let out = t.join("dist").join(format!("{name}.tar.gz"));
    let st = Command::new("tar")
        .arg("-czf")
        .arg(&out)
        .arg("-C")
        .arg(t.join("trees"))
        .arg(name)
        .status()
        .unwrap();
    assert!(st.success());
    out
}

/// A package `twotrees` whose main tarball gets one resource at the top
/// and one in `data/`, and a stack recipe building it.
fn project(t: &Path, second_text: &str) -> PathBuf {
    let main = tarball(t, "main-1.0", "README", "main\n");
    let first = tarball(t, "first", "one.txt", "first\n");
    let second = tarball(t, "second", "two.txt", second_text);
    std::fs::create_dir_all(t.join("recipes")).unwrap();
    let res =
        |p: &Path, dest: &str| format!("{{url: \"{}\", sha256: {}{dest}}}", p.display(), sha256(p));
    std::fs::write(
        t.join("recipes/twotrees.yaml"),
        format!(
            "name: twotrees\ndescription: a source with resources\nversions:\n  - version: \"1.0\"\n    url: \"{}\"\n    sha256: {}\n    resources:\n      - {}\n      - {}\n\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share}}\n    - {{copy: one.txt, to: share}}\n    - {{copy: data/two.txt, to: share}}\n",
            main.display(),
            sha256(&main),
            res(&first, ""),
            res(&second, ", destination: data"),
        ),
    )
    .unwrap();
    let file = t.join("s.yaml");
    std::fs::write(
        &file,
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [recipes]\nenvironments:\n  e:\n    specs: [twotrees]\n",
    )
    .unwrap();
    file
}

#[test]
fn cuda_wheels_list_their_resources_in_resolve_json() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(
        t.path().join("gpu.yaml"),
        "name: gpu\nversion: \"1\"\ncompiler: gcc\nenvironments:\n  gpu:\n    specs: [\"cuda@13.0.2-wheels\"]\n",
    )
    .unwrap();
    let c = cluster();
    let args = ["resolve", "gpu.yaml", "--cluster", &c, "--format", "json"];
    let (code, out, err) = Stack::new().current_dir(t.path()).args(args).run().parts();
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cuda = &v["nodes"][0];
    assert_eq!(cuda["name"], "cuda");
    assert_eq!(cuda["source"]["resources"].as_array().unwrap().len(), 6);
    insta::assert_snapshot!(out.replace(ROOT, "[ROOT]"));
}

#[test]
fn lock_records_resources_and_fetch_locked_follows_them() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    project(dir, "second\n");
    let c = cluster();
    let (code, _, err) = Stack::new()
        .current_dir(dir)
        .args(["resolve", "s.yaml", "--cluster", &c, "--lock"])
        .run()
        .parts();
    assert_eq!(code, 0, "{err}");
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("s.lock")).unwrap()).unwrap();
    assert_eq!(lock["lock_version"], 3);
    let res = &lock["nodes"][0]["source"]["resources"];
    let dests: Vec<&str> = res
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["destination"].as_str().unwrap())
        .collect();
    assert_eq!(dests, [".", "data"]);
    let second = dir.join("dist/second.tar.gz");
    assert_eq!(res[1]["url"], second.display().to_string());
    assert_eq!(res[1]["sha256"], sha256(&second));
    assert_eq!(res[1]["expand"], true);

    // Fetch under the lock: the main tarball and both resources.
    let fetch = |dir: &Path| {
        Stack::new()
            .current_dir(dir)
            .args([
                "fetch",
                "s.yaml",
                "--cluster",
                &c,
                "--cache",
                "cache",
                "--locked",
            ])
            .run()
            .parts()
    };
    let (code, out, err) = fetch(dir);
    assert_eq!(code, 0, "{err}");
    let text = out + &err;
    assert_eq!(text.matches("fetched twotrees").count(), 3, "{text}");
    for file in ["main-1.0.tar.gz", "first.tar.gz", "second.tar.gz"] {
        let sha = sha256(&dir.join("dist").join(file));
        let cached = walk(&dir.join("cache"))
            .into_iter()
            .any(|p| p.to_string_lossy().contains(&sha));
        assert!(cached, "{file} ({sha}) is not in the cache");
    }

    // Built under the lock: each resource in its destination.
    let (code, _, err) = Stack::new()
        .current_dir(dir)
        .args([
            "build",
            "s.yaml",
            "--cluster",
            &c,
            "--cache",
            "cache",
            "--build",
            "b",
            "--locked",
        ])
        .run()
        .parts();
    assert_eq!(code, 0, "{err}");
    let share = walk(&dir.join("b/store"))
        .into_iter()
        .find(|p| p.ends_with("share") && p.join("two.txt").is_file())
        .expect("an installed share/ with two.txt");
    for f in ["README", "one.txt"] {
        assert!(share.join(f).is_file(), "{f} not installed");
    }

    // Another resource in the recipe: --locked refuses, naming it.
    project(dir, "changed\n");
    let (code, _, err) = fetch(dir);
    assert_eq!(code, 1, "{err}");
    let new = sha256(&second);
    assert!(
        err.contains("resources [") && err.contains(&format!("{} in data]", &new[..8])),
        "{err}"
    );
}

#[test]
fn a_destination_leaving_the_source_tree_is_refused_at_load() {
    let t = tempfile::tempdir().unwrap();
    let file = project(t.path(), "second\n");
    let recipe = t.path().join("recipes/twotrees.yaml");
    let text = std::fs::read_to_string(&recipe).unwrap();
    std::fs::write(
        &recipe,
        text.replace("destination: data", "destination: ../up"),
    )
    .unwrap();
    let c = cluster();
    let (code, _, err) = Stack::new()
        .current_dir(t.path())
        .args(["check", &file.display().to_string(), "--cluster", &c])
        .run()
        .parts();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`destination` must be a relative directory inside the source tree")
            && err.contains("twotrees.yaml"),
        "{err}"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten() {
        let p = e.unwrap().path();
        if p.is_dir() && !p.is_symlink() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

#[test]
fn a_moved_destination_changes_the_hash_and_is_named() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    project(dir, "second\n");
    let c = cluster();
    let (code, _, err) = Stack::new()
        .current_dir(dir)
        .args(["resolve", "s.yaml", "--cluster", &c, "--lock"])
        .run()
        .parts();
    assert_eq!(code, 0, "{err}");
    let recipe = dir.join("recipes/twotrees.yaml");
    let text = std::fs::read_to_string(&recipe).unwrap();
    std::fs::write(
        &recipe,
        text.replace("destination: data", "destination: other"),
    )
    .unwrap();
    let (code, _, err) = Stack::new()
        .current_dir(dir)
        .args(["resolve", "s.yaml", "--cluster", &c, "--locked"])
        .run()
        .parts();
    assert_eq!(code, 1, "{err}");
    let sha = sha256(&dir.join("dist/second.tar.gz"));
    let (a, b) = (
        format!("{} in data]", &sha[..8]),
        format!("{} in other]", &sha[..8]),
    );
    assert!(err.contains(&a) && err.contains(&b), "{err}");
}
