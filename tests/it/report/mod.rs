//! The build report (issue 39): every `stack build` writes
//! `BUILD/report.html`; `stack report` makes it again from a build
//! directory or an image's `meta/`. Rendered for real in headless Chromium
//! (browser.rs): one graph node per package, one timeline bar per package
//! built, no console message (script errors, blocked loads), the failures
//! first; screenshots under `target/report-screenshots/`.

use crate::harness::{Stack, root};

mod browser;
mod synthetic;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// `stack report ARGS`; its stdout.
fn report(args: &[&Path]) -> String {
    let out = Stack::bare()
        .command()
        .arg("report")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "stack report failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn assert_quiet(r: &browser::Rendered, what: &str) {
    assert!(
        r.console.is_empty(),
        "{what}: console messages:\n{}",
        r.console.join("\n")
    );
    assert!(
        r.dom.contains("data-ready=\"1\""),
        "{what}: the page's script did not run to its end"
    );
}

#[test]
fn the_demo_build_writes_a_report_chromium_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let b = tmp.path().join("build");
    let out = Stack::bare()
        .command()
        .current_dir(root())
        .args(["--color", "never", "build", "stacks/demo.yaml", "--build"])
        .arg(&b)
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .args(["-j", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let page = b.join("report.html");
    assert!(
        err.contains(&format!("report: {}", page.display())),
        "{err}"
    );

    let lock = json(&b.join("stack.lock"));
    let run = json(&b.join("run.json"));
    let nodes = lock["nodes"].as_array().unwrap().len();
    let built = run["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "built")
        .count();
    assert_eq!(
        (nodes, built),
        (8, 6),
        "the demo: 6 packages built, 2 externals"
    );
    for p in run["packages"].as_array().unwrap() {
        assert!(p["lane"].as_str().unwrap().starts_with("slot "), "{p}");
        assert!(
            p["ready"].as_f64().unwrap() <= p["start"].as_f64().unwrap(),
            "{p}"
        );
        assert!(p["size"]["bytes"].as_u64().unwrap() > 0, "{p}");
        assert!(p["source"]["route"].is_string(), "{p}");
    }
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "nothing is loaded"
    );
    assert!(html.contains("clean: "), "the demo's audit is clean");

    let r = browser::render(&page, "");
    assert_quiet(&r, "demo");
    assert_eq!(
        r.count("<g class=\"node "),
        nodes,
        "one graph node per package"
    );
    assert_eq!(
        r.count("<g class=\"bar "),
        built,
        "one timeline bar per package built"
    );
    assert_eq!(r.count("<tr id=\"p-"), nodes, "one table row per package");
    assert!(!r.dom.contains("id=\"failures\""));
    let png = browser::screenshot(&page, "", "demo", 1500, 1400);
    eprintln!("screenshot: {}", png.display());

    // `stack report` makes the same page again.
    std::fs::remove_file(&page).unwrap();
    assert_eq!(report(&[&b]).trim(), page.display().to_string());
    assert!(
        std::fs::read_to_string(&page).unwrap() == html,
        "the same page"
    );
    // … from the meta/ beside the image (it has the run record) …
    let beside = tmp.path().join("beside.html");
    report(&[&b.join("meta"), Path::new("--out"), &beside]);
    let r = browser::render(&beside, "");
    assert_quiet(&r, "meta beside the image");
    assert_eq!(r.count("<g class=\"bar "), built);
    // … and from the image's own meta/: the plan, sizes and audit, no times.
    let inside = tmp.path().join("inside.html");
    report(&[&b.join("store/meta"), Path::new("--out"), &inside]);
    let r = browser::render(&inside, "");
    assert_quiet(&r, "meta inside the image");
    assert_eq!(r.count("<g class=\"node "), nodes);
    assert_eq!(r.count("<g class=\"bar "), 0);
    assert!(
        r.dom.contains("no wall-clock data"),
        "says why there is no timeline"
    );
    assert!(r.dom.contains("clean: "));
    assert!(r.dom.contains("KiB"), "the sizes come from meta/sizes.json");
    assert!(
        !b.join("store/meta/run.json").exists(),
        "no times inside the image"
    );

    let bad = Stack::bare()
        .command()
        .arg("report")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("neither a build directory"));
}

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `good`, `broken` (its build step fails with compiler-like output) and
/// `user` (depends on `broken`).
fn failing_project(t: &Path) {
    write(t, "src/pkg-1.0/README", "readme\n");
    let st = Command::new("tar")
        .args(["czf", "pkg-1.0.tar.gz", "pkg-1.0"])
        .current_dir(t.join("src"))
        .status()
        .unwrap();
    assert!(st.success());
    let sha = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(
            std::fs::read(t.join("src/pkg-1.0.tar.gz")).unwrap(),
        ))
    };
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    let url = t.join("src/pkg-1.0.tar.gz");
    let recipe = |name: &str, extra: &str| {
        format!(
            "name: {name}\ndescription: {name}\nversions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: generic\n{extra}  install:\n    - {{copy: README, to: share/README}}\n",
            url.display()
        )
    };
    write(t, "recipes/good.yaml", &recipe("good", ""));
    write(
        t,
        "recipes/broken.yaml",
        &recipe(
            "broken",
            "  steps:\n    pre_install:\n      - [sh, -c, 'echo compiling broken.c; echo \"broken.c:3:1: error: expected semicolon\" >&2; exit 1']\n",
        ),
    );
    write(
        t,
        "recipes/user.yaml",
        &recipe("user", "").replace("build:\n", "dependencies: [broken]\nbuild:\n"),
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [good, user]\n",
    );
}

#[test]
fn a_failed_build_reports_its_failure_first() {
    let t = tempfile::tempdir().unwrap();
    failing_project(t.path());
    let (code, text) = crate::harness::tiny_build::build(t.path(), &[]);
    assert_eq!(code, 1, "{text}");
    let page = t.path().join("build/report.html");
    assert!(text.contains("report: "), "{text}");
    let run = json(&t.path().join("build/run.json"));
    assert_eq!(run["outcome"], "failed");
    assert!(run["audit"].is_null(), "a failed build is not audited");

    let r = browser::render(&page, "");
    assert_quiet(&r, "failed build");
    let (fail, graph) = (
        r.dom.find("id=\"failures\"").expect("a failures section"),
        r.dom.find("id=\"graph\"").unwrap(),
    );
    assert!(fail < graph, "the failures come first");
    let failures = &r.dom[fail..graph];
    assert!(failures.contains("broken@1.0 failed in"), "{failures}");
    assert!(
        failures.contains("broken.c:3:1: error: expected semicolon"),
        "the log's tail: {failures}"
    );
    assert!(
        failures.contains("user@1.0"),
        "the skipped dependent: {failures}"
    );
    assert!(
        r.dom.contains("Not audited in this run"),
        "never `clean` unaudited"
    );
    assert!(!r.dom.contains("clean: "));
    assert_eq!(r.count("<g class=\"node "), 3);
    assert_eq!(
        r.count("<g class=\"bar "),
        2,
        "good built, broken failed; user never ran"
    );
    browser::screenshot(&page, "", "demo-failed", 1400, 1100);
}

#[test]
fn a_400_package_report_stays_readable_and_under_2_mb() {
    // Kept beside the screenshots: the page is an artifact too.
    let dir = browser::screenshot_dir().join("synthetic-400");
    let _ = std::fs::remove_dir_all(&dir);
    let s = synthetic::write(&dir, 400);
    let printed = report(&[&dir]);
    let page = dir.join("report.html");
    assert_eq!(printed.trim(), page.display().to_string());
    let size = std::fs::metadata(&page).unwrap().len();
    eprintln!("400-package report: {size} bytes");
    assert!(size < 2 * 1024 * 1024, "{size} bytes");

    let r = browser::render(&page, "");
    assert_quiet(&r, "400 packages");
    assert_eq!(r.count("<g class=\"node "), s.packages);
    assert_eq!(r.count("<g class=\"bar "), s.built);
    assert_eq!(r.count("<tr id=\"p-"), s.packages);
    assert!(
        r.dom.contains("<code>leak</code>: 1 finding"),
        "findings by kind"
    );
    // The graph's drawing stays within a size one scrolls through.
    let svg = r.dom.find("<svg id=\"plan\"").unwrap();
    let attr = |name: &str| -> f64 {
        let at = r.dom[svg..].find(&format!(" {name}=\"")).unwrap() + svg + name.len() + 3;
        r.dom[at..at + r.dom[at..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    let (w, h) = (attr("width"), attr("height"));
    eprintln!("plan drawing: {w} x {h} px");
    assert!(w < 2500.0 && h < 12000.0, "{w} x {h}");
    // One environment alone, as the environment switch lays it out.
    let r = browser::render(&page, "#env=2");
    assert_quiet(&r, "400 packages, one environment");
    browser::screenshot(&page, "", "plan-400", 1600, 2000);
    browser::screenshot(&page, "#env=2", "plan-400-env", 1600, 2000);
}
