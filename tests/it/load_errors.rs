//! The malformed-input catalogue: every case under `tests/fixtures/errors/`
//! runs through the real `stack` binary and its stderr is snapshot-tested.
//!
//! A case is a directory overlaid on `_shared/` (a valid stack) in a fresh
//! temporary directory laid out like a project:
//!
//! ```text
//! <tmp>/stack.yaml                          case's stack.yaml, else _shared's
//! <tmp>/recipes/*.yaml                      _shared's recipes, then the case's
//! <tmp>/patches/…                           _shared's patches, then the case's
//! <tmp>/cluster-configs/local/cluster.yaml  case's cluster.yaml, else _shared's
//! ```
//!
//! The command is `stack --color never check stack.yaml`, or the words in the
//! case's `args` file. Every case must exit with status 2.

use std::path::{Path, PathBuf};

use crate::harness::Stack;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/errors")
}

fn copy_tree(from: &Path, to: &Path) {
    if !from.exists() {
        return;
    }
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            fs_err::create_dir_all(&dest).unwrap();
        } else {
            fs_err::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn overlay(src: &Path, tmp: &Path) {
    copy_tree(&src.join("recipes"), &tmp.join("recipes"));
    copy_tree(&src.join("patches"), &tmp.join("patches"));
    copy_tree(&src.join("hooks"), &tmp.join("hooks"));
    if src.join("stack.yaml").exists() {
        fs_err::copy(src.join("stack.yaml"), tmp.join("stack.yaml")).unwrap();
    }
    if src.join("cluster.yaml").exists() {
        let dir = tmp.join("cluster-configs/local");
        fs_err::create_dir_all(&dir).unwrap();
        fs_err::copy(src.join("cluster.yaml"), dir.join("cluster.yaml")).unwrap();
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_case(case: &str) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    overlay(&fixtures().join("_shared"), tmp.path());
    let case_dir = fixtures().join(case);
    overlay(&case_dir, tmp.path());
    let args = fs_err::read_to_string(case_dir.join("args"))
        .unwrap_or_else(|_| "check stack.yaml".to_string());
    let out = Stack::bare()
        .command()
        .current_dir(tmp.path())
        .arg("--color")
        .arg("never")
        .args(args.split_whitespace())
        .env_remove("STACK_REPOS")
        .env_remove("RUST_LOG")
        // Hermetic: the fixtures' own repositories only.
        .env("STACK_BUILTIN_REPO", "")
        .output()
        .unwrap();
    let norm = |s: &[u8]| {
        let s = String::from_utf8_lossy(s).into_owned();
        let canon = tmp.path().canonicalize().unwrap();
        s.replace(&canon.display().to_string(), "[CASE]")
            .replace(&tmp.path().display().to_string(), "[CASE]")
    };
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: norm(&out.stdout),
        stderr: norm(&out.stderr),
    }
}

fn cases() -> Vec<String> {
    let mut v: Vec<String> = fs_err::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('_') && !n.contains('.'))
        .collect();
    v.sort();
    v
}

#[test]
fn the_shared_base_is_valid() {
    let run = run_case("_shared");
    assert_eq!(run.code, 0, "stderr:\n{}", run.stderr);
    assert!(run.stdout.contains("ok"), "{}", run.stdout);
    assert!(run.stdout.contains("5 packages checked"), "{}", run.stdout);
}

#[test]
fn the_catalogue_has_at_least_twenty_cases() {
    assert!(cases().len() >= 20, "{:?}", cases());
}

#[test]
fn every_malformed_input_is_reported_with_its_location() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/load_errors");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for case in cases() {
            let run = run_case(&case);
            assert_eq!(
                run.code, 2,
                "case {case}: expected exit 2\nstdout:\n{}\nstderr:\n{}",
                run.stdout, run.stderr
            );
            assert!(run.stdout.is_empty(), "case {case}: stdout: {}", run.stdout);
            if !case.starts_with("info-") {
                assert!(
                    run.stderr.contains(".yaml:"),
                    "case {case}: no file:line:col in\n{}",
                    run.stderr
                );
            }
            insta::assert_snapshot!(case.clone(), run.stderr);
        }
    });
}
