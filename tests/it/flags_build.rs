//! A recipe's `flags:` reach the compiler: a tiny CMake project
//! (tests/fixtures/build/flagcheck) that compiles only when the injected
//! flags (`via: inject`, through the compiler wrapper), the build-system
//! flags (`via: build_system`, `-DCMAKE_C_FLAGS=…`) and the injected
//! `ldlibs` (`-lm`, at the end of the link line) arrive, a flag whose
//! `when:` does not hold stays out, and `{{ compiler.c99_flag }}` selects C99;
//! a Makefile project (flagenv) that compiles only with `via: env` flags in
//! `CFLAGS` and `via: build_system` flags, which a makefile package gets in
//! the environment too.
//!
//! Spec flags (Spack's `cflags=…` in a spec): two Makefile projects
//! (specflag, specdep) that compile only when the root spec's
//! `cflags=-DSTACK_SPEC_FLAG` reaches the root (and not its dependency), its
//! `cppflags==…` propagates to the link dependency, and a `packages:`
//! requirement `cflags=…` reaches the package it names.

use std::path::{Path, PathBuf};
use std::process::Command;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    fs_err::create_dir_all(p.parent().unwrap()).unwrap();
    fs_err::write(p, text).unwrap();
}

/// Pack the fixture `dir` as `<t>/src/<dir>.tar.gz`; its path and sha256.
fn archive(t: &Path, dir: &str) -> (PathBuf, String) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/build/flagcheck");
    fs_err::create_dir_all(t.join("src")).unwrap();
    let path = t.join(format!("src/{dir}.tar.gz"));
    let st = Command::new("tar")
        .arg("czf")
        .arg(&path)
        .arg(dir)
        .current_dir(&fixture)
        .status()
        .unwrap();
    assert!(st.success());
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(fs_err::read(&path).unwrap()));
    (path, sha)
}

fn project(t: &Path) {
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    let (path, sha) = archive(t, "flagcheck-1.0");
    write(
        t,
        "recipes/flagcheck.yaml",
        &format!(
            "name: flagcheck\ndescription: compiles only with its flags\n\
             versions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: cmake\n  flags:\n    \
             - {{cflags: [\"-DFLAG_INJECTED=1\", \"{{{{ compiler.c99_flag }}}}\"]}}\n    \
             - {{cflags: [\"-DFLAG_BUILD_SYSTEM=2\"], via: build_system}}\n    \
             - {{cflags: [\"-DFLAG_NOT_ACTIVE\"], when: \"@2:\"}}\n    \
             - {{ldlibs: [\"-lm\"]}}\n",
            path.display()
        ),
    );
    let (path, sha) = archive(t, "flagenv-1.0");
    write(
        t,
        "recipes/flagenv.yaml",
        &format!(
            "name: flagenv\ndescription: compiles only with flags in its environment\n\
             versions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: makefile\n  make_args: [\"PREFIX={{{{ prefix }}}}\"]\n  flags:\n    \
             - {{cflags: [\"-DFLAG_ENV=3\"], via: env}}\n    \
             - {{cppflags: [\"-DFLAG_MAKE_BUILD_SYSTEM=4\"], via: build_system}}\n",
            path.display()
        ),
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [flagcheck, flagenv]\n",
    );
}

#[test]
fn injected_env_and_build_system_flags_reach_the_compile_and_link() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(t);
    let (code, text) = crate::harness::tiny_build::build(t, &[]);
    assert_eq!(code, 0, "{text}");
    let run = Command::new(installed(t, "flagcheck"))
        .arg("0")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "1 2 1\n");
    let run = Command::new(installed(t, "flagenv")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "3 4\n");
}

fn installed(t: &Path, name: &str) -> PathBuf {
    walkdir::WalkDir::new(t.join("build/store"))
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .find(|p| p.ends_with(format!("bin/{name}")))
        .unwrap_or_else(|| panic!("{name} is installed"))
}

fn makefile_recipe(t: &Path, name: &str, deps: &str) {
    let (path, sha) = archive(t, &format!("{name}-1.0"));
    write(
        t,
        &format!("recipes/{name}.yaml"),
        &format!(
            "name: {name}\ndescription: compiles only with its spec flags\n\
             versions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n{deps}\
             build:\n  system: makefile\n  make_args: [\"PREFIX={{{{ prefix }}}}\"]\n",
            path.display()
        ),
    );
}

#[test]
fn spec_flags_reach_the_compiler_and_propagate_to_link_dependencies() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    makefile_recipe(
        t,
        "specflag",
        "dependencies:\n  - {spec: specdep, type: link}\n",
    );
    makefile_recipe(t, "specdep", "");
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    \
         specs: ['specflag cflags=-DSTACK_SPEC_FLAG cppflags==-DSTACK_PROPAGATED=7']\n    \
         packages:\n      specdep: {require: 'cflags=-DSTACK_REQUIRED=5'}\n",
    );
    let (code, text) = crate::harness::tiny_build::build(t, &[]);
    assert_eq!(code, 0, "{text}");
    let run = Command::new(installed(t, "specflag")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "spec flag 7\n");
    let run = Command::new(installed(t, "specdep")).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "propagated 7 required 5\n"
    );
}
