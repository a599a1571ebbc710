//! Issue 19: `stack build-env PKG -- CMD` runs a command in a failed
//! package's stage with exactly its build environment (variables, PATH,
//! wrapper, sandbox), and a fixed stage then builds by hand.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::harness::Stack;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    fs_err::create_dir_all(p.parent().unwrap()).unwrap();
    fs_err::write(p, text).unwrap();
}

/// A stack of one makefile package (tests/fixtures/build/needsfix) that fails.
fn project(t: &Path) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/build/needsfix");
    let src = t.join("src/needsfix-1.0");
    fs_err::create_dir_all(&src).unwrap();
    for f in ["Makefile", "hello.c"] {
        fs_err::copy(fixture.join(f), src.join(f)).unwrap();
    }
    let st = Command::new("tar")
        .args(["czf", "needsfix-1.0.tar.gz", "needsfix-1.0"])
        .current_dir(t.join("src"))
        .status()
        .unwrap();
    assert!(st.success());
    let archive = t.join("src/needsfix-1.0.tar.gz");
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(fs_err::read(&archive).unwrap()));
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    write(
        t,
        "recipes/needsfix.yaml",
        &format!(
            "name: needsfix\ndescription: fails until fixed\nversions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: makefile\n  make_args: [\"PREFIX={{{{ prefix }}}}\"]\n",
            archive.display()
        ),
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [needsfix]\n",
    );
}

/// `env | sort` output without make's own variables (which differ by call:
/// the jobserver's, and the command line's `PREFIX=`/`WHO=`, which make exports).
fn env_file(p: &Path) -> BTreeMap<String, String> {
    fs_err::read_to_string(p)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| {
            !k.starts_with("MAKE") && !["MFLAGS", "CARGO_MAKEFLAGS", "WHO", "PREFIX"].contains(k)
        })
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn build_env_runs_make_in_the_failed_stage_with_the_same_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(t);
    let build = [
        "build",
        "stacks/s.yaml",
        "--cluster",
        "cluster-configs/local",
        "--cache",
        "cache",
        "--build",
        "build/s",
        "-j",
        "2",
    ];
    let (code, out) = Stack::new().current_dir(t).args(build).run().code_text();
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("needsfix"), "{out}");
    let stage = fs_err::read_dir(t.join("build/s/stage"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("build-env.json").is_file())
        .expect("the failed stage is kept with its build-env.json");
    let src = stage.join("src");
    let during_build = env_file(&src.join("env-.txt"));

    // make again, by hand, in the stage: the same environment, the same failure.
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["build-env", "needsfix", "--", "make", "WHO=again"])
        .run()
        .code_text();
    assert_eq!(code, 2, "make's exit status: {out}");
    let by_hand = env_file(&src.join("env-again.txt"));
    assert_eq!(during_build, by_hand);
    assert!(by_hand["CC"].ends_with("/wrap/cc"), "{by_hand:?}");
    assert!(
        !by_hand["PATH"]
            .split(':')
            .any(|d| d == "/usr/bin" || d == "/bin")
    );
    assert!(src.join("hello").is_file(), "the wrapper compiled: {out}");

    // Fix the stage, then make succeeds there (an explicit --build).
    let (code, out) = Stack::new()
        .current_dir(t)
        .args([
            "build-env",
            "needsfix",
            "--build",
            "build/s",
            "--",
            "touch",
            "fixed",
        ])
        .run()
        .code_text();
    assert_eq!(code, 0, "{out}");
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["build-env", "needsfix", "--", "make", "WHO=fixed"])
        .run()
        .code_text();
    assert_eq!(code, 0, "{out}");

    // An unknown package: exit 2, naming what is staged.
    let (code, out) = Stack::new()
        .current_dir(t)
        .args(["build-env", "nosuch", "--build", "build/s"])
        .run()
        .code_text();
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("no stage of `nosuch`") && out.contains("staged: needsfix"),
        "{out}"
    );
}
