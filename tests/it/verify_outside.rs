//! Issue 40, item 8: `stack verify` and the check before packing see what
//! no manifest records — a file at the store root, beside a prefix, in a
//! prefix's `.stack/`, a file with an extended attribute — and refuse to
//! pack it; what the post-install hook added is recorded and accepted, in
//! the store and in the image.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::Stack;
use crate::harness::tiny_build::build;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    fs_err::create_dir_all(p.parent().unwrap()).unwrap();
    fs_err::write(p, text).unwrap();
}

/// One generic package and a post-install hook writing `config/site.txt`.
pub(crate) fn project(t: &Path) {
    write(t, "src/good-1.0/README", "good\n");
    let st = Command::new("tar")
        .args(["czf", "good-1.0.tar.gz", "good-1.0"])
        .current_dir(t.join("src"))
        .status()
        .unwrap();
    assert!(st.success());
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(
        fs_err::read(t.join("src/good-1.0.tar.gz")).unwrap(),
    ));
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    write(
        t,
        "recipes/good.yaml",
        &format!(
            "name: good\ndescription: good\nversions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share/README}}\n",
            t.join("src/good-1.0.tar.gz").display()
        ),
    );
    write(
        t,
        "stacks/hooks/post-install.sh",
        "#!/bin/sh\nset -eu\nmkdir -p \"{{ env.mount }}/config\"\necho site > \"{{ env.mount }}/config/site.txt\"\n",
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\npost_install: hooks/post-install.sh\n\
         environments:\n  e:\n    specs: [good]\n",
    );
}

/// The installed prefix of `good` (`<store>/<arch>/good-1.0-<hash>`).
fn prefix(store: &Path) -> PathBuf {
    walkdir::WalkDir::new(store)
        .max_depth(3)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.join(".stack/manifest.json").is_file())
        .expect("an installed prefix")
}

/// Set (`Some`) or remove `user.stack-test` on `path`; false when the
/// filesystem keeps no user attributes.
fn set_xattr(path: &Path, value: Option<&[u8]>) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    let name = c"user.stack-test";
    // SAFETY: NUL-terminated path and name; the value is valid for its length.
    let r = unsafe {
        match value {
            Some(v) => libc::lsetxattr(c.as_ptr(), name.as_ptr(), v.as_ptr().cast(), v.len(), 0),
            None => libc::lremovexattr(c.as_ptr(), name.as_ptr()),
        }
    };
    r == 0
}

/// `stack image build` after removing the image: exit code and stderr.
fn repack(t: &Path) -> (i32, String) {
    let _ = fs_err::remove_file(t.join("build/store.squashfs"));
    let (code, _, err) = Stack::new()
        .current_dir(t)
        .args(["image", "build"])
        .run()
        .parts();
    (code, err)
}

#[test]
fn files_no_manifest_records_are_reported_and_never_packed() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(t);
    let (code, text) = build(t, &[]);
    assert_eq!(code, 0, "{text}");
    let store = t.join("build/store");
    // The hook's file is recorded: the store and the image verify.
    assert!(store.join("config/site.txt").is_file());
    let recorded = fs_err::read_to_string(store.join("meta/store-manifest.json")).unwrap();
    assert!(recorded.contains("config/site.txt"), "{recorded}");
    for what in ["build", "build/store.squashfs"] {
        let (code, out, err) = Stack::new()
            .current_dir(t)
            .args(["verify", what])
            .run()
            .parts();
        assert_eq!(code, 0, "{what}: {out}{err}");
    }

    let p = prefix(&store);
    let beside = p.parent().unwrap().join("evil.so");
    let hidden = p.join(".stack/evil.so");
    let cases: [(&Path, &str); 3] = [
        (&store.join("evil.so"), "extra     evil.so"),
        (&beside, "evil.so"),
        (&hidden, ".stack/evil.so"),
    ];
    for (file, line) in cases {
        fs_err::write(file, "payload").unwrap();
        let (code, out, _) = Stack::new()
            .current_dir(t)
            .args(["verify", "build"])
            .run()
            .parts();
        assert_eq!(code, 1, "{}: {out}", file.display());
        assert!(
            out.lines()
                .any(|l| l.starts_with("extra") && l.contains(line)),
            "{}: {out}",
            file.display()
        );
        let (code, err) = repack(t);
        assert_eq!(code, 1, "{}: {err}", file.display());
        assert!(err.contains("refusing to pack"), "{err}");
        assert!(!t.join("build/store.squashfs").exists());
        fs_err::remove_file(file).unwrap();
    }
    // A recorded hook file changed afterwards is found too.
    fs_err::write(store.join("config/site.txt"), "changed\n").unwrap();
    let (code, out, _) = Stack::new()
        .current_dir(t)
        .args(["verify", "build"])
        .run()
        .parts();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("modified  config/site.txt (content)"), "{out}");
    fs_err::write(store.join("config/site.txt"), "site\n").unwrap();

    // An extended attribute is recorded nowhere: reported, never packed.
    let lib = p.join("share/README");
    let ok = set_xattr(&lib, Some(b"1"));
    if ok {
        let (code, out, _) = Stack::new()
            .current_dir(t)
            .args(["verify", "build"])
            .run()
            .parts();
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains("share/README (extended attributes user.stack-test"),
            "{out}"
        );
        let (code, err) = repack(t);
        assert_eq!(code, 1, "{err}");
        assert!(set_xattr(&lib, None));
    } else {
        eprintln!("skipped the xattr case: no user xattrs on this filesystem");
    }
    let (code, err) = repack(t);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = Stack::new()
        .current_dir(t)
        .args(["verify", "build/store.squashfs"])
        .run()
        .parts();
    assert_eq!(code, 0, "{out}{err}");
}
