//! Issue 40, item 10: the build's audit allows the libraries of the
//! externals the plan links, however the loader spells their path, and
//! nothing else. A package linking the host's zlib through the declared
//! external zlib (`prefix: /usr`) is clean although ld.so.cache names
//! `/lib/x86_64-linux-gnu/libz.so.1` (`/lib` → `usr/lib` on a merged
//! `/usr`); the same library linked without declaring zlib is a leak, even
//! with an external (linked or merely declared) sitting in
//! `/usr/lib/x86_64-linux-gnu` or `/lib/x86_64-linux-gnu`. Built from
//! source, such a library never links (the wrapper's link guard); the leaky
//! libraries here are prebuilt binaries the stack installs as they are.

use std::path::Path;
use std::process::Command;

use crate::harness::tiny_build::build;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    fs_err::create_dir_all(p.parent().unwrap()).unwrap();
    fs_err::write(p, text).unwrap();
}

/// `<t>/src/<name>-1.0.tar.gz`: a shared library calling zlib, linked with
/// `-lz` (`prebuilt`: already built, by the host's compiler, in `lib/`);
/// returns the recipe's `versions:` block.
fn source(t: &Path, name: &str, prebuilt: bool) -> String {
    let dir = t.join("src").join(format!("{name}-1.0"));
    write(
        &dir,
        "z.c",
        "extern const char *zlibVersion(void);\nconst char *zv(void) { return zlibVersion(); }\n",
    );
    write(
        &dir,
        "Makefile",
        &format!(
            "all: lib{name}.so\nlib{name}.so: z.c\n\t$(CC) -shared -fPIC -o $@ z.c -lz\n\
             install:\n\tmkdir -p $(PREFIX)/lib\n\tcp lib{name}.so $(PREFIX)/lib/\n"
        ),
    );
    if prebuilt {
        fs_err::create_dir_all(dir.join("lib")).unwrap();
        let st = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(dir.join(format!("lib/lib{name}.so")))
            .arg(dir.join("z.c"))
            .arg("-lz")
            .status()
            .unwrap();
        assert!(st.success());
    }
    let tarball = t.join("src").join(format!("{name}-1.0.tar.gz"));
    let st = Command::new("tar")
        .arg("czf")
        .arg(&tarball)
        .arg(format!("{name}-1.0"))
        .current_dir(t.join("src"))
        .status()
        .unwrap();
    assert!(st.success());
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(fs_err::read(&tarball).unwrap()));
    format!(
        "versions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n",
        tarball.display()
    )
}

/// A recipe for `name` built from source (makefile) or, `prebuilt`,
/// installed as the binary it is.
fn recipe(t: &Path, name: &str, deps: &[&str], prebuilt: bool) {
    let versions = source(t, name, prebuilt);
    let deps: String = deps
        .iter()
        .map(|d| format!("  - {{spec: {d}, type: link}}\n"))
        .collect();
    let deps = if deps.is_empty() {
        String::new()
    } else {
        format!("dependencies:\n{deps}")
    };
    write(
        t,
        &format!("recipes/{name}.yaml"),
        &format!(
            "name: {name}\ndescription: a library that calls zlib\n{versions}{deps}\
             build:\n{}",
            if prebuilt {
                "  system: binary\n  install:\n    - {copy: lib/, to: lib}\n"
            } else {
                "  system: makefile\n  make_args: [\"PREFIX={{ prefix }}\"]\n"
            }
        ),
    );
}

/// A project: zlib (`libraries: [libz]`) an external at /usr; `hostlibs`
/// an external at `/usr/lib/x86_64-linux-gnu`, `hostlibs2` at
/// `/lib/x86_64-linux-gnu`; the stack builds `specs`.
fn project(t: &Path, specs: &str) {
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n\
         packages:\n  zlib: {buildable: false, externals: [{spec: zlib@1.2.13, prefix: /usr}]}\n  \
         hostlibs: {buildable: false, externals: [{spec: hostlibs@1.0, prefix: /usr/lib/x86_64-linux-gnu}]}\n  \
         hostlibs2: {buildable: false, externals: [{spec: hostlibs2@1.0, prefix: /lib/x86_64-linux-gnu/}]}\n",
    );
    for (name, libs) in [("zlib", "[libz]"), ("hostlibs", "[]"), ("hostlibs2", "[]")] {
        write(
            t,
            &format!("recipes/{name}.yaml"),
            &format!(
                "name: {name}\ndescription: from the system\nversions:\n  - {{version: \"{}\", url: https://example.org/{name}.tar.gz, sha256: {}}}\n\
                 libraries: {libs}\nbuild:\n  system: generic\n",
                if name == "zlib" { "1.2.13" } else { "1.0" },
                "0".repeat(64)
            ),
        );
    }
    recipe(t, "blosclike", &["zlib"], false);
    recipe(t, "leaky", &["hostlibs"], true);
    recipe(t, "leaky2", &[], true);
    recipe(t, "leaky3", &["hostlibs"], false);
    write(
        t,
        "stacks/s.yaml",
        &format!(
            "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [{specs}]\n"
        ),
    );
}

fn findings(t: &Path) -> Vec<serde_json::Value> {
    let report: serde_json::Value =
        serde_json::from_slice(&fs_err::read(t.join("build/audit.json")).unwrap()).unwrap();
    report["findings"].as_array().cloned().unwrap_or_default()
}

fn host_has_multiarch_zlib() -> bool {
    Path::new("/lib/x86_64-linux-gnu/libz.so.1").exists()
        && Path::new("/usr/lib/x86_64-linux-gnu/libz.so").exists()
}

#[test]
fn a_linked_external_in_usr_is_clean_however_the_loader_spells_it() {
    if !host_has_multiarch_zlib() {
        eprintln!("skipped: needs Debian's multiarch zlib (zlib1g-dev)");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    project(t.path(), "blosclike");
    let (code, text) = build(t.path(), &[]);
    assert_eq!(code, 0, "{text}");
    assert!(findings(t.path()).is_empty(), "{:#?}", findings(t.path()));
    let report: serde_json::Value =
        serde_json::from_slice(&fs_err::read(t.path().join("build/audit.json")).unwrap()).unwrap();
    let allow: Vec<&str> = report["allow"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    assert!(
        allow.contains(&"/usr/lib/x86_64-linux-gnu/libz.so.*"),
        "{allow:?}"
    );
    // Nothing of the unlinked externals, nothing by prefix of /usr.
    assert!(
        !allow
            .iter()
            .any(|a| a.contains("hostlibs") || a.ends_with("/*")),
        "{allow:?}"
    );
}

#[test]
fn a_host_library_is_a_leak_whatever_external_sits_beside_it() {
    if !host_has_multiarch_zlib() {
        eprintln!("skipped: needs Debian's multiarch zlib (zlib1g-dev)");
        return;
    }
    // leaky links hostlibs (an external in /usr/lib/x86_64-linux-gnu) and
    // the host's libz; leaky2 links only libz (hostlibs2 merely declared).
    for spec in ["leaky", "leaky2"] {
        let t = tempfile::tempdir().unwrap();
        project(t.path(), spec);
        let (code, text) = build(t.path(), &[]);
        assert_eq!(code, 1, "{spec}: {text}");
        let leaks: Vec<String> = findings(t.path())
            .iter()
            .filter(|f| f["kind"] == "leak")
            .map(|f| f.to_string())
            .collect();
        assert!(
            leaks.iter().any(|l| l.contains("libz.so.1")),
            "{spec}: {leaks:?}\n{text}"
        );
    }
}

/// Built from source, the same library does not link: the wrapper's link
/// guard refuses the host's libz, which nothing the package depends on
/// provides, and says so in the build's log.
#[test]
fn a_host_library_is_refused_at_the_link_when_built_from_source() {
    if !host_has_multiarch_zlib() {
        eprintln!("skipped: needs Debian's multiarch zlib (zlib1g-dev)");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    project(t.path(), "leaky3");
    let (code, text) = build(t.path(), &[]);
    assert_eq!(code, 1, "{text}");
    // `/lib/…` or `/usr/lib/…`: the same file on a merged `/usr`.
    assert!(text.contains("`-lz` would link the host's "), "{text}");
    assert!(
        text.contains("/x86_64-linux-gnu/libz.so, which no dependency provides"),
        "{text}"
    );
}
