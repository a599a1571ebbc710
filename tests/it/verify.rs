//! `stack verify` and the manifest check before packing (issue 13, item 6):
//! a prefix changed after it was recorded is found, in the store and in
//! the image, and is never packed.

use std::path::Path;

use crate::harness::Stack;

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A file of an installed prefix (`<store>/<arch>/<prefix>/lib/<lib>`).
fn some_library(store: &Path) -> std::path::PathBuf {
    walkdir::WalkDir::new(store)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| {
            p.is_file()
                && !p.is_symlink()
                && p.parent().is_some_and(|d| d.ends_with("lib"))
                && p.to_string_lossy().contains(".so")
        })
        .expect("a shared library in the store")
}

#[test]
fn verify_finds_changed_prefixes_and_packing_refuses_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (b, cache) = (tmp.path().join("build"), tmp.path().join("cache"));
    let out = Stack::new()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "stacks/cxi-mini.yaml", "-j", "2", "--build"])
        .args([&b, Path::new("--cache"), &cache])
        .output();
    assert!(out.status.success());

    let out = Stack::new()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["verify"])
        .args([&b])
        .output();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains(": ok"), "{}", stdout(&out));
    let image = b.join("store.squashfs");
    let out = Stack::new()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["verify"])
        .args([&image])
        .output();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains(": ok"), "{}", stdout(&out));

    // A dependency's library rewritten after it was installed.
    let lib = some_library(&b.join("store"));
    let rel = lib
        .strip_prefix(b.join("store"))
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let mut bytes = fs_err::read(&lib).unwrap();
    bytes.extend_from_slice(b"tampered");
    fs_err::write(&lib, bytes).unwrap();
    let out = Stack::new()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["verify"])
        .args([&b])
        .output();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(&format!("modified  {rel} (content)")),
        "{}",
        stdout(&out)
    );

    // Packing it again is refused.
    fs_err::remove_file(&image).unwrap();
    let out = Stack::new()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["image"])
        .args([&b])
        .output();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to pack"));
    assert!(!image.exists());

    // A rebuild does not reuse the changed prefix (its size differs from the
    // manifest): it is rebuilt, and the store verifies again.
    let build = |b: &Path| {
        Stack::new()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "stacks/cxi-mini.yaml", "-j", "2", "--build"])
            .args([b, Path::new("--cache"), &cache])
            .output()
    };
    let out = build(&b);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("changed since it was installed; rebuilding")
    );
    assert_eq!(
        Stack::new()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["verify"])
            .args([&b])
            .output()
            .status
            .code(),
        Some(0)
    );

    // Same size, other content: reuse's quick check passes, packing does not.
    let mut bytes = fs_err::read(&lib).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    fs_err::write(&lib, bytes).unwrap();
    fs_err::remove_file(&image).unwrap();
    let out = build(&b);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        // (miette wraps long lines: look for the file name.)
        stderr.contains("refusing to pack")
            && stderr.contains(lib.file_name().unwrap().to_str().unwrap()),
        "{stderr}"
    );
    assert!(!image.exists());

    // Bad input.
    let out = Stack::new()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["verify"])
        .args([&tmp.path().join("nope")])
        .output();
    assert_eq!(out.status.code(), Some(2));
    let out = Stack::new()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["verify"])
        .args([&cache])
        .output();
    assert_eq!(out.status.code(), Some(2));
}
