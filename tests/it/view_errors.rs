//! Bad view/module input: every error says what is wrong, where, and what to
//! do; non-fatal problems come back as warnings.

use std::path::{Path, PathBuf};

use crate::harness::view::{install, meta, modules, views};
use stack::view::{self, EnvOp, ModuleFlavour, ModulesSpec, StoreContents, ViewError, ViewSpec};

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

#[test]
fn warnings_for_empty_views_and_unknown_excludes() {
    let f = fixture();
    let v = vec![ViewSpec {
        env_name: "nothing".into(),
        name: "empty".into(),
        exclude: vec!["nope".into()],
        ..ViewSpec::default()
    }];
    let mut m = meta(Path::new(MOUNT));
    m.default_view = None;
    let g = view::generate(&f.contents, &v, None, &m, &f.store.join("meta")).unwrap();
    let w: Vec<String> = g.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        [
            "view `empty`: exclude names `nope`, which is not in the environment",
            "view `empty` links no package",
        ]
    );
    assert!(f.store.join("env/empty/activate.sh").is_file());
}

fn generate_err(
    f: &Fixture,
    views: &[ViewSpec],
    modules: Option<&ModulesSpec>,
    contents: Option<&StoreContents>,
) -> String {
    let err: ViewError = view::generate(
        contents.unwrap_or(&f.contents),
        views,
        modules,
        &meta(Path::new(MOUNT)),
        &f.store.join("meta"),
    )
    .unwrap_err();
    err.to_string()
}

#[test]
fn bad_input_is_explained() {
    let f = fixture();

    let mut v = views();
    v[2].name = "default".into();
    assert_eq!(
        generate_err(&f, &v, None, None),
        "the view `default` is defined by the environments `tools` and `dev`\n\
         hint: view names are global (they become <mount>/env/<view>); rename one of them"
    );

    let v: Vec<ViewSpec> = views().into_iter().skip(1).collect();
    assert_eq!(
        generate_err(&f, &v, None, None),
        "default view `default` does not exist\nhint: the views are: tools-all, develop"
    );

    let mut v = views();
    v[0].env_vars
        .push(EnvOp::prepend_path("PATH", "$@view_root@/bin"));
    assert_eq!(
        generate_err(&f, &v, None, None),
        "view `default`, env_vars: bad value for PATH: unknown placeholder `$@view_root@` in `$@view_root@/bin`\n\
         hint: known placeholders: $@mount@, $@view_name@, $@view_path@ (replaced now) and ${@VAR@} (expanded when the environment is loaded)"
    );

    let mut v = views();
    v[0].name = "my view".into();
    assert!(generate_err(&f, &v, None, None).starts_with("invalid view name `my view`"));

    let mut v = views();
    v[0].name = "modules".into();
    let e = generate_err(&f, &v, Some(&modules(ModuleFlavour::Lmod)), None);
    assert!(e.contains("`modules` is the pseudo-view"), "{e}");

    let mut m = modules(ModuleFlavour::Lmod);
    m.projections.insert("all".into(), "tools".into());
    assert_eq!(
        generate_err(&f, &views(), Some(&m), None),
        "modules: hello@2.1 and libgreet@1.0 both project to the module `tools`\n\
         hint: make the projection unique, e.g. `{name}/{version}-{hash:7}`"
    );

    let mut c = f.contents.clone();
    c.packages[0].prefix = "/opt/hello".into();
    assert!(generate_err(&f, &views(), None, Some(&c)).starts_with(
        "package hello@2.1: prefix /opt/hello is not under the mount point /user-environment"
    ));
    let mut c = f.contents.clone();
    c.packages[0].prefix = "/user-environment/env/hello".into();
    assert_eq!(
        generate_err(&f, &views(), None, Some(&c)),
        "package hello@2.1: prefix /user-environment/env/hello lies in `env/`, which views, modules and meta own"
    );
    let mut c = f.contents.clone();
    c.packages[0].prefix = "/user-environment/x86_64/gone".into();
    assert!(
        generate_err(&f, &views(), None, Some(&c))
            .ends_with("/x86_64/gone does not exist in the store")
    );

    let mut c = f.contents.clone();
    c.packages[1]
        .env
        .push(EnvOp::prepend_path("PATH", "$@view_path@/bin"));
    assert_eq!(
        generate_err(&f, &views(), Some(&modules(ModuleFlavour::Lmod)), Some(&c)),
        "package libgreet@1.0 (module libgreet/1.0): bad value for PATH: `$@view_path@` in `$@view_path@/bin` is only defined inside a view\n\
         hint: module files belong to no view; use $@mount@ or the package prefix"
    );
}
