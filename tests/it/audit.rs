//! `stack audit` on small stacks built with gcc in the test: findings,
//! allow-lists, mount points, squashfs images (packed with the real
//! mksquashfs), report formats and exit codes.

use std::path::Path;
use std::process::Command;

use crate::harness::Stack;
use crate::harness::audit::*;
use serde_json::Value;
use stack::audit::{AuditOptions, FindingKind, audit_tree};

const MOUNT: &str = "/user-environment";

/// A stack with one clean package (`pkg-a`).
fn clean_stack(c: &Case) {
    c.lib("ok", &[], &[]);
    c.exe(
        "store/pkg-a/bin/app",
        &["ok"],
        &["-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib"],
    );
    c.put("libok.so", "store/pkg-a/lib");
}

/// A stack with one package per kind of problem.
fn problem_stack(c: &Case) {
    clean_stack(c);
    // pkg-b: a leak (libz from the host) and a GCC runtime library (allowed).
    let leak = c.lib("leak", &[], &[]);
    c.patchelf(&["--add-needed", "libz.so.1"], &leak);
    c.patchelf(&["--add-needed", "libgcc_s.so.1"], &leak);
    c.put("libleak.so", "store/pkg-b/lib");
    // pkg-c: a name found nowhere, a relative and an empty RPATH element.
    let missing = c.lib("missing", &[], &[]);
    c.patchelf(&["--add-needed", "libnothere.so.7"], &missing);
    c.patchelf(&["--force-rpath", "--set-rpath", ":rel"], &missing);
    c.put("libmissing.so", "store/pkg-c/lib");
    // pkg-d: a plugin that dlopens the host's libcurl by path.
    std::fs::write(
        c.p("b/plugin.c"),
        "#include <dlfcn.h>\nvoid *load(void) { return dlopen(\"/usr/lib64/libcurl.so.4\", RTLD_NOW); }\n",
    )
    .unwrap();
    c.gcc_raw(&[
        "-shared",
        "-fPIC",
        "-o",
        "b/libplugin.so",
        "b/plugin.c",
        "-ldl",
    ]);
    c.put("libplugin.so", "store/pkg-d/lib");
    // pkg-e: libcore needs libshared but has no RUNPATH; the tool loads
    // libshared first, so it resolves only there.
    c.lib("shared", &[], &[]);
    c.lib("core", &["shared"], &[]);
    c.exe(
        "store/pkg-e/bin/tool",
        &["shared", "core"],
        &["-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib:$ORIGIN/../lib/private"],
    );
    c.put("libcore.so", "store/pkg-e/lib");
    c.put("libshared.so", "store/pkg-e/lib/private");
}

fn audit(args: &[&str], cwd: &Path) -> (i32, String) {
    let out = Stack::bare()
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

fn json(args: &[&str], cwd: &Path) -> (i32, Value) {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let (code, text) = audit(&a, cwd);
    (
        code,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

fn kinds(report: &Value) -> Vec<String> {
    let mut v: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn clean_stack_exits_zero() {
    let c = Case::new();
    clean_stack(&c);
    c.done();
    let (code, text) = audit(&["store"], c.root());
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("result: clean"), "{text}");
    let (_, r) = json(&["store"], c.root());
    let app = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("bin/app"))
        .unwrap();
    assert_eq!(app["kind"], "executable");
    let needed = &app["needed"][0];
    assert_eq!(needed["needed"], "libok.so");
    assert_eq!(needed["via"], "runpath");
    assert_eq!(needed["class"], "stack");
    assert!(
        needed["path"]
            .as_str()
            .unwrap()
            .ends_with("pkg-a/bin/../lib/libok.so")
    );
    let libc = app["needed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["needed"] == "libc.so.6")
        .unwrap();
    assert_eq!(libc["class"], "allowed");
    assert_eq!(libc["via"], "ld.so.cache");
}

#[test]
fn every_kind_of_problem_is_found() {
    let c = Case::new();
    problem_stack(&c);
    c.done();
    let (code, r) = json(&["store"], c.root());
    assert_eq!(code, 1);
    assert_eq!(
        kinds(&r),
        vec![
            "dlopen-path",
            "empty-search-path",
            "leak",
            "relative-search-path",
            "resolves-only-when-preloaded",
            "unresolved",
        ]
    );
    let find = |kind: &str| -> Vec<&Value> {
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == kind)
            .collect()
    };
    let leak = find("leak");
    assert_eq!(leak.len(), 1);
    assert_eq!(leak[0]["target"], "libz.so.1");
    assert_eq!(leak[0]["severity"], "error");
    assert!(leak[0]["group"].as_str().unwrap().ends_with("store/pkg-b"));
    let dl = find("dlopen-path");
    assert_eq!(dl[0]["target"], "/usr/lib64/libcurl.so.4");
    let pre = find("resolves-only-when-preloaded");
    assert_eq!(pre[0]["severity"], "warning");
    assert!(pre[0]["file"].as_str().unwrap().ends_with("libcore.so"));
    assert!(
        pre[0]["message"]
            .as_str()
            .unwrap()
            .contains("pkg-e/bin/tool")
    );
    assert_eq!(r["summary"]["leaks"], 1);
    // libgcc_s is allowed by default.
    let leakfile = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("libleak.so"))
        .unwrap();
    let gcc = leakfile["needed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["needed"] == "libgcc_s.so.1")
        .unwrap();
    assert_eq!(gcc["class"], "allowed");
    let plugin = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with("libplugin.so"))
        .unwrap();
    assert_eq!(plugin["dlopen"][0]["string"], "/usr/lib64/libcurl.so.4");
    assert_eq!(plugin["dlopen"][0]["kind"], "absolute");
}

#[test]
fn allow_globs_and_default_list() {
    let c = Case::new();
    problem_stack(&c);
    c.done();
    let (_, r) = json(
        &[
            "store",
            "--allow",
            "libz.so*",
            "--allow",
            "/usr/lib64/libcurl.so*",
        ],
        c.root(),
    );
    let k = kinds(&r);
    assert!(!k.contains(&"leak".to_string()), "{k:?}");
    assert!(!k.contains(&"dlopen-path".to_string()), "{k:?}");
    let (_, r) = json(&["store", "--no-default-allow"], c.root());
    let leaks: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "leak")
        .map(|f| f["target"].as_str().unwrap())
        .collect();
    assert!(
        leaks.contains(&"libgcc_s.so.1") && leaks.contains(&"libc.so.6"),
        "{leaks:?}"
    );
    // The library API takes the same list (what the build fills from the
    // cluster configuration).
    let opts = AuditOptions {
        allow: vec!["libz.so.1".into()],
        ..AuditOptions::default()
    };
    let rep = audit_tree(&c.p("store"), &opts).unwrap();
    assert!(!rep.findings.iter().any(|f| f.kind == FindingKind::Leak));
    assert!(rep.has_errors());
}

#[test]
fn mount_point_decides_what_is_inside() {
    if Path::new(MOUNT).exists() {
        return; // the host really has something there
    }
    let c = Case::new();
    c.lib("ok", &[], &[]);
    c.exe(
        "store/bin/app",
        &["ok"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{MOUNT}/lib")],
    );
    c.put("libok.so", "store/lib");
    c.done();
    let (code, text) = audit(&["store", "--mount", MOUNT], c.root());
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!("mounted at {MOUNT} (from --mount)")),
        "{text}"
    );
    let (code, r) = json(&["store"], c.root());
    assert_eq!(code, 1);
    assert_eq!(kinds(&r), vec!["unresolved"]);
    // --root is accepted as an alias.
    assert_eq!(audit(&["store", "--root", MOUNT], c.root()).0, 0);
}

fn mksquashfs(c: &Case, dir: &str, image: &str) {
    std::fs::create_dir_all(c.p(image).parent().unwrap()).unwrap();
    let st = Command::new("mksquashfs")
        .arg(c.p(dir))
        .arg(c.p(image))
        .args(["-noappend", "-quiet", "-no-progress", "-all-root"])
        .status()
        .expect("mksquashfs");
    assert!(st.success());
}

/// Findings without the parts that depend on where the tree was read from.
fn comparable(r: &Value) -> Vec<(String, String, String)> {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["target"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn squashfs_image_is_read_in_place() {
    let c = Case::new();
    problem_stack(&c);
    c.done();
    mksquashfs(&c, "store", "img/store.squashfs");
    // Mount point from meta/env.json beside the image.
    std::fs::create_dir_all(c.p("img/meta")).unwrap();
    std::fs::write(
        c.p("img/meta/env.json"),
        format!(r#"{{"name": "t", "mount": "{MOUNT}", "views": {{}}}}"#),
    )
    .unwrap();
    let (code, img) = json(&["img/store.squashfs"], c.root());
    assert_eq!(code, 1);
    assert_eq!(img["inputs"][0]["kind"], "squashfs");
    assert_eq!(img["inputs"][0]["mount"], MOUNT);
    let (_, dir) = json(&["store", "--mount", MOUNT], c.root());
    assert_eq!(comparable(&img), comparable(&dir));
    assert_eq!(img["summary"]["elf_files"], dir["summary"]["elf_files"]);
    assert!(img["files"][0]["path"].as_str().unwrap().starts_with(MOUNT));

    // meta/env.json inside the image, with another mount point.
    std::fs::create_dir_all(c.p("store/meta")).unwrap();
    std::fs::write(c.p("store/meta/env.json"), r#"{"mount": "/opt/stack"}"#).unwrap();
    mksquashfs(&c, "store", "img2/store.squashfs");
    let (_, r) = json(&["img2/store.squashfs"], c.root());
    assert_eq!(r["inputs"][0]["mount"], "/opt/stack");
    // --mount wins.
    let (_, r) = json(&["img2/store.squashfs", "--mount", "/x"], c.root());
    assert_eq!(r["inputs"][0]["mount"], "/x");

    // A broken env.json is bad input.
    std::fs::write(c.p("img/meta/env.json"), "{").unwrap();
    assert_eq!(audit(&["img/store.squashfs"], c.root()).0, 2);
}

#[test]
fn bad_input_exits_two() {
    let c = Case::new();
    std::fs::write(c.p("notimage"), "hello").unwrap();
    std::fs::write(c.p("broken.squashfs"), b"hsqs\0\0\0\0garbage").unwrap();
    let (code, text) = audit(&["nonexistent"], c.root());
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("nonexistent: no such file or directory"),
        "{text}"
    );
    let (code, text) = audit(&["notimage"], c.root());
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("not a directory or a squashfs image"),
        "{text}"
    );
    assert_eq!(audit(&["broken.squashfs"], c.root()).0, 2);
    assert_eq!(audit(&[".", "--allow", "lib["], c.root()).0, 2);
    assert_eq!(audit(&[".", "--mount", "relative"], c.root()).0, 2);
    assert_eq!(audit(&[".", "--format", "xml"], c.root()).0, 2);
}

#[test]
fn junit_and_text_reports() {
    let c = Case::new();
    problem_stack(&c);
    c.done();
    let (code, xml) = audit(&["store", "--format", "junit"], c.root());
    assert_eq!(code, 1);
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert_eq!(xml.matches("<testsuites").count(), 1);
    assert_eq!(
        xml.matches("<testsuite ").count(),
        xml.matches("</testsuite>").count()
    );
    assert!(xml.contains("<failure type=\"leak\""), "{xml}");
    assert!(xml.contains("<failure type=\"dlopen-path\""), "{xml}");
    assert!(
        xml.contains("warning[resolves-only-when-preloaded]"),
        "{xml}"
    );
    // One test case per finding: a failure per error, a skipped case (shown
    // by GitLab) per warning.
    let (_, json) = audit(&["store", "--format", "json"], c.root());
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let errors = report["summary"]["errors"].as_u64().unwrap() as usize;
    let warnings = report["summary"]["warnings"].as_u64().unwrap() as usize;
    assert!(errors > 1 && warnings > 0, "{errors} {warnings}");
    assert_eq!(xml.matches("<failure ").count(), errors, "{xml}");
    assert_eq!(xml.matches("<skipped ").count(), warnings, "{xml}");
    assert!(
        xml.contains(&format!(
            "failures=\"{errors}\" errors=\"0\" skipped=\"{warnings}\""
        )),
        "{xml}"
    );
    assert!(
        xml.contains("<skipped message=\"warning[resolves-only-when-preloaded]: "),
        "{xml}"
    );
    // -o writes the report to a file and prints the verdict.
    let (code, out) = audit(&["store", "--format", "junit", "-o", "audit.xml"], c.root());
    assert_eq!(code, 1);
    assert!(
        out.starts_with(&format!(
            "stack audit: result: FINDINGS ({errors} errors, {warnings} warning"
        )),
        "{out}"
    );
    assert!(out.trim_end().ends_with("; report in audit.xml"), "{out}");
    let untimed = |s: &str| {
        s.split(" time=").next().unwrap().to_string()
            + s.split("\">\n")
                .skip(1)
                .collect::<Vec<_>>()
                .join("\">\n")
                .as_str()
    };
    assert_eq!(
        untimed(&std::fs::read_to_string(c.p("audit.xml")).unwrap()),
        untimed(&xml)
    );

    let (_, text) = audit(&["store"], c.root());
    let root = c.root().canonicalize().unwrap();
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(
        &crate::filters::regex_escape(&root.to_string_lossy()),
        "[TMP]",
    );
    settings.add_filter(r"(?m)^loader: .*$", "loader: [HOST LOADER]");
    settings.add_filter(r"in \d+ ms", "in [T] ms");
    settings.add_filter(r"/(usr/)?lib/x86_64-linux-gnu/", "/[LIBDIR]/");
    settings.bind(|| insta::assert_snapshot!("problem_stack_text", text));
}

#[test]
fn several_trees_form_one_stack() {
    let c = Case::new();
    c.lib("ok", &[], &[]);
    c.exe(
        "t1/bin/app",
        &["ok"],
        &[&format!("-Wl,--enable-new-dtags,-rpath,{}", c.s("t2/lib"))],
    );
    c.put("libok.so", "t2/lib");
    c.done();
    assert_eq!(audit(&["t1", "t2"], c.root()).0, 0);
    let (code, r) = json(&["t1"], c.root());
    assert_eq!(code, 1);
    // t2/lib is outside t1: a leak, and a RUNPATH element outside the stack.
    assert_eq!(kinds(&r), vec!["leak", "search-path-outside"]);
    assert_eq!(audit(&["t1", "t2", "--mount", "/x"], c.root()).0, 2);
}

#[test]
fn another_os_through_a_sysroot() {
    // A lib64-layout target (no multiarch directories), without a cache:
    // ld.so.conf names /opt/extra; the default directories are /lib64 and
    // /usr/lib64; there is no program interpreter.
    let c = Case::new();
    c.lib("sys", &[], &[]);
    c.lib("extra", &[], &[]);
    c.exe("store/bin/app", &["sys", "extra"], &[]);
    c.put("libsys.so", "root/usr/lib64");
    c.put("libextra.so", "root/opt/extra");
    c.done();
    std::fs::create_dir_all(c.p("root/etc/ld.so.conf.d")).unwrap();
    std::fs::write(c.p("root/etc/ld.so.conf"), "include ld.so.conf.d/*.conf\n").unwrap();
    std::fs::write(c.p("root/etc/ld.so.conf.d/extra.conf"), "/opt/extra\n").unwrap();
    let (code, r) = json(&["store", "--sysroot", "root"], c.root());
    assert_eq!(code, 1);
    assert_eq!(
        r["loader"]["default_dirs"],
        serde_json::json!(["/lib64", "/usr/lib64"])
    );
    assert_eq!(r["loader"]["cache"]["kind"], "conf");
    let app = &r["files"][0];
    let by = |n: &str| {
        app["needed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["needed"] == n)
            .unwrap()
            .clone()
    };
    // ldconfig also scans the default directories.
    assert_eq!(by("libsys.so")["path"], "/usr/lib64/libsys.so");
    assert_eq!(by("libsys.so")["via"], "ld.so.cache");
    assert_eq!(by("libextra.so")["path"], "/opt/extra/libextra.so");
    assert_eq!(by("libextra.so")["via"], "ld.so.cache");
    assert_eq!(by("libc.so.6")["class"], "allowed-missing");
    assert_eq!(kinds(&r), vec!["interpreter-missing", "leak"]);

    // The same facts as a loader model file, with the cache turned off.
    let model = serde_json::json!({
        "machine": 62, "class": 2, "data": 1,
        "interpreter": "/lib64/ld-linux-x86-64.so.2",
        "default_dirs": ["/usr/lib64"], "lib": "lib64", "platform": "x86_64",
        "ld_so_cache": null, "ld_so_conf": "/etc/ld.so.conf", "source": "test"
    });
    std::fs::write(c.p("model.json"), model.to_string()).unwrap();
    let (_, r) = json(
        &["store", "--sysroot", "root", "--loader-model", "model.json"],
        c.root(),
    );
    assert_eq!(r["loader"]["source"], "test");
    assert_eq!(r["loader"]["cache"]["kind"], "none");
    let unresolved: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "unresolved")
        .map(|f| f["target"].as_str().unwrap())
        .collect();
    assert_eq!(unresolved, vec!["libextra.so"]);
    let app = &r["files"][0];
    let sys = app["needed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["needed"] == "libsys.so")
        .unwrap();
    assert_eq!(sys["via"], "default-dir");
    std::fs::write(c.p("bad.json"), r#"{"machine": 62}"#).unwrap();
    assert_eq!(
        audit(&["store", "--loader-model", "bad.json"], c.root()).0,
        2
    );
}
