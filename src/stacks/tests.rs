//! Tests of stack recipe loading and of the whole input check.

use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostics, SourceFile};
use crate::recipes::{EnvOpKind, Resource};

use super::*;

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

/// A project: stacks/s.yaml, recipes/, cluster-configs/local.
fn project(stack: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let pkg = |name: &str, extra: &str| {
        format!(
            "name: {name}\ndescription: d\nversions: [{{version: \"1.0\", url: \"https://x/{name}.tgz\", sha256: {}}}]\nbuild: {{system: generic}}\n{extra}",
            "0".repeat(64)
        )
    };
    write(
        &t.join("recipes/app.yaml"),
        &pkg(
            "app",
            "variants: {mpi: {default: false}}\ndependencies: [lib, {spec: mpi, when: +mpi}]\n",
        ),
    );
    write(
        &t.join("recipes/lib.yaml"),
        &pkg(
            "lib",
            "dependencies: [{spec: tool, type: build, when: \"@2:\"}]\n",
        ),
    );
    write(&t.join("recipes/tool.yaml"), &pkg("tool", ""));
    write(
        &t.join("recipes/mpich.yaml"),
        &pkg("mpich", "provides: [mpi]\n"),
    );
    write(
        &t.join("recipes/openmpi.yaml"),
        &pkg("openmpi", "provides: [{virtual: mpi, when: \"@5:\"}]\n"),
    );
    write(
        &t.join("recipes/unrelated.yaml"),
        "name: unrelated\nbroken: [\n",
    );
    write(
        &t.join("recipes/fabric.yaml"),
        &pkg(
            "fabric",
            "variants: {fabrics: {default: [tcp], values: [tcp, cxi], multi: true}}\n",
        ),
    );
    write(
        &t.join("cluster-configs/local/cluster.yaml"),
        "name: local\ntarget: x86_64\ncompilers: [{spec: gcc@12.2.0, cc: /usr/bin/gcc}]\nnetwork: {mpi: mpich, specs: [\"fabric fabrics=cxi\"]}\n",
    );
    write(&t.join("stacks/s.yaml"), stack);
    tmp
}

fn inputs(tmp: &Path) -> Result<Inputs, Diagnostics> {
    load_inputs(&InputOptions {
        recipe: tmp.join("stacks/s.yaml"),
        no_builtin: true,
        ..InputOptions::default()
    })
}

#[test]
fn a_stack_recipe_converts_to_the_model() {
    let tmp = project("");
    let t = tmp.path();
    write(&t.join("stacks/hooks/post.sh"), "#!/bin/sh\n");
    fs_err::create_dir_all(t.join("stacks/extra")).unwrap();
    let text = r#"
name: demo
version: "2"
description: d
mount: /user-environment/
compiler: gcc@12
repos: [../recipes]
fallback_repos: [extra]
mirrors: [file:///srv/m, mirror]
allow_unverified: true
environments:
  tools:
    specs: ["app +mpi", lib@1.0]
    network: {}
    variants: [+mpi, "fabrics=cxi"]
    unify: true
    packages:
      lib: {require: "@1.0"}
    views:
      default:
        link: run
        select: [app]
        exclude: [lib]
        description: the view
        prefix_paths: {LD_LIBRARY_PATH: [lib, lib64], PATH: bin}
        env_vars:
          append_path: [{PATH: "$@view_path@/sbin"}]
          set: [{A: "1"}, {B: "2"}]
          unset: [C]
          prepend_path: [{PATH: "$@view_path@/bin"}]
      other:
default_view: default
modules: {flavour: tcl, projections: {all: "{name}/{version}"}, hide_implicits: false}
post_install: hooks/post.sh
extra: extra/
audit: {allow: ["/usr/lib64/libcuda.so*"]}
"#;
    let src = SourceFile::new(t.join("stacks/s.yaml"), text);
    let mut d = Diagnostics::new();
    let r = parse_stack_recipe(&src, &mut d).unwrap();
    assert!(d.is_empty(), "{d}");
    assert_eq!(r.name.value, "demo");
    assert_eq!(r.mount, PathBuf::from("/user-environment"));
    assert_eq!(r.compiler.as_ref().unwrap().text, "gcc@12");
    assert_eq!(r.repos[0].path, t.join("recipes"));
    assert_eq!(r.repos[0].text, "../recipes");
    assert_eq!(r.fallback_repos[0].path, t.join("stacks/extra"));
    // and written back
    let back = parse_stack_recipe(
        &SourceFile::new(t.join("stacks/s.yaml"), r.to_yaml()),
        &mut d,
    );
    assert_eq!(back.unwrap().fallback_repos[0].text, "extra");
    assert_eq!(
        r.mirrors[1].resource,
        Resource::Local(t.join("stacks/mirror"))
    );
    assert!(r.allow_unverified);
    let env = r.environment("tools").unwrap();
    assert_eq!(env.specs.len(), 2);
    assert_eq!(env.specs[0].loc.line, 13);
    assert!(env.network.is_some());
    assert_eq!(env.variants.len(), 2);
    assert!(env.packages.get("lib").is_some());
    let views: Vec<_> = r.views().map(|(_, v)| v.name.value.clone()).collect();
    assert_eq!(views, vec!["default", "other"]);
    let v = &env.views[0];
    assert_eq!(v.link, ViewLink::Run);
    assert_eq!(
        v.prefix_paths[1],
        ("PATH".to_string(), vec!["bin".to_string()])
    );
    let kinds: Vec<_> = v
        .env_vars
        .iter()
        .map(|e| (e.kind, e.var.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (EnvOpKind::Set, "A"),
            (EnvOpKind::Set, "B"),
            (EnvOpKind::Unset, "C"),
            (EnvOpKind::PrependPath, "PATH"),
            (EnvOpKind::AppendPath, "PATH"),
        ]
    );
    assert_eq!(env.views[1].link, ViewLink::Roots);
    let m = r.modules.as_ref().unwrap();
    assert_eq!(m.flavour, ModuleFlavour::Tcl);
    assert!(!m.hide_implicits);
    assert_eq!(
        r.post_install.as_ref().unwrap().path,
        t.join("stacks/hooks/post.sh")
    );
    assert_eq!(r.extra.as_ref().unwrap().path, t.join("stacks/extra"));
    assert_eq!(r.audit.allow.len(), 1);
}

#[test]
fn defaults_apply_when_fields_are_absent() {
    let src = SourceFile::new("/p/s.yaml", "name: x\nenvironments: {e: {specs: [a]}}\n");
    let mut d = Diagnostics::new();
    let r = parse_stack_recipe(&src, &mut d).unwrap();
    assert!(d.is_empty(), "{d}");
    assert_eq!(r.mount, PathBuf::from(DEFAULT_MOUNT));
    assert!(r.compiler.is_none() && r.modules.is_none() && !r.allow_unverified);
    assert!(r.environments[0].unify);
    assert_eq!(r.environments[0].duplicates, Duplicates::Minimal);
    assert_eq!(r.dir, PathBuf::from("/p"));
}

#[test]
fn duplicates_take_minimal_or_none() {
    let parse = |v: &str| {
        let text = format!("name: x\nenvironments: {{e: {{specs: [a], duplicates: {v}}}}}\n");
        let src = SourceFile::new("/p/s.yaml", &text);
        let mut d = Diagnostics::new();
        let r = parse_stack_recipe(&src, &mut d).unwrap();
        (r.environments[0].duplicates, d.to_string())
    };
    assert_eq!(parse("none").0, Duplicates::None);
    assert_eq!(parse("minimal").0, Duplicates::Minimal);
    let (_, d) = parse("full");
    assert!(
        d.contains("`duplicates: full` is not a duplicates strategy"),
        "{d}"
    );
}

#[test]
fn the_whole_input_check_reaches_conditional_deps_and_providers() {
    let tmp =
        project("name: s\ncompiler: gcc\nenvironments:\n  e:\n    specs: [app]\n    network: {}\n");
    let inputs = inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
    // app → lib → tool (conditional build dep), app → mpi (conditional) →
    // mpich, openmpi (conditional provider); network defaults → mpich, fabric.
    let pkgs: Vec<_> = inputs.packages.iter().map(String::as_str).collect();
    assert_eq!(
        pkgs,
        vec!["app", "fabric", "lib", "mpich", "openmpi", "tool"]
    );
    let env = &inputs.recipe.environments[0];
    let roots: Vec<_> = env
        .root_specs(&inputs.cluster)
        .iter()
        .map(|s| s.text.clone())
        .collect();
    assert_eq!(roots, vec!["app", "mpich", "fabric fabrics=cxi"]);
    assert_eq!(inputs.cluster.name.value, "local");
    assert_eq!(inputs.repo.dirs()[0].path, tmp.path().join("recipes"));
    // the broken, unreachable recipe is not reported
    assert!(inputs.warnings.is_empty(), "{}", inputs.warnings);
}

#[test]
fn a_required_provider_keeps_the_other_providers_out_of_reach() {
    let tmp = project(
        "name: s\ncompiler: gcc\nenvironments:\n  e:\n    specs: [app +mpi]\n    packages:\n      mpi: {require: mpich}\n",
    );
    let inputs = inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
    let pkgs: Vec<_> = inputs.packages.iter().map(String::as_str).collect();
    assert_eq!(pkgs, vec!["app", "lib", "mpich", "tool"]);
}

#[test]
fn cross_file_problems_are_all_reported() {
    let tmp = project(
        "name: s\ncompiler: clang\nenvironments:\n  e:\n    specs: [ap, \"app +mppi\", \"fabric fabrics=udp\", \"tool %gcc@13\"]\n    packages:\n      mpi: {require: lib}\n      lbi: {buildable: false}\n",
    );
    let d = inputs(tmp.path()).unwrap_err();
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        vec![
            Code::UnknownCompiler,
            Code::UnknownPackage,
            Code::UnknownVariant,
            Code::UnknownVariantValue,
            Code::UnknownCompiler,
            Code::UnknownPackage,
            Code::UnknownPackage,
        ],
        "{d}"
    );
    let first = d.iter().nth(1).unwrap();
    assert_eq!(first.help.as_deref(), Some("did you mean `app`?"));
    assert_eq!(first.loc().unwrap().line, 5);
}

#[test]
fn missing_sha256_fails_unless_unverified_is_allowed() {
    let stack = "name: s\nenvironments: {e: {specs: [tool]}}\n";
    let tmp = project(stack);
    write(
        &tmp.path().join("recipes/tool.yaml"),
        "name: tool\ndescription: d\nversions: [{version: \"1\", url: \"https://x/t.tgz\"}]\nbuild: {system: generic}\n",
    );
    let d = inputs(tmp.path()).unwrap_err();
    assert_eq!(d.iter().next().unwrap().code, Code::BadChecksum);
    write(
        &tmp.path().join("stacks/s.yaml"),
        &format!("{stack}allow_unverified: true\n"),
    );
    inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn a_missing_cluster_is_an_error_with_a_hint() {
    let tmp = project("name: s\nenvironments: {e: {specs: [tool]}}\n");
    fs_err::remove_dir_all(tmp.path().join("cluster-configs")).unwrap();
    let opts = InputOptions {
        recipe: tmp.path().join("stacks/s.yaml"),
        cluster: Some(tmp.path().join("nope")),
        no_builtin: true,
        ..InputOptions::default()
    };
    let d = load_inputs(&opts).unwrap_err();
    let e = d.iter().next().unwrap();
    assert_eq!(e.code, Code::Io);
    assert!(e.message.contains("nope"), "{}", e.message);
}

#[test]
fn a_broken_stack_recipe_gives_no_follow_up_cluster_warnings() {
    let tmp = project("name: s\nenvironments: {e: {specs: [tool]\n");
    write(
        &tmp.path().join("cluster-configs/local/cluster.yaml"),
        "name: local\ntarget: x86_64\ncompilers: [{spec: gcc@12.2.0, cc: /usr/bin/gcc}]\npackages: {not-in-any-repo: {buildable: false}}\n",
    );
    let d = inputs(tmp.path()).unwrap_err();
    let codes: Vec<_> = d.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::YamlSyntax], "{d}");
    // With the recipe fixed, the cluster's unknown package is reported.
    write(
        &tmp.path().join("stacks/s.yaml"),
        "name: s\nallow_unverified: true\nenvironments: {e: {specs: [tool]}}\n",
    );
    let ok = inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
    let codes: Vec<_> = ok.warnings.iter().map(|d| d.code).collect();
    assert!(codes.contains(&Code::UnknownPackage), "{}", ok.warnings);
}

#[test]
fn a_short_sha256_is_one_error_not_two() {
    let tmp = project("name: s\nenvironments: {e: {specs: [tool]}}\n");
    write(
        &tmp.path().join("recipes/tool.yaml"),
        &format!(
            "name: tool\ndescription: d\nversions: [{{version: \"1\", url: \"https://x/t.tgz\", sha256: {}}}]\nbuild: {{system: generic}}\n",
            "a".repeat(63)
        ),
    );
    let d = inputs(tmp.path()).unwrap_err();
    let codes: Vec<_> = d.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::BadChecksum], "{d}");
    assert!(d.to_string().contains("is not a sha256 checksum"), "{d}");
}

#[test]
fn a_view_placeholder_typo_is_caught_with_its_position() {
    let tmp = project(
        "name: s\nallow_unverified: true\nenvironments:\n  e:\n    specs: [tool]\n    views:\n      v:\n        env_vars:\n          prepend_path: [{PATH: \"$@viewpath@/bin\"}]\n",
    );
    let d = inputs(tmp.path()).unwrap_err();
    let e = d.iter().next().unwrap();
    assert_eq!(e.code, Code::BadTemplate, "{d}");
    assert!(e.message.contains("`$@viewpath@`"), "{}", e.message);
    let loc = e.loc().unwrap();
    assert_eq!((loc.line, loc.col, loc.len), (9, 34, 11), "{loc:?}");
}

#[test]
fn a_root_spec_met_by_an_external_is_reported() {
    let tmp = project(
        "name: s\nallow_unverified: true\nenvironments: {e: {specs: [\"tool@1:\", \"app@1:\"]}}\n",
    );
    write(
        &tmp.path().join("cluster-configs/local/cluster.yaml"),
        "name: local\ntarget: x86_64\ncompilers: [{spec: gcc@12.2.0, cc: /usr/bin/gcc}]\npackages:\n  tool: {externals: [{spec: tool@1.0, prefix: /usr}]}\n  app: {externals: [{spec: app@0.5, prefix: /opt/app}]}\n",
    );
    let ok = inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
    let w: Vec<_> = ok
        .warnings
        .iter()
        .filter(|d| d.message.contains("will be met by the external"))
        .collect();
    // `tool@1:` is met by tool@1.0; app@0.5 cannot meet `app@1:`.
    assert_eq!(w.len(), 1, "{}", ok.warnings);
    assert!(
        w[0].message.contains(
            "root spec `tool@1:` of environment `e` will be met by the external `tool@1.0` at /usr"
        ),
        "{}",
        w[0].message
    );
    assert_eq!(w[0].loc().unwrap().line, 3);
    assert!(
        w[0].help.as_deref().unwrap().contains("cluster.yaml:5"),
        "{:?}",
        w[0].help
    );
}

#[test]
fn stack_compilers_environment_compilers_and_add_compilers_are_read() {
    let tmp = project(
        "name: s\ncompilers: [tool@1.0]\ncompiler: tool\nenvironments:\n  e:\n    compiler: gcc\n    specs: [app]\n    views:\n      v: {add_compilers: true}\n  f:\n    specs: [\"lib %tool\"]\n",
    );
    let inputs = inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
    let r = &inputs.recipe;
    assert_eq!(r.compilers.len(), 1);
    assert_eq!(r.compilers[0].text, "tool@1.0");
    assert_eq!(r.compiler.as_ref().unwrap().text, "tool");
    assert_eq!(r.environments[0].compiler.as_ref().unwrap().text, "gcc");
    assert!(r.environments[1].compiler.is_none());
    assert!(r.environments[0].views[0].add_compilers);
    // the stack's compilers come first, as their own environment
    let all: Vec<String> = r
        .all_environments()
        .iter()
        .map(|e| e.name.value.clone())
        .collect();
    assert_eq!(all, ["compilers", "e", "f"]);
    assert!(inputs.packages.contains("tool"));
}

#[test]
fn a_compiler_neither_built_nor_on_the_cluster_is_reported() {
    let tmp = project(
        "name: s\ncompilers: [tool@1.0]\nenvironments:\n  e:\n    compiler: clang\n    specs: [app]\n",
    );
    let d = inputs(tmp.path()).unwrap_err();
    let codes: Vec<Code> = d.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::UnknownCompiler], "{d}");
    let help = d.iter().next().unwrap().help.clone().unwrap_or_default();
    assert!(help.contains("the stack builds: tool@1.0"), "{help}");
}

#[test]
fn an_environment_named_compilers_clashes_with_stack_compilers() {
    let text = "name: s\ncompilers: [gcc@14]\nenvironments:\n  compilers:\n    specs: [app]\n";
    let src = SourceFile::new(PathBuf::from("/p/s.yaml"), text);
    let mut d = Diagnostics::new();
    parse_stack_recipe(&src, &mut d);
    assert_eq!(d.len(), 1, "{d}");
    assert!(
        d.to_string()
            .contains("clashes with the stack's `compilers:`"),
        "{d}"
    );
}

#[test]
fn a_virtual_assignment_must_name_a_provider() {
    let tmp = project(
        "name: s\nallow_unverified: true\ncompiler: gcc\nenvironments:\n  e:\n    specs: [\"app +mpi %mpi=mpich\"]\n",
    );
    inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
    write(
        &tmp.path().join("stacks/s.yaml"),
        "name: s\nallow_unverified: true\ncompiler: gcc\nenvironments:\n  e:\n    specs: [\"app +mpi %mpi=tool\"]\n",
    );
    let d = inputs(tmp.path()).unwrap_err();
    let e = d.iter().next().unwrap();
    assert_eq!(e.code, Code::BadSpec, "{d}");
    assert!(e.message.contains("`tool` does not provide `mpi`"), "{d}");
}

#[test]
fn a_view_exclude_naming_no_package_is_a_warning() {
    let tmp = project(
        "name: s\nallow_unverified: true\ncompiler: gcc\nenvironments:\n  e:\n    specs: [tool]\n    views:\n      v: {exclude: [tool-osmesa]}\n",
    );
    let ok = inputs(tmp.path()).unwrap_or_else(|d| panic!("{d}"));
    let w = ok.warnings.iter().next().expect("a warning");
    assert_eq!(w.code, Code::UnknownPackage);
    assert!(
        w.message.contains("`tool-osmesa` in view `v`"),
        "{}",
        w.message
    );
    assert!(w.loc().is_some());
    // In `select:` it stays an error.
    write(
        &tmp.path().join("stacks/s.yaml"),
        "name: s\nallow_unverified: true\ncompiler: gcc\nenvironments:\n  e:\n    specs: [tool]\n    views:\n      v: {select: [tool-osmesa]}\n",
    );
    assert!(inputs(tmp.path()).is_err());
}
