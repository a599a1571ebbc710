//! The image is a function of the lock file only: re-packing after the image
//! was removed, and a rebuild after a view-only change, give the image of a
//! clean build; a temporary image left by a killed run is cleaned up; the
//! applied patches are recorded (output, log, installed.json).

use std::path::{Path, PathBuf};

use crate::harness::{Stack, root};

fn build(recipe: &Path, build: &Path, cache: &Path) -> String {
    let out = Stack::bare()
        .command()
        .current_dir(recipe.parent().unwrap())
        .args(["--color", "never", "build"])
        .arg(recipe)
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .arg("--build")
        .arg(build)
        .arg("--cache")
        .arg(cache)
        .args(["-j", "2"])
        .output()
        .expect("run stack build");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "build failed:\n{text}");
    text
}

fn sha(p: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(p).unwrap()))
}

/// The demo recipe in `dir/stacks/` (its recipes, hooks and fixture
/// sources reached through symbolic links), with `edit` applied.
fn demo_copy(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    std::fs::create_dir_all(dir.join("stacks")).unwrap();
    std::os::unix::fs::symlink(root().join("stacks/demo"), dir.join("stacks/demo")).unwrap();
    std::os::unix::fs::symlink(root().join("tests"), dir.join("tests")).unwrap();
    let text = std::fs::read_to_string(root().join("stacks/demo.yaml")).unwrap();
    let recipe = dir.join("stacks/demo.yaml");
    std::fs::write(&recipe, edit(text)).unwrap();
    recipe
}

#[test]
fn repacked_and_incremental_images_equal_clean_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let a = demo_copy(&tmp.path().join("a"), |t| t);
    let b = demo_copy(&tmp.path().join("b"), |t| {
        let t2 = t.replace("{DEMO_VIEW: \"$@view_name@\"}", "{DEMO_VIEW: \"changed\"}");
        assert_ne!(t, t2);
        t2
    });

    let b1 = tmp.path().join("build-1");
    let text = build(&a, &b1, &cache);
    let clean_a = sha(&b1.join("store.squashfs"));

    // The applied patch is recorded: in the output, the log and the
    // prefix's installed.json (which the image holds).
    let patch = "hello-make/greet-patched-stack.patch";
    let sum = "7475fdf3b64b3098ce0a3a7eead7e170e09f7230c1d0ba6bc674073e14d3a0da";
    assert!(
        text.contains(&format!(
            "patched hello-make@1.0 with {patch} (sha256 {sum}, -p1)"
        )),
        "{text}"
    );
    let prefix = std::fs::read_dir(b1.join("store/x86_64"))
        .unwrap()
        .flatten()
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("hello-make-1.0-")
        })
        .unwrap()
        .path();
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(prefix.join(".stack/installed.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(record["patches"][0]["patch"], patch, "{record}");
    assert_eq!(record["patches"][0]["sha256"], sum, "{record}");
    let logs: String = std::fs::read_dir(b1.join("logs"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("hello-make"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    assert!(
        logs.contains(&format!("==> patched with {patch} (sha256 {sum}")),
        "{logs}"
    );

    // The image's meta/recipe/ holds what it was built from: the stack
    // recipe, the cluster configuration, the package recipes the stack reaches
    // and their patches.
    let meta = b1.join("store/meta/recipe");
    for f in [
        "demo.yaml".to_string(),
        "cluster/cluster.yaml".into(),
        "packages/recipes/hello-make.yaml".into(),
        "packages/recipes/libgreet.yaml".into(),
        format!("packages/patches/{patch}"),
    ] {
        assert!(meta.join(&f).is_file(), "meta/recipe/{f} missing");
    }
    // Externals' recipes too: they take part in resolving (a rebuild from
    // the image reads no other repository).
    assert!(
        meta.join("packages/recipes/zlib.yaml").is_file(),
        "the external's recipe is missing"
    );

    // Re-pack after the image is removed; a temporary image of a killed
    // run is removed on the way.
    std::fs::remove_file(b1.join("store.squashfs")).unwrap();
    let debris = b1.join(".store.squashfs.tmp-99999999");
    std::fs::write(&debris, b"partial image of a killed run").unwrap();
    // A source tree of an old hash is pruned too.
    let old_source = b1.join("sources/hello-make-0.9-deadbeef");
    std::fs::create_dir_all(old_source.join("src")).unwrap();
    std::fs::write(old_source.join("src/main.c"), "int main;\n").unwrap();
    build(&a, &b1, &cache);
    assert!(!old_source.exists(), "old source tree kept");
    assert_eq!(
        sha(&b1.join("store.squashfs")),
        clean_a,
        "re-packing changed the image"
    );
    assert!(!debris.exists(), "stale temporary image left in place");

    // A view-only change, built incrementally, then from clean.
    let text = build(&b, &b1, &cache);
    assert!(text.contains("0 built, 6 reused"), "{text}");
    let incremental = sha(&b1.join("store.squashfs"));
    assert_ne!(incremental, clean_a);
    let b2 = tmp.path().join("build-2");
    build(&b, &b2, &cache);
    assert_eq!(
        incremental,
        sha(&b2.join("store.squashfs")),
        "incremental and clean builds differ; compare {} and {}",
        b1.join("store").display(),
        b2.join("store").display()
    );
}
