//! `stack check`, `stack list` and `stack info` through the real binary, on
//! a project assembled from `tests/fixtures/errors/_shared/`.

use std::path::Path;

use crate::harness::{Run, Stack};

fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/errors/_shared");
    for entry in walkdir::WalkDir::new(&shared) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(&shared).unwrap();
        let dest = if rel == Path::new("cluster.yaml") {
            tmp.path().join("cluster-configs/local/cluster.yaml")
        } else if rel == Path::new("stack.yaml") {
            tmp.path().join("stacks/stack.yaml")
        } else {
            tmp.path().join(rel)
        };
        if entry.file_type().is_dir() {
            fs_err::create_dir_all(&dest).unwrap();
        } else {
            fs_err::create_dir_all(dest.parent().unwrap()).unwrap();
            fs_err::copy(entry.path(), &dest).unwrap();
        }
    }
    tmp
}

/// `stack ARGS` in the project `dir`; `dir` in the output is `[DIR]`.
fn in_project(dir: &Path, args: &[&str]) -> Run {
    Stack::new()
        .current_dir(dir)
        // Hermetic: the shipped recipes stay out unless a test names a
        // built-in repository itself.
        .env("STACK_BUILTIN_REPO", "")
        .args(args)
        .run()
        .replace_dir(dir, "[DIR]")
}

#[test]
fn check_passes_with_a_summary_and_the_repositories_in_order() {
    let p = project();
    let out = in_project(p.path(), &["check", "stacks/stack.yaml"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "stacks/stack.yaml: ok — 1 environment, 5 packages checked (cluster `local`)\n\
         package repositories, first wins:\n  \
         1. recipes (nearest recipes/ above the start directory)\n"
    );
    assert_eq!(out.stderr, "");
}

#[test]
fn check_finds_the_cluster_and_repos_from_the_recipe_dir() {
    let p = project();
    // Run from elsewhere: discovery starts at the recipe, not the cwd.
    let elsewhere = tempfile::tempdir().unwrap();
    let recipe = p.path().join("stacks/stack.yaml");
    let out = in_project(elsewhere.path(), &["check", recipe.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // An explicit cluster and an extra repository.
    let extra = p.path().join("extra");
    fs_err::create_dir_all(&extra).unwrap();
    fs_err::write(
        extra.join("libcalc.yaml"),
        "name: libcalc\ndescription: override\nversions: [{version: \"9\", git: \"https://x/c.git\", tag: v9}]\nbuild: {system: cmake}\n",
    )
    .unwrap();
    let cluster = p.path().join("cluster-configs/local");
    let out = in_project(
        elsewhere.path(),
        &[
            "check",
            recipe.to_str().unwrap(),
            "--cluster",
            cluster.to_str().unwrap(),
            "--repo",
            extra.to_str().unwrap(),
        ],
    );
    // the override lacks `shared` and version 1.2: the stack says so
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("has no variant `shared`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("extra/libcalc.yaml") || out.stderr.contains("stack.yaml"));
}

#[test]
fn check_rejects_a_missing_repo_flag() {
    let p = project();
    let out = in_project(p.path(), &["check", "stacks/stack.yaml", "--repo", "nope"]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.stderr, @r"
      x bad package repository
      `-> --repo nope: no such directory
    ");
}

#[test]
fn list_shows_one_sorted_line_per_package() {
    let p = project();
    let out = in_project(p.path(), &["list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    fakempi   8.1.30  A header-only stand-in for MPI (generic copy)
    hello     1.0     Prints a greeting (plain makefile)
    libcalc   1.2     A tiny calculator library (cmake)
    libgreet  2.0     A tiny greeting library (autotools)
    pkgconf   1.8.1   pkg-config implementation (used from the system)
    ");
}

#[test]
fn list_marks_broken_recipes() {
    let p = project();
    fs_err::write(p.path().join("recipes/zz.yaml"), "name: [\n").unwrap();
    let out = in_project(p.path(), &["list"]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout
            .contains("zz        ?       (invalid recipe: run `stack info zz`)"),
        "{}",
        out.stdout
    );
}

#[test]
fn info_describes_a_package() {
    let p = project();
    let out = in_project(p.path(), &["info", "libgreet"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn info_lists_the_providers_of_a_virtual() {
    let p = project();
    let out = in_project(p.path(), &["info", "mpi"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout, @r"
    mpi (virtual package)

    Providers:
        fakempi
    ");
}

#[test]
fn info_on_a_broken_recipe_shows_it_and_fails() {
    let p = project();
    let path = p.path().join("recipes/hello.yaml");
    let text = fs_err::read_to_string(&path).unwrap();
    fs_err::write(&path, text.replace("system: makefile", "system: make")).unwrap();
    let out = in_project(p.path(), &["info", "hello"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stdout.starts_with("hello: Prints a greeting"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("did you mean `makefile`?"),
        "{}",
        out.stderr
    );
}

#[test]
fn help_texts_have_examples() {
    let p = project();
    for cmd in ["check", "list", "info"] {
        let out = in_project(p.path(), &[cmd, "--help"]);
        assert_eq!(out.code, 0);
        assert!(out.stdout.contains("Examples:"), "{cmd}: {}", out.stdout);
    }
}
