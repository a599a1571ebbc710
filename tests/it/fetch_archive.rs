//! Staging archives: every supported format, and crafted archives that try to write outside the
//! stage (each refused, with nothing written outside). Also patching staged trees with the real
//! `patch` program.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::harness::fetch::*;
use stack::fetch::{FetchError, Fetched, NoopReporter, fetch_all, stage};
use stack::patch::{PatchError, PatchFile, apply};

/// A test area: `src/` for archives, `cache/`, and `work/stage` as the stage.
struct Area {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Area {
    fn new() -> Area {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("work")).unwrap();
        Area { _tmp: tmp, root }
    }
    fn stage_dir(&self) -> PathBuf {
        self.root.join("work/stage")
    }
    /// Put `bytes` at `src/<name>` and fetch it (by absolute path) into the cache.
    fn fetch(&self, name: &str, bytes: &[u8]) -> Fetched {
        let path = self.root.join("src").join(name);
        std::fs::write(&path, bytes).unwrap();
        let req = archive("pkg", "1.0", path.to_str().unwrap(), Some(&sha(bytes)));
        fetch_all(&[req], &options(&self.root.join("cache")), &NoopReporter)
            .unwrap()
            .pop()
            .unwrap()
    }
    /// Every path under the area except the archive sources, the cache and the stage.
    fn snapshot(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = walkdir::WalkDir::new(&self.root)
            .into_iter()
            .filter_entry(|e| {
                let p = e.path();
                p != self.root.join("src") && p != self.root.join("cache") && p != self.stage_dir()
            })
            .flatten()
            .map(|e| e.into_path())
            .collect();
        v.sort();
        v
    }
    /// Stage a crafted archive, expect a refusal, and check that nothing was written anywhere
    /// (the stage is left empty).
    fn expect_refused(&self, name: &str, bytes: &[u8], reason: &str) -> FetchError {
        let fetched = self.fetch(name, bytes);
        let before = self.snapshot();
        let err = stage(&fetched, &self.stage_dir()).unwrap_err();
        assert!(
            matches!(err, FetchError::UnsafeArchive { .. }),
            "expected a refusal, got {err}"
        );
        assert!(err.to_string().contains(reason), "{err}");
        assert_eq!(before, self.snapshot(), "nothing written outside the stage");
        assert_eq!(
            std::fs::read_dir(self.stage_dir()).unwrap().count(),
            0,
            "stage left empty"
        );
        err
    }
}

/// A tar entry written with raw header fields, so it can hold names the `tar` crate refuses.
struct Raw<'a> {
    name: &'a [u8],
    kind: tar::EntryType,
    link: &'a [u8],
    data: &'a [u8],
}

fn raw(name: &[u8], kind: tar::EntryType) -> Raw<'_> {
    Raw {
        name,
        kind,
        link: b"",
        data: b"",
    }
}

fn raw_tar(entries: &[Raw<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        let mut h = tar::Header::new_gnu();
        {
            let old = h.as_old_mut();
            old.name[..e.name.len()].copy_from_slice(e.name);
            old.linkname[..e.link.len()].copy_from_slice(e.link);
        }
        h.set_entry_type(e.kind);
        h.set_mode(if e.kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        h.set_size(e.data.len() as u64);
        h.set_mtime(1_600_000_000);
        h.set_cksum();
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(e.data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// A normal tree in tar form: top/, top/a.txt, top/bin/run.sh (0755), top/link -> a.txt.
fn normal_tar() -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    let mut add = |path: &str, kind: tar::EntryType, mode: u32, data: &[u8], link: Option<&str>| {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(kind);
        h.set_mode(mode);
        h.set_size(data.len() as u64);
        h.set_mtime(1_500_000_000);
        match link {
            Some(l) => b.append_link(&mut h, path, l).unwrap(),
            None => b.append_data(&mut h, path, data).unwrap(),
        }
    };
    add("top/", tar::EntryType::Directory, 0o755, b"", None);
    add(
        "top/a.txt",
        tar::EntryType::Regular,
        0o644,
        b"alpha\n",
        None,
    );
    add(
        "top/bin/run.sh",
        tar::EntryType::Regular,
        0o755,
        b"#!/bin/sh\n",
        None,
    );
    add(
        "top/link",
        tar::EntryType::Symlink,
        0o777,
        b"",
        Some("a.txt"),
    );
    add(
        "top/hard",
        tar::EntryType::Link,
        0o644,
        b"",
        Some("top/a.txt"),
    );
    b.into_inner().unwrap()
}

fn normal_zip() -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    w.add_directory("top/", opts).unwrap();
    w.start_file("top/a.txt", opts.unix_permissions(0o644))
        .unwrap();
    w.write_all(b"alpha\n").unwrap();
    w.start_file("top/bin/run.sh", opts.unix_permissions(0o755))
        .unwrap();
    w.write_all(b"#!/bin/sh\n").unwrap();
    w.add_symlink("top/link", "a.txt", opts).unwrap();
    w.finish().unwrap().into_inner()
}

fn check_normal_tree(dest: &Path, with_hardlink: bool) {
    assert_eq!(std::fs::read(dest.join("a.txt")).unwrap(), b"alpha\n");
    let mode = std::fs::metadata(dest.join("bin/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    assert_eq!(
        std::fs::read_link(dest.join("link")).unwrap(),
        Path::new("a.txt")
    );
    if with_hardlink {
        assert_eq!(std::fs::read(dest.join("hard")).unwrap(), b"alpha\n");
    }
}

#[test]
fn every_format_extracts_and_strips_the_top_directory() {
    let tar = normal_tar();
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&tar).unwrap();
        e.finish().unwrap()
    };
    let bz2 = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(&tar).unwrap();
        e.finish().unwrap()
    };
    let xz = {
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(&tar).unwrap();
        e.finish().unwrap()
    };
    let zst = zstd::encode_all(&tar[..], 3).unwrap();
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        ("p-1.tar", tar.clone(), true),
        ("p-1.tar.gz", gz.clone(), true),
        ("p-1.tgz", gz.clone(), true),
        ("p-1.tar.bz2", bz2, true),
        ("p-1.tar.xz", xz, true),
        ("p-1.tar.zst", zst, true),
        ("p-1.zip", normal_zip(), false),
        // No extension in the URL (GitHub archive links): the format is sniffed.
        ("v1.0", gz, true),
    ];
    for (name, bytes, hardlink) in cases {
        let area = Area::new();
        let fetched = area.fetch(name, &bytes);
        let staged = stage(&fetched, &area.stage_dir()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(staged.stripped.as_deref(), Some("top"), "{name}");
        check_normal_tree(&area.stage_dir(), hardlink);
        let names: Vec<_> = std::fs::read_dir(area.stage_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            !names
                .iter()
                .any(|n| n.to_string_lossy().starts_with(".stack")),
            "{name}: {names:?}"
        );
    }
}

#[test]
fn several_top_level_entries_are_not_stripped() {
    let area = Area::new();
    let t = raw_tar(&[
        Raw {
            data: b"1",
            ..raw(b"one.txt", tar::EntryType::Regular)
        },
        raw(b"dir/", tar::EntryType::Directory),
    ]);
    let staged = stage(&area.fetch("x.tar", &t), &area.stage_dir()).unwrap();
    assert_eq!(staged.stripped, None);
    assert!(area.stage_dir().join("one.txt").is_file());
    assert!(area.stage_dir().join("dir").is_dir());
}

#[test]
fn stage_refuses_a_non_empty_destination() {
    let area = Area::new();
    let fetched = area.fetch("x.tar", &normal_tar());
    std::fs::create_dir_all(area.stage_dir()).unwrap();
    std::fs::write(area.stage_dir().join("old"), "x").unwrap();
    let err = stage(&fetched, &area.stage_dir()).unwrap_err();
    assert!(matches!(err, FetchError::StageNotEmpty { .. }), "{err}");
}

#[test]
fn path_traversal_is_refused() {
    let area = Area::new();
    for name in [
        &b"top/../../evil"[..],
        b"../evil",
        b"../../../evil",
        b"top/x/../../../../evil",
    ] {
        let t = raw_tar(&[
            raw(b"top/", tar::EntryType::Directory),
            Raw {
                data: b"pwned",
                ..raw(name, tar::EntryType::Regular)
            },
        ]);
        area.expect_refused("trav.tar", &t, "`..` component");
    }
}

#[test]
fn absolute_paths_are_refused() {
    let area = Area::new();
    let target = area.root.join("work/abs-evil");
    let t = raw_tar(&[Raw {
        data: b"pwned",
        ..raw(target.to_str().unwrap().as_bytes(), tar::EntryType::Regular)
    }]);
    area.expect_refused("abs.tar", &t, "absolute path");
    assert!(!target.exists());
}

#[test]
fn escaping_symlinks_are_refused() {
    let area = Area::new();
    let cases: Vec<(Vec<Raw<'_>>, &str)> = vec![
        (
            vec![Raw {
                link: b"../../outside",
                ..raw(b"top/link", tar::EntryType::Symlink)
            }],
            "points outside the stage",
        ),
        (
            vec![Raw {
                link: b"/etc",
                ..raw(b"top/etc", tar::EntryType::Symlink)
            }],
            "absolute path `/etc`",
        ),
        // Inside the archive root, but outside once `top/` becomes the stage.
        (
            vec![Raw {
                link: b"..",
                ..raw(b"top/up", tar::EntryType::Symlink)
            }],
            "points outside the stage",
        ),
        // A link to a link: `top/r -> .` is fine, `top/a -> r/../..` really is the parent.
        (
            vec![
                Raw {
                    link: b".",
                    ..raw(b"top/r", tar::EntryType::Symlink)
                },
                Raw {
                    link: b"r/..",
                    ..raw(b"top/a", tar::EntryType::Symlink)
                },
            ],
            "points outside the stage",
        ),
        // Writing through a symlink, even one that points inside, is refused.
        (
            vec![
                Raw {
                    link: b".",
                    ..raw(b"top/here", tar::EntryType::Symlink)
                },
                Raw {
                    data: b"x",
                    ..raw(b"top/here/file", tar::EntryType::Regular)
                },
            ],
            "written through the symlink",
        ),
    ];
    for (entries, reason) in cases {
        let mut all = vec![raw(b"top/", tar::EntryType::Directory)];
        all.extend(entries);
        area.expect_refused("link.tar", &raw_tar(&all), reason);
    }
}

#[test]
fn escaping_hardlinks_are_refused() {
    let area = Area::new();
    let outside = area.root.join("work/secret");
    std::fs::write(&outside, "secret").unwrap();
    let outside_abs = outside.to_str().unwrap().as_bytes().to_vec();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (outside_abs, "absolute path"),
        (b"../work/secret".to_vec(), "`..` component"),
        (b"top/missing".to_vec(), "not an earlier entry"),
        (b"top/sym".to_vec(), "not a regular file"),
    ];
    for (link, reason) in cases {
        let t = raw_tar(&[
            raw(b"top/", tar::EntryType::Directory),
            Raw {
                link: b"a",
                ..raw(b"top/sym", tar::EntryType::Symlink)
            },
            Raw {
                link: &link,
                ..raw(b"top/h", tar::EntryType::Link)
            },
        ]);
        area.expect_refused("hard.tar", &t, reason);
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
}

#[test]
fn device_files_are_refused() {
    let area = Area::new();
    for (kind, what) in [
        (tar::EntryType::Char, "character device"),
        (tar::EntryType::Block, "block device"),
        (tar::EntryType::Fifo, "FIFO"),
    ] {
        let t = raw_tar(&[
            raw(b"top/", tar::EntryType::Directory),
            raw(b"top/dev", kind),
        ]);
        area.expect_refused("dev.tar", &t, what);
    }
}

#[test]
fn zip_traversal_is_refused() {
    let area = Area::new();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    w.start_file("top/ok.txt", opts).unwrap();
    w.write_all(b"ok").unwrap();
    w.start_file("../../evil.txt", opts).unwrap();
    w.write_all(b"pwned").unwrap();
    let bytes = w.finish().unwrap().into_inner();
    area.expect_refused("t.zip", &bytes, "`..` component");
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.add_symlink("top/l", "../../../etc", opts).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    area.expect_refused("l.zip", &bytes, "points outside the stage");
}

// ---- patches -------------------------------------------------------------------------------

const GREET_C: &str = "#include <stdio.h>\n\nint greet(void)\n{\n    printf(\"hello\\n\");\n    return 0;\n}\n\n\
int answer(void)\n{\n    return 41;\n}\n";

const GOOD_PATCH: &str = "--- a/src/greet.c\n+++ b/src/greet.c\n@@ -2,6 +2,6 @@\n \n int greet(void)\n {\n-    printf(\"hello\\n\");\n+    printf(\"hello, world\\n\");\n     return 0;\n }\n";

/// Two hunks; the second expects `return 40;`, which the source does not have.
const BAD_PATCH: &str = "--- a/src/greet.c\n+++ b/src/greet.c\n@@ -2,6 +2,6 @@\n \n int greet(void)\n {\n-    printf(\"hello\\n\");\n+    printf(\"hi\\n\");\n     return 0;\n }\n\
@@ -9,4 +9,4 @@\n int answer(void)\n {\n-    return 40;\n+    return 42;\n }\n";

fn staged_greet(area: &Area) -> PathBuf {
    let t = tar_gz("greet-1.0", &[("src/greet.c", GREET_C.as_bytes())]);
    stage(&area.fetch("greet-1.0.tar.gz", &t), &area.stage_dir()).unwrap();
    area.stage_dir()
}

fn patch_file(area: &Area, name: &str, text: &str, level: u32) -> PatchFile {
    let path = area.root.join("src").join(name);
    std::fs::write(&path, text).unwrap();
    PatchFile {
        path,
        sha256: sha(text.as_bytes()),
        level,
        working_dir: None,
    }
}

#[test]
fn patches_apply_in_order_and_are_recorded() {
    let area = Area::new();
    let dir = staged_greet(&area);
    let second = "--- a/src/greet.c\n+++ b/src/greet.c\n@@ -3,5 +3,5 @@\n int greet(void)\n {\n-    printf(\"hello, world\\n\");\n+    printf(\"hello, stack\\n\");\n     return 0;\n }\n";
    let patches = [
        patch_file(&area, "1-world.patch", GOOD_PATCH, 1),
        patch_file(&area, "2-stack.patch", second, 1),
    ];
    let applied = apply("greet@1.0", &dir, &patches).unwrap();
    assert_eq!(applied.len(), 2);
    assert_eq!(applied[0].files, vec!["src/greet.c"]);
    assert_eq!(applied[1].sha256.as_str(), sha(second.as_bytes()));
    let text = std::fs::read_to_string(dir.join("src/greet.c")).unwrap();
    assert!(text.contains("hello, stack"), "{text}");
    let leftovers: Vec<_> = files_under(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "orig" || e == "rej"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_failing_patch_reports_its_rejected_hunk_and_changes_nothing() {
    let area = Area::new();
    let dir = staged_greet(&area);
    let p = patch_file(&area, "bad.patch", BAD_PATCH, 1);
    let err = apply("greet@1.0", &dir, std::slice::from_ref(&p)).unwrap_err();
    let PatchError::DoesNotApply {
        package,
        patch,
        rejections,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(package, "greet@1.0");
    assert_eq!(patch, &p.path);
    assert_eq!(rejections.len(), 1, "{rejections:?}");
    let r = &rejections[0];
    assert_eq!(r.file, "src/greet.c");
    assert_eq!(r.hunk, Some(2));
    assert_eq!(r.patch_line, Some(11));
    let hunk = r.text.as_deref().unwrap();
    assert!(
        hunk.starts_with("@@ -9,4 +9,4 @@") && hunk.contains("-    return 40;"),
        "{hunk}"
    );
    let msg = err.to_string();
    for needle in [
        "greet@1.0",
        "bad.patch",
        "src/greet.c, hunk #2",
        "-    return 40;",
        "hint:",
    ] {
        assert!(msg.contains(needle), "missing `{needle}` in:\n{msg}");
    }
    // The dry run kept the first (applicable) hunk out too.
    assert_eq!(
        std::fs::read_to_string(dir.join("src/greet.c")).unwrap(),
        GREET_C
    );
}

#[test]
fn a_patch_with_the_wrong_sha256_is_not_applied() {
    let area = Area::new();
    let dir = staged_greet(&area);
    let mut p = patch_file(&area, "good.patch", GOOD_PATCH, 1);
    p.sha256 = "f".repeat(64);
    let err = apply("greet@1.0", &dir, &[p]).unwrap_err();
    assert!(matches!(err, PatchError::Checksum { .. }), "{err}");
    assert!(err.to_string().contains(&sha(GOOD_PATCH.as_bytes())));
    assert_eq!(
        std::fs::read_to_string(dir.join("src/greet.c")).unwrap(),
        GREET_C
    );
}

#[test]
fn a_wrong_strip_level_says_so() {
    let area = Area::new();
    let dir = staged_greet(&area);
    let p = patch_file(&area, "good.patch", GOOD_PATCH, 0);
    let err = apply("greet@1.0", &dir, &[p]).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("can't find file to patch") && msg.contains("`level`"),
        "{msg}"
    );
}

#[test]
fn an_already_applied_patch_is_reported() {
    let area = Area::new();
    let dir = staged_greet(&area);
    let p = patch_file(&area, "good.patch", GOOD_PATCH, 1);
    apply("greet@1.0", &dir, std::slice::from_ref(&p)).unwrap();
    let err = apply("greet@1.0", &dir, &[p]).unwrap_err();
    assert!(err.to_string().contains("previously applied"), "{err}");
}
