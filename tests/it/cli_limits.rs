//! Bad numbers and paths on the command line are clear errors (exit 2)
//! before any work: `-j 100000`, `--fetch-jobs 0`, a build directory that
//! is the mount point.

use std::path::Path;

use crate::harness::Stack;

#[test]
fn out_of_range_counts_and_a_build_dir_at_the_mount_point_are_bad_input() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("cache");
    let cache = cache.to_str().unwrap();
    let (code, text) = Stack::new()
        .current_dir(root)
        .args(["build", "stacks/demo.yaml", "-j", "100000"])
        .run()
        .code_text();
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("100000 is out of range (expected 1 to 4096)"),
        "{text}"
    );
    let (code, text) = Stack::new()
        .current_dir(root)
        .args(["build", "stacks/demo.yaml", "-j", "0"])
        .run()
        .code_text();
    assert_eq!(code, 2, "{text}");
    let (code, text) = Stack::new()
        .current_dir(root)
        .args(["fetch", "stacks/demo.yaml", "--fetch-jobs", "0"])
        .run()
        .code_text();
    assert_eq!(code, 2, "{text}");

    let mount = t.path().join("mnt");
    let mount = mount.to_str().unwrap();
    for build in [mount.to_string(), format!("{mount}/build")] {
        let (code, text) = Stack::new()
            .current_dir(root)
            .args([
                "build",
                "stacks/demo.yaml",
                "--mount",
                mount,
                "--build",
                &build,
                "--cache",
                cache,
            ])
            .run()
            .code_text();
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("is the mount point"), "{text}");
    }
    assert!(!t.path().join("mnt").exists(), "nothing was built");
}
