//! Compilers as plan nodes: a tiny compiler package built by the stack
//! (tests/fixtures/compilers/stampcc, installed as `gcc@99.1`) is the
//! compiler of one environment. The plan shows it as a node and as the
//! environment's compiler; changing it changes its dependents' hashes (and
//! only theirs); the package built with it was compiled through it (its
//! stamp) and links its runtime library through an RPATH into its prefix;
//! `add_compilers` puts it into the view.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{Stack, root};

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/compilers").join(name)
}

/// `dir/name-version.tar.gz` of the fixture directory `name`; its sha256.
fn tarball(dir: &Path, name: &str, version: &str) -> (PathBuf, String) {
    let top = format!("{name}-{version}");
    let staging = dir.join("staging");
    std::fs::create_dir_all(&staging).unwrap();
    let status = Command::new("cp")
        .arg("-r")
        .arg(fixture(name))
        .arg(staging.join(&top))
        .status()
        .unwrap();
    assert!(status.success());
    let out = dir.join(format!("{top}.tar.gz"));
    let sha = crate::harness::tarball(&staging, &top, &out);
    (out, sha)
}

/// A stack with the stampcc compiler (`gcc@99.1`, built with `make_arg`)
/// and stamp-app in two environments: `stamped` built with it, `plain`
/// with the cluster's gcc.
fn stamped_stack(dir: &Path, make_arg: &str) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let (cc_tar, cc_sha) = tarball(dir, "stampcc", "99.1");
    let (app_tar, app_sha) = tarball(dir, "stamp-app", "1.0");
    std::fs::write(
        repo.join("gcc.yaml"),
        format!(
            "name: gcc\ndescription: the stampcc fixture compiler\nversions:\n  \
             - {{version: \"99.1\", url: {}, sha256: {cc_sha}}}\n\
             build:\n  system: makefile\n  \
             make_args: [\"PREFIX={{{{ prefix }}}}\", \"VERSION={{{{ version }}}}\", \"{make_arg}\"]\n  \
             install_targets: [install]\n",
            cc_tar.display()
        ),
    )
    .unwrap();
    std::fs::write(
        repo.join("stamp-app.yaml"),
        format!(
            "name: stamp-app\ndescription: prints which compiler built it\nversions:\n  \
             - {{version: \"1.0\", url: {}, sha256: {app_sha}}}\n\
             build:\n  system: makefile\n  make_args: [\"PREFIX={{{{ prefix }}}}\"]\n  \
             install_targets: [install]\n",
            app_tar.display()
        ),
    )
    .unwrap();
    let recipe = dir.join("stack.yaml");
    std::fs::write(
        &recipe,
        "name: stamped\nmount: /user-environment\nrepos: [repo]\ncompilers: [gcc@99.1]\n\
         environments:\n  \
           stamped:\n    compiler: gcc@99.1\n    specs: [stamp-app]\n    \
             views:\n      default: {link: roots, add_compilers: true, prefix_paths: {PATH: [bin]}}\n  \
           plain:\n    specs: [stamp-app]\n",
    )
    .unwrap();
    recipe
}

fn stack_cmd(recipe: &Path) -> Command {
    let mut c = Stack::bare().command();
    c.current_dir(recipe.parent().unwrap())
        .env("STACK_BUILTIN_REPO", root().join("recipes"))
        .args(["--color", "never"]);
    c
}

fn resolve_json(recipe: &Path) -> serde_json::Value {
    let out = stack_cmd(recipe)
        .arg("resolve")
        .arg(recipe)
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (hash, compiler origin, compiler identity) of each `name` node.
fn nodes_named(plan: &serde_json::Value, name: &str) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["name"] == name)
        .map(|n| {
            (
                n["hash"].as_str().unwrap().to_string(),
                n["compiler"]["origin"].as_str().unwrap().to_string(),
                n["compiler"]["identity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.1.cmp(&b.1));
    v
}

#[test]
fn a_stack_built_compiler_is_a_node_and_part_of_its_dependents_hashes() {
    let tmp = tempfile::tempdir().unwrap();
    let a = resolve_json(&stamped_stack(&tmp.path().join("a"), "OPT=1"));
    let b = resolve_json(&stamped_stack(&tmp.path().join("b"), "OPT=2"));

    let gcc_a = nodes_named(&a, "gcc");
    assert_eq!(gcc_a.len(), 1, "{a:#}");
    assert_eq!(
        gcc_a[0].1, "cluster",
        "the compiler is built with the cluster's"
    );
    assert!(gcc_a[0].2.contains("cc=/usr/bin/gcc"), "{gcc_a:?}");

    // stamp-app twice: built with the cluster's gcc and with the stack's.
    let app_a = nodes_named(&a, "stamp-app");
    assert_eq!(app_a.len(), 2, "{a:#}");
    assert_eq!(app_a[0].1, "cluster");
    assert_eq!(app_a[1].1, "stack");
    assert_eq!(app_a[1].2, gcc_a[0].0, "identity: the compiler node's hash");

    // Another build of the compiler: its hash and its dependents' change,
    // the package built with the cluster's compiler stays.
    let gcc_b = nodes_named(&b, "gcc");
    let app_b = nodes_named(&b, "stamp-app");
    assert_ne!(gcc_a[0].0, gcc_b[0].0);
    assert_ne!(app_a[1].0, app_b[1].0);
    assert_eq!(app_b[1].2, gcc_b[0].0);
    // (the tarballs are the same bytes in a and b, so the plain one is equal)
    assert_eq!(app_a[0].0, app_b[0].0);
}

#[test]
fn the_tree_names_each_environments_compiler() {
    let tmp = tempfile::tempdir().unwrap();
    let recipe = stamped_stack(tmp.path(), "OPT=1");
    let out = stack_cmd(&recipe)
        .arg("resolve")
        .arg(&recipe)
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("compiler gcc@12.2.0 (cluster: /usr/bin/gcc)"),
        "{text}"
    );
    assert!(
        text.contains("compiler gcc@99.1 (built by the stack: gcc@99.1 /"),
        "{text}"
    );
    assert!(
        text.contains("environment `compilers` (1 package, compiler gcc@12.2.0)"),
        "{text}"
    );
    assert!(
        text.contains("environment `stamped` (1 package, compiler gcc@99.1)"),
        "{text}"
    );
    assert!(
        text.contains("environment `plain` (1 package, compiler gcc@12.2.0)"),
        "{text}"
    );
    // The whole tree, hashes aside (they depend on the host compiler's bytes).
    let shape: String = text
        .lines()
        .map(|l| match l.rfind(" /") {
            Some(at)
                if l.len() >= at + 10
                    && l[at + 2..at + 10].chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                format!("{} /<hash>{}", &l[..at], &l[at + 10..])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(shape);
}

fn readelf_dynamic(file: &Path) -> String {
    let out = Command::new("readelf")
        .arg("-d")
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn prefix_of(store: &Path, start: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(store.join("x86_64"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(start))
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

#[test]
fn a_package_is_built_through_the_stack_built_compiler() {
    let tmp = tempfile::tempdir().unwrap();
    let recipe = stamped_stack(tmp.path(), "OPT=1");
    let build = tmp.path().join("build");
    let out = stack_cmd(&recipe)
        .arg("build")
        .arg(&recipe)
        .arg("--cluster")
        .arg(root().join("cluster-configs/local"))
        .arg("--build")
        .arg(&build)
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .args(["-j", "2"])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "build failed:\n{text}");

    let store = build.join("store");
    let gcc = prefix_of(&store, "gcc-99.1-");
    assert_eq!(gcc.len(), 1);
    let gcc_mount = Path::new("/user-environment/x86_64").join(gcc[0].file_name().unwrap());
    let apps = prefix_of(&store, "stamp-app-1.0-");
    assert_eq!(apps.len(), 2);
    let mut stamped = 0;
    for app in &apps {
        let bin = app.join("bin/stamp-app");
        let dynamic = readelf_dynamic(&bin);
        let run = Command::new(&bin)
            .env("LD_LIBRARY_PATH", gcc[0].join("lib64"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(run.status.success(), "{said}");
        if dynamic.contains("libstamprt.so") {
            stamped += 1;
            // compiled through the stack's compiler, linked to its runtime
            // library through an RPATH into its prefix (as it is mounted)
            assert_eq!(
                said.trim(),
                "compiled by stampcc 99.1, stampcc runtime 99.1"
            );
            // installed.json names the compiler in the spec and as a build
            // dependency (with its hash)
            let record: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(app.join(".stack/installed.json")).unwrap(),
            )
            .unwrap();
            let spec = record["spec"].as_str().unwrap();
            assert!(
                spec.contains("%gcc@") && spec.contains("99.1"),
                "{record:#}"
            );
            assert!(
                record["deps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|d| d["name"] == "gcc"),
                "{record:#}"
            );
            assert!(
                dynamic.contains(&format!("{}/lib64", gcc_mount.display())),
                "{dynamic}"
            );
        } else {
            assert_eq!(said.trim(), "compiled by another compiler");
        }
    }
    assert_eq!(
        stamped, 1,
        "one stamp-app is built with the stack's compiler"
    );

    // add_compilers: the compiler's programs are in the view.
    let view_gcc = store.join("env/default/bin/gcc");
    assert!(
        std::fs::symlink_metadata(&view_gcc).is_ok(),
        "{} missing",
        view_gcc.display()
    );
}

#[test]
fn a_stack_compiler_can_be_built_with_another() {
    // As stackinator builds nvhpc and llvm with its gcc: `"X %gcc@99.1"`.
    let tmp = tempfile::tempdir().unwrap();
    let recipe = stamped_stack(tmp.path(), "OPT=1");
    let gcc = tmp.path().join("repo/gcc.yaml");
    let text = std::fs::read_to_string(&gcc).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("99.1"))
        .unwrap()
        .to_string();
    let text = text.replacen(
        &line,
        &format!("{line}\n{}", line.replace("99.1\"", "98.1\"")),
        1,
    );
    std::fs::write(&gcc, text).unwrap();
    let stack_text = std::fs::read_to_string(&recipe).unwrap().replace(
        "compilers: [gcc@99.1]",
        "compilers: [gcc@99.1, \"gcc@98.1 %gcc@99.1\"]",
    );
    let stack_text = stack_text.replace("  plain:\n", "  plain:\n    compiler: gcc@98.1\n");
    std::fs::write(&recipe, stack_text).unwrap();
    let plan = resolve_json(&recipe);
    let gccs = nodes_named(&plan, "gcc");
    assert_eq!(gccs.len(), 2, "{plan:#}");
    let first = gccs.iter().find(|g| g.1 == "cluster").unwrap();
    let second = gccs.iter().find(|g| g.1 == "stack").unwrap();
    assert_eq!(second.2, first.0, "gcc@98.1 is built with gcc@99.1");
    // the `plain` environment now uses gcc@98.1
    let apps = nodes_named(&plan, "stamp-app");
    assert!(apps.iter().all(|a| a.1 == "stack"), "{apps:?}");
    assert!(apps.iter().any(|a| a.2 == second.0), "{apps:?}");
    assert!(apps.iter().any(|a| a.2 == first.0), "{apps:?}");
}

/// A stack on tests/fixtures/compilers/cluster-clang (the system gcc with
/// gfortran, Debian's clang as `llvm`): lang-mix (C calling Fortran) built
/// with `spec`, and lang-mix-plain with the environment's default (gcc).
fn lang_stack(dir: &Path, spec: &str, compiler: &str) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let (tar, sha) = tarball(dir, "lang-mix", "1.0");
    for name in ["lang-mix", "lang-mix-plain"] {
        std::fs::write(
            repo.join(format!("{name}.yaml")),
            format!(
                "name: {name}\ndescription: a C program calling a Fortran routine\nversions:\n  \
                 - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
                 build:\n  system: makefile\n  make_args: [\"PREFIX={{{{ prefix }}}}\"]\n  \
                 install_targets: [install]\n",
                tar.display()
            ),
        )
        .unwrap();
    }
    let recipe = dir.join("stack.yaml");
    std::fs::write(
        &recipe,
        format!(
            "name: langs\nmount: /user-environment\nrepos: [repo]\nenvironments:\n  \
               mixed:\n    compiler: {compiler}\n    specs: [\"{spec}\", lang-mix-plain]\n"
        ),
    )
    .unwrap();
    recipe
}

fn clang_cluster() -> PathBuf {
    fixture("cluster-clang")
}

fn resolve_on(recipe: &Path, cluster: &Path, format: &str) -> std::process::Output {
    stack_cmd(recipe)
        .arg("resolve")
        .arg(recipe)
        .arg("--cluster")
        .arg(cluster)
        .args(["--format", format])
        .output()
        .unwrap()
}

/// The compilers in the `.comment` section of an object file.
fn comment(object: &Path) -> String {
    let out = Command::new("readelf")
        .args(["-p", ".comment"])
        .arg(object)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn per_language_compilers_build_c_with_clang_and_fortran_with_gcc() {
    let tmp = tempfile::tempdir().unwrap();
    let recipe = lang_stack(
        tmp.path(),
        "lang-mix %c=llvm %fortran=gcc",
        "[gcc@12.2.0, llvm@14.0.6]",
    );
    let build = tmp.path().join("build");
    let out = stack_cmd(&recipe)
        .arg("build")
        .arg(&recipe)
        .arg("--cluster")
        .arg(clang_cluster())
        .arg("--build")
        .arg(&build)
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .args(["-j", "2"])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "build failed:\n{text}");
    assert!(text.contains("audit: clean"), "{text}");

    let store = build.join("store");
    let mixed = prefix_of(&store, "lang-mix-1.0-");
    assert_eq!(mixed.len(), 1);
    let c = comment(&mixed[0].join("lib/lang-mix/main.o"));
    assert!(c.contains("clang version"), "{c}");
    assert!(!c.contains("GCC:"), "{c}");
    let f = comment(&mixed[0].join("lib/lang-mix/twice.o"));
    assert!(f.contains("GCC:") && !f.contains("clang"), "{f}");

    // The environment's default compiler: GCC only.
    let plain = prefix_of(&store, "lang-mix-plain-1.0-");
    assert_eq!(plain.len(), 1);
    for o in ["main.o", "twice.o"] {
        let c = comment(&plain[0].join("lib/lang-mix").join(o));
        assert!(c.contains("GCC:") && !c.contains("clang"), "{o}: {c}");
    }
    for p in [&mixed[0], &plain[0]] {
        let run = Command::new(p.join("bin/lang-mix")).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "42");
    }
}

#[test]
fn the_per_language_choice_is_part_of_the_node_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let hash_of = |dir: &str, spec: &str| {
        let recipe = lang_stack(&tmp.path().join(dir), spec, "[gcc@12.2.0, llvm@14.0.6]");
        let out = resolve_on(&recipe, &clang_cluster(), "json");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let node = plan["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == "lang-mix")
            .unwrap()
            .clone();
        if spec.contains("%c=llvm") {
            assert_eq!(node["languages"]["c"]["spec"], "llvm@14.0.6", "{node:#}");
            assert_eq!(node["compiler"]["spec"], "gcc@12.2.0", "{node:#}");
        } else if spec.contains("%llvm") {
            assert_eq!(node["compiler"]["spec"], "llvm@14.0.6", "{node:#}");
            assert!(node.get("languages").is_none(), "{node:#}");
        } else if !spec.contains("=llvm") {
            assert!(node.get("languages").is_none(), "{node:#}");
        }
        node["hash"].as_str().unwrap().to_string()
    };
    let default = hash_of("a", "lang-mix");
    // naming the default compiler changes nothing
    assert_eq!(hash_of("b", "lang-mix %fortran=gcc"), default);
    let c_llvm = hash_of("c", "lang-mix %c=llvm");
    assert_ne!(c_llvm, default);
    assert_ne!(hash_of("d", "lang-mix %cxx=llvm"), c_llvm);
    assert_ne!(hash_of("e", "lang-mix %llvm"), c_llvm);
}

#[test]
fn a_compiler_the_environment_does_not_offer_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    // not a compiler of the cluster or the stack: positioned, with the list
    let recipe = lang_stack(
        &tmp.path().join("a"),
        "lang-mix %fortran=nvhpc",
        "[gcc@12.2.0, llvm@14.0.6]",
    );
    let out = resolve_on(&recipe, &clang_cluster(), "tree");
    assert!(!out.status.success());
    let unknown = String::from_utf8_lossy(&out.stderr).into_owned();
    // a cluster compiler the environment does not list
    let recipe = lang_stack(&tmp.path().join("b"), "lang-mix %c=llvm", "gcc@12.2.0");
    let out = resolve_on(&recipe, &clang_cluster(), "tree");
    assert!(!out.status.success());
    let not_offered = String::from_utf8_lossy(&out.stderr).into_owned();
    let text =
        format!("{unknown}\n---\n{not_offered}").replace(&tmp.path().display().to_string(), "TMP");
    insta::assert_snapshot!(text);
}
