//! `stack import spack`: the fixture package.py files in
//! tests/fixtures/import/spack/packages/ (written for these tests, one per
//! construct class) converted into recipes (snapshots), the constructs
//! reported as untranslated (golden), the recipes read back by the loader,
//! and one package imported, checked and built for real.

use std::path::{Path, PathBuf};
use std::process::Command;

use stack::import::spack::{Origin, convert};

use crate::harness::{Stack, root};

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/import/spack")
}

fn convert_fixture(dir: &str) -> stack::import::spack::Converted {
    let pkg_dir = fixtures().join("packages").join(dir);
    let src = std::fs::read_to_string(pkg_dir.join("package.py")).unwrap();
    let origin = Origin {
        file: format!("packages/{dir}/package.py"),
        commit: Some("0000000000000000000000000000000000000000".into()),
    };
    convert(&dir.replace('_', "-"), &src, &pkg_dir, &origin)
}

const SNAPSHOTTED: &[&str] = &[
    "directives_demo",
    "cmake_demo",
    "autotools_demo",
    "meson_demo",
    "makefile_demo",
    "py_demo",
    "url_demo",
    "untranslated_demo",
    "reach_demo",
    "bootstrap_demo",
    "positional_when_demo",
    "variant_whens_demo",
    "conditional_demo",
    "local_base_demo",
    "loops_demo",
    "url_method_demo",
    "url_helper_demo",
    "spellings_demo",
    "sibling_base_demo",
    "filter_make_demo",
    "filter_patch_demo",
    "subdir_demo",
    "cmake_subdir_demo",
    "list_build_demo",
    "bundle_demo",
    "when_url_demo",
    "flags_demo",
    "per_arch_demo",
    "spack_leniency_demo",
    "windows_only_demo",
    "hook_expr_demo",
    "build_dir_demo",
];

#[test]
fn fixture_packages_convert_to_the_snapshotted_recipes() {
    for dir in SNAPSHOTTED {
        let c = convert_fixture(dir);
        insta::assert_snapshot!(*dir, c.to_yaml());
    }
}

#[test]
fn construct_classes_translate_without_untranslated_directives_or_hooks() {
    for dir in [
        "cmake_demo",
        "autotools_demo",
        "meson_demo",
        "py_demo",
        "url_demo",
        "reach_demo",
        "bootstrap_demo",
        "makefile_demo",
        "positional_when_demo",
        "variant_whens_demo",
        "local_base_demo",
        "loops_demo",
        "url_method_demo",
        "url_helper_demo",
        "spellings_demo",
        "filter_make_demo",
        "filter_patch_demo",
        "subdir_demo",
        "cmake_subdir_demo",
        "list_build_demo",
        "bundle_demo",
        "when_url_demo",
        "flags_demo",
        "per_arch_demo",
        "spack_leniency_demo",
        "hook_expr_demo",
        "build_dir_demo",
    ] {
        let c = convert_fixture(dir);
        let left: Vec<_> = c
            .untranslated
            .iter()
            .filter(|u| u.kind != stack::import::spack::Kind::Info)
            .collect();
        assert!(left.is_empty(), "{dir}: {left:?}");
    }
    // Two build systems (cmake from 5 on, makefile before): package.py's
    // builder follows the plan's choice, so the package builds from it.
    let c = convert_fixture("conditional_demo");
    let left: Vec<_> = c
        .untranslated
        .iter()
        .filter(|u| u.kind != stack::import::spack::Kind::Info)
        .map(|u| u.construct.as_str())
        .collect();
    assert_eq!(
        left,
        ["build system not translated"],
        "{:?}",
        c.untranslated
    );
    let d = convert_fixture("directives_demo");
    assert!(d.directives_complete(), "{:?}", d.untranslated);
    // A base class from another package.py: its directives are translated,
    // its methods (in the other file) reported as build logic.
    let s = convert_fixture("sibling_base_demo");
    assert!(s.directives_complete(), "{:?}", s.untranslated);
    let inherited: Vec<&str> = s
        .untranslated
        .iter()
        .filter(|u| u.kind == stack::import::spack::Kind::Build)
        .map(|u| u.construct.as_str())
        .collect();
    assert_eq!(
        inherited,
        ["method setup_run_environment"],
        "{:?}",
        s.untranslated
    );
}

#[test]
fn a_fixed_set_of_constructs_is_reported_untranslated() {
    let c = convert_fixture("untranslated_demo");
    let got: Vec<(usize, &str, &str)> = c
        .untranslated
        .iter()
        .map(|u| (u.line, u.kind.name(), u.construct.as_str()))
        .collect();
    let expected = vec![
        (16, "info", "version kept"),
        (18, "directive", "variant validator"),
        (22, "directive", "class-level loop"),
        (25, "directive", "class-level if"),
        (30, "build", "directive filter_compiler_wrappers"),
        (32, "build", "attribute keep_werror"),
        (35, "build", "hook cmake_args"),
        (38, "build", "method patch"),
        (41, "build", "method flag_handler"),
        (43, "build", "run_before/run_after hook"),
        (47, "build", "method setup_dependent_build_environment"),
        (50, "info", "method libs"),
        (54, "info", "method test_run"),
        (57, "directive", "variant name reserved"),
        (72, "build", "extra class"),
    ];
    assert_eq!(got, expected, "{:#?}", c.untranslated);
    assert!(!c.hooks_complete());
    assert!(!c.directives_complete());
}

fn import(packages: &[&str], out: &Path) -> std::process::Output {
    let o = Stack::bare()
        .command()
        .args(["--color", "never", "import", "spack", "--from"])
        .arg(fixtures())
        .args(packages)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn imported_recipes_load_and_report_what_awaits_review() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("recipes");
    let report = tmp.path().join("coverage.md");
    let o = Stack::bare()
        .command()
        .args(["--color", "never", "import", "spack", "--all", "--from"])
        .arg(fixtures())
        .arg("--out")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let n = std::fs::read_dir(fixtures().join("packages"))
        .unwrap()
        .count();
    assert!(
        stdout.contains(&format!("imported {n} packages")),
        "{stdout}"
    );
    let md = std::fs::read_to_string(&report).unwrap();
    assert!(md.contains(&format!("| imported | {n} |")), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.with_extension("json")).unwrap())
            .unwrap();
    assert_eq!(json["packages"], n);
    // The patch file is copied beside the repository.
    assert!(
        tmp.path()
            .join("patches/directives-demo/fix.patch")
            .is_file()
    );
    for dir in SNAPSHOTTED {
        let name = dir.replace('_', "-");
        let path = out.join(format!("{name}.yaml"));
        // Build logic that runs from package.py (`system: spack`): the
        // package.py is copied beside the recipes.
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("\n  system: spack\n") {
            let copy = tmp.path().join(format!("spack/builtin/{dir}/package.py"));
            assert!(copy.is_file(), "{name}: {text}");
            continue;
        }
        let (recipe, diags) = stack::recipes::load_package(&path, &out);
        assert_eq!(diags.error_count(), 0, "{name}: {diags:?}");
        let recipe = recipe.unwrap();
        let imported = recipe.imported.expect("an imported block");
        assert_eq!(imported.from, "spack");
        let file = imported.file.clone().unwrap();
        assert!(
            file.ends_with(&format!("packages/{dir}/package.py")),
            "{file}"
        );
        let warned = diags
            .warnings()
            .any(|d| d.code.as_str() == "stack::unreviewed-import");
        assert_eq!(warned, imported.needs_review(), "{name}");
    }
}

#[test]
fn unknown_packages_are_bad_input_with_a_suggestion() {
    let tmp = tempfile::tempdir().unwrap();
    let o = import(&["cmake-dem"], tmp.path());
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("no package `cmake-dem`"), "{stderr}");
    assert!(stderr.contains("did you mean `cmake-demo`?"), "{stderr}");
}

/// Import one fixture package into `<tmp>/stack/recipes`, its package.py
/// with `@KEY@` placeholders replaced.
fn import_fixture(tmp: &Path, dir: &str, name: &str, replace: (&str, &str)) -> PathBuf {
    import_fixture_with(tmp, dir, name, &[replace])
}

/// Import the fixture package `dir` (as `name`) with every (`from`, `to`)
/// of `replace` applied to its package.py; its other files (patches) are
/// copied as they are. Returns the recipe written.
pub(crate) fn import_fixture_with(
    tmp: &Path,
    dir: &str,
    name: &str,
    replace: &[(&str, &str)],
) -> PathBuf {
    let spack = tmp.join("spack/packages").join(dir);
    std::fs::create_dir_all(&spack).unwrap();
    let from = fixtures().join("packages").join(dir);
    let mut src = std::fs::read_to_string(from.join("package.py")).unwrap();
    for (a, b) in replace {
        src = src.replace(a, b);
    }
    std::fs::write(spack.join("package.py"), src).unwrap();
    for e in std::fs::read_dir(&from).unwrap().flatten() {
        if e.file_name() != "package.py" && e.path().is_file() {
            std::fs::copy(e.path(), spack.join(e.file_name())).unwrap();
        }
    }
    let stack_dir = tmp.join("stack");
    let o = Stack::bare()
        .command()
        .args(["--color", "never", "import", "spack", name, "--from"])
        .arg(tmp.join("spack"))
        .arg("--out")
        .arg(stack_dir.join("recipes"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    stack_dir.join(format!("recipes/{name}.yaml"))
}

/// A one-environment stack recipe `<tmp>/stack/<name>.yaml` over the
/// imported recipes, its `bin` on PATH.
pub(crate) fn write_stack(tmp: &Path, name: &str, spec: &str) -> PathBuf {
    let path = tmp.join(format!("stack/{name}.yaml"));
    std::fs::write(
        &path,
        format!(
            "name: {name}\ncompiler: gcc\nrepos: [recipes]\nenvironments:\n  tools:\n    \
             specs: [\"{spec}\"]\n    views:\n      default:\n        prefix_paths: {{PATH: [bin]}}\n"
        ),
    )
    .unwrap();
    path
}

fn cluster() -> PathBuf {
    root().join("cluster-configs/local")
}

pub(crate) fn check_stack(recipe: &Path) -> String {
    let check = Stack::bare()
        .command()
        .args(["--color", "never", "check"])
        .arg(recipe)
        .arg("--cluster")
        .arg(cluster())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&check.stderr).into_owned();
    assert!(check.status.success(), "{stderr}");
    stderr
}

pub(crate) fn build_stack(recipe: &Path, tmp: &Path, dir: &str) -> std::process::Output {
    let o = Stack::bare()
        .command()
        .args(["--color", "never", "build"])
        .arg(recipe)
        .arg("--cluster")
        .arg(cluster())
        .arg("--build")
        .arg(tmp.join(dir))
        .arg("--cache")
        .arg(tmp.join("cache"))
        .args(["-j", "2"])
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// The installed program `name` in a build directory's store.
pub(crate) fn installed(build: &Path, name: &str) -> PathBuf {
    std::fs::read_dir(build.join("store"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find_map(|p| find_file(&p, name))
        .unwrap_or_else(|| panic!("bin/{name} installed"))
}

/// Import greet-demo, whose `run_after("install")` hook the static
/// translation does not express: its build logic runs from its package.py
/// at build time, so the recipe is `system: spack` naming the copied
/// package.py and its sha256 (DESIGN §14); the hook is listed as `info`.
/// The stack using it checks (no call the layer lacks) and builds for
/// real: the hook runs the installed program.
#[test]
fn untranslated_hooks_make_a_package_py_recipe_that_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let dist = root().join("tests/fixtures/demo/dist");
    let recipe_path = import_fixture(
        tmp.path(),
        "greet_demo",
        "greet-demo",
        ("@DIST@", &dist.display().to_string()),
    );
    let recipe = std::fs::read_to_string(&recipe_path).unwrap();
    let copy = tmp.path().join("stack/spack/alps/greet_demo/package.py");
    let bytes = std::fs::read(&copy).unwrap();
    let sha = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(&bytes))
    };
    assert!(recipe.contains("build:\n  system: spack\n"), "{recipe}");
    assert!(
        recipe.contains("file: alps/greet_demo/package.py"),
        "{recipe}"
    );
    assert!(recipe.contains(&sha), "{recipe}");
    assert!(
        recipe.contains("construct: \"run_before/run_after hook\""),
        "{recipe}"
    );
    assert!(!recipe.contains("kind: build"), "{recipe}");
    // The directives stay static: versions, variants.
    assert!(recipe.contains("greeting"), "{recipe}");
    // The copy is the package.py the importer read.
    let src =
        std::fs::read_to_string(tmp.path().join("spack/packages/greet_demo/package.py")).unwrap();
    assert_eq!(String::from_utf8(bytes).unwrap(), src);
    let stack_yaml = write_stack(tmp.path(), "greet", "greet-demo greeting=Servus");
    let stderr = check_stack(&stack_yaml);
    assert!(!stderr.contains("stack::unsupported-api"), "{stderr}");
    let built = build_stack(&stack_yaml, tmp.path(), "b");
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{stderr}");
    assert!(stderr.contains("audit: clean"), "{stderr}");
    assert!(installed(&tmp.path().join("b"), "greet").ends_with("bin/greet"));
}

/// `stack check` reads the package files of `system: spack` recipes
/// statically: a call the package API layer lacks is a
/// `stack::unsupported-api` warning at its package.py line.
#[test]
fn check_warns_at_package_py_lines_the_layer_lacks() {
    let tmp = tempfile::tempdir().unwrap();
    import_fixture(
        tmp.path(),
        "greet_demo",
        "greet-demo",
        (
            "        Executable(self.prefix.bin.greet)()",
            "        Executable(self.prefix.bin.greet)()\n        install_tree_somehow(self.prefix)",
        ),
    );
    let stack_yaml = write_stack(tmp.path(), "greet", "greet-demo");
    let stderr = check_stack(&stack_yaml);
    assert!(stderr.contains("stack::unsupported-api"), "{stderr}");
    assert!(stderr.contains("`install_tree_somehow`"), "{stderr}");
    let line = src_line(
        &tmp.path().join("stack/spack/alps/greet_demo/package.py"),
        "install_tree_somehow",
    );
    assert!(
        stderr.contains(&format!("greet_demo/package.py:{line}:")),
        "{stderr}"
    );
}

/// The 1-based line of the first line of `file` containing `needle`.
fn src_line(file: &Path, needle: &str) -> usize {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .position(|l| l.contains(needle))
        .unwrap()
        + 1
}

/// A git repository of `tests/fixtures/import/spack/sources/<name>`, branch main.
fn git_repo_of(tmp: &Path, name: &str) -> PathBuf {
    let git = tmp.join("git").join(name);
    std::fs::create_dir_all(&git).unwrap();
    for e in std::fs::read_dir(fixtures().join("sources").join(name)).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), git.join(e.file_name())).unwrap();
    }
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "."],
        &["commit", "-q", "-m", "fixture"],
    ] {
        let o = Command::new("git")
            .current_dir(&git)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {o:?}");
    }
    git
}

/// nq's and tinycbor's breakage: Spack's `build_targets`/`install_targets`
/// pass `PREFIX={self.prefix}`; the imported `{{ prefix }}` must reach make
/// rendered, in both calls.
#[test]
fn imported_make_targets_with_the_prefix_build() {
    let tmp = tempfile::tempdir().unwrap();
    let git = git_repo_of(tmp.path(), "prefix-make");
    let recipe_path = import_fixture(
        tmp.path(),
        "prefix_make_demo",
        "prefix-make-demo",
        ("@GIT@", &git.display().to_string()),
    );
    let recipe = std::fs::read_to_string(&recipe_path).unwrap();
    assert!(
        recipe.contains(r#"install_targets: ["PREFIX={{ prefix }}", install]"#),
        "{recipe}"
    );
    // `spack_cc` is Spack's compiler wrapper: the stack's wrapper by name.
    assert!(recipe.contains("CC=cc"), "{recipe}");
    let stack_yaml = write_stack(tmp.path(), "pmk", "prefix-make-demo@main");
    check_stack(&stack_yaml);
    let built = build_stack(&stack_yaml, tmp.path(), "b");
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{stderr}");
    assert!(stderr.contains("audit: clean"), "{stderr}");
    let pmk = installed(&tmp.path().join("b"), "pmk");
    let prefix = pmk.parent().unwrap().parent().unwrap();
    let out = Command::new(&pmk).output().unwrap();
    // Built with the prefix (the build target got it too), installed there.
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let name = prefix.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        said.starts_with("installed in /") && said.trim_end().ends_with(&name),
        "{said} (installed at {})",
        prefix.display()
    );
}

/// Spack's `filter_file`/`FileFilter` in `edit()` and `make()` in
/// `install()`, imported: the Makefile is really edited before the build
/// (the compiler, the prefix and the greeting), under the variant's
/// condition, and installed by the translated `make install`.
#[test]
fn imported_file_filters_edit_the_source_before_the_build() {
    let tmp = tempfile::tempdir().unwrap();
    let git = git_repo_of(tmp.path(), "filter-make");
    let recipe_path = import_fixture(
        tmp.path(),
        "filter_make_demo",
        "filter-make-demo",
        ("@GIT@", &git.display().to_string()),
    );
    let recipe = std::fs::read_to_string(&recipe_path).unwrap();
    assert!(recipe.contains("filter:"), "{recipe}");
    assert!(!recipe.contains("untranslated"), "{recipe}");
    for (spec, dir, said) in [
        ("filter-make-demo@main", "b1", "filtered quietly"),
        ("filter-make-demo@main +loud", "b2", "FILTERED"),
    ] {
        let stack_yaml = write_stack(tmp.path(), "fmk", spec);
        check_stack(&stack_yaml);
        let built = build_stack(&stack_yaml, tmp.path(), dir);
        let stderr = String::from_utf8_lossy(&built.stderr);
        assert!(built.status.success(), "{stderr}");
        assert!(stderr.contains("audit: clean"), "{stderr}");
        let fmk = installed(&tmp.path().join(dir), "fmk");
        let prefix = fmk.parent().unwrap().parent().unwrap();
        assert!(prefix.join("share/fmk").is_dir(), "{}", prefix.display());
        let out = Command::new(&fmk).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), said);
    }
}

fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    walk(dir)
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == name) && p.is_file())
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && !p.is_symlink() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}
