//! Stackinator recipe and cluster directories as `stack` inputs: the
//! fixtures in tests/fixtures/stackinator (written for these tests) checked,
//! resolved, converted and built with the real tools, offline.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::harness::{Stack, root};

/// The fixtures copied into `tmp` (symlinks kept), `@DIST@` replaced by the
/// demo source tarballs' directory.
fn fixtures(tmp: &Path) -> PathBuf {
    let dest = tmp.join("fx");
    let st = Command::new("cp")
        .arg("-a")
        .arg(root().join("tests/fixtures/stackinator"))
        .arg(&dest)
        .status()
        .unwrap();
    assert!(st.success());
    let dist = root().join("tests/fixtures/demo/dist");
    let mut stack = vec![dest.clone()];
    while let Some(d) = stack.pop() {
        for e in fs_err::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_symlink() {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "package.py") {
                let text = fs_err::read_to_string(&p).unwrap();
                fs_err::write(&p, text.replace("@DIST@", &dist.display().to_string())).unwrap();
            }
        }
    }
    dest
}

/// `stack CMD <fixture RECIPE> --cluster <fixture cluster/local> EXTRA…`, the
/// fixtures under `fx`.
fn on_fixture(tmp: &Path, fx: &Path, cmd: &str, recipe: &str, extra: &[&str]) -> Output {
    let (recipe, cluster) = (fx.join(recipe), fx.join("cluster/local"));
    let mut args = vec![cmd, recipe.to_str().unwrap(), "--cluster"];
    args.push(cluster.to_str().unwrap());
    args.extend_from_slice(extra);
    Stack::new()
        .current_dir(tmp)
        .cache(tmp.join("cache"))
        .args(&args)
        .output()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn portable(s: &str, tmp: &Path) -> String {
    let s = s.replace(&tmp.display().to_string(), "[TMP]");
    // Cache keys are content hashes of the repositories (paths included).
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("repos/") {
        out.push_str(&rest[..i + 6]);
        rest = &rest[i + 6..];
        let key = rest.get(..17).unwrap_or("");
        if key.ends_with('/') && key[..16].chars().all(|c| c.is_ascii_hexdigit()) {
            out.push_str("[KEY]/");
            rest = &rest[17..];
        }
    }
    out + rest
}

#[test]
fn the_recipe_repo_wins_over_the_site_repo_and_packages_merge_per_package() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let o = on_fixture(
        tmp.path(),
        &fx,
        "resolve",
        "recipe-v2",
        &["--format", "json"],
    );
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let node = &plan["nodes"][0];
    assert_eq!(node["name"], "greet-demo");
    // recipe repo/ (default Servus) before the site repository (default Hi)
    assert_eq!(node["variants"]["greeting"], "Servus", "{plan}");
    // the recipe's packages.yaml `patchelf` replaced the cluster's entry
    let work = fs_err::read_dir(tmp.path().join("cache/stackinator/work"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let cluster = fs_err::read_to_string(work.join("local/cluster.yaml")).unwrap();
    assert!(
        cluster.contains("patchelf: {prefer: [\"@0.17.2\"]}"),
        "{cluster}"
    );
    assert!(!cluster.contains("@:0.17"), "{cluster}");
    // network.yaml (a symlink to the site file) merged after packages.yaml
    assert!(
        cluster.contains("libcxi: {version: [\"13.0.0\"]}"),
        "{cluster}"
    );
    // The translation is cached: the second run reads the same repositories.
    let again = on_fixture(
        tmp.path(),
        &fx,
        "resolve",
        "recipe-v2",
        &["--format", "json"],
    );
    assert_eq!(text(&again).0, stdout);
    let repos = fs_err::read_dir(tmp.path().join("cache/stackinator/repos"))
        .unwrap()
        .count();
    assert_eq!(repos, 2, "recipe repo/ and the site repo, once each");
    // Each translation carries its index (recipes/index.rs).
    for repo in fs_err::read_dir(tmp.path().join("cache/stackinator/repos")).unwrap() {
        let index = repo.unwrap().path().join("recipes/.stack-index");
        let text = fs_err::read_to_string(&index).unwrap();
        assert!(text.starts_with("stack-repo-index 2\nrecipes "), "{text}");
    }
}

#[test]
fn v1_recipe_shapes_load_with_positioned_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let o = on_fixture(tmp.path(), &fx, "check", "recipe-v1", &[]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("1 environment"), "{stdout}");
    assert!(
        stderr.contains("recipe-v1/environments.yaml:8:10"),
        "unify position: {stderr}"
    );
    assert!(stderr.contains("stack always unifies"), "{stderr}");
    // Spack's `full` duplicates are resolved as `minimal`: only build tools
    // are built twice.
    assert!(
        stderr.contains("recipe-v1/environments.yaml:10:15")
            && stderr.contains("stack builds only build tools twice"),
        "{stderr}"
    );
}

/// `stack stackinator convert` of `recipe` with its compilers.yaml replaced
/// by `compilers`: the translated stack.yaml, and the `stack resolve` of it.
fn convert_with_compilers(recipe: &str, compilers: &str) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    fs_err::write(fx.join(recipe).join("compilers.yaml"), compilers).unwrap();
    let out = tmp.path().join("conv/stack.yaml");
    let o = Stack::new()
        .current_dir(tmp.path())
        .cache(tmp.path().join("cache"))
        .args([
            "stackinator",
            "convert",
            fx.join(recipe).to_str().unwrap(),
            fx.join("cluster/local").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output();
    assert!(o.status.success(), "{}", text(&o).1);
    let yaml = portable(&fs_err::read_to_string(&out).unwrap(), tmp.path());
    let o = Stack::new()
        .current_dir(tmp.path())
        .cache(tmp.path().join("cache"))
        .args(["resolve", out.to_str().unwrap(), "--cluster", "conv/local"])
        .output();
    let (plan, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    (yaml, portable(&plan, tmp.path()))
}

#[test]
fn compilers_yaml_v2_gcc_version_becomes_the_stacks_gcc() {
    let (yaml, plan) = convert_with_compilers("recipe-v2", "gcc:\n  version: \"14\"\n");
    assert!(yaml.contains("compilers: [\"gcc@14\"]"), "{yaml}");
    assert!(
        plan.contains("compiler gcc@14.3.0 (built by the stack"),
        "{plan}"
    );
    insta::assert_snapshot!("compilers_v2_stack_yaml", yaml);
    insta::assert_snapshot!("compilers_v2_plan", plan);
}

#[test]
fn compilers_yaml_v1_gcc_specs_become_the_stacks_gcc() {
    let (yaml, plan) = convert_with_compilers(
        "recipe-v1",
        "bootstrap:\n  spec: gcc@12.3\ngcc:\n  specs: [gcc@13]\n",
    );
    assert!(yaml.contains("compilers: [\"gcc@13\"]"), "{yaml}");
    assert!(
        plan.contains("compiler gcc@13.4.0 (built by the stack"),
        "{plan}"
    );
    insta::assert_snapshot!("compilers_v1_stack_yaml", yaml);
    insta::assert_snapshot!("compilers_v1_plan", plan);
}

#[test]
fn bad_stackinator_input_is_exit_2_with_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    // An MPI the cluster's network.yaml does not offer.
    let env = fx.join("recipe-v2/environments.yaml");
    let text0 = fs_err::read_to_string(&env).unwrap();
    fs_err::write(
        &env,
        text0.replace(
            "  unify: true\n",
            "  unify: true\n  network:\n    mpi: mvapich@4\n",
        ),
    )
    .unwrap();
    // A cluster without gcc.
    let pk = fx.join("cluster/local/packages.yaml");
    let p0 = fs_err::read_to_string(&pk).unwrap();
    fs_err::write(&pk, p0.replace("  gcc:\n", "  gcc-old:\n")).unwrap();
    let o = on_fixture(tmp.path(), &fx, "check", "recipe-v2", &[]);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("MPI `mvapich` is not offered by the cluster's network.yaml"),
        "{stderr}"
    );
    assert!(stderr.contains("environments.yaml:5:10"), "{stderr}");
    assert!(
        stderr.contains("the cluster offers: cray-mpich, openmpi"),
        "{stderr}"
    );
    assert!(stderr.contains("has no `gcc` entry"), "{stderr}");
    // Without --cluster: a clear error.
    let o = Stack::new()
        .current_dir(tmp.path())
        .cache(tmp.path().join("cache"))
        .args(["check", fx.join("recipe-v2").to_str().unwrap()])
        .output();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("is a stackinator recipe"),
        "{}",
        text(&o).1
    );
}

/// The whole way: a stackinator recipe with `gcc: {version: system}`,
/// built from the demo fixture sources with the system gcc, into
/// stackinator's layout (`env/<view>`, `modules/`, `meta/{env.json,extra}`,
/// the post-install hook's file), and the program run from the view.
#[test]
fn a_stackinator_recipe_builds_into_the_uenv_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let b = tmp.path().join("build");
    let o = on_fixture(
        tmp.path(),
        &fx,
        "build",
        "recipe-v2",
        &[
            "--build",
            b.to_str().unwrap(),
            "--cache",
            tmp.path().join("cache").to_str().unwrap(),
            "-j",
            "2",
        ],
    );
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("1 built, 0 reused, 0 failed"), "{stderr}");
    assert!(stderr.contains("audit: clean"), "{stderr}");
    let store = b.join("store");
    assert_eq!(
        fs_err::read_to_string(store.join("meta/extra/reframe.yaml")).unwrap(),
        "reframe:\n  features: [greet]\n"
    );
    // the post-install hook, rendered with stackinator's names
    assert_eq!(
        fs_err::read_to_string(store.join("config/views.txt")).unwrap(),
        "default\n"
    );
    // `<mount>/config/packages.yaml` for downstream Spack users: the merged
    // packages, with the system gcc (the recipe uses `gcc: system`).
    let downstream = fs_err::read_to_string(store.join("config/packages.yaml")).unwrap();
    assert!(downstream.starts_with("packages:\n"), "{downstream}");
    assert!(
        downstream.contains("patchelf: {prefer: [\"@0.17.2\"]}"),
        "{downstream}"
    );
    assert!(
        downstream.contains("  gcc:\n    externals: [{spec: \"gcc@12.2.0\", prefix: /usr}]"),
        "{downstream}"
    );
    let env_json = fs_err::read_to_string(store.join("meta/env.json")).unwrap();
    let module = fs_err::read_to_string(store.join("modules/greet-demo/1.0")).unwrap();
    // modules.yaml's prefix_inspections: the module sets LD_LIBRARY_PATH
    // from the prefix's lib/ (issue 36: it was dropped).
    assert!(
        module.contains("prepend-path LD_LIBRARY_PATH \"/user-environment/x86_64/greet-demo-1.0-"),
        "{module}"
    );
    // views' add_compilers (default true) is written out; with the
    // cluster's gcc nothing stack-built is linked.
    let translated = fs_err::read_dir(tmp.path().join("cache/stackinator/work"))
        .unwrap()
        .map(|e| e.unwrap().path().join("stack.yaml"))
        .next()
        .unwrap();
    let translated = fs_err::read_to_string(translated).unwrap();
    assert!(translated.contains("add_compilers: true"), "{translated}");
    insta::with_settings!({filters => vec![
        (r"[0-9a-f]{64}", "[HASH]"),
        (r"-1\.0-[0-9a-f]{8}", "-1.0-[H8]"),
        (r"generated by stack [0-9.]+", "generated by stack [V]"),
    ]}, {
        insta::assert_snapshot!("build_env_json", env_json);
        insta::assert_snapshot!("build_module_tcl", module);
    });
    // The program, from the view, with the store at the mount point.
    let run = Command::new("unshare")
        .args(["-rm", "sh", "-ec"])
        .arg(format!(
            "mount --bind '{}' /user-environment\n/user-environment/env/default/bin/greet",
            store.display()
        ))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // the recipe repo's default greeting (the site repo's would be "Hi")
    assert!(said.starts_with("Servus"), "{said}");
}

/// Repository precedence, one package per layer (tests/fixtures/stackinator/
/// layers: `layer-a` in all four, `layer-b` from the site repository down,
/// `layer-c` in the built-in and spack-packages, `layer-d` only in
/// spack-packages; each recipe file's version names its layer): the
/// recipe's `repo/` (1.0) → the site repositories (2.0) → the built-in
/// repository (3.0) → spack-packages' translations (4.0).
#[test]
fn repositories_are_searched_recipe_site_builtin_then_spack_packages() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path()).join("layers");
    let run = |args: &[&str]| {
        Stack::bare()
            .command()
            .current_dir(tmp.path())
            .env("STACK_CACHE", tmp.path().join("cache"))
            .env("STACK_BUILTIN_REPO", fx.join("builtin"))
            .env("STACK_SPACK_PACKAGES", fx.join("spack-packages"))
            .args(["--color", "never"])
            .args(args)
            .output()
            .unwrap()
    };
    let (recipe, cluster) = (fx.join("recipe"), fx.join("cluster"));
    let (recipe, cluster) = (recipe.to_str().unwrap(), cluster.to_str().unwrap());
    let o = run(&["check", recipe, "--cluster", cluster]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    insta::with_settings!({filters => vec![(r"cache/stackinator/\s*work/\s*[0-9a-f]{16}/", "cache/stackinator/work/[KEY]/"), (r"work/[0-9a-f]{16}/", "work/[KEY]/")]}, {
        insta::assert_snapshot!("layers_check_repositories", portable(&stdout, tmp.path()));
    });
    let o = run(&["resolve", recipe, "--cluster", cluster, "--format", "json"]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut got: Vec<(String, String)> = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let s = |k: &str| n[k].as_str().unwrap().to_string();
            (s("name"), s("version"))
        })
        .collect();
    got.sort();
    let want = [
        ("layer-a", "1.0"),
        ("layer-b", "2.0"),
        ("layer-c", "3.0"),
        ("layer-d", "4.0"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    assert_eq!(got, want, "{plan}");
    // The built-in layer-c wins; spack-packages' translation is hidden.
    let o = run(&["info", "layer-c", "--stack", &work_recipe(tmp.path())]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    // The winning recipe file (paths relative to the current directory).
    assert!(
        stdout.contains("Recipe:        fx/layers/builtin/layer-c.yaml\n"),
        "{stdout}"
    );
    let hidden = stdout
        .lines()
        .find(|l| l.starts_with("Hides:"))
        .unwrap_or("");
    assert!(
        hidden.starts_with("Hides:         cache/stackinator/repos/")
            && hidden.ends_with("/recipes/layer-c.yaml"),
        "spack-packages' translation of layer-c is hidden: {stdout}"
    );
}

/// The translated stack recipe of the (only) stackinator recipe checked
/// with the cache under `tmp`.
fn work_recipe(tmp: &Path) -> String {
    let work = fs_err::read_dir(tmp.join("cache/stackinator/work"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    work.join("stack.yaml").display().to_string()
}

#[test]
fn compilers_yaml_nvhpc_is_built_from_its_recipe_with_the_stacks_gcc() {
    let (yaml, plan) = convert_with_compilers(
        "recipe-v2",
        "gcc:\n  version: \"13\"\nnvhpc:\n  version: \"25.1\"\n",
    );
    assert!(
        yaml.contains("compilers: [\"gcc@13\", \"nvhpc@25.1 %gcc@13\"]"),
        "{yaml}"
    );
    // recipes/nvhpc.yaml, the tarball of the target's architecture
    assert!(plan.contains("nvhpc@25.1-x86_64 /"), "{plan}");
    insta::assert_snapshot!("compilers_nvhpc_stack_yaml", yaml);
    insta::assert_snapshot!("compilers_nvhpc_plan", plan);
}

/// llvm is a package node like nvhpc; no repository here has an llvm
/// recipe (no spack-packages), and the check says so at the entry.
#[test]
fn compilers_yaml_llvm_without_a_recipe_names_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let compilers = "gcc:\n  version: \"13\"\nllvm:\n  version: \"19\"\n";
    fs_err::write(fx.join("recipe-v2/compilers.yaml"), compilers).unwrap();
    let o = on_fixture(tmp.path(), &fx, "check", "recipe-v2", &[]);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let err = stderr
        .split("\n\n")
        .find(|b| b.contains("stack compiler"))
        .unwrap_or_else(|| panic!("{stderr}"));
    insta::with_settings!({filters => vec![(r"cache/stackinator/\s*work/\s*[0-9a-f]{16}/", "cache/stackinator/work/[KEY]/"), (r"work/[0-9a-f]{16}/", "work/[KEY]/")]}, {
        insta::assert_snapshot!("compilers_llvm_missing", portable(err, tmp.path()));
    });
}

/// A conditional dependency of a spack-packages translation on a package
/// no repository has is a warning in `stack check` (it matters only when
/// the condition holds), and an error of `stack resolve` when it does.
#[test]
fn a_translated_recipes_missing_conditional_dependency_warns_until_needed() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path()).join("layers");
    let run = |args: &[&str]| {
        let o = Stack::bare()
            .command()
            .current_dir(tmp.path())
            .env("STACK_CACHE", tmp.path().join("cache"))
            .env("STACK_BUILTIN_REPO", fx.join("builtin"))
            .env("STACK_SPACK_PACKAGES", fx.join("spack-packages"))
            .args(["--color", "never"])
            .args(args)
            .output()
            .unwrap();
        (o.status.code(), text(&o).1)
    };
    let (recipe, cluster) = (fx.join("recipe"), fx.join("cluster"));
    let (recipe, cluster) = (recipe.to_str().unwrap(), cluster.to_str().unwrap());
    let (code, stderr) = run(&["check", recipe, "--cluster", cluster]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("! unknown package `nowhere-pkg` in conditional dependency"),
        "{stderr}"
    );
    assert!(stderr.contains("translated on the fly"), "{stderr}");
    let envs = fx.join("recipe/environments.yaml");
    let text = fs_err::read_to_string(&envs).unwrap();
    fs_err::write(&envs, text.replace("- layer-d", "- layer-d +extra")).unwrap();
    let (code, stderr) = run(&["resolve", recipe, "--cluster", cluster]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("nowhere-pkg"), "{stderr}");
}

/// `config.yaml`'s `spack.packages.commit` is read from the checkout's
/// history: a tag pinning an older commit gives that commit's package
/// (layer-d 4.0, while the working tree has 4.1); a commit the history
/// lacks is a warning at its line, and the working tree is read.
#[test]
fn the_pinned_spack_packages_commit_is_read_from_the_checkouts_history() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path()).join("layers");
    let sp = fx.join("spack-packages");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
            .arg(&sp)
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "4.0"]);
    git(&["tag", "v-old"]);
    let pkg = sp.join("repos/spack_repo/builtin/packages/layer_d/package.py");
    let body = fs_err::read_to_string(&pkg).unwrap();
    fs_err::write(&pkg, body.replace("version(\"4.0\"", "version(\"4.1\"")).unwrap();
    git(&["commit", "-qam", "4.1"]);
    let config = fx.join("recipe/config.yaml");
    let pin = |commit: &str| {
        let body = fs_err::read_to_string(&config).unwrap();
        let body = body
            .lines()
            .map(|l| match l.strip_prefix("    commit: ") {
                Some(_) => format!("    commit: {commit}"),
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        fs_err::write(&config, body + "\n").unwrap();
    };
    let resolve = || {
        let o = Stack::bare()
            .command()
            .current_dir(tmp.path())
            .env("STACK_CACHE", tmp.path().join("cache"))
            .env("STACK_BUILTIN_REPO", fx.join("builtin"))
            .env("STACK_SPACK_PACKAGES", &sp)
            .args(["--color", "never", "resolve"])
            .arg(fx.join("recipe"))
            .arg("--cluster")
            .arg(fx.join("cluster"))
            .args(["--format", "json"])
            .output()
            .unwrap();
        let (stdout, stderr) = text(&o);
        assert!(o.status.success(), "{stderr}");
        let plan: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let d = plan["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == "layer-d")
            .map(|n| n["version"].as_str().unwrap().to_string());
        (d.unwrap(), stderr)
    };
    pin("v-old");
    let (version, stderr) = resolve();
    assert_eq!(version, "4.0", "{stderr}");
    assert!(!stderr.contains("pins spack-packages"), "{stderr}");
    let exported = tmp.path().join("cache/stackinator/spack-packages");
    // The exported tree, and beside it the cached list of shipped recipes
    // that differ at the pin.
    let mut names: Vec<String> = fs_err::read_dir(&exported)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[1].starts_with(&format!("{}.shadowed-", names[0])),
        "{names:?}"
    );
    pin("no-such-branch");
    let (version, stderr) = resolve();
    assert_eq!(version, "4.1", "{stderr}");
    assert!(
        stderr.contains("config.yaml pins spack-packages `no-such-branch`")
            && stderr.contains("config.yaml:7:13"),
        "{stderr}"
    );
}

/// Spack constructs of alps-uenv recipes (`recipe-constructs`): a root
/// spec folded over two YAML lines (vasp gh200) and Spack's exact
/// `key:=value` in a packages.yaml `require` (paraview zen2's `llvm
/// targets:=x86`) resolve; the requirement holds.
#[test]
fn folded_root_specs_and_exact_variant_requirements_resolve() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let o = on_fixture(tmp.path(), &fx, "resolve", "recipe-constructs", &[]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    let cluster = fs_err::read_to_string(
        tmp.path()
            .join(work_recipe(tmp.path()))
            .with_file_name("local/cluster.yaml"),
    )
    .unwrap();
    assert!(cluster.contains("greeting:=Hello"), "{cluster}");
    assert!(stdout.contains("greeting=Hello"), "{stdout}");
    insta::assert_snapshot!("constructs_plan", portable(&stdout, tmp.path()));
}

/// #40 item 1: a package of the recipe's `repo/` whose patch climbs out
/// through a link inside its directory (`s` → a fake home) with `..` —
/// enough of them to leave the cache from where the translation writes.
/// `stack check` reads nothing through the link and writes nothing outside
/// the cache (before: the home's TARGET was copied to `<tmp>/TARGET`).
#[test]
fn checking_a_recipe_never_reads_through_links_or_writes_outside_the_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let home = tmp.path().join("home");
    let deep = home.join("a/b/c/d/e/f/g");
    fs_err::create_dir_all(&deep).unwrap();
    fs_err::write(home.join("TARGET"), "the victim's file\n").unwrap();
    let pkg = fx.join("recipe-v2/repo/packages/evil");
    fs_err::create_dir_all(&pkg).unwrap();
    fs_err::write(
        pkg.join("package.py"),
        format!(
            "from spack.package import *\n\nclass Evil(Package):\n    \"\"\"Evil.\"\"\"\n    \
             url = \"https://example.org/evil-1.0.tgz\"\n    version(\"1.0\", sha256=\"{}\")\n    \
             patch(\"s/{}TARGET\")\n",
            "0".repeat(64),
            "../".repeat(7)
        ),
    )
    .unwrap();
    std::os::unix::fs::symlink(&deep, pkg.join("s")).unwrap();
    let o = on_fixture(tmp.path(), &fx, "check", "recipe-v2", &[]);
    let (_, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(!tmp.path().join("TARGET").exists());
    let mut top: Vec<String> = fs_err::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(top, ["cache", "fx", "home"]);
    let translated = fs_err::read_dir(tmp.path().join("cache/stackinator/repos"))
        .unwrap()
        .map(|e| e.unwrap().path().join("recipes/evil.yaml"))
        .find(|p| p.is_file())
        .expect("evil translated");
    let recipe = fs_err::read_to_string(translated).unwrap();
    assert!(recipe.contains("patch file refused"), "{recipe}");
}

/// The generated files under the cache appear only in the notes that name
/// the line a user's line was translated into (miette wraps those lines).
fn only_in_notes(stderr: &str) {
    let flat: String = stderr.chars().filter(|c| !c.is_whitespace()).collect();
    let notes = flat
        .matches("stack'stranslationofthisline:cache/stackinator/work/")
        .count();
    assert!(notes > 0, "{stderr}");
    assert_eq!(flat.matches("stackinator/work/").count(), notes, "{stderr}");
}

/// Diagnostics about a translated recipe point at the user's file and
/// line, with that file's text; the generated file in the cache appears
/// only in the note saying which of its lines was translated from there.
#[test]
fn diagnostics_point_at_the_users_files_not_the_translation() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let envs = fx.join("recipe-v2/environments.yaml");
    let yaml = fs_err::read_to_string(&envs).unwrap();
    fs_err::write(
        &envs,
        yaml.replace("  - greet-demo\n", "  - greet-demo\n  - nosuch-package\n"),
    )
    .unwrap();
    let o = on_fixture(tmp.path(), &fx, "check", "recipe-v2", &[]);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let stderr = portable(&stderr, tmp.path());
    assert!(
        stderr.contains("[fx/recipe-v2/environments.yaml:6:5]"),
        "{stderr}"
    );
    assert!(stderr.contains(" 6 |   - nosuch-package"), "{stderr}");
    only_in_notes(&stderr);
    insta::with_settings!({filters => vec![(r"cache/stackinator/\s*work/\s*[0-9a-f]{16}/", "cache/stackinator/work/[KEY]/"), (r"[0-9a-f]{16}/", "[KEY]/")]}, {
        insta::assert_snapshot!("diagnostic_unknown_package", stderr);
    });
}

/// A resolution failure names the user's line too (it used to name
/// `<cache>/stackinator/work/<key>/stack.yaml:45`).
#[test]
fn a_resolution_failure_names_the_users_line() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let envs = fx.join("recipe-v2/environments.yaml");
    let yaml = fs_err::read_to_string(&envs).unwrap();
    fs_err::write(
        &envs,
        yaml.replace("  - greet-demo\n", "  - greet-demo@9.9\n"),
    )
    .unwrap();
    let o = on_fixture(tmp.path(), &fx, "resolve", "recipe-v2", &[]);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let stderr = portable(&stderr, tmp.path());
    assert!(
        stderr.contains("the stack asks for `greet-demo@9.9` (fx/recipe-v2/environments.yaml:5)"),
        "{stderr}"
    );
    only_in_notes(&stderr);
    insta::with_settings!({filters => vec![(r"cache/stackinator/\s*work/\s*[0-9a-f]{16}/", "cache/stackinator/work/[KEY]/"), (r"[0-9a-f]{16}/", "[KEY]/")]}, {
        insta::assert_snapshot!("diagnostic_resolution_failure", stderr);
    });
}

/// Every file under `dir`, as (relative path, text).
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            out.push((rel, fs_err::read_to_string(e.path()).unwrap_or_default()));
        }
    }
    out
}

/// `convert` writes a directory to commit: relative paths only, the
/// translated recipes the stack reaches (greet-demo from the recipe's
/// `repo/`, not the site's, which it hides), the hooks and `extra/`, a
/// README with the command to convert again; it loads as the translation
/// does, converts again in place, and refuses a directory it did not write.
#[test]
fn convert_writes_a_directory_to_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures(tmp.path());
    let out = tmp.path().join("site/greet");
    let args = [
        "stackinator",
        "convert",
        "fx/recipe-v2",
        "fx/cluster/local",
        "--out",
        "site/greet",
    ];
    let o = Stack::new()
        .current_dir(tmp.path())
        .cache(tmp.path().join("cache"))
        .args(args)
        .output();
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("wrote site/greet: stack.yaml, local/cluster.yaml, 1 translated package recipe (1 from recipe), README.md"), "{stdout}");
    let files = tree(&out);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "README.md",
            "extra/reframe.yaml",
            "local/cluster.yaml",
            "post-install",
            "repos/recipe/recipes/greet-demo.yaml",
            "stack.yaml"
        ]
    );
    for (name, text) in &files {
        assert!(
            !text.contains(&tmp.path().display().to_string())
                && !text.contains(&fx.display().to_string()),
            "{name} names an absolute path:\n{text}"
        );
    }
    let readme = &files[0].1;
    assert!(
        readme.contains(
            "stack stackinator convert ../../fx/recipe-v2 ../../fx/cluster/local --out ."
        ),
        "{readme}"
    );
    insta::assert_snapshot!("convert_stack_yaml", &files[5].1);
    insta::assert_snapshot!("convert_cluster_yaml", &files[2].1);
    insta::assert_snapshot!("convert_readme", readme);
    // It is a stack of our own format, from any directory.
    let o = Stack::bare()
        .command()
        .current_dir(&out)
        .env("STACK_CACHE", tmp.path().join("cache"))
        .args(["check", "stack.yaml", "--cluster", "local"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o).1);
    // Again, as the README says: from the directory, in place.
    let o = Stack::bare()
        .command()
        .current_dir(&out)
        .env("STACK_CACHE", tmp.path().join("cache"))
        .env_remove("STACK_SPACK_PACKAGES")
        .args([
            "stackinator",
            "convert",
            "../../fx/recipe-v2",
            "../../fx/cluster/local",
            "--out",
            ".",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o).1);
    assert_eq!(tree(&out), files);
    // Not into a directory convert did not write.
    let mine = tmp.path().join("mine");
    fs_err::create_dir_all(&mine).unwrap();
    fs_err::write(mine.join("stack.yaml"), "name: mine\n").unwrap();
    let o = Stack::new()
        .current_dir(tmp.path())
        .cache(tmp.path().join("cache"))
        .args([
            "stackinator",
            "convert",
            "fx/recipe-v2",
            "fx/cluster/local",
            "--out",
            "mine",
        ])
        .output();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).1);
    assert!(
        text(&o)
            .1
            .contains("was not written by `stack stackinator convert`")
    );
    assert_eq!(
        fs_err::read_to_string(mine.join("stack.yaml")).unwrap(),
        "name: mine\n"
    );
}

/// A translated cluster says its OS and C library (`unknown` here: the
/// stackinator configuration names neither) and `fingerprint: none` for
/// its compilers, so the host that resolves never changes a hash: the same
/// translated cluster read with two different host C libraries gives the
/// same hashes and lock. A cluster of our format without `libc:` takes the
/// host's (the control).
#[test]
fn the_build_host_never_changes_a_plan_hash() {
    use stack::cluster::{HostFacts, parse_cluster_on};
    let tmp = tempfile::tempdir().unwrap();
    fixtures(tmp.path());
    let o = Stack::new()
        .current_dir(tmp.path())
        .cache(tmp.path().join("cache"))
        .args([
            "stackinator",
            "convert",
            "fx/recipe-v2",
            "fx/cluster/local",
            "--out",
            "conv",
        ])
        .output();
    assert!(o.status.success(), "{}", text(&o).1);
    let conv = tmp.path().join("conv");
    let inputs = stack::stacks::load_inputs(&stack::stacks::InputOptions {
        recipe: conv.join("stack.yaml"),
        cluster: Some(conv.join("local")),
        ..Default::default()
    })
    .unwrap_or_else(|d| panic!("{d}"));
    let lock_on = |cluster_text: &str, libc: &str| {
        let src = stack::diag::SourceFile::new(conv.join("local/cluster.yaml"), cluster_text);
        let mut d = stack::diag::Diagnostics::new();
        let host = HostFacts {
            libc: Some(libc.to_string()),
        };
        let cluster = parse_cluster_on(&src, &mut d, &host).unwrap();
        assert!(cluster.compilers.iter().all(|c| c.fingerprint.is_none()));
        let plan = stack::resolve::resolve(
            &inputs.recipe,
            &cluster,
            &inputs.repo,
            &stack::resolve::ResolveOptions::default(),
        )
        .unwrap();
        stack::resolve::Lock::from_plan(&plan).to_json()
    };
    let translated = fs_err::read_to_string(conv.join("local/cluster.yaml")).unwrap();
    assert!(
        translated.contains("os: unknown\nlibc: unknown\n"),
        "{translated}"
    );
    assert!(translated.contains("fingerprint: none"), "{translated}");
    assert_eq!(
        lock_on(&translated, "glibc@2.31"),
        lock_on(&translated, "glibc@2.38")
    );
    // The control: without `libc:`, the host's reading is in every hash.
    let ours = translated.replace("libc: unknown\n", "");
    assert_ne!(lock_on(&ours, "glibc@2.31"), lock_on(&ours, "glibc@2.38"));
}
