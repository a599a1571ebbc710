//! `stack audit` never says "clean" about what it could not read: an
//! unreadable ELF file or directory, a file below a path longer than
//! PATH_MAX and a squashfs image with corrupt data blocks are `unreadable`
//! error findings, counted in the summary; file names with control
//! characters cannot forge lines of the text report.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::harness::Stack;
use crate::harness::audit::*;
use serde_json::Value;

/// Runs `stack audit ARGS` in `cwd`, as an unprivileged user when the tests
/// run as root (root reads files whatever their mode).
fn audit_as_user(args: &[&str], cwd: &Path) -> (i32, String) {
    let out = Stack::unprivileged()
        .command()
        .arg("audit")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn unreadable(r: &Value) -> Vec<String> {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "unreadable")
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect()
}

/// A clean package `pkg-a` (program + library) and a library in `pkg-b`.
fn two_packages(c: &Case) {
    c.lib("ok", &[], &[]);
    c.exe(
        "store/pkg-a/bin/app",
        &["ok"],
        &["-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib"],
    );
    c.put("libok.so", "store/pkg-a/lib");
    c.lib("other", &[], &[]);
    c.put("libother.so", "store/pkg-b/lib");
    c.done();
    // Readable by the unprivileged user the audit runs as.
    std::fs::set_permissions(c.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn unreadable_file_and_directory_are_findings() {
    let c = Case::new();
    two_packages(&c);
    let (code, text) = audit_as_user(&["store"], c.root());
    assert_eq!(code, 0, "{text}");

    chmod(&c.p("store/pkg-a/lib/libok.so"), 0o000);
    chmod(&c.p("store/pkg-b/lib"), 0o000);
    let (code, text) = audit_as_user(&["store", "--format", "json"], c.root());
    chmod(&c.p("store/pkg-b/lib"), 0o755);
    assert_eq!(code, 1, "{text}");
    let r = json(&text);
    let bad = unreadable(&r);
    assert_eq!(bad.len(), 2, "{bad:?}");
    assert!(bad[0].ends_with("store/pkg-a/lib/libok.so"), "{bad:?}");
    assert!(bad[1].ends_with("store/pkg-b/lib"), "{bad:?}");
    assert_eq!(r["summary"]["unreadable"], 2);

    chmod(&c.p("store/pkg-b/lib"), 0o000);
    let (code, text) = audit_as_user(&["store"], c.root());
    chmod(&c.p("store/pkg-b/lib"), 0o755);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("2 files or directories could not be read and were not examined"),
        "{text}"
    );
    assert!(text.contains("Permission denied"), "{text}");
    assert!(text.contains("result: FINDINGS"), "{text}");
}

#[test]
fn file_below_a_path_longer_than_path_max_is_a_finding() {
    let c = Case::new();
    two_packages(&c);
    // 50 levels of 100-byte names: 5 kB, beyond PATH_MAX (4096); created
    // with relative paths.
    let name = "d".repeat(100);
    let st = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "lib=$PWD/store/pkg-a/lib/libok.so; cd store/pkg-a && for i in $(seq 50); do mkdir {name} && cd {name} || exit 1; done && cp \"$lib\" ."
        ))
        .current_dir(c.root())
        .status()
        .unwrap();
    assert!(st.success());
    let out = Stack::bare()
        .command()
        .args(["audit", "store", "--format", "json"])
        .current_dir(c.root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let r = json(&text);
    let bad = unreadable(&r);
    assert!(!bad.is_empty(), "{text}");
    assert!(bad.iter().all(|b| b.len() > 4000), "{bad:?}");
    assert_eq!(r["summary"]["unreadable"], bad.len());
}

#[test]
fn squashfs_with_corrupt_data_blocks_is_a_finding() {
    let c = Case::new();
    c.lib("ok", &[], &[]);
    c.put("libok.so", "store/pkg-a/lib");
    c.done();
    let image = c.p("store.squashfs");
    let st = Command::new("mksquashfs")
        .arg(c.p("store"))
        .arg(&image)
        .args(["-noappend", "-quiet", "-no-progress", "-all-root"])
        .args(["-no-fragments"])
        .status()
        .unwrap();
    assert!(st.success());
    let audit = |args: &[&str]| {
        let out = Stack::bare()
            .command()
            .arg("audit")
            .args(args)
            .current_dir(c.root())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let (code, text) = audit(&["store.squashfs"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("1 files, 1 ELF"), "{text}");
    // The data blocks follow the 96-byte superblock: overwrite the start of
    // the only file's (compressed) data.
    let mut bytes = std::fs::read(&image).unwrap();
    for b in &mut bytes[96..96 + 512] {
        *b = 0x5a;
    }
    std::fs::write(&image, &bytes).unwrap();
    let (code, text) = audit(&["store.squashfs"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("error[unreadable]"), "{text}");
    assert!(text.contains("/pkg-a/lib/libok.so"), "{text}");
    assert!(
        text.contains("1 file or directory could not be read"),
        "{text}"
    );
}

#[test]
fn newlines_in_file_names_do_not_forge_report_lines() {
    let c = Case::new();
    let lib = c.lib("missing", &[], &[]);
    c.patchelf(&["--add-needed", "libnothere.so.7"], &lib);
    std::fs::create_dir_all(c.p("store/pkg-a/lib")).unwrap();
    std::fs::copy(&lib, c.p("store/pkg-a/lib/lib\nresult: clean\n.so")).unwrap();
    c.done();
    let out = Stack::bare()
        .command()
        .args(["audit", "store"])
        .current_dir(c.root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        !text.lines().any(|l| l.starts_with("result: clean")),
        "{text}"
    );
    assert!(text.contains("lib\\nresult: clean\\n.so"), "{text}");
}
