//! The environment hooks of `system: spack` packages: a dependency's
//! `setup_dependent_build_environment` and `setup_dependent_package` change
//! its dependent's build; its `setup_run_environment` reaches the
//! dependent's build (as the dependency's run environment), the view, the
//! module and `meta/env.json`. Fixtures: tests/fixtures/spack-py.

use crate::harness::spack_project::{Project, run};

fn project() -> Project {
    let p = Project::new();
    p.spack_recipe(
        "envprovider",
        "envprovider",
        &format!("versions:\n{}", p.version("envprovider-1.0", "1.0")),
        &[],
    );
    p.spack_recipe(
        "envconsumer",
        "envconsumer",
        &format!(
            "versions:\n{}dependencies:\n  - {{spec: cmake, type: build}}\n  - {{spec: envprovider, type: [build, link]}}\n",
            p.version("envconsumer-1.0", "1.0")
        ),
        &[],
    );
    // A YAML recipe's build sees the provider's recorded run environment
    // (stack's dep_env; the layer plays no part in this build).
    p.write(
        "recipes/envreader.yaml",
        &format!(
            "name: envreader\ndescription: reads a dependency's run environment\nversions:\n{}\
             dependencies:\n  - {{spec: envprovider, type: build}}\n\
             build:\n  system: generic\n  install: [{{mkdir: share}}]\n  steps:\n    post_install:\n      \
             - [sh, -c, 'echo \"$ENVPROVIDER_HOME $ENVPROVIDER_DATA\" > \"$STACK_PREFIX/share/seen\"']\n",
            p.version("envprovider-1.0", "1.0")
        ),
    );
    p.write_stack(
        &[("e", &["envconsumer", "envprovider", "envreader"])],
        "    views:\n      default: {link: roots}\nmodules: {flavour: tcl}\n",
    );
    p
}

#[test]
fn dependency_hooks_change_the_dependents_build_and_reach_views_and_modules() {
    let p = project();
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let provider = p.prefix("envprovider");
    let mounted = std::path::Path::new("/user-environment")
        .join(provider.strip_prefix(p.path().join("build/store")).unwrap());
    // setup_dependent_build_environment (ENVPROVIDER_WORD, ENVPROVIDER_PATH),
    // setup_dependent_package (the config tool's path) and the provider's run
    // environment (ENVPROVIDER_HOME) all reached the consumer's build.
    let out = run(&p.prefix("envconsumer").join("bin/envconsumer"), &[]);
    assert_eq!(
        out,
        format!(
            "from-the-provider 17 configured home={}\n",
            mounted.display()
        )
    );
    let seen = fs_err::read_to_string(p.prefix("envreader").join("share/seen")).unwrap();
    assert_eq!(
        seen,
        format!("{0} {0}/share\n", mounted.display()),
        "the YAML dependent's build"
    );
    // The run environment is kept in the prefix…
    let recorded = fs_err::read_to_string(provider.join(".stack/run-env.json")).unwrap();
    assert!(recorded.contains("ENVPROVIDER_HOME"), "{recorded}");
    // …and applied by views, modules and env.json like a recipe's env:.
    let store = p.path().join("build/store");
    let env_json = fs_err::read_to_string(store.join("meta/env.json")).unwrap();
    assert!(env_json.contains("ENVPROVIDER_HOME"), "{env_json}");
    assert!(
        env_json.contains(&format!("{}/share", mounted.display())),
        "{env_json}"
    );
    let activate = fs_err::read_to_string(store.join("env/default/activate.sh")).unwrap();
    assert!(
        activate.contains(&format!("ENVPROVIDER_HOME={}", mounted.display()))
            || activate.contains(&format!("ENVPROVIDER_HOME=\"{}\"", mounted.display()))
            || activate.contains(&format!("ENVPROVIDER_HOME='{}'", mounted.display())),
        "{activate}"
    );
    let module = walkdir::WalkDir::new(store.join("modules"))
        .into_iter()
        .flatten()
        .find(|e| e.path().to_string_lossy().contains("envprovider") && e.file_type().is_file())
        .map(|e| fs_err::read_to_string(e.path()).unwrap())
        .expect("a module for envprovider");
    assert!(module.contains("ENVPROVIDER_HOME"), "{module}");
    assert!(
        module.contains(&format!("{}/bin", mounted.display())),
        "{module}"
    );
}
