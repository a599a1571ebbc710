//! Node hashes: SHA-256 over a canonical, versioned serialisation of
//! exactly the inputs of a node's build.
//!
//! The serialisation is compact JSON written field by field in a fixed
//! order (see `canonical`), preceded by the line `stack-node-v2`. It
//! contains, for a built node:
//!
//! | field | content |
//! |-------|---------|
//! | `name`, `version` | the version as written in the recipe |
//! | `variants` | every variant: `true`/`false`, or the sorted list of values |
//! | `compiler` | `spec` (`gcc@12.2.0`) and `identity`: for a cluster compiler its `cc` path and a fingerprint of the program's bytes; for a compiler the stack builds, that node's hash |
//! | `target`, `os`, `libc` | `neoverse_v2`, the cluster's `os:` (`sles15`), its C library (`glibc@2.36`: `libc:`, else the host's) |
//! | `source` | archive: `sha256` and `expand` (not the URL: mirrors do not change a build); git: the `commit` and `submodules` (the repository as written and the tag/branch only while no commit is known) |
//! | `patches` | `sha256` and `level` of each applied patch, in order |
//! | `build` | the recipe's `build:` section with only the entries whose `when:` holds (templates unrendered); `filter` and `flags` only when the recipe has active ones; package files (`system: spack`) as their path below `spack/` and sha256, and for a kind that runs build logic the Python layer's version (`build_logic`: [`crate::build_logic::API_VERSION`]; never the interpreter) |
//! | `env` | the recipe's run environment (`env:`), active entries only |
//! | `deps` | `name`, `hash` and dependency `types` of each direct dependency, sorted; test-only dependencies (`type: [test]`) are left out: they do not change what is installed |
//! | `mount` | the mount point |
//! | `flags` | only when the node's spec has compiler flags (`cflags=-fPIC`): each name with its flags in order |
//!
//! An external node hashes `name`, `version`, `variants` and its `prefix`.
//! Nothing else enters a hash: not the recipe's description, other
//! versions, YAML formatting or comments, file locations, URLs of
//! checksummed sources, or the order of keys in the recipe. No `Debug`
//! output or `std` hasher is involved, so hashes are stable across runs,
//! platforms and Rust versions. Changing this format means changing
//! [`HASH_FORMAT`].

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::recipes::{
    ArgList, BuildSystem, DepTypes, EnvOp, InstallAction, PackageRecipe, Setting, Toggle, When,
};
use crate::spec::{Spec, VariantValue};

use super::model::{NodeCompiler, NodePatch, NodeSource};

/// The first line of every hashed serialisation; bump it when the format
/// changes.
pub const HASH_FORMAT: &str = "stack-node-v2";

/// The build inputs of one node.
pub(crate) struct HashInputs<'n> {
    pub recipe: &'n PackageRecipe,
    /// The concrete spec (for `when:` conditions).
    pub spec: &'n Spec,
    pub version_text: &'n str,
    pub variants: &'n BTreeMap<String, VariantValue>,
    pub compiler: &'n NodeCompiler,
    /// The languages built with another compiler (`%fortran=nvhpc`).
    pub languages: &'n BTreeMap<String, NodeCompiler>,
    pub target: &'n str,
    pub os: Option<&'n str>,
    pub libc: Option<&'n str>,
    pub source: Option<&'n NodeSource>,
    pub patches: &'n [NodePatch],
    /// Name, hash and types of each direct dependency.
    pub deps: Vec<(&'n str, &'n str, DepTypes)>,
    pub mount: &'n Path,
    pub external: Option<&'n Path>,
}

fn variant_json(v: &VariantValue) -> Value {
    match v {
        VariantValue::Bool(b) => Value::Bool(*b),
        VariantValue::Values(vals) => Value::Array(vals.iter().map(|s| json!(s)).collect()),
    }
}

fn active(when: &Option<When>, spec: &Spec) -> bool {
    when.as_ref().is_none_or(|w| spec.satisfies(&w.spec))
}

fn args(list: &ArgList, spec: &Spec) -> Vec<String> {
    list.iter()
        .filter(|c| active(&c.when, spec))
        .flat_map(|c| c.value.iter().cloned())
        .collect()
}

fn toggle(t: &Toggle, spec: &Spec) -> bool {
    match t {
        Toggle::Off => false,
        Toggle::On => true,
        Toggle::When(w) => spec.satisfies(&w.spec),
    }
}

fn env_json(ops: &[EnvOp], spec: &Spec) -> Value {
    Value::Array(
        ops.iter()
            .filter(|o| active(&o.when, spec))
            .map(|o| json!({"op": o.kind.key(), "var": o.var, "value": o.value}))
            .collect(),
    )
}

/// The build system as hashed: `system`, then every key by its type in the
/// kind's order, then the keys hashed only when set (flags that are `true`,
/// texts that are given: keys added after recipes were hashed, whose
/// absence must not change existing hashes). A `relocate:` block adds its
/// `rpath`, `needed` (active entries) and `placeholders`.
fn system_json(system: &BuildSystem, spec: &Spec) -> Value {
    let mut v = serde_json::Map::new();
    v.insert("system".into(), json!(system.name()));
    let mut when_set = Vec::new();
    for (key, setting) in &system.settings {
        let key = key.to_string();
        match setting {
            Setting::Toggle(t) => {
                v.insert(key, json!(toggle(t, spec)));
            }
            Setting::Args(a) => {
                v.insert(key, json!(args(a, spec)));
            }
            Setting::Words(w) => {
                v.insert(key, json!(args(w, spec)));
            }
            Setting::Flag(true) => when_set.push((key, json!(true))),
            Setting::Text(Some(t)) => when_set.push((key, json!(t))),
            Setting::Flag(false) | Setting::Text(None) => {}
            Setting::Relocate(r) => {
                let rpath: Vec<&String> = r.rpath.iter().map(|s| &s.value).collect();
                let needed: Vec<Value> = r
                    .needed
                    .iter()
                    .filter(|n| active(&n.when, spec))
                    .map(|n| json!({"file": n.file, "add": n.add}))
                    .collect();
                let placeholders: Vec<Value> =
                    r.placeholders.iter().map(|(k, v)| json!([k, v])).collect();
                v.insert("rpath".into(), json!(rpath));
                v.insert("needed".into(), json!(needed));
                v.insert("placeholders".into(), json!(placeholders));
            }
            Setting::File(f) => {
                v.insert(key, json!(f.as_ref().map(package_file_json)));
            }
            Setting::Files(list) => {
                let files: Vec<Value> = list.iter().map(package_file_json).collect();
                v.insert(key, json!(files));
            }
        }
    }
    v.extend(when_set);
    if system.kind.runs_build_logic() {
        // What runs the package files: a new layer rebuilds them.
        v.insert("build_logic".into(), json!(crate::build_logic::API_VERSION));
    }
    Value::Object(v)
}

/// A package file as hashed: its path below `spack/` and its sha256 (not
/// where the repository is).
fn package_file_json(f: &crate::recipes::PackageFileRef) -> Value {
    json!({"file": f.file, "sha256": f.sha256})
}

/// The `build:` section as hashed: only entries whose `when:` holds.
fn build_json(recipe: &PackageRecipe, spec: &Spec) -> Value {
    let b = &recipe.build;
    let system = system_json(&b.system, spec);
    let install: Vec<Value> = b
        .install
        .iter()
        .filter(|s| active(&s.when, spec))
        .map(|s| match &s.action {
            InstallAction::Copy { from, to } => json!({"copy": from, "to": to}),
            InstallAction::Mkdir { path } => json!({"mkdir": path}),
            InstallAction::Symlink { target, at } => json!({"symlink": target, "at": at}),
        })
        .collect();
    let steps: Vec<Value> = b
        .steps
        .iter()
        .filter(|s| active(&s.when, spec))
        .map(|s| json!({"phase": s.phase.key(), "argv": s.argv}))
        .collect();
    let mut v = json!({
        "system": system,
        "install": install,
        "build_env": env_json(&b.build_env, spec),
        "steps": steps,
    });
    // Only when present, so that hashes of recipes without filters stay as they were.
    let filters: Vec<Value> = b
        .filters
        .iter()
        .filter(|f| active(&f.when, spec))
        .map(|f| {
            json!({"file": f.file, "regex": f.regex, "replace": f.replace,
                "string": f.string, "ignore_absent": f.ignore_absent})
        })
        .collect();
    if !filters.is_empty() {
        v["filter"] = json!(filters);
    }
    // Only when present, so that hashes of recipes without flags stay as they were.
    let flags: Vec<Value> = b
        .flags
        .iter()
        .filter(|f| active(&f.when, spec))
        .map(|f| json!({"name": f.name.key(), "values": f.values, "via": f.via.key()}))
        .collect();
    if !flags.is_empty() {
        v["flags"] = json!(flags);
    }
    v
}

fn source_json(src: Option<&NodeSource>) -> Value {
    match src {
        None => Value::Null,
        Some(NodeSource::Archive {
            sha256,
            expand,
            url_text,
            resources,
            ..
        }) => {
            let mut v = match sha256 {
                Some(sha) => json!({"archive": {"sha256": sha, "expand": expand}}),
                None => json!({"archive": {"unverified": url_text, "expand": expand}}),
            };
            // Only when present, so that hashes of sources without them stay as they were.
            if !resources.is_empty() {
                v["archive"]["resources"] = resources_json(resources);
            }
            v
        }
        Some(NodeSource::Git {
            repo_text,
            reference,
            commit,
            submodules,
            resources,
            ..
        }) => {
            let mut v = match commit {
                Some(c) => json!({"git": {"commit": c, "submodules": submodules}}),
                None => {
                    let (kind, name) = match reference {
                        crate::recipes::GitRef::Tag(t) => ("tag", t),
                        crate::recipes::GitRef::Branch(b) => ("branch", b),
                        crate::recipes::GitRef::Commit(c) => ("commit", c),
                    };
                    json!({"git": {"repo": repo_text, kind: name, "submodules": submodules}})
                }
            };
            if !resources.is_empty() {
                v["git"]["resources"] = resources_json(resources);
            }
            v
        }
    }
}

/// A source's resources as hashed: each by its content (sha256, or a git
/// resource's revision), with the layout keys only when set, so that
/// hashes of plain resources stay as they were.
fn resources_json(resources: &[crate::resolve::model::NodeResource]) -> Value {
    let list: Vec<Value> = resources
        .iter()
        .map(|r| {
            let mut v = match (&r.git, &r.sha256) {
                (Some(g), _) => json!({"git": super::render::resource_git(g)}),
                (None, Some(sha)) => json!({"sha256": sha, "expand": r.expand}),
                (None, None) => json!({"unverified": r.url_text, "expand": r.expand}),
            };
            if r.git.as_ref().is_some_and(|g| g.pinned().is_none()) {
                // An unpinned tag or branch: the repository names it.
                v["repo"] = json!(r.url_text);
            }
            if let Some(d) = &r.destination {
                v["destination"] = json!(d);
            }
            if let Some(p) = super::render::placement_json(&r.placement) {
                v["placement"] = p;
            }
            if !r.strip {
                v["strip"] = json!(false);
            }
            v
        })
        .collect();
    Value::Array(list)
}

/// A patch as hashed: `working_dir` only when set, so that hashes of
/// patches at the top stay as they were.
fn patch_json(p: &crate::resolve::model::NodePatch) -> Value {
    let mut v = json!({"sha256": p.sha256, "level": p.level});
    if let Some(d) = &p.working_dir {
        v["working_dir"] = json!(d);
    }
    v
}

/// The canonical serialisation that is hashed.
pub(crate) fn canonical(inputs: &HashInputs<'_>) -> String {
    let variants: serde_json::Map<String, Value> = inputs
        .variants
        .iter()
        .map(|(k, v)| (k.clone(), variant_json(v)))
        .collect();
    let value = match inputs.external {
        Some(prefix) => json!({
            "name": inputs.recipe.name,
            "version": inputs.version_text,
            "variants": variants,
            "external": prefix.to_string_lossy(),
        }),
        None => {
            let mut deps = inputs.deps.clone();
            deps.sort();
            json!({
                "name": inputs.recipe.name,
                "version": inputs.version_text,
                "variants": variants,
                "compiler": {
                    "spec": inputs.compiler.to_string(),
                    "identity": inputs.compiler.identity(),
                },
                "target": inputs.target,
                "os": inputs.os,
                "libc": inputs.libc,
                "source": source_json(inputs.source),
                "patches": inputs.patches.iter()
                    .map(patch_json)
                    .collect::<Vec<_>>(),
                "build": build_json(inputs.recipe, inputs.spec),
                "env": env_json(&inputs.recipe.env, inputs.spec),
                "deps": deps.iter()
                    .map(|(n, h, t)| json!({"name": n, "hash": h, "types": t.names()}))
                    .collect::<Vec<_>>(),
                "mount": inputs.mount.to_string_lossy(),
            })
        }
    };
    let mut value = value;
    // Only present for per-language compilers: other hashes stay as they were.
    if inputs.external.is_none() && !inputs.languages.is_empty() {
        let languages: serde_json::Map<String, Value> = inputs
            .languages
            .iter()
            .map(|(l, c)| {
                (
                    l.clone(),
                    json!({"spec": c.to_string(), "identity": c.identity()}),
                )
            })
            .collect();
        value["compiler"]["languages"] = Value::Object(languages);
    }
    // Only present for spec flags (`cflags=-fPIC`): other hashes stay as they were.
    if inputs.external.is_none() && !inputs.spec.flags.is_empty() {
        let flags: serde_json::Map<String, Value> = inputs
            .spec
            .flags
            .iter()
            .map(|(name, f)| (name.clone(), json!(f.flags)))
            .collect();
        value["flags"] = Value::Object(flags);
    }
    // Only present when the recipe sets its dependents' build environment
    // (`dependent_build_env:`): other hashes stay as they were.
    let dependent = env_json(&inputs.recipe.dependent_build_env, inputs.spec);
    if inputs.external.is_none() && dependent.as_array().is_some_and(|a| !a.is_empty()) {
        value["dependent_build_env"] = dependent;
    }
    let mut out = String::from(HASH_FORMAT);
    out.push('\n');
    out.push_str(&serde_json::to_string(&value).expect("JSON values serialise"));
    out
}

/// SHA-256 of the canonical serialisation, 64 lower-case hex digits.
pub(crate) fn node_hash(inputs: &HashInputs<'_>) -> String {
    hex::encode(Sha256::digest(canonical(inputs).as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, SourceFile};

    /// `build:` of a recipe named `p`, as hashed for the spec `p` (`~x`).
    fn hashed(build: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.yaml");
        let text = format!(
            "name: p\ndescription: d\nversions: [{{version: \"1\", url: \"https://e.org/p.tgz\", sha256: {}}}]\n\
             variants: {{x: {{default: false, description: d}}}}\ndependencies: [q]\nbuild:\n{build}",
            "0".repeat(64)
        );
        fs_err::write(&file, text).unwrap();
        let mut d = Diagnostics::new();
        let r =
            crate::recipes::parse_package(&SourceFile::read(&file).unwrap(), dir.path(), &mut d)
                .unwrap_or_else(|| panic!("{d}"));
        let spec: Spec = "p~x".parse().unwrap();
        system_json(&r.build.system, &spec).to_string()
    }

    /// The build system part of `stack-node-v2`, key by key in the order the
    /// closed per-kind code wrote it: node hashes of existing recipes stay.
    #[test]
    fn build_systems_hash_as_in_v2() {
        let cases = [
            (
                "  system: autotools\n  autoreconf: {when: \"+x\"}\n  configure_args: [--a, {when: \"~x\", args: [--b]}]\n",
                r#"{"system":"autotools","autoreconf":false,"autogen":false,"configure_args":["--a","--b"],"make_args":[]}"#,
            ),
            (
                "  system: autotools\n  out_of_source: true\n  autogen: true\n",
                r#"{"system":"autotools","autoreconf":false,"autogen":true,"configure_args":[],"make_args":[],"out_of_source":true}"#,
            ),
            (
                "  system: cmake\n  cmake_args: [-DA=1]\n",
                r#"{"system":"cmake","cmake_args":["-DA=1"]}"#,
            ),
            (
                "  system: cmake\n  source_subdir: cpp\n",
                r#"{"system":"cmake","cmake_args":[],"source_subdir":"cpp"}"#,
            ),
            ("  system: meson\n", r#"{"system":"meson","meson_args":[]}"#),
            (
                "  system: makefile\n  build_targets: [all]\n",
                r#"{"system":"makefile","make_args":[],"build_targets":["all"],"install_targets":["install"]}"#,
            ),
            ("  system: generic\n", r#"{"system":"generic"}"#),
            (
                "  system: binary\n  relocate: {rpath: [q], needed: [{file: \"lib/*\", add: a.so}, {file: f, add: b.so, when: \"+x\"}], placeholders: {\"@P@\": v}}\n",
                r#"{"system":"binary","rpath":["q"],"needed":[{"file":"lib/*","add":"a.so"}],"placeholders":[["@P@","v"]]}"#,
            ),
        ];
        for (build, want) in cases {
            assert_eq!(hashed(build), want, "{build}");
        }
    }

    /// A `spack` build section hashes its package files (path below
    /// `spack/` and sha256, not where the repository is) and the layer's
    /// version: a changed package.py or a new layer is a new node.
    #[test]
    fn package_files_and_the_layers_version_are_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("recipes");
        let file = dir.path().join("spack/ns/p/package.py");
        fs_err::create_dir_all(file.parent().unwrap()).unwrap();
        fs_err::create_dir_all(&repo).unwrap();
        fs_err::write(&file, "class P: pass\n").unwrap();
        let sha = hex::encode(Sha256::digest(b"class P: pass\n"));
        let recipe = repo.join("p.yaml");
        fs_err::write(
            &recipe,
            format!(
                "name: p\ndescription: d\nversions: [{{version: \"1\", url: \"https://e.org/p.tgz\", sha256: {}}}]\n\
                 build:\n  system: spack\n  package: {{file: ns/p/package.py, sha256: {sha}}}\n",
                "0".repeat(64)
            ),
        )
        .unwrap();
        let mut d = Diagnostics::new();
        let r = crate::recipes::parse_package(&SourceFile::read(&recipe).unwrap(), &repo, &mut d)
            .unwrap_or_else(|| panic!("{d}"));
        assert!(d.is_empty(), "{d}");
        let spec: Spec = "p".parse().unwrap();
        let got = system_json(&r.build.system, &spec).to_string();
        assert_eq!(
            got,
            format!(
                r#"{{"system":"spack","package":{{"file":"ns/p/package.py","sha256":"{sha}"}},"imports":[],"build_logic":"{}"}}"#,
                crate::build_logic::API_VERSION
            )
        );
    }
}
