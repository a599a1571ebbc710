//! `stack build stacks/s.yaml` in a tiny project directory (the layout the
//! pipeline, dependency-environment and bundle tests write): the local cluster, a
//! private cache and `build/`, two jobs. Returns the exit code and stdout+stderr.

use std::path::Path;

use super::Stack;

pub fn build(t: &Path, extra: &[&str]) -> (i32, String) {
    Stack::new()
        .args(["build", "stacks/s.yaml"])
        .args(["--cluster", "cluster-configs/local", "--cache", "cache"])
        .args(["--build", "build", "-j", "2"])
        .args(extra)
        .current_dir(t)
        .run()
        .code_text()
}
