//! Versioned virtuals (`provides: [xmpi@:3.0]`) and test dependencies
//! (`type: [test]`), on a small repository written next to the stack and
//! searched before the fixture repository.

use std::path::Path;

use crate::harness::resolve::*;
use stack::recipes::DepTypes;
use stack::resolve::{Plan, ResolveError, ResolveOptions};

const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A recipe `name` with one version, a generic build and `extra` lines.
fn recipe(name: &str, extra: &str) -> String {
    format!(
        "name: {name}\ndescription: {name}\nversions:\n  - {{version: \"1.0\", url: https://example.org/{name}-1.0.tgz, sha256: {SHA}}}\nbuild: {{system: generic}}\n{extra}"
    )
}

/// Resolves `body` (the environments) with the recipes `recipes` (name,
/// extra lines) in a repository searched first.
fn resolve_with(recipes: &[(&str, &str)], body: &str) -> Result<Plan, ResolveError> {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("recipes");
    std::fs::create_dir(&repo).unwrap();
    for (name, extra) in recipes {
        std::fs::write(repo.join(format!("{name}.yaml")), recipe(name, extra)).unwrap();
    }
    let file = dir.path().join("stack.yaml");
    let text = format!(
        "name: t\nrepos: [{}, {}]\n{body}",
        repo.display(),
        fixtures().join("recipes").display()
    );
    std::fs::write(&file, text).unwrap();
    let inputs = load(Path::new(&file), "local");
    resolve_inputs(&inputs, &ResolveOptions::default())
}

/// Two providers of `xmpi`: `aaa-mpi` (tried first, by name) provides
/// versions up to 3.0, `zzz-mpi` up to 4.1.
const PROVIDERS: &[(&str, &str)] = &[
    ("aaa-mpi", "provides: [\"xmpi@:3.0\"]\n"),
    ("zzz-mpi", "provides: [\"xmpi@:4.1\"]\n"),
];

fn app_needing(versions: &str) -> Vec<(&'static str, String)> {
    vec![("app", format!("dependencies: [\"xmpi@{versions}\"]\n"))]
}

fn resolve_app(versions: &str) -> Result<Plan, ResolveError> {
    let app = app_needing(versions);
    let mut recipes: Vec<(&str, &str)> = PROVIDERS.to_vec();
    recipes.extend(app.iter().map(|(n, e)| (*n, e.as_str())));
    resolve_with(&recipes, "environments:\n  e:\n    specs: [app]\n")
}

#[test]
fn a_provider_is_chosen_only_for_versions_it_provides() {
    // 2.0: the first provider by name provides it.
    let plan = ok(resolve_app("2.0"));
    assert_eq!(env_names(&plan, "e"), ["aaa-mpi", "app"]);
    // 3.1 is past aaa-mpi's `:3.0`: zzz-mpi.
    let plan = ok(resolve_app("3.1"));
    assert_eq!(env_names(&plan, "e"), ["app", "zzz-mpi"]);
    assert_eq!(node(&plan, "app").virtuals["xmpi"], "zzz-mpi");
    // A range that only reaches into zzz-mpi's versions.
    let plan = ok(resolve_app("3.5:"));
    assert_eq!(env_names(&plan, "e"), ["app", "zzz-mpi"]);
}

#[test]
fn no_provider_of_the_version_is_explained() {
    let e = resolve_app("5").unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("`xmpi@5` is asked for, but no provider of `xmpi` provides that version"),
        "{text}"
    );
    let ResolveError::Unsatisfiable(x) = e else {
        panic!("not unsatisfiable: {text}");
    };
    assert_eq!(
        x.hint.as_deref(),
        Some("aaa-mpi provides `xmpi@:3.0`; zzz-mpi provides `xmpi@:4.1`")
    );
    assert!(
        x.lines.iter().any(|l| l.text.contains("xmpi@5")),
        "{:?}",
        x.lines
    );
}

#[test]
fn an_unversioned_provider_provides_every_version() {
    let app = app_needing("7.2");
    let plan = ok(resolve_with(
        &[
            ("aaa-mpi", "provides: [\"xmpi@:3.0\"]\n"),
            ("zzz-mpi", "provides: [xmpi]\n"),
            ("app", &app[0].1),
        ],
        "environments:\n  e:\n    specs: [app]\n",
    ));
    assert_eq!(env_names(&plan, "e"), ["app", "zzz-mpi"]);
}

/// `tested` links `libdep` and needs `checker` only for its tests.
fn tested(with_checker: bool) -> Plan {
    let deps = if with_checker {
        "dependencies: [libdep, {spec: checker, type: [test]}]\n"
    } else {
        "dependencies: [libdep]\n"
    };
    ok(resolve_with(
        &[("tested", deps), ("libdep", ""), ("checker", "")],
        "environments:\n  e:\n    specs: [tested]\n    views: {v: {link: run}}\n",
    ))
}

#[test]
fn a_test_dependency_is_built_but_never_linked_run_or_hashed() {
    let plan = tested(true);
    // Built: in the plan, before the package.
    assert_eq!(env_names(&plan, "e"), ["checker", "libdep", "tested"]);
    let t = plan.find_hash(&node(&plan, "tested").hash).unwrap();
    let deps: Vec<(String, Vec<&str>)> = plan
        .deps(t)
        .into_iter()
        .map(|(d, ty)| (plan.node(d).name.clone(), ty.names()))
        .collect();
    assert_eq!(
        deps,
        [
            ("checker".to_string(), vec!["test"]),
            ("libdep".to_string(), vec!["build", "link"]),
        ]
    );
    // Not in the link or run closure (what views and modules follow).
    let linked_or_run = DepTypes {
        build: false,
        link: true,
        run: true,
        test: false,
    };
    let closure: Vec<String> = plan
        .closure(t, linked_or_run)
        .into_iter()
        .map(|i| plan.node(i).name.clone())
        .collect();
    assert!(!closure.contains(&"checker".to_string()), "{closure:?}");
    assert!(closure.contains(&"libdep".to_string()), "{closure:?}");
    // The same package without its test dependency has the same hash.
    assert_eq!(
        node(&plan, "tested").hash,
        node(&tested(false), "tested").hash
    );
}

#[test]
fn a_provider_named_by_a_roots_caret_is_chosen_for_its_virtual() {
    // `app` needs the virtual `xmpi`; by name `aaa-mpi` would be chosen.
    // `app ^zzz-mpi` names the provider: as in Spack, it is put in the DAG.
    let app = app_needing("1");
    let mut recipes: Vec<(&str, &str)> = PROVIDERS.to_vec();
    recipes.extend(app.iter().map(|(n, e)| (*n, e.as_str())));
    let plan = ok(resolve_with(
        &recipes,
        "environments:\n  e:\n    specs: [\"app ^zzz-mpi\"]\n",
    ));
    assert_eq!(env_names(&plan, "e"), ["app", "zzz-mpi"]);
    assert_eq!(node(&plan, "app").virtuals["xmpi"], "zzz-mpi");
    // Without it, the first by name.
    let plan = ok(resolve_with(
        &recipes,
        "environments:\n  e:\n    specs: [app]\n",
    ));
    assert_eq!(node(&plan, "app").virtuals["xmpi"], "aaa-mpi");
}
