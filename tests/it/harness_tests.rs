//! The harness stays the only one: no test file defines its own `stack`
//! runner function, starts the `stack` binary without the harness, or adds
//! a `*_support`/`*_common` module; helpers go to `tests/it/harness/`.

use std::path::{Path, PathBuf};

use crate::harness::root;

/// Every `.rs` file below `tests/it` outside the harness, relative.
fn test_files() -> Vec<PathBuf> {
    let it = root().join("tests/it");
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(&it)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.path().strip_prefix(&it).unwrap().to_path_buf())
        .filter(|p| !p.starts_with("harness"))
        .collect();
    v.sort();
    v
}

fn offending(pattern: &str) -> Vec<String> {
    let it = root().join("tests/it");
    let mut hits = Vec::new();
    for f in test_files() {
        let text = fs_err::read_to_string(it.join(&f)).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.contains(pattern) {
                hits.push(format!(
                    "tests/it/{}:{}: {}",
                    f.display(),
                    i + 1,
                    line.trim()
                ));
            }
        }
    }
    hits
}

#[test]
fn no_test_file_defines_its_own_stack_runner() {
    // Spelled in pieces so that this file does not match itself.
    let patterns = [
        concat!("fn ", "stack("),
        concat!("CARGO_BIN_EXE_", "stack\""),
        concat!("cargo_bin(", "\"stack\")"),
    ];
    for pattern in patterns {
        let hits = offending(pattern);
        assert!(
            hits.is_empty(),
            "`{pattern}` outside tests/it/harness/: run `stack` with \
             harness::Stack instead:\n{}",
            hits.join("\n")
        );
    }
}

#[test]
fn no_support_modules_outside_the_harness() {
    let it = root().join("tests/it");
    let mut extra = Vec::new();
    for e in walkdir::WalkDir::new(&it).into_iter().flatten() {
        let rel = e.path().strip_prefix(&it).unwrap();
        if rel.starts_with("harness") {
            continue;
        }
        let stem = rel
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_rust_or_dir = e.file_type().is_dir() || rel.extension().is_some_and(|x| x == "rs");
        let helper = ["support", "common", "util", "utils", "helpers"]
            .iter()
            .any(|w| stem == *w || stem.ends_with(&format!("_{w}")));
        if is_rust_or_dir && helper {
            extra.push(rel.display().to_string());
        }
    }
    assert!(
        extra.is_empty(),
        "shared test helpers go to tests/it/harness/, not {extra:?}"
    );
}

#[test]
fn the_harness_isolates_the_environment() {
    let out = crate::harness::Stack::new().arg("--version").run();
    out.assert_success();
    assert!(out.stdout.starts_with("stack "), "{}", out.stdout);
    // What the command sees: `env` through the same builder's environment.
    let cmd = crate::harness::Stack::new().command();
    let envs: Vec<_> = cmd.get_envs().collect();
    assert!(
        envs.iter()
            .any(|(k, v)| *k == "HOME" && v.is_some_and(|v| Path::new(v).is_dir())),
        "{envs:?}"
    );
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("STACK_") {
            assert!(
                envs.iter().any(|(e, v)| *e == k.as_os_str() && v.is_none()),
                "{k:?} is inherited"
            );
        }
    }
}
