//! Direct mode (installing into a writable mount point) in a mount point
//! shared with files of others (issue 13, item 5): only what this build
//! directory's record says it installed may be removed or replaced.

use std::path::{Path, PathBuf};

use crate::harness::Stack;

fn build(b: &Path, cache: &Path, mount: &Path) -> std::process::Output {
    let out = Stack::bare()
        .command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "--color",
            "never",
            "build",
            "stacks/cxi-mini.yaml",
            "--build",
        ])
        .arg(b)
        .arg("--cache")
        .arg(cache)
        .args(["-j", "2", "--mount-mode", "direct", "--mount"])
        .arg(mount)
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The directory holding the stack's prefixes (`<mount>/<arch>`).
fn prefix_parent(mount: &Path) -> PathBuf {
    fs_err::read_dir(mount)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.is_dir()
                && !["env", "modules", "meta"]
                    .iter()
                    .any(|r| p.file_name().unwrap() == *r)
        })
        .expect("a directory of prefixes")
}

#[test]
fn direct_mode_keeps_what_it_did_not_install() {
    let tmp = tempfile::tempdir().unwrap();
    let (b, cache, mount) = (
        tmp.path().join("build"),
        tmp.path().join("cache"),
        tmp.path().join("ue"),
    );
    let out = build(&b, &cache, &mount);
    assert!(out.status.success());

    // Others put files into the shared mount point.
    let other_prefix = prefix_parent(&mount).join("other-1.0-0123abcd");
    fs_err::create_dir_all(other_prefix.join("lib")).unwrap();
    fs_err::write(other_prefix.join("lib/libother.so"), "x").unwrap();
    fs_err::create_dir_all(mount.join("modules")).unwrap();
    fs_err::write(mount.join("modules/site.lua"), "-- site\n").unwrap();
    fs_err::create_dir_all(mount.join("env/otherview/bin")).unwrap();
    let foreign = [
        other_prefix.join("lib/libother.so"),
        mount.join("modules/site.lua"),
        mount.join("env/otherview/bin"),
    ];

    // A rerun prunes nothing it does not own (it used to delete the other
    // prefix, and then regenerate env/ and modules/ from scratch).
    let out = build(&b, &cache, &mount);
    assert!(out.status.success());
    for f in &foreign {
        assert!(f.exists(), "{} was deleted", f.display());
    }

    // When views must be regenerated, the build refuses to replace them.
    fs_err::remove_file(b.join("store.squashfs")).unwrap();
    let out = build(&b, &cache, &mount);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("did not install") && stderr.contains("env/otherview"),
        "{stderr}"
    );
    for f in &foreign {
        assert!(f.exists(), "{} was deleted", f.display());
    }

    // Once the foreign files are gone, it goes on.
    fs_err::remove_dir_all(mount.join("env/otherview")).unwrap();
    fs_err::remove_file(mount.join("modules/site.lua")).unwrap();
    let out = build(&b, &cache, &mount);
    assert!(out.status.success());
    assert!(other_prefix.exists(), "the other prefix stays");
}
