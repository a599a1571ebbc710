//! The Python side of the build logic under `cargo test`: the layer's own
//! unit tests (`src/build_logic/python/run_tests.py`, stdlib unittest), and
//! a package built with the oldest Python the layer supports (3.9, Debian
//! bullseye's, unpacked by `scripts/python-oldest.sh`, which
//! `scripts/install-deps.sh` runs), chosen with `STACK_PYTHON`. Also: a
//! changed package file rebuilds (its sha256 is in the node hash), and no
//! Python fails the build before anything is fetched.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::Stack;
use crate::harness::spack_project::Project;

fn layer_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/build_logic/python")
}

#[test]
fn the_layers_unit_tests_pass() {
    let out = Command::new("python3")
        .arg("-I")
        .arg(layer_dir().join("run_tests.py"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Where `scripts/python-oldest.sh` unpacks Python 3.9.
fn oldest_python() -> PathBuf {
    let base = std::env::var_os("STACK_TEST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/stack-test")
        });
    base.join("python3.9/root/usr/bin/python3.9")
}

#[test]
fn a_package_builds_with_the_oldest_supported_python() {
    let python = oldest_python();
    assert!(
        python.is_file(),
        "{} is missing; run scripts/install-deps.sh (it runs scripts/python-oldest.sh)",
        python.display()
    );
    let p = Project::new();
    p.cmvariant();
    let (code, text) = p.build_with_python(&python);
    assert_eq!(code, 0, "{text}");
    assert!(
        p.log("cmvariant").contains("(python 3.9."),
        "{}",
        p.log("cmvariant")
    );
    let out = p.run_mounted(&p.prefix("cmvariant"), "bin/cmvariant");
    assert_eq!(out, "HELLO\n");
}

/// An interpreter older than 3.9 is refused before anything is fetched
/// (exit 2), naming it and the packages that need it.
#[test]
fn an_old_python_is_a_preflight_failure() {
    let p = Project::new();
    p.cmvariant();
    let fake = p.path().join("old-python");
    fs_err::write(
        &fake,
        "#!/bin/sh\necho /opt/old/bin/python3.6\necho 3.6.15\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, text) = p.build_with_python(&fake);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("preflight:"), "{text}");
    assert!(
        text.contains("is Python 3.6.15; the build logic needs Python 3.9 or newer"),
        "{text}"
    );
    assert!(!text.contains("Fetch"), "{text}");
}

/// A changed package file (and its sha256 in the recipe) is a new node:
/// the package is built again into a new prefix.
#[test]
fn a_changed_package_file_rebuilds() {
    let p = Project::new();
    p.cmvariant();
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let first = p.prefix("cmvariant");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("0 built, 1 reused") || text.contains("up to date"),
        "{text}"
    );
    // The same package file with one more comment: another sha256.
    let file = crate::harness::spack_project::fixtures().join("packages/cmvariant/package.py");
    let text = fs_err::read_to_string(&file).unwrap() + "# changed\n";
    fs_err::write(p.path().join("spack/fixtures/cmvariant/package.py"), &text).unwrap();
    let recipe = p.path().join("recipes/cmvariant.yaml");
    let old_sha = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(fs_err::read(&file).unwrap()))
    };
    let new_sha = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(text.as_bytes()))
    };
    let r = fs_err::read_to_string(&recipe).unwrap();
    assert!(r.contains(&old_sha));
    fs_err::write(&recipe, r.replace(&old_sha, &new_sha)).unwrap();
    let (code, out) = p.build(&[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 built"), "{out}");
    let second = p.prefix("cmvariant");
    assert_ne!(first, second);
}

/// An image with a `system: spack` package carries its package file in
/// `meta/recipe/packages/spack/`: rebuilt from its own metadata elsewhere
/// it is the same image, byte for byte.
#[test]
fn an_image_with_build_logic_rebuilds_from_its_metadata() {
    let p = Project::new();
    p.cmvariant();
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let image = p.path().join("build/store.squashfs");
    let copied = p
        .path()
        .join("build/store/meta/recipe/packages/spack/fixtures/cmvariant/package.py");
    assert!(copied.is_file(), "{}", copied.display());
    let elsewhere = p.path().join("elsewhere");
    fs_err::create_dir_all(&elsewhere).unwrap();
    let out = Stack::bare()
        .command()
        .args(["--color", "never", "build"])
        .arg(&image)
        .args(["--build", "../build-2", "--cache", "../cache", "-j", "2"])
        .env_remove("STACK_REPOS")
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("0 reused"), "{text}");
    let sha = |f: &Path| {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(fs_err::read(f).unwrap()))
    };
    assert_eq!(
        sha(&p.path().join("build-2/store.squashfs")),
        sha(&image),
        "{text}"
    );
}
