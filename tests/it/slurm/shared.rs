//! A shared store (`--shared-store`, the cluster's `ci: {shared_store:
//! true}`): on one machine every job sees the submitter's build directory,
//! as on a cluster whose build directory is on a shared file system. The
//! jobs build into the submitter's store; no binary cache at all.

use super::*;

use crate::harness::Stack;

#[test]
fn jobs_build_into_a_shared_store_without_a_binary_cache() {
    let Some(world) = World::start() else { return };
    let build = world.w().join("shared");
    let out = Stack::bare()
        .command()
        .current_dir(root())
        .env("SLURM_CONF", world.slurm.conf())
        .env("STACK_CACHE", world.w().join("sources"))
        .env("HOME", "/nonexistent")
        .args(["--color", "never", "build", "stacks/demo.yaml"])
        .args(["--cluster", "cluster-configs/local", "-j", "2"])
        .arg("--build")
        .arg(&build)
        .args(SLURM)
        .arg("--shared-store")
        .output()
        .unwrap();
    let t = text(&out);
    eprintln!("{t}");
    assert!(out.status.success(), "{t}");
    assert!(submitted(&t) >= 1, "{t}");
    // Nothing was pushed or pulled: the jobs had no cache, the submitter
    // found every prefix in its own store.
    assert!(!t.contains("binary cache:"), "{t}");
    assert!(t.contains("0 built, 6 reused"), "{t}");
    let script = fs_err::read_dir(build.join("slurm"))
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "sh"))
        .map(|e| fs_err::read_to_string(e.path()).unwrap())
        .unwrap();
    assert!(
        script.contains("--shared-store --no-binary-cache"),
        "{script}"
    );
    assert!(!script.contains("--binary-cache "), "{script}");
    assert!(script.contains("ln -sfn"), "{script}");
    assert!(build.join("store.squashfs").is_file());
}
