//! The run environment (`env:`) of a dependency reaches the dependent's
//! build (so does that of the dependency's run dependencies), before the
//! dependent's own `build_env:` (Spack's dependents' build
//! environment; what puts py-pip's site-packages on PYTHONPATH when a
//! python extension runs `python -m pip`). An external's `env:` does not.
//! Fixture: tests/fixtures/build/depenv (its README).

use std::path::{Path, PathBuf};
use std::process::Command;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    fs_err::create_dir_all(p.parent().unwrap()).unwrap();
    fs_err::write(p, text).unwrap();
}

/// Pack `tests/fixtures/build/depenv/<dir>` as `<t>/src/<dir>.tar.gz`;
/// returns its path and sha256.
fn archive(t: &Path, dir: &str) -> (PathBuf, String) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/build/depenv");
    fs_err::create_dir_all(t.join("src")).unwrap();
    let name = format!("{dir}.tar.gz");
    let st = Command::new("tar")
        .arg("czf")
        .arg(t.join("src").join(&name))
        .arg(dir)
        .current_dir(&fixture)
        .status()
        .unwrap();
    assert!(st.success());
    let path = t.join("src").join(name);
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(fs_err::read(&path).unwrap()));
    (path, sha)
}

fn version(t: &Path, dir: &str) -> String {
    let (path, sha) = archive(t, dir);
    format!(
        "versions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n",
        path.display()
    )
}

/// `envtool` (generic; `env:` sets ENVTOOL_HOME, prepends ENVTOOL_PATH and
/// `libexec/envtool` to PATH; run dependency `envdata`, whose `env:` sets
/// ENVDATA_DIR), `hostenv` (an external in /usr whose `env:`
/// sets HOSTENV_LEAK) and `envuser` (a makefile package depending on both,
/// with a `build_env:` of its own).
fn project(t: &Path) {
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n\
         packages:\n  hostenv: {buildable: false, externals: [{spec: hostenv@1.0, prefix: /usr}]}\n",
    );
    let tool = version(t, "envtool-1.0");
    write(
        t,
        "recipes/envtool.yaml",
        &format!(
            "name: envtool\ndescription: a tool found through its run environment\n{tool}\
             dependencies:\n  - {{spec: envdata, type: run}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: envtool-gen, to: libexec/envtool}}\n    \
             - {{copy: greeting.txt, to: share/envtool}}\n\
             env:\n  - {{set: {{ENVTOOL_HOME: \"{{{{ prefix }}}}\"}}}}\n  \
             - {{prepend_path: {{ENVTOOL_PATH: \"{{{{ prefix }}}}/share/envtool\"}}}}\n  \
             - {{prepend_path: {{PATH: \"{{{{ prefix }}}}/libexec/envtool\"}}}}\n\
             dependent_build_env:\n  - {{set: {{ENVTOOL_POLICY: \"{{{{ version }}}}\"}}, when: \"@1:\"}}\n  \
             - {{set: {{ENVTOOL_NEVER: \"x\"}}, when: \"@:0\"}}\n"
        ),
    );
    write(
        t,
        "recipes/envdata.yaml",
        &format!(
            "name: envdata\ndescription: data envtool needs at run time\n{tool}\
             build:\n  system: generic\n  install:\n    - {{copy: greeting.txt, to: share/envdata}}\n\
             env:\n  - {{set: {{ENVDATA_DIR: \"{{{{ prefix }}}}/share/envdata\"}}}}\n"
        ),
    );
    write(
        t,
        "recipes/hostenv.yaml",
        &format!(
            "name: hostenv\ndescription: an external whose env stays out of builds\n{tool}\
             build:\n  system: generic\nenv:\n  - {{set: {{HOSTENV_LEAK: \"yes\"}}}}\n"
        ),
    );
    let user = version(t, "envuser-1.0");
    write(
        t,
        "recipes/envuser.yaml",
        &format!(
            "name: envuser\ndescription: builds only with envtool's run environment\n{user}\
             dependencies:\n  - {{spec: envtool, type: build}}\n  - {{spec: hostenv, type: link}}\n\
             build:\n  system: makefile\n  make_args: [\"PREFIX={{{{ prefix }}}}\"]\n  \
             build_env:\n    - {{prepend_path: {{ENVTOOL_PATH: \"{{{{ prefix }}}}/own\"}}}}\n"
        ),
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [envuser]\n",
    );
}

/// The installed prefix of `name` below `<t>/build/store` and as builds see
/// it (below the mount point).
fn prefix(t: &Path, name: &str) -> (PathBuf, PathBuf) {
    let store = t.join("build/store");
    let host = walkdir::WalkDir::new(&store)
        .max_depth(2)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .find(|p| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{name}-1.0-")))
        })
        .unwrap_or_else(|| panic!("{name} is installed"));
    let mounted = Path::new("/user-environment").join(host.strip_prefix(&store).unwrap());
    (host, mounted)
}

#[test]
fn a_dependency_env_reaches_the_dependent_build_before_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(t);
    let (code, text) = crate::harness::tiny_build::build(t, &[]);
    assert_eq!(code, 0, "{text}");

    let (user_host, user) = prefix(t, "envuser");
    let (_, tool) = prefix(t, "envtool");
    // envtool-gen ran (found through envtool's PATH entry, reading
    // ENVTOOL_HOME): its header is compiled into the program.
    let run = Command::new(user_host.join("bin/hello")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "hello from envtool\n");
    // The dependency's prepend came first, the package's own last.
    let seen = fs_err::read_to_string(user_host.join("share/envuser/envtool-path")).unwrap();
    assert_eq!(
        seen.trim_end(),
        format!("{}/own:{}/share/envtool", user.display(), tool.display())
    );
}

/// `dependent_build_env:` (Spack's `setup_dependent_build_environment`)
/// reaches the builds of the dependents, with the dependency's own template
/// context and its conditions, and nothing else: not the views' environment.
#[test]
fn a_dependent_build_env_reaches_only_the_builds_of_dependents() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(t);
    // envtool a root too, in a view: its `env:` is in the view's environment.
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    \
         specs: [envuser, envtool]\n    views:\n      default: {link: roots}\n",
    );
    let (code, text) = crate::harness::tiny_build::build(t, &[]);
    assert_eq!(code, 0, "{text}");
    let (user_host, _) = prefix(t, "envuser");
    let seen = fs_err::read_to_string(user_host.join("share/envuser/envtool-policy")).unwrap();
    assert_eq!(
        seen, "1.0\n",
        "envtool's version, rendered in envtool's context"
    );
    let env = fs_err::read_to_string(t.join("build/store/meta/env.json")).unwrap();
    assert!(
        env.contains("ENVTOOL_HOME"),
        "the run env is in the views: {env}"
    );
    assert!(!env.contains("ENVTOOL_POLICY"), "not for users: {env}");
    assert!(!text.contains("ENVTOOL_NEVER"));
}

/// The prefixes of every node called `name` below `<t>/build/store`, by
/// version (`envtool-2.0-<hash>` → `2.0`).
fn prefixes(t: &Path, name: &str) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = walkdir::WalkDir::new(t.join("build/store"))
        .max_depth(2)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let rest = file.strip_prefix(&format!("{name}-"))?;
            let (version, _) = rest.rsplit_once('-')?;
            Some((version.to_string(), e.into_path()))
        })
        .collect();
    out.sort();
    out
}

/// A build tool (`build_tool: true`) that two packages need at different
/// versions, only to build, is built twice: each dependent's build sees
/// its own (docs/resolve.md, "Build tools built twice").
#[test]
fn a_build_tool_two_dependents_need_at_different_versions_is_built_for_each() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(t);
    let tool = version(t, "envtool-1.0");
    let both = tool.replace(
        "versions:\n",
        &format!(
            "versions:\n{}",
            tool.trim_start_matches("versions:\n")
                .replace("version: \"1.0\"", "version: \"2.0\"")
        ),
    );
    let recipe = fs_err::read_to_string(t.join("recipes/envtool.yaml")).unwrap();
    let recipe = recipe
        .replace(&tool, &both)
        .replace("dependencies:", "build_tool: true\ndependencies:");
    write(t, "recipes/envtool.yaml", &recipe);
    let user = fs_err::read_to_string(t.join("recipes/envuser.yaml")).unwrap();
    write(
        t,
        "recipes/envuser.yaml",
        &user.replace(
            "{spec: envtool, type: build}",
            "{spec: \"envtool@1.0\", type: build}",
        ),
    );
    write(
        t,
        "recipes/envuser2.yaml",
        &user.replace("name: envuser\n", "name: envuser2\n").replace(
            "{spec: envtool, type: build}",
            "{spec: \"envtool@2.0\", type: build}",
        ),
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [envuser, envuser2]\n",
    );
    let (code, text) = crate::harness::tiny_build::build(t, &[]);
    assert_eq!(code, 0, "{text}");
    let tools = prefixes(t, "envtool");
    let versions: Vec<&str> = tools.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(versions, ["1.0", "2.0"], "{tools:?}");
    let store = t.join("build/store");
    for (user, want) in [("envuser", "1.0"), ("envuser2", "2.0")] {
        let (_, host) = &prefixes(t, user)[0];
        let seen = fs_err::read_to_string(host.join("share/envuser/envtool-path")).unwrap();
        let (_, tool) = tools.iter().find(|(v, _)| v == want).unwrap();
        let mounted = Path::new("/user-environment").join(tool.strip_prefix(&store).unwrap());
        assert!(
            seen.contains(&format!("{}/share/envtool", mounted.display())),
            "{user} built with envtool {want}: {seen}"
        );
    }
}
