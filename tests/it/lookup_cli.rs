//! Package and cluster lookup through the real binary: the built-in
//! repository comes last, the lookup is logged, `--stack` gives `list` and
//! `info` a stack's `repos:`, overlays, the cluster fallback warning, and
//! a checksum mismatch that names its recipe line.

use std::path::Path;

use crate::harness::{Run, Stack};

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

fn recipe(name: &str, version: &str, extra: &str) -> String {
    format!(
        "name: {name}\ndescription: {name} from here\nversions:\n  - version: \"{version}\"\n    git: https://example.org/{name}.git\n    commit: {}\nbuild: {{system: generic}}\n{extra}",
        "a".repeat(40)
    )
}

/// site/{stacks,recipes,cluster-configs/local}, and builtin/ standing in
/// for the shipped recipes.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    write(
        &t.join("site/stacks/s.yaml"),
        "name: s\nenvironments: {e: {specs: [app]}}\n",
    );
    write(
        &t.join("site/recipes/app.yaml"),
        &recipe("app", "1.0", "dependencies: [zlib, fabric]\n"),
    );
    write(
        &t.join("site/recipes/fabric.yaml"),
        &recipe("fabric", "9.0", ""),
    );
    write(
        &t.join("builtin/fabric.yaml"),
        &recipe("fabric", "1.0", "variants: {cxi: {default: false}}\n"),
    );
    write(
        &t.join("builtin/zlib.yaml"),
        &recipe("zlib", "1.3", "variants: {shared: {default: true}}\n"),
    );
    write(
        &t.join("site/cluster-configs/local/cluster.yaml"),
        "name: local\ntarget: x86_64\ncompilers: [{spec: gcc@12.2.0, cc: /usr/bin/gcc}]\n",
    );
    tmp
}

/// `stack ARGS` in `dir` with `builtin` as the built-in repository; its
/// parent directory in the output is `[DIR]`.
fn lookup(dir: &Path, builtin: &Path, args: &[&str]) -> Run {
    Stack::new()
        .current_dir(dir)
        .env("STACK_BUILTIN_REPO", builtin)
        .args(args)
        .run()
        .replace_dir(builtin.parent().unwrap(), "[DIR]")
}

#[test]
fn the_builtin_repository_is_searched_last_and_the_lookup_is_logged() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    // Even named with --repo, the built-in repository stays last: the
    // stack's own `fabric` wins, `zlib` comes from the built-in one.
    let out = lookup(
        &t.join("site"),
        &builtin,
        &[
            "-v",
            "check",
            "stacks/s.yaml",
            "--repo",
            builtin.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let logged: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("cluster configuration:") || l.contains("package repository"))
        .map(str::trim)
        .collect();
    assert_eq!(
        logged,
        [
            "INFO cluster configuration: [DIR]/site/cluster-configs/local/cluster.yaml (nearest cluster-configs/local above the recipe)",
            "INFO package repository 1: [DIR]/site/recipes (nearest recipes/ above the start directory)",
            "INFO package repository 2: [DIR]/builtin (built-in)",
        ],
        "{}",
        out.stderr
    );
    let out = lookup(&t.join("site"), &builtin, &["info", "fabric"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Latest:        9.0"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("Hides:         [DIR]/builtin/fabric.yaml"),
        "{}",
        out.stdout
    );
    // A variant of the built-in recipe named from the stack: the message
    // names the recipe file that defines the package.
    write(
        &t.join("site/stacks/s.yaml"),
        "name: s\nenvironments: {e: {specs: [app, zlib+static]}}\n",
    );
    let out = lookup(&t.join("site"), &builtin, &["check", "stacks/s.yaml"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("`zlib` is defined by [DIR]/builtin/zlib.yaml"),
        "{}",
        out.stderr
    );
}

#[test]
fn list_and_info_see_a_stacks_repos_with_dash_dash_stack() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    write(
        &t.join("elsewhere/s.yaml"),
        "name: s\nrepos: [../site/recipes]\nenvironments: {e: {specs: [app]}}\n",
    );
    let out = lookup(t, &builtin, &["info", "app"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let out = lookup(t, &builtin, &["info", "app", "--stack", "elsewhere/s.yaml"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("app: app from here"),
        "{}",
        out.stdout
    );
    let out = lookup(t, &builtin, &["list", "--stack", "elsewhere/s.yaml"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let names: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["app", "fabric", "zlib"]);
}

#[test]
fn an_overlay_adds_a_version_to_a_builtin_recipe() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    write(
        &t.join("site/recipes/zlib.yaml"),
        &format!(
            "name: zlib\noverlay: true\nversions:\n  - {{version: \"1.4\", git: https://example.org/zlib.git, commit: {}}}\nvariants:\n  shared: {{default: false}}\n",
            "b".repeat(40)
        ),
    );
    let out = lookup(&t.join("site"), &builtin, &["info", "zlib"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("Recipe:        [DIR]/builtin/zlib.yaml"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Overlay:       recipes/zlib.yaml"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Latest:        1.4"), "{}", out.stdout);
    let out = lookup(&t.join("site"), &builtin, &["check", "stacks/s.yaml"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn a_stack_outside_any_tree_is_warned_about_the_source_tree_cluster() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    write(
        &t.join("lonely/s.yaml"),
        "name: s\nrepos: [../site/recipes]\nenvironments: {e: {specs: [app]}}\n",
    );
    let out = lookup(t, &builtin, &["check", "lonely/s.yaml"]);
    assert!(
        out.stderr
            .contains("no cluster-configs/local in lonely or above it; using"),
        "{}",
        out.stderr
    );
    // From the recipe's own directory the warning names it by its path
    // (issue 36: it used to print an empty one).
    let out = lookup(&t.join("lonely"), &builtin, &["check", "s.yaml"]);
    assert!(
        out.stderr
            .contains("no cluster-configs/local in [DIR]/lonely or above it; using"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("pass `--cluster DIR`"),
        "{}",
        out.stderr
    );
    let cluster = t.join("site/cluster-configs/local");
    let out = lookup(
        t,
        &builtin,
        &[
            "check",
            "lonely/s.yaml",
            "--cluster",
            cluster.to_str().unwrap(),
        ],
    );
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
}

#[test]
fn a_checksum_mismatch_names_the_package_and_the_recipe_line() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    write(
        &t.join("dist/payload-1.0.tar.gz"),
        "not what the recipe says",
    );
    write(
        &t.join("site/recipes/payload.yaml"),
        &format!(
            "name: payload\ndescription: d\nversions:\n  - version: \"1.0\"\n    url: {}\n    sha256: {}\nbuild: {{system: generic}}\n",
            t.join("dist/payload-1.0.tar.gz").display(),
            "0".repeat(64)
        ),
    );
    write(
        &t.join("site/stacks/f.yaml"),
        "name: f\nenvironments: {e: {specs: [payload]}}\n",
    );
    let cache = t.join("cache");
    let out = lookup(
        &t.join("site"),
        &builtin,
        &["fetch", "stacks/f.yaml", "--cache", cache.to_str().unwrap()],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    // One report (no extra log line), unwrapped from miette's 80 columns.
    let flat = out.stderr.replace("\n  | ", " ");
    assert!(
        flat.starts_with("  x payload@1.0: sha256 mismatch for [DIR]/dist/payload-1.0.tar.gz (listed at [DIR]/site/recipes/payload.yaml:5:10)"),
        "{}",
        out.stderr
    );
}

#[test]
fn diff_compares_two_lock_files() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    let site = t.join("site");
    let lock = |name: &str| {
        let out = lookup(
            &site,
            &builtin,
            &["resolve", "stacks/s.yaml", "--lock", "--lock-file", name],
        );
        assert_eq!(out.code, 0, "{}", out.stderr);
    };
    lock("a.lock");
    lock("same.lock");
    let out = lookup(&site, &builtin, &["diff", "a.lock", "same.lock"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "no differences\n"));
    // The built-in zlib's default changes: a variant and a hash differ.
    write(
        &builtin.join("zlib.yaml"),
        &recipe("zlib", "1.3", "variants: {shared: {default: false}}\n"),
    );
    lock("b.lock");
    let out = lookup(&site, &builtin, &["diff", "a.lock", "b.lock"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.starts_with("plan:\n  "), "{}", out.stdout);
    assert!(
        out.stdout.contains("variant `shared` true → false"),
        "{}",
        out.stdout
    );
    let out = lookup(&site, &builtin, &["diff", "a.lock", "nothere"]);
    assert_eq!(out.code, 2);
}

#[test]
fn find_queries_a_lock_file_by_spec() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    let site = t.join("site");
    let out = lookup(
        &site,
        &builtin,
        &[
            "resolve",
            "stacks/s.yaml",
            "--lock",
            "--lock-file",
            "s.lock",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let names = |out: &Run| -> Vec<String> {
        out.stdout
            .lines()
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let all = lookup(&site, &builtin, &["find", "s.lock"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert_eq!(names(&all), ["app@1.0", "fabric@9.0", "zlib@1.3"]);
    assert!(all.stdout.contains("zlib@1.3 +shared"), "{}", all.stdout);
    let out = lookup(
        &site,
        &builtin,
        &["find", "s.lock", "zlib+shared", "--paths"],
    );
    assert_eq!(names(&out), ["zlib@1.3"]);
    assert!(out.stdout.contains("/user-environment/"), "{}", out.stdout);
    let out = lookup(&site, &builtin, &["find", "s.lock", "@9:"]);
    assert_eq!(names(&out), ["fabric@9.0"]);
    let out = lookup(&site, &builtin, &["find", "s.lock", "zlib~shared"]);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""));
    // Nothing matched is said, not left to the exit status (issue 36).
    assert_eq!(out.stderr, "s.lock: no package matches `zlib~shared`\n");
    let out = lookup(&site, &builtin, &["find", "s.lock", "zlib@@"]);
    assert_eq!(out.code, 2);
}

#[test]
fn an_unsatisfiable_version_names_the_recipe_file() {
    let p = project();
    let (t, builtin) = (p.path(), p.path().join("builtin"));
    write(
        &t.join("site/stacks/v.yaml"),
        "name: v\nenvironments: {e: {specs: [\"zlib@9\"]}}\n",
    );
    let out = lookup(&t.join("site"), &builtin, &["resolve", "stacks/v.yaml"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let flat = out.stderr.replace("\n  | ", " ");
    assert!(
        flat.contains(
            "no version of `zlib` satisfies `@9` (available in [DIR]/builtin/zlib.yaml: 1.3)"
        ),
        "{}",
        out.stderr
    );
}
