//! Bad numbers and paths on the command line are clear errors (exit 2)
//! before any work: `-j 100000`, `--fetch-jobs 0`, a build directory that
//! is the mount point.

use std::path::Path;
use std::process::Command;

fn stack(args: &[&str], cwd: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stack"))
        .args(["--color", "never"])
        .args(args)
        .env_remove("STACK_REPOS")
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn out_of_range_counts_and_a_build_dir_at_the_mount_point_are_bad_input() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("cache");
    let cache = cache.to_str().unwrap();
    let (code, text) = stack(&["build", "stacks/demo.yaml", "-j", "100000"], root);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("100000 is out of range (expected 1 to 4096)"),
        "{text}"
    );
    let (code, text) = stack(&["build", "stacks/demo.yaml", "-j", "0"], root);
    assert_eq!(code, 2, "{text}");
    let (code, text) = stack(&["fetch", "stacks/demo.yaml", "--fetch-jobs", "0"], root);
    assert_eq!(code, 2, "{text}");

    let mount = t.path().join("mnt");
    let mount = mount.to_str().unwrap();
    for build in [mount.to_string(), format!("{mount}/build")] {
        let (code, text) = stack(
            &[
                "build",
                "stacks/demo.yaml",
                "--mount",
                mount,
                "--build",
                &build,
                "--cache",
                cache,
            ],
            root,
        );
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("is the mount point"), "{text}");
    }
    assert!(!t.path().join("mnt").exists(), "nothing was built");
}
