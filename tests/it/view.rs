//! Views, modules and meta generated from a small installed store (see
//! tests/it/harness/view.rs). Runtime use of the generated files (activate.sh,
//! Lmod) on a mounted image is tested in tests/it/image.rs.

use std::path::{Path, PathBuf};

use crate::harness::view::{install, meta, modules, views};
use serde_json::Value;
use stack::view::{
    self, ConflictPolicy, EnvJson, EnvOp, ModuleFlavour, StoreContents, ViewSpec, ViewWarning,
};

const MOUNT: &str = "/user-environment";

struct Fixture {
    _dir: tempfile::TempDir,
    store: PathBuf,
    contents: StoreContents,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let contents = install(Path::new(MOUNT), &store, false);
    Fixture {
        _dir: dir,
        store,
        contents,
    }
}

fn generate(f: &Fixture, flavour: Option<ModuleFlavour>) -> view::Generated {
    let m = flavour.map(modules);
    view::generate(
        &f.contents,
        &views(),
        m.as_ref(),
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap()
}

fn read(p: impl AsRef<Path>) -> String {
    fs_err::read_to_string(p.as_ref()).unwrap()
}

fn with_filters(f: impl FnOnce()) {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"stack \d+\.\d+\.\d+", "stack [VERSION]");
    s.bind(f);
}

#[test]
fn generated_files_lmod() {
    let f = fixture();
    generate(&f, Some(ModuleFlavour::Lmod));
    with_filters(|| {
        insta::assert_snapshot!(
            "activate_default",
            read(f.store.join("env/default/activate.sh"))
        );
        insta::assert_snapshot!(
            "activate_develop",
            read(f.store.join("env/develop/activate.sh"))
        );
        insta::assert_snapshot!("env_json", read(f.store.join("meta/env.json")));
        insta::assert_snapshot!(
            "view_env_json_default",
            read(f.store.join("env/default/env.json"))
        );
        insta::assert_snapshot!("lmod_hello", read(f.store.join("modules/hello/2.1.lua")));
        insta::assert_snapshot!(
            "lmod_libgreet",
            read(f.store.join("modules/libgreet/1.0.lua"))
        );
        insta::assert_snapshot!(
            "lmod_modulerc",
            read(f.store.join("modules/libgreet/.modulerc.lua"))
        );
    });
    assert!(!f.store.join("modules/hello/.modulerc.lua").exists());
}

#[test]
fn generated_files_tcl() {
    let f = fixture();
    let g = generate(&f, Some(ModuleFlavour::Tcl));
    with_filters(|| {
        insta::assert_snapshot!("tcl_hello", read(f.store.join("modules/hello/2.1")));
        insta::assert_snapshot!("tcl_libgreet", read(f.store.join("modules/libgreet/1.0")));
        insta::assert_snapshot!(
            "tcl_modulerc",
            read(f.store.join("modules/libgreet/.modulerc"))
        );
    });
    let names: Vec<(&str, bool)> = g
        .modules
        .iter()
        .map(|m| (m.name.as_str(), m.hidden))
        .collect();
    assert_eq!(
        names,
        [
            ("hello/2.1", false),
            ("libgreet/1.0", true),
            ("cmake/3.30.1", true)
        ]
    );
}

#[test]
fn views_are_symlink_trees_to_final_paths() {
    let f = fixture();
    let g = generate(&f, None);
    let hello = format!("{MOUNT}/x86_64/hello-2.1-2b4d6f8a");
    let greet = format!("{MOUNT}/x86_64/libgreet-1.0-7d1f3c5e");
    let default = f.store.join("env/default");
    let link = |p: &Path| fs_err::read_link(p).unwrap();

    assert_eq!(
        link(&default.join("bin/hello")),
        Path::new(&hello).join("bin/hello")
    );
    assert!(
        fs_err::symlink_metadata(default.join("bin"))
            .unwrap()
            .is_dir()
    );
    assert!(!default.join("include").exists(), "roots only: no libgreet");
    assert!(
        !default.join(".stack").exists(),
        "prefix metadata is not linked"
    );

    let all = f.store.join("env/tools-all");
    assert_eq!(
        link(&all.join("bin/cmake")),
        Path::new(MOUNT).join("x86_64/cmake-3.30.1-9e8d7c6b/bin/cmake")
    );
    // lib64 -> lib at the top of libgreet is merged as a directory
    assert!(
        fs_err::symlink_metadata(all.join("lib64"))
            .unwrap()
            .is_dir()
    );
    assert_eq!(
        link(&all.join("lib64/libgreet.so")),
        Path::new(&greet).join("lib64/libgreet.so")
    );
    // a package's own symlink is linked, not followed
    assert_eq!(
        link(&all.join("lib/libgreet.so")),
        Path::new(&greet).join("lib/libgreet.so")
    );
    // the view's own files are generated, not linked
    assert!(
        fs_err::symlink_metadata(all.join("activate.sh"))
            .unwrap()
            .is_file()
    );

    let develop = f.store.join("env/develop");
    assert_eq!(
        link(&develop.join("include/greet.h")),
        Path::new(&greet).join("include/greet.h")
    );
    assert!(
        !develop.join("bin/cmake").exists(),
        "link: run skips build-only deps"
    );

    let v: Vec<(&str, &Vec<String>)> = g
        .views
        .iter()
        .map(|v| (v.name.as_str(), &v.packages))
        .collect();
    assert_eq!(
        v,
        [
            ("default", &vec!["hello@2.1".to_string()]),
            (
                "tools-all",
                &vec![
                    "hello@2.1".into(),
                    "libgreet@1.0".into(),
                    "cmake@3.30.1".into()
                ]
            ),
            ("develop", &vec!["hello@2.1".into(), "libgreet@1.0".into()]),
        ]
    );
    assert_eq!(g.views[0].root, Path::new("/user-environment/env/default"));
    assert_eq!(
        g.views[0].activate,
        Path::new("/user-environment/env/default/activate.sh")
    );
}

#[test]
fn conflicts_go_to_the_first_root_and_are_reported() {
    let f = fixture();
    let g = generate(&f, None);
    let conflicts: Vec<String> = g
        .warnings
        .iter()
        .filter(|w| matches!(w, ViewWarning::Conflict { view, .. } if view == "tools-all"))
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        conflicts,
        [
            "view `tools-all`: `share/doc/README` is provided by hello@2.1 and libgreet@1.0; kept hello@2.1",
            "view `tools-all`: `share/licenses/LICENSE` is provided by hello@2.1 and libgreet@1.0; kept hello@2.1 (same contents)",
        ]
    );
    let readme = fs_err::read_link(f.store.join("env/tools-all/share/doc/README")).unwrap();
    assert!(readme.starts_with("/user-environment/x86_64/hello-2.1-2b4d6f8a"));

    // under the error policy, only differing contents fail
    let mut v = views();
    v[1].conflicts = ConflictPolicy::Error;
    let err = view::generate(
        &f.contents,
        &v,
        None,
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "view `tools-all`: hello@2.1 and libgreet@1.0 both provide `share/doc/README` with different contents\n\
         hint: exclude one of them from the view (`exclude: [...]`), or let the first one win (the default conflict policy)"
    );
    v[1].exclude = vec!["libgreet".into()];
    view::generate(
        &f.contents,
        &v,
        None,
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
}

fn object<'a>(v: &'a Value, what: &str) -> &'a serde_json::Map<String, Value> {
    v.as_object()
        .unwrap_or_else(|| panic!("{what} must be an object: {v}"))
}

fn keys(m: &serde_json::Map<String, Value>) -> Vec<&str> {
    let mut k: Vec<&str> = m.keys().map(String::as_str).collect();
    k.sort();
    k
}

/// Check env.json against the uenv schema (reference §2.2) field by field.
fn check_schema(json: &Value) -> Vec<String> {
    let mut ops_seen = Vec::new();
    let top = object(json, "env.json");
    assert_eq!(
        keys(top),
        [
            "default-view",
            "description",
            "modules",
            "mount",
            "name",
            "views"
        ]
    );
    assert!(top["name"].is_string());
    assert!(top["description"].is_string() || top["description"].is_null());
    let mount = top["mount"].as_str().expect("mount is a string");
    assert!(mount.starts_with('/'));
    match &top["modules"] {
        Value::Null => {}
        m => {
            let m = object(m, "modules");
            assert_eq!(keys(m), ["root"]);
            assert_eq!(m["root"], format!("{mount}/modules"));
        }
    }
    let views = object(&top["views"], "views");
    match &top["default-view"] {
        Value::Null => {}
        Value::String(d) => assert!(views.contains_key(d), "default-view {d} names a view"),
        other => panic!("default-view must be a string or null: {other}"),
    }
    for (name, v) in views {
        let v = object(v, name);
        assert_eq!(
            keys(v),
            ["activate", "description", "env", "root", "type"],
            "view {name}"
        );
        for k in ["root", "activate", "description", "type"] {
            assert!(v[k].is_string(), "views.{name}.{k} is a string");
        }
        let env = object(&v["env"], "env");
        assert_eq!(keys(env), ["type", "values", "version"]);
        assert_eq!(env["version"], 1);
        assert!(["spack-view", "augment"].contains(&env["type"].as_str().unwrap()));
        let values = object(&env["values"], "values");
        assert_eq!(keys(values), ["list", "scalar"]);
        for (var, ops) in object(&values["list"], "list") {
            for op in ops.as_array().expect("list ops are an array") {
                let op = object(op, "op");
                assert_eq!(keys(op), ["op", "value"], "{var}");
                let kind = op["op"].as_str().unwrap();
                assert!(
                    ["prepend", "append", "set", "unset"].contains(&kind),
                    "{kind}"
                );
                let value = op["value"].as_array().expect("value is always an array");
                assert!(value.iter().all(Value::is_string), "{var}: {value:?}");
                ops_seen.push(format!("list:{kind}"));
            }
        }
        for (var, s) in object(&values["scalar"], "scalar") {
            match s {
                Value::String(_) => ops_seen.push("scalar:string".into()),
                Value::Null => ops_seen.push("scalar:null".into()),
                other => panic!("scalar {var} must be a string or null: {other}"),
            }
        }
    }
    ops_seen.sort();
    ops_seen.dedup();
    ops_seen
}

#[test]
fn env_json_follows_the_uenv_schema() {
    let f = fixture();
    let mut v = views();
    // exercise every list op form: set and unset on list variables too
    v[0].env_vars
        .push(EnvOp::set("PKG_CONFIG_PATH", "/a:${@HOME@}/b"));
    v[0].env_vars.push(EnvOp::unset("CPATH"));
    view::generate(
        &f.contents,
        &v,
        Some(&modules(ModuleFlavour::Lmod)),
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    let text = read(f.store.join("meta/env.json"));
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        check_schema(&json),
        [
            "list:append",
            "list:prepend",
            "list:set",
            "list:unset",
            "scalar:null",
            "scalar:string"
        ]
    );
    // and it reads back into the typed form (unknown fields are rejected there)
    let typed: EnvJson = serde_json::from_str(&text).unwrap();
    assert_eq!(typed.mount, MOUNT);
    assert_eq!(typed.default_view.as_deref(), Some("default"));
    let names: Vec<&str> = typed.views.keys().collect();
    assert_eq!(names, ["default", "tools-all", "develop", "modules"]);

    let d = &json["views"]["default"]["env"]["values"];
    assert_eq!(
        d["scalar"]["HELLO_CACHE"], "${@HOME@}/.cache/default",
        "load-time variables are kept"
    );
    assert_eq!(
        d["scalar"]["STACK_VIEW_ROOT"],
        "/user-environment/env/default"
    );
    assert_eq!(d["scalar"]["UCX_ERROR_SIGNALS"], "SIGILL,SIGBUS,SIGFPE");
    assert_eq!(d["scalar"]["JULIA_CUDA_MEMORY_POOL"], "none");
    assert_eq!(d["scalar"]["UCX_MEMTYPE_CACHE"], "no");
    assert_eq!(d["scalar"]["JULIA_MPI_BINARY"], "system");
    // prefix_paths: only the directories that exist in the view
    assert!(
        d["list"].get("LD_LIBRARY_PATH").is_none(),
        "default links no lib/"
    );
    assert_eq!(
        json["views"]["tools-all"]["env"]["values"]["list"]["LD_LIBRARY_PATH"],
        serde_json::json!([{"op": "prepend", "value": ["/user-environment/env/tools-all/lib", "/user-environment/env/tools-all/lib64"]}])
    );
    assert_eq!(
        d["list"]["PYTHONPATH"],
        serde_json::json!([{"op": "unset", "value": []}])
    );
    assert_eq!(
        d["list"]["PKG_CONFIG_PATH"]
            .as_array()
            .unwrap()
            .last()
            .unwrap(),
        &serde_json::json!({"op": "set", "value": ["/a", "${@HOME@}/b"]})
    );
    let m = &json["views"]["modules"];
    assert_eq!(m["root"], "/user-environment/modules");
    assert_eq!(m["activate"], "/dev/null");
    assert_eq!(m["env"]["type"], "augment");

    // the per-view copy holds only version and values
    let per_view: Value =
        serde_json::from_str(&read(f.store.join("env/default/env.json"))).unwrap();
    assert_eq!(keys(object(&per_view, "view env")), ["values", "version"]);
    assert_eq!(
        per_view["values"],
        json["views"]["default"]["env"]["values"]
    );

    // without modules: "modules" is null and there is no pseudo-view
    view::generate(
        &f.contents,
        &views(),
        None,
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    let json: Value = serde_json::from_str(&read(f.store.join("meta/env.json"))).unwrap();
    check_schema(&json);
    assert!(json["modules"].is_null());
    assert!(json["views"].get("modules").is_none());
    assert!(
        !f.store.join("modules").exists(),
        "a previous run's modules are removed"
    );
}

#[test]
fn meta_holds_recipe_lock_provenance_and_extra() {
    let f = fixture();
    let report = f._dir.path().join("audit.json");
    fs_err::write(&report, "{\"leaks\": []}\n").unwrap();
    let mut m = meta(Path::new(MOUNT));
    m.audit_report = Some(report);
    view::generate(&f.contents, &views(), None, &m, &f.store.join("meta")).unwrap();
    let meta_dir = f.store.join("meta");
    let fixtures = crate::harness::view::fixtures().join("recipe");
    assert_eq!(
        read(meta_dir.join("recipe/stack.yaml")),
        read(fixtures.join("stack.yaml"))
    );
    assert_eq!(
        read(meta_dir.join("recipe/scripts/post-install.sh")),
        read(fixtures.join("scripts/post-install.sh"))
    );
    assert_eq!(
        read(meta_dir.join("stack.lock")),
        read(fixtures.join("stack.lock"))
    );
    assert_eq!(
        read(meta_dir.join("extra/reframe.yaml")),
        read(fixtures.join("extra/reframe.yaml"))
    );
    assert_eq!(read(meta_dir.join("audit/audit.json")), "{\"leaks\": []}\n");
    let prov: Value = serde_json::from_str(&read(meta_dir.join("provenance.json"))).unwrap();
    assert_eq!(prov["cluster"], "local");
    assert_eq!(prov["host"]["node"], "builder");
    assert_eq!(
        prov["args"],
        serde_json::json!(["stack", "build", "stack.yaml"])
    );
    assert_eq!(prov["mount"], MOUNT);

    // a second run replaces what it owns and keeps the rest
    fs_err::write(meta_dir.join("notes.txt"), "kept").unwrap();
    m.audit_report = None;
    view::generate(&f.contents, &views(), None, &m, &meta_dir).unwrap();
    assert!(!meta_dir.join("audit").exists());
    assert_eq!(read(meta_dir.join("notes.txt")), "kept");
}

#[test]
fn regenerating_replaces_views() {
    let f = fixture();
    generate(&f, Some(ModuleFlavour::Lmod));
    let first = read(f.store.join("meta/env.json"));
    generate(&f, Some(ModuleFlavour::Lmod));
    assert_eq!(read(f.store.join("meta/env.json")), first);
    let only_default: Vec<ViewSpec> = views().into_iter().take(1).collect();
    view::generate(
        &f.contents,
        &only_default,
        None,
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    assert!(
        f.store
            .join("env/default/bin/hello")
            .symlink_metadata()
            .is_ok()
    );
    assert!(
        !f.store.join("env/tools-all").exists(),
        "a view dropped from the recipe is removed"
    );
}

#[test]
fn custom_module_template() {
    let f = fixture();
    let tpl = f._dir.path().join("custom.lua");
    fs_err::write(
        &tpl,
        "-- {{ module }} [{{ depends_on | join(sep=\",\") }}] hidden={{ hidden }}\n",
    )
    .unwrap();
    let mut m = modules(ModuleFlavour::Lmod);
    m.template = Some(tpl);
    view::generate(
        &f.contents,
        &views(),
        Some(&m),
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    assert_eq!(
        read(f.store.join("modules/hello/2.1.lua")),
        "-- hello/2.1 [libgreet/1.0] hidden=false\n"
    );
    assert_eq!(
        read(f.store.join("modules/cmake/3.30.1.lua")),
        "-- cmake/3.30.1 [] hidden=true\n"
    );
}

#[test]
fn post_install_hook_renders_and_runs() {
    let f = fixture();
    generate(&f, None);
    let ctx = view::HookContext {
        kind: view::HookKind::PostInstall,
        name: "view-demo".into(),
        mount: MOUNT.into(),
        build_dir: f._dir.path().to_path_buf(),
        store_dir: f.store.clone(),
        work_dir: f._dir.path().join("hooks"),
        namespace: None,
    };
    let script = crate::harness::view::fixtures().join("recipe/scripts/post-install.sh");
    let run = view::run_hook(&script, &ctx, &[]).unwrap();
    assert_eq!(
        read(f.store.join("meta/extra/post-install.txt")),
        "post-install for view-demo mounted at /user-environment\n"
    );
    assert!(read(run.rendered).contains(&format!(
        "\"{}/meta/extra/post-install.txt\"",
        f.store.display()
    )));
}

#[test]
fn every_view_has_a_module_with_its_environment() {
    for flavour in [ModuleFlavour::Lmod, ModuleFlavour::Tcl] {
        let f = fixture();
        let g = generate(&f, Some(flavour));
        let names: Vec<&str> = g.view_modules.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["views/default", "views/tools-all", "views/develop"]);
        let file = match flavour {
            ModuleFlavour::Lmod => "modules/views/default.lua",
            ModuleFlavour::Tcl => "modules/views/default",
        };
        let text = read(f.store.join(file));
        for var in [
            "UCX_MEMTYPE_CACHE",
            "JULIA_MPI_BINARY",
            "STACK_VIEW_ROOT",
            "HELLO_DEBUG",
        ] {
            assert!(text.contains(var), "{var} missing from {file}:\n{text}");
        }
    }
    // Loaded with the real Lmod, the module sets what activate.sh sets.
    let f = fixture();
    generate(&f, Some(ModuleFlavour::Lmod));
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source /usr/share/lmod/lmod/init/bash && module use {}/modules && module load views/default \
             && echo \"$UCX_MEMTYPE_CACHE|$UCX_ERROR_SIGNALS|$STACK_VIEW_ROOT\"",
            f.store.display()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("no|SIGILL,SIGBUS,SIGFPE|{MOUNT}/env/default")
    );
}

/// The recipe's module settings stackinator's modules.yaml translates to:
/// prefix inspections (LD_LIBRARY_PATH from lib/lib64 where they exist),
/// `autoload: none` (no dependency loads), `exclude`/`include` (by hash,
/// resolved from specs by the caller) and a package's own environment.
#[test]
fn module_inspections_autoload_exclude_include_and_environment() {
    let f = fixture();
    let mut m = modules(ModuleFlavour::Tcl);
    m.prefix_inspections = vec![
        ("lib".into(), vec!["LD_LIBRARY_PATH".into()]),
        ("lib64".into(), vec!["LD_LIBRARY_PATH".into()]),
    ];
    m.autoload = false;
    m.exclude = [crate::harness::view::HASH_CMAKE.to_string()].into();
    m.env.insert(
        crate::harness::view::HASH_HELLO.to_string(),
        vec![EnvOp::set("HELLO_TUNING", "1")],
    );
    view::generate(
        &f.contents,
        &views(),
        Some(&m),
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    let greet = read(f.store.join("modules/libgreet/1.0"));
    // lib64 is a link to lib: one entry.
    assert_eq!(
        greet.matches("prepend-path LD_LIBRARY_PATH").count(),
        1,
        "{greet}"
    );
    assert!(greet.contains("/libgreet-1.0-7d1f3c5e/lib\""), "{greet}");
    let hello = read(f.store.join("modules/hello/2.1"));
    assert!(!hello.contains("module load"), "autoload none: {hello}");
    assert!(hello.contains("setenv HELLO_TUNING \"1\""), "{hello}");
    assert!(!f.store.join("modules/cmake").exists(), "excluded");
    // `include` wins over `exclude`, and shows a hidden module.
    m.include = [crate::harness::view::HASH_CMAKE.to_string()].into();
    view::generate(
        &f.contents,
        &views(),
        Some(&m),
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    assert!(f.store.join("modules/cmake/3.30.1").is_file());
    let rc = fs_err::read_to_string(f.store.join("modules/cmake/.modulerc")).unwrap_or_default();
    assert!(!rc.contains("3.30.1"), "{rc}");
    // Without `include` the implicit cmake is hidden (the control).
    m.include.clear();
    m.exclude.clear();
    view::generate(
        &f.contents,
        &views(),
        Some(&m),
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    let rc = fs_err::read_to_string(f.store.join("modules/cmake/.modulerc")).unwrap();
    assert!(rc.contains("3.30.1"), "{rc}");
    // `exclude_implicits`: packages no environment has as a root get no
    // module (hello, a root, keeps its own and loads none of theirs);
    // `include` still brings one back.
    m.exclude_implicits = true;
    m.autoload = true;
    m.include = [crate::harness::view::HASH_CMAKE.to_string()].into();
    view::generate(
        &f.contents,
        &views(),
        Some(&m),
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap();
    assert!(f.store.join("modules/hello/2.1").is_file());
    assert!(!f.store.join("modules/libgreet").exists(), "implicit");
    assert!(f.store.join("modules/cmake/3.30.1").is_file(), "included");
    let hello = read(f.store.join("modules/hello/2.1"));
    assert!(!hello.contains("libgreet/1.0"), "{hello}");
}
