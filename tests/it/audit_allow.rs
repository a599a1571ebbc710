//! The standalone audit judges a build's store or image the way the build
//! did: the allow-list recorded in `meta/audit/audit.json` (inside, or in
//! the `meta/` beside the store or image), `--cluster` (its `audit.allow`
//! and its externals, allowed by construction), and `dlopen-name` findings
//! that honour the allow-list on every name of the library.

use std::path::Path;
use std::process::Command;

use crate::harness::Stack;
use crate::harness::audit::*;
use serde_json::Value;

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

/// `build/store/pkg-a/lib/libleak.so` needs the host's libz.
fn leaky_build(c: &Case) {
    let leak = c.lib("leak", &[], &[]);
    c.patchelf(&["--add-needed", "libz.so.1"], &leak);
    c.put("libleak.so", "build/store/pkg-a/lib");
}

const REPORT: &str = r#"{"allow": ["libc.so*", "libz.so.1"], "summary": {}}"#;

#[test]
fn the_allow_list_recorded_beside_the_store_is_used() {
    let c = Case::new();
    leaky_build(&c);
    c.done();
    let (code, text) = audit(&["build/store"], c.root());
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("error[leak]"), "{text}");

    std::fs::create_dir_all(c.p("build/meta/audit")).unwrap();
    std::fs::write(c.p("build/meta/audit/audit.json"), REPORT).unwrap();
    let (code, text) = audit(&["build/store"], c.root());
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("allow-list recorded by the build: ")
            && text.contains("build/meta/audit/audit.json"),
        "{text}"
    );
    let (code, text) = audit(&["build/store", "--no-recorded-allow"], c.root());
    assert_eq!(code, 1, "{text}");
}

#[test]
fn the_allow_list_recorded_inside_an_image_is_used() {
    let c = Case::new();
    leaky_build(&c);
    c.done();
    std::fs::create_dir_all(c.p("build/store/meta/audit")).unwrap();
    std::fs::write(c.p("build/store/meta/audit/audit.json"), REPORT).unwrap();
    std::fs::create_dir_all(c.p("img")).unwrap();
    let st = Command::new("mksquashfs")
        .arg(c.p("build/store"))
        .arg(c.p("img/store.squashfs"))
        .args(["-noappend", "-quiet", "-no-progress", "-all-root"])
        .status()
        .unwrap();
    assert!(st.success());
    let (code, text) = audit(&["img/store.squashfs", "--format", "json"], c.root());
    assert_eq!(code, 0, "{text}");
    let r: Value = serde_json::from_str(&text).unwrap();
    assert!(
        r["inputs"][0]["allow_from"]
            .as_str()
            .unwrap()
            .ends_with("store.squashfs:/meta/audit/audit.json"),
        "{r}"
    );
    assert!(
        r["allow"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "libz.so.1")
    );
    let (code, _) = audit(&["img/store.squashfs", "--no-recorded-allow"], c.root());
    assert_eq!(code, 1);
}

#[test]
fn cluster_allow_list_and_externals_are_allowed() {
    let c = Case::new();
    leaky_build(&c);
    // A library of an external installed outside the system prefixes.
    c.lib("vendor", &[], &[]);
    c.put("libvendor.so", "opt/vendor/lib");
    let user = c.lib("user", &["vendor"], &[]);
    c.patchelf(&["--set-rpath", &c.s("opt/vendor/lib")], &user);
    c.put("libuser.so", "build/store/pkg-b/lib");
    c.done();
    let (code, text) = audit(&["build/store"], c.root());
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("libvendor.so"), "{text}");

    let cluster = c.p("cluster");
    std::fs::create_dir_all(&cluster).unwrap();
    std::fs::write(
        cluster.join("cluster.yaml"),
        format!(
            "name: test\ntarget: x86_64\ncompilers:\n  - {{spec: gcc@12.2.0, cc: /usr/bin/gcc}}\n\
             packages:\n  vendor: {{buildable: false, externals: [{{spec: vendor@1.0, prefix: {}}}]}}\n  \
             zlib: {{buildable: false, externals: [{{spec: zlib@1.2.13, prefix: /usr}}]}}\n\
             audit: {{allow: [libz.so.1]}}\n",
            c.s("opt/vendor")
        ),
    )
    .unwrap();
    let (code, text) = audit(&["build/store", "--cluster", "cluster"], c.root());
    assert_eq!(code, 0, "{text}");
    // /usr is shared by the whole system: zlib at /usr allows nothing by
    // prefix, only the `audit.allow` glob.
    let (_, text) = audit(
        &["build/store", "--cluster", "cluster", "--format", "json"],
        c.root(),
    );
    let r: Value = serde_json::from_str(&text).unwrap();
    let allow: Vec<&str> = r["allow"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        allow.contains(&format!("{}/*", c.s("opt/vendor")).as_str()),
        "{allow:?}"
    );
    assert!(!allow.contains(&"/usr/*"), "{allow:?}");

    std::fs::write(cluster.join("cluster.yaml"), "name: [").unwrap();
    assert_eq!(
        audit(&["build/store", "--cluster", "cluster"], c.root()).0,
        2
    );
}

#[test]
fn dlopen_names_honour_the_allow_list_on_the_real_path() {
    let c = Case::new();
    std::fs::write(
        c.p("b/plugin.c"),
        "#include <dlfcn.h>\nvoid *load(void) { return dlopen(\"libz.so.1\", RTLD_NOW); }\n",
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
    c.done();
    let dlopen_names = |args: &[&str]| -> usize {
        let mut a = vec!["store", "--format", "json"];
        a.extend(args);
        let (_, text) = audit(&a, c.root());
        let r: Value = serde_json::from_str(&text).unwrap();
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "dlopen-name")
            .count()
    };
    assert_eq!(dlopen_names(&[]), 1);
    assert_eq!(dlopen_names(&["--allow", "libz.so*"]), 0);
    // The real file behind the name the loader opens (libz.so.1 →
    // libz.so.1.2.x): allowed like a DT_NEEDED resolution would be.
    let real = std::fs::canonicalize("/lib/x86_64-linux-gnu/libz.so.1").unwrap();
    let glob = format!("{}*", real.parent().unwrap().join("libz.so.1.").display());
    assert_eq!(dlopen_names(&["--allow", &glob]), 0, "{glob}");
}

/// Issue 40, item 10: `--cluster` with an external in a directory of
/// system libraries (spelled as a merged-/usr alias, with a trailing slash)
/// allows nothing of that directory by prefix: the host's libz is a leak.
#[test]
fn an_external_in_a_system_library_dir_allows_nothing_by_prefix() {
    if !Path::new("/lib/x86_64-linux-gnu/libz.so.1").exists() {
        eprintln!("skipped: needs Debian's multiarch zlib");
        return;
    }
    let c = Case::new();
    leaky_build(&c);
    c.done();
    let cluster = c.p("cluster");
    std::fs::create_dir_all(&cluster).unwrap();
    for prefix in [
        "/usr/lib/x86_64-linux-gnu",
        "/lib/x86_64-linux-gnu/",
        "//usr/lib/../lib/x86_64-linux-gnu",
    ] {
        std::fs::write(
            cluster.join("cluster.yaml"),
            format!(
                "name: test\ntarget: x86_64\ncompilers:\n  - {{spec: gcc@12.2.0, cc: /usr/bin/gcc}}\n\
                 packages:\n  hostlibs: {{buildable: false, externals: [{{spec: hostlibs@1.0, prefix: \"{prefix}\"}}]}}\n"
            ),
        )
        .unwrap();
        let (code, text) = audit(&["build/store", "--cluster", "cluster"], c.root());
        assert_eq!(code, 1, "{prefix}: {text}");
        assert!(text.contains("libz.so.1"), "{prefix}: {text}");
    }
}
