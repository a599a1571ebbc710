//! `stack ldd --strict`, `--mount` and `--format json` on programs built
//! here with the real compiler.

use std::path::Path;
use std::process::Command;

use crate::harness::Stack;

fn cc(args: &[&str], dir: &Path) {
    let st = Command::new("cc")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success(), "cc {args:?}");
}

/// store/lib/libfoo.so and store/bin/app linked against it with
/// RPATH /mnt/x/lib: found only where the store is mounted.
fn store() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    fs_err::create_dir_all(t.join("store/lib")).unwrap();
    fs_err::create_dir_all(t.join("store/bin")).unwrap();
    fs_err::write(t.join("foo.c"), "int foo(void) { return 42; }\n").unwrap();
    fs_err::write(
        t.join("app.c"),
        "int foo(void);\nint main(void) { return foo() - 42; }\n",
    )
    .unwrap();
    cc(
        &["-shared", "-fPIC", "-o", "store/lib/libfoo.so", "foo.c"],
        t,
    );
    cc(
        &[
            "-o",
            "store/bin/app",
            "app.c",
            "-Lstore/lib",
            "-lfoo",
            "-Wl,-rpath,/mnt/x/lib",
        ],
        t,
    );
    tmp
}

fn ldd(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Stack::bare()
        .command()
        .current_dir(dir)
        .args(["--color", "never", "ldd"])
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn strict_fails_on_not_found_and_mount_resolves_the_store() {
    let s = store();
    let t = s.path();
    // As ldd: a missing library is listed, exit 0.
    let (code, out, _) = ldd(t, &["store/bin/app"]);
    assert_eq!(code, 0);
    assert!(out.contains("\tlibfoo.so => not found\n"), "{out}");
    let (code, _, err) = ldd(t, &["--strict", "store/bin/app"]);
    assert_eq!(code, 1);
    assert_eq!(err, "stack ldd --strict: 1 library not found\n");
    // The store mounted where its RPATH points.
    let (code, out, err) = ldd(t, &["--strict", "--mount", "store:/mnt/x", "store/bin/app"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\tlibfoo.so => /mnt/x/lib/libfoo.so\n"),
        "{out}"
    );
    let (code, _, err) = ldd(t, &["--mount", "store:relative", "store/bin/app"]);
    assert_eq!(code, 2);
    assert!(err.contains("must be absolute"), "{err}");
}

#[test]
fn json_output_has_one_object_per_file() {
    let s = store();
    let (code, out, _) = ldd(s.path(), &["--format", "json", "store/bin/app"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["file"], "store/bin/app");
    assert_eq!(v[0]["missing"], 1);
    assert_eq!(v[0]["failed"], false);
    assert!(
        v[0]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "libfoo.so => not found")
    );
}
