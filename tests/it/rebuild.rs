//! An image can be rebuilt from its own metadata: `stack build IMAGE`
//! reads meta/recipe/ (stack recipe, cluster configuration, package
//! recipes, patches, hooks) and meta/stack.lock, and gives the same image,
//! byte for byte.

use std::path::Path;
use std::process::{Command, Output};

use crate::harness::{Stack, root};

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn sha(p: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(p).unwrap()))
}

#[test]
fn an_image_rebuilt_from_its_own_metadata_is_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let b1 = tmp.path().join("build-1");
    let out = Stack::new()
        .current_dir(root())
        .args([
            "build".as_ref(),
            root().join("stacks/demo.yaml").as_os_str(),
            "--cluster".as_ref(),
            root().join("cluster-configs/local").as_os_str(),
            "--build".as_ref(),
            b1.as_os_str(),
            "--cache".as_ref(),
            cache.as_os_str(),
            "-j".as_ref(),
            "2".as_ref(),
        ])
        .output();
    assert!(out.status.success(), "build failed:\n{}", text(&out));
    let image = b1.join("store.squashfs");

    // Rebuilt elsewhere, from a directory without recipes, with the image
    // alone (the sources from the cache, by checksum), into a build
    // directory named through `..`.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let b2 = tmp.path().join("build-2");
    let out = Stack::new()
        .current_dir(&elsewhere)
        .args([
            "build".as_ref(),
            image.as_os_str(),
            "--build".as_ref(),
            "../build-2".as_ref(),
            "--cache".as_ref(),
            cache.as_os_str(),
            "-j".as_ref(),
            "2".as_ref(),
        ])
        .output();
    let t = text(&out);
    assert!(out.status.success(), "rebuild failed:\n{t}");
    assert!(t.contains("0 reused"), "nothing may be reused:\n{t}");
    let rebuilt = b2.join("store.squashfs");
    assert_eq!(
        sha(&rebuilt),
        sha(&image),
        "the rebuilt image differs:\n{t}"
    );
    // The hooks went in too: the recipe found them beside its copy.
    for f in ["demo/hooks/pre-install.sh", "demo/hooks/post-install.sh"] {
        assert!(
            b2.join("store/meta/recipe").join(f).is_file(),
            "meta/recipe/{f} missing"
        );
    }
}

#[test]
fn a_squashfs_without_stack_metadata_is_an_input_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tree");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::write(dir.join("bin/tool"), "#!/bin/sh\n").unwrap();
    let image = tmp.path().join("other.squashfs");
    let st = Command::new("mksquashfs")
        .arg(&dir)
        .arg(&image)
        .args(["-quiet", "-no-progress"])
        .status()
        .expect("mksquashfs (squashfs-tools)");
    assert!(st.success());
    let out = Stack::new()
        .current_dir(tmp.path())
        .args([
            "build".as_ref(),
            image.as_os_str(),
            "--build".as_ref(),
            tmp.path().join("b").as_os_str(),
        ])
        .output();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("holds no meta/"), "{t}");
}
