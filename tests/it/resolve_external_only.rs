//! External-only recipes (`build: {system: external}`, what `stack import
//! spack` writes for a package whose `install` only raises: cray-libsci):
//! only a cluster external satisfies them, a missing one is a clear error,
//! and a `^pkg` condition on one that is not in the graph never holds.

use crate::harness::resolve::*;
use stack::resolve::ResolveError;

const VENDOR: &str = r#"name: vendorlib
description: a library only the vendor ships
versions:
  - {version: "23.02.1.1", source: none}
  - {version: "22.11.1.2", source: none}
provides: [blas]
build: {system: external}
"#;

const APP: &str = r#"name: app
description: an application
versions:
  - {version: "1.0", source: none}
variants:
  scalapack: {default: false}
dependencies:
  - {spec: zlib, when: "+scalapack ^vendorlib"}
build: {system: generic}
"#;

/// No versions at all (Spack's fujitsu-ssl2 declares none): the external
/// names the version.
const SSL2: &str =
    "name: ssl2\ndescription: vendor maths\nversions: []\nbuild: {system: external}\n";

/// Resolve `envs` (YAML under `environments:`) with `vendorlib` and `app`
/// beside the fixture recipes.
fn resolve_with(envs: &str) -> Result<stack::resolve::Plan, ResolveError> {
    let dir = tempfile::tempdir().unwrap();
    let recipes = dir.path().join("recipes");
    std::fs::create_dir_all(&recipes).unwrap();
    std::fs::write(recipes.join("vendorlib.yaml"), VENDOR).unwrap();
    std::fs::write(recipes.join("app.yaml"), APP).unwrap();
    std::fs::write(recipes.join("ssl2.yaml"), SSL2).unwrap();
    let file = dir.path().join("stack.yaml");
    let text = format!(
        "name: t\nrepos: [{}, {}]\nenvironments:\n{envs}",
        recipes.display(),
        fixtures().join("recipes").display()
    );
    std::fs::write(&file, text).unwrap();
    resolve_inputs(&load(&file, "local"), &Default::default())
}

#[test]
fn an_external_only_package_uses_the_listed_external() {
    let plan = ok(resolve_with(
        "  e:\n    specs: [vendorlib]\n    packages:\n      vendorlib: {externals: [{spec: vendorlib@22.11.1.2, prefix: /opt/cray/libsci}]}\n",
    ));
    let v = named(&plan, "vendorlib");
    assert_eq!(v.len(), 1);
    assert!(v[0].is_external());
    assert_eq!(v[0].version.as_str(), "22.11.1.2");
}

#[test]
fn without_an_external_the_error_names_the_package_and_the_fix() {
    let err = resolve_with("  e:\n    specs: [vendorlib]\n").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("`vendorlib` is external-only"), "{text}");
    assert!(
        text.contains("declare it as an external in the cluster's packages.yaml"),
        "{text}"
    );
    assert!(err.is_input_error());
}

#[test]
fn a_caret_condition_on_an_absent_external_only_package_does_not_hold() {
    let plan = ok(resolve_with("  e:\n    specs: [\"app +scalapack\"]\n"));
    assert!(named(&plan, "vendorlib").is_empty());
    assert!(named(&plan, "zlib").is_empty());
}

#[test]
fn an_external_only_package_without_versions_takes_the_externals() {
    let plan = ok(resolve_with(
        "  e:\n    specs: [ssl2]\n    packages:\n      ssl2: {externals: [{spec: ssl2@1.2.35, prefix: /opt/FJSVssl2}]}\n",
    ));
    let v = named(&plan, "ssl2");
    assert!(v[0].is_external());
    assert_eq!(v[0].version.as_str(), "1.2.35");
}
