//! A closed standard output or error (`stack check … 2>&1 | head -1`)
//! never makes `stack` panic (exit 101): it exits with its own status.

use std::path::Path;
use std::process::Stdio;

use crate::harness::Stack;

/// Runs `stack ARGS` in `cwd` with stdout and stderr on a pipe whose read
/// end is already closed (every write fails with EPIPE); returns the exit
/// code and whether the process died of a signal.
fn closed_pipes(args: &[&str], cwd: &Path) -> Option<i32> {
    let (read, write) = nix::unistd::pipe().unwrap();
    drop(read);
    let status = Stack::bare()
        .command()
        .args(args)
        .current_dir(cwd)
        .env_remove("STACK_REPOS")
        .stdin(Stdio::null())
        .stdout(Stdio::from(write.try_clone().unwrap()))
        .stderr(Stdio::from(write))
        .status()
        .unwrap();
    status.code()
}

#[test]
fn closed_pipes_give_the_normal_exit_status() {
    let t = tempfile::tempdir().unwrap();
    let bad = t.path().join("bad.yaml");
    std::fs::write(&bad, "name: [unclosed\n").unwrap();
    // Bad input: the error report goes to a closed stderr.
    assert_eq!(closed_pipes(&["check", "bad.yaml"], t.path()), Some(2));
    assert_eq!(closed_pipes(&["check", "missing.yaml"], t.path()), Some(2));
    // Output on a closed stdout.
    assert_eq!(closed_pipes(&["completions", "bash"], t.path()), Some(0));
    assert_eq!(closed_pipes(&["--help"], t.path()), Some(0));
    assert_eq!(closed_pipes(&["--bogus-flag"], t.path()), Some(2));
    std::fs::create_dir(t.path().join("tree")).unwrap();
    assert_eq!(closed_pipes(&["audit", "tree"], t.path()), Some(0));
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(closed_pipes(&["list"], repo), Some(0));
}
