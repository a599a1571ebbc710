//! Node hashes change when, and only when, a build input changes: one test
//! per input kind, and tests for the things that must not matter.

use std::path::{Path, PathBuf};

use stack::resolve::{Plan, ResolveOptions};

const APP: &str = r#"name: app
description: the application
homepage: https://example.org/app
versions:
  - {version: "1.0", url: https://example.org/app-1.0.tar.gz, sha256: 1111111111111111111111111111111111111111111111111111111111111111}
variants:
  extra: {default: false}
dependencies:
  - lib
patches:
  - {file: app/fix.patch, sha256: PATCH_SHA, level: 1}
build:
  system: cmake
  cmake_args:
    - "-DAPP=ON"
    - {when: "+extra", args: ["-DEXTRA=ON"]}
  build_env: [{set: {APP_BUILD: "1"}}]
env:
  - {set: {APP_HOME: "{{ prefix }}"}}
"#;

const LIB: &str = r#"name: lib
description: the library
versions:
  - {version: "1.0", url: https://example.org/lib-1.0.tar.gz, sha256: 2222222222222222222222222222222222222222222222222222222222222222}
  - {version: main, git: https://example.org/lib.git, branch: main}
variants:
  opt: {default: false}
build:
  system: autotools
"#;

const PATCH: &str = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";

// The compiler is not on this machine (no fingerprint) and the libc is
// given, so the golden hashes do not depend on the host.
const CLUSTER: &str = r#"name: c
target: x86_64
os: debian12
libc: glibc@2.36
compilers:
  - {spec: gcc@12.2.0, cc: /nonexistent/bin/gcc}
"#;

const STACK: &str = r#"name: s
environments:
  e:
    specs: [app]
"#;

/// A tiny repository in a temporary directory.
struct Fx {
    dir: tempfile::TempDir,
}

fn sha256(text: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

impl Fx {
    fn new() -> Fx {
        let dir = tempfile::tempdir().unwrap();
        let fx = Fx { dir };
        fx.write(
            "recipes/app.yaml",
            &APP.replace("PATCH_SHA", &sha256(PATCH)),
        );
        fx.write("recipes/lib.yaml", LIB);
        fx.write("patches/app/fix.patch", PATCH);
        fx.write("cluster/cluster.yaml", CLUSTER);
        fx.write("stacks/s.yaml", STACK);
        fx
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.root().join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{rel} has no `{from}`");
        std::fs::write(p, text.replacen(from, to, 1)).unwrap();
    }

    fn plan_with(&self, opts: &ResolveOptions) -> Plan {
        let inputs = crate::harness::resolve::load_with(
            &self.root().join("stacks/s.yaml"),
            Some(self.root().join("cluster")),
        );
        crate::harness::resolve::ok(crate::harness::resolve::resolve_inputs(&inputs, opts))
    }

    fn hashes(&self) -> (String, String) {
        let plan = self.plan_with(&ResolveOptions::default());
        (
            crate::harness::resolve::node(&plan, "app").hash.clone(),
            crate::harness::resolve::node(&plan, "lib").hash.clone(),
        )
    }
}

/// `change` alters an input of `app` only: app's hash changes, lib's not.
fn app_input(change: impl FnOnce(&Fx)) {
    let fx = Fx::new();
    let (app0, lib0) = fx.hashes();
    change(&fx);
    let (app1, lib1) = fx.hashes();
    assert_ne!(app0, app1, "the app's hash must change");
    assert_eq!(lib0, lib1, "the library's hash must not change");
}

/// `change` alters an input of `lib`: both hashes change (app through its
/// dependency).
fn lib_input(change: impl FnOnce(&Fx)) {
    let fx = Fx::new();
    let (app0, lib0) = fx.hashes();
    change(&fx);
    let (app1, lib1) = fx.hashes();
    assert_ne!(lib0, lib1, "the library's hash must change");
    assert_ne!(app0, app1, "the dependent's hash must change with it");
}

/// `change` alters nothing that goes into a build.
fn no_input(change: impl FnOnce(&Fx)) {
    let fx = Fx::new();
    let before = fx.hashes();
    change(&fx);
    assert_eq!(before, fx.hashes());
}

#[test]
fn hashes_are_stable_across_runs() {
    let fx = Fx::new();
    assert_eq!(fx.hashes(), fx.hashes());
    let (a, l) = fx.hashes();
    assert_eq!(a.len(), 64);
    assert!(a.chars().chain(l.chars()).all(|c| c.is_ascii_hexdigit()));
}

#[test]
fn version_is_an_input() {
    lib_input(|fx| fx.edit("recipes/lib.yaml", "version: \"1.0\"", "version: \"1.0.1\""));
}

#[test]
fn variant_value_is_an_input() {
    app_input(|fx| fx.edit("stacks/s.yaml", "specs: [app]", "specs: [\"app +extra\"]"));
}

#[test]
fn compiler_is_an_input() {
    lib_input(|fx| fx.edit("cluster/cluster.yaml", "gcc@12.2.0", "gcc@12.3.0"));
}

#[test]
fn compiler_path_is_an_input() {
    lib_input(|fx| {
        fx.edit(
            "cluster/cluster.yaml",
            "/nonexistent/bin/gcc",
            "/other/bin/gcc",
        )
    });
}

#[test]
fn compiler_fingerprint_is_an_input() {
    // The same path, other bytes: another build of the compiler.
    let fx = Fx::new();
    fx.write("bin/gcc", "one compiler");
    let cc = fx.root().join("bin/gcc");
    fx.edit(
        "cluster/cluster.yaml",
        "/nonexistent/bin/gcc",
        &cc.display().to_string(),
    );
    let (app0, lib0) = fx.hashes();
    fx.write("bin/gcc", "another compiler");
    let (app1, lib1) = fx.hashes();
    assert_ne!(lib0, lib1);
    assert_ne!(app0, app1);
}

#[test]
fn os_is_an_input() {
    lib_input(|fx| fx.edit("cluster/cluster.yaml", "os: debian12", "os: sles15"));
}

#[test]
fn libc_is_an_input() {
    lib_input(|fx| fx.edit("cluster/cluster.yaml", "glibc@2.36", "glibc@2.31"));
}

#[test]
fn target_is_an_input() {
    lib_input(|fx| fx.edit("cluster/cluster.yaml", "target: x86_64", "target: zen3"));
}

#[test]
fn source_checksum_is_an_input() {
    lib_input(|fx| fx.edit("recipes/lib.yaml", "sha256: 2222", "sha256: 3333"));
}

#[test]
fn archive_expansion_is_an_input() {
    lib_input(|fx| {
        fx.edit(
            "recipes/lib.yaml",
            "2222222222222222222222222222222222222222222222222222222222222222}",
            "2222222222222222222222222222222222222222222222222222222222222222, expand: false}",
        )
    });
}

#[test]
fn git_commit_is_an_input() {
    let fx = Fx::new();
    fx.edit(
        "stacks/s.yaml",
        "specs: [app]",
        "specs: [app, \"lib@main\"]",
    );
    let pin = |c: &str| {
        let mut o = ResolveOptions::default();
        o.git_pins.insert(
            ("https://example.org/lib.git".into(), "main".into()),
            c.repeat(40),
        );
        let plan = fx.plan_with(&o);
        crate::harness::resolve::node(&plan, "lib").hash.clone()
    };
    let unpinned = {
        let plan = fx.plan_with(&ResolveOptions::default());
        crate::harness::resolve::node(&plan, "lib").hash.clone()
    };
    let (a, b) = (pin("a"), pin("b"));
    assert_ne!(a, b);
    assert_ne!(a, unpinned);
    assert_eq!(a, pin("a"));
}

#[test]
fn patch_checksum_is_an_input() {
    app_input(|fx| {
        let new = PATCH.replace("+b", "+c");
        fx.write("patches/app/fix.patch", &new);
        fx.edit("recipes/app.yaml", &sha256(PATCH), &sha256(&new));
    });
}

#[test]
fn patch_level_is_an_input() {
    app_input(|fx| fx.edit("recipes/app.yaml", "level: 1", "level: 0"));
}

#[test]
fn build_section_is_an_input() {
    app_input(|fx| fx.edit("recipes/app.yaml", "-DAPP=ON", "-DAPP=OFF"));
}

#[test]
fn build_environment_is_an_input() {
    app_input(|fx| fx.edit("recipes/app.yaml", "APP_BUILD: \"1\"", "APP_BUILD: \"2\""));
}

#[test]
fn run_environment_is_an_input() {
    app_input(|fx| fx.edit("recipes/app.yaml", "APP_HOME:", "APP_ROOT:"));
}

#[test]
fn dependency_hash_is_an_input() {
    lib_input(|fx| {
        fx.edit(
            "recipes/lib.yaml",
            "opt: {default: false}",
            "opt: {default: true}",
        )
    });
}

#[test]
fn dependency_type_is_an_input() {
    app_input(|fx| {
        fx.edit(
            "recipes/app.yaml",
            "  - lib\n",
            "  - {spec: lib, type: [build, link, run]}\n",
        )
    });
}

#[test]
fn mount_point_is_an_input() {
    let fx = Fx::new();
    let (a0, l0) = fx.hashes();
    fx.edit("stacks/s.yaml", "name: s\n", "name: s\nmount: /opt/stack\n");
    let (a1, l1) = fx.hashes();
    assert_ne!(a0, a1);
    assert_ne!(l0, l1);
}

#[test]
fn external_prefix_is_an_input() {
    let fx = Fx::new();
    fx.edit(
        "cluster/cluster.yaml",
        "compilers:",
        "packages:\n  lib: {buildable: false, externals: [{spec: lib@1.0, prefix: /usr}]}\ncompilers:",
    );
    let (a0, l0) = fx.hashes();
    fx.edit("cluster/cluster.yaml", "prefix: /usr", "prefix: /opt/lib");
    let (a1, l1) = fx.hashes();
    assert_ne!(l0, l1);
    assert_ne!(a0, a1);
}

#[test]
fn description_and_homepage_are_not_inputs() {
    no_input(|fx| {
        fx.edit("recipes/app.yaml", "the application", "an application");
        fx.edit(
            "recipes/app.yaml",
            "https://example.org/app\n",
            "https://example.com/app\n",
        );
    });
}

#[test]
fn other_versions_are_not_inputs() {
    no_input(|fx| {
        fx.edit(
            "recipes/lib.yaml",
            "versions:\n",
            "versions:\n  - {version: \"0.9\", url: https://example.org/lib-0.9.tar.gz, sha256: 4444444444444444444444444444444444444444444444444444444444444444}\n",
        )
    });
}

#[test]
fn formatting_comments_and_key_order_are_not_inputs() {
    no_input(|fx| {
        fx.write(
            "recipes/lib.yaml",
            &format!(
                "# a comment that moves every line\n\n{}",
                LIB.replace(
                    "build:\n  system: autotools\n",
                    "build: {system: autotools}   # flow style\n"
                )
                .replace(
                    "name: lib\ndescription: the library\n",
                    "description: the library\nname: lib\n"
                )
            ),
        );
    });
}

#[test]
fn inactive_conditional_build_entries_are_not_inputs() {
    no_input(|fx| fx.edit("recipes/app.yaml", "-DEXTRA=ON", "-DEXTRA=YES"));
}

#[test]
fn urls_of_checksummed_sources_are_not_inputs() {
    no_input(|fx| {
        fx.edit(
            "recipes/lib.yaml",
            "https://example.org/lib-1.0.tar.gz",
            "https://mirror.example.net/lib-1.0.tar.gz",
        )
    });
}

#[test]
fn unrelated_packages_and_environments_are_not_inputs() {
    no_input(|fx| {
        fx.write(
            "recipes/other.yaml",
            "name: other\ndescription: d\nversions: [{version: '1', url: o.tgz, sha256: 5555555555555555555555555555555555555555555555555555555555555555}]\nbuild: {system: generic}\n",
        );
        fx.edit(
            "stacks/s.yaml",
            "    specs: [app]\n",
            "    specs: [app]\n  more:\n    specs: [other]\n",
        );
    });
}

#[test]
fn the_location_of_the_tree_is_not_an_input() {
    let a = Fx::new();
    let b = Fx::new();
    let moved: PathBuf = b.root().join("deeper/still");
    std::fs::create_dir_all(&moved).unwrap();
    for d in ["recipes", "patches", "cluster", "stacks"] {
        std::fs::rename(b.root().join(d), moved.join(d)).unwrap();
    }
    let plan_b = {
        let inputs = crate::harness::resolve::load_with(
            &moved.join("stacks/s.yaml"),
            Some(moved.join("cluster")),
        );
        crate::harness::resolve::ok(crate::harness::resolve::resolve_inputs(
            &inputs,
            &Default::default(),
        ))
    };
    let (app_a, lib_a) = a.hashes();
    assert_eq!(crate::harness::resolve::node(&plan_b, "app").hash, app_a);
    assert_eq!(crate::harness::resolve::node(&plan_b, "lib").hash, lib_a);
}

/// The hash of a fixed input is part of the format: if this changes, so
/// must `HASH_FORMAT` (every existing install would be rebuilt).
#[test]
fn golden_hashes() {
    let fx = Fx::new();
    let (app, lib) = fx.hashes();
    assert_eq!(stack::resolve::HASH_FORMAT, "stack-node-v2");
    assert_eq!(
        (app.as_str(), lib.as_str()),
        (
            "4254ca4f1dee09c75aa3b5bb3f2aaf99b685a6a233e6ad3b161cb44ef154c53f",
            "b07fd5e1ed9b54eace5e531588b8c608ba51640646e04b6bc6983a5b24d32bc7"
        )
    );
}
