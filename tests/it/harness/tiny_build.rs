//! `stack build stacks/s.yaml` in a tiny project directory (the layout the
//! pipeline, dependency-environment and bundle tests write): the local cluster, a
//! private cache and `build/`, two jobs. Returns the exit code and stdout+stderr.

use std::path::Path;
use std::process::Command;

pub fn build(t: &Path, extra: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stack"))
        .args(["--color", "never", "build", "stacks/s.yaml"])
        .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
        .args(["--build", "build", "-j", "2"])
        .args(extra)
        .env_remove("STACK_REPOS")
        .current_dir(t)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}
