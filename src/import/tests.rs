//! `import_spack` over repositories the tests write: what is read and
//! written for hostile names (#40 item 1), and the `system: spack` recipe
//! of a package whose build logic runs from its package.py.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::*;

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

fn options(from: &Path, out: &Path, packages: &[&str]) -> ImportOptions {
    ImportOptions {
        from: from.to_path_buf(),
        packages: packages.iter().map(|p| p.to_string()).collect(),
        out: out.to_path_buf(),
        with_repos: Vec::new(),
        dry_run: false,
    }
}

/// Every file below `dir` (links not followed), relative to it.
fn files(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| !e.file_type().is_dir())
        .map(|e| e.path().strip_prefix(dir).unwrap().display().to_string())
        .collect();
    out.sort();
    out
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

const HEADER: &str = "from spack.package import *\n\n";

/// A patch whose first component is a link inside the package directory
/// pointing at a (fake) home, climbing out with `..` — as many as the link
/// is deep, so that the read lands in the home and the write, from
/// `<repo>/patches/evil/s`, two levels above `--out`'s repository —, an
/// absolute path, and a link as the patch itself: each refused and
/// reported, nothing read from the home, nothing written outside `--out`'s
/// repository. (Before: the home's TARGET and .bashrc were copied to
/// `w/x/`, above the repository `w/x/y/out`.)
#[test]
fn patches_through_links_dots_or_absolute_paths_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let deep = home.join("a/b/c/d/e");
    fs_err::create_dir_all(&deep).unwrap();
    write(&home.join("TARGET"), "the victim's file\n");
    write(&home.join(".bashrc"), "secret\n");
    let pkg = t.path().join("spack/packages/evil");
    let abs = home.join(".bashrc");
    write(
        &pkg.join("package.py"),
        &format!(
            "{HEADER}class Evil(Package):\n    \"\"\"Evil.\"\"\"\n    url = \"https://example.org/evil-1.0.tgz\"\n    \
             version(\"1.0\", sha256=\"{z}\")\n    patch(\"s/../../../../../TARGET\")\n    \
             patch(\"s/../../../../../.bashrc\")\n    patch(\"{abs}\")\n    patch(\"l.patch\")\n    \
             patch(\"ok.patch\")\n",
            z = "0".repeat(64),
            abs = abs.display()
        ),
    );
    write(&pkg.join("ok.patch"), "--- a\n+++ b\n");
    std::os::unix::fs::symlink(&deep, pkg.join("s")).unwrap();
    std::os::unix::fs::symlink(&abs, pkg.join("l.patch")).unwrap();
    let home_before = files(&home);
    let out = t.path().join("w/x/y/out/recipes");
    let summary = import_spack(&options(&t.path().join("spack"), &out, &["evil"])).unwrap();
    assert_eq!(summary.written.len(), 1);
    let recipe = fs_err::read_to_string(out.join("evil.yaml")).unwrap();
    assert_eq!(recipe.matches("patch file refused").count(), 4, "{recipe}");
    assert!(recipe.contains("file: evil/ok.patch"), "{recipe}");
    assert!(!recipe.contains(&sha(b"secret\n")), "{recipe}");
    assert!(!recipe.contains(&sha(b"the victim's file\n")), "{recipe}");
    // Written: the recipe and the one plain patch, nothing else anywhere.
    assert_eq!(
        files(&t.path().join("w")),
        ["x/y/out/patches/evil/ok.patch", "x/y/out/recipes/evil.yaml"]
    );
    assert_eq!(files(&home), home_before);
    assert_eq!(
        fs_err::read_to_string(home.join("TARGET")).unwrap(),
        "the victim's file\n"
    );
}

/// A package directory or package.py that is a link (to a home outside
/// the repository) is not read: that package is reported as not imported,
/// the others are.
#[test]
fn linked_package_directories_and_files_are_not_imported() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let body = |class: &str| {
        format!(
            "{HEADER}class {class}(Package):\n    \"\"\"X.\"\"\"\n    url = \"https://example.org/x-1.0.tgz\"\n    version(\"1.0\", sha256=\"{}\")\n",
            "0".repeat(64)
        )
    };
    write(&home.join("pkg/package.py"), &body("Linked"));
    write(&home.join("file.py"), &body("Linkedfile"));
    let packages = t.path().join("spack/packages");
    write(&packages.join("fine/package.py"), &body("Fine"));
    std::os::unix::fs::symlink(home.join("pkg"), packages.join("linked")).unwrap();
    fs_err::create_dir_all(packages.join("linkedfile")).unwrap();
    std::os::unix::fs::symlink(home.join("file.py"), packages.join("linkedfile/package.py"))
        .unwrap();
    let out = t.path().join("out/recipes");
    let summary = import_spack(&options(&t.path().join("spack"), &out, &[])).unwrap();
    let failed: Vec<&str> = summary
        .report
        .failed
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(
        failed,
        ["linked", "linkedfile"],
        "{:?}",
        summary.report.failed
    );
    assert!(summary.report.failed[0].1.contains("symbolic link"));
    assert_eq!(files(&t.path().join("out")), ["recipes/fine.yaml"]);
}

/// A package name is one directory of the repository: `../x` names none
/// (it would read `<repo>/../x/package.py` and write `<out>/../x.yaml`).
#[test]
fn package_names_with_dots_or_slashes_are_unknown() {
    let t = tempfile::tempdir().unwrap();
    let packages = t.path().join("spack/packages");
    write(
        &packages.join("fine/package.py"),
        &format!(
            "{HEADER}class Fine(Package):\n    version(\"1.0\", sha256=\"{}\")\n",
            "0".repeat(64)
        ),
    );
    write(
        &t.path().join("outside/package.py"),
        &format!(
            "{HEADER}class Outside(Package):\n    version(\"1.0\", sha256=\"{}\")\n",
            "0".repeat(64)
        ),
    );
    let out = t.path().join("out/recipes");
    for name in ["../../outside", "/abs", "fine/../fine"] {
        let e = import_spack(&options(&t.path().join("spack"), &out, &[name])).unwrap_err();
        assert!(
            matches!(e, ImportError::UnknownPackage { .. }),
            "{name}: {e}"
        );
    }
    assert!(files(t.path()).iter().all(|f| !f.ends_with(".yaml")));
}

/// `from ..//<abs>/x.package import X` (not Python, but a line the reader
/// of imported classes took apart) named a package.py anywhere on disk.
#[test]
fn imported_classes_are_read_from_the_repository_only() {
    let t = tempfile::tempdir().unwrap();
    let evil = t.path().join("elsewhere/evil");
    write(
        &evil.join("package.py"),
        "class X(Package):\n    with_default_variants = \"leaked+secret\"\n",
    );
    write(
        &t.path().join("spack/packages/user/package.py"),
        &format!(
            "{HEADER}from ..//{} import X\n\nclass User(Package):\n    \"\"\"U.\"\"\"\n    \
             url = \"https://example.org/u-1.0.tgz\"\n    version(\"1.0\", sha256=\"{}\")\n    \
             depends_on(X.with_default_variants)\n",
            format!("{}.package", evil.display()).trim_start_matches('/'),
            "0".repeat(64)
        ),
    );
    let out = t.path().join("out/recipes");
    import_spack(&options(&t.path().join("spack"), &out, &["user"])).unwrap();
    let recipe = fs_err::read_to_string(out.join("user.yaml")).unwrap();
    assert!(!recipe.contains("leaked"), "{recipe}");
}

/// Build logic the static translation does not express — an `install`
/// method, a method inherited from another package's class, a build
/// system with no stack kind — runs from package.py: the recipe names the
/// package.py and what it imports (transitively, across repositories),
/// with their sha256, and they are copied to `<repo>/spack/<ns>/<dir>/`.
/// A package translated completely keeps its static build section.
#[test]
fn untranslated_build_logic_runs_from_the_copied_package_py() {
    let t = tempfile::tempdir().unwrap();
    let site = t.path().join("site");
    let builtin = t.path().join("builtin");
    write(&site.join("repo.yaml"), "repo:\n  namespace: alps\n");
    write(&builtin.join("repo.yaml"), "repo:\n  namespace: builtin\n");
    let z = "0".repeat(64);
    let base = format!(
        "{HEADER}from ..mpich_base.package import Root\n\nclass Mpich(AutotoolsPackage):\n    \
         \"\"\"M.\"\"\"\n    def install(self, spec, prefix):\n        make(\"install\")\n"
    );
    write(&builtin.join("packages/mpich/package.py"), &base);
    let root = "class Root:\n    pass\n";
    write(&builtin.join("packages/mpich_base/package.py"), root);
    let runs = format!(
        "{HEADER}from spack_repo.builtin.packages.mpich.package import Mpich\n\n\
         class CrayMpich(Mpich):\n    \"\"\"C.\"\"\"\n    url = \"https://example.org/c-1.0.tgz\"\n    \
         version(\"1.0\", sha256=\"{z}\")\n\n    def setup_run_environment(self, env):\n        \
         env.set(\"MPICH_X\", \"1\")\n"
    );
    write(&site.join("packages/cray_mpich/package.py"), &runs);
    let r = format!(
        "{HEADER}class RFoo(RPackage):\n    \"\"\"R.\"\"\"\n    cran = \"foo\"\n    version(\"1.0\", sha256=\"{z}\")\n"
    );
    write(&site.join("packages/r_foo/package.py"), &r);
    let plain = format!(
        "{HEADER}class Plain(CMakePackage):\n    \"\"\"P.\"\"\"\n    url = \"https://example.org/p-1.0.tgz\"\n    \
         version(\"1.0\", sha256=\"{z}\")\n\n    def cmake_args(self):\n        return [\"-DX=1\"]\n"
    );
    write(&site.join("packages/plain/package.py"), &plain);
    let out = t.path().join("out/recipes");
    let mut opts = options(&site, &out, &[]);
    opts.with_repos = vec![builtin.clone()];
    let summary = import_spack(&opts).unwrap();
    assert!(summary.report.failed.is_empty());

    let cray = fs_err::read_to_string(out.join("cray-mpich.yaml")).unwrap();
    assert!(cray.contains("build:\n  system: spack\n"), "{cray}");
    for (file, text) in [
        ("alps/cray_mpich/package.py", &runs),
        ("builtin/mpich/package.py", &base),
        ("builtin/mpich_base/package.py", &root.to_string()),
    ] {
        assert!(cray.contains(&format!("file: {file}")), "{file}: {cray}");
        assert!(cray.contains(&sha(text.as_bytes())), "{file}: {cray}");
        let copy = t.path().join("out/spack").join(file);
        assert_eq!(&fs_err::read_to_string(&copy).unwrap(), text, "{file}");
    }
    // The inherited `install` runs: listed as info, not build.
    assert!(cray.contains("construct: \"method install\""), "{cray}");
    assert!(
        cray.contains("runs from package.py at build time"),
        "{cray}"
    );
    assert!(!cray.contains("kind: build"), "{cray}");
    // The run environment comes from setup_run_environment at build time.
    assert!(!cray.contains("\nenv:"), "{cray}");

    let r = fs_err::read_to_string(out.join("r-foo.yaml")).unwrap();
    assert!(r.contains("system: spack"), "{r}");
    assert!(r.contains("construct: \"build system r\""), "{r}");
    assert!(!r.contains("imports:"), "{r}");

    let plain = fs_err::read_to_string(out.join("plain.yaml")).unwrap();
    assert!(plain.contains("system: cmake"), "{plain}");
    assert!(!t.path().join("out/spack/alps/plain").exists());
    assert_eq!(summary.report.runs_package_py, 2);
}

/// An import no repository has: the package cannot run, so the item stays
/// `build` (refused by `stack build`), and nothing is invented.
#[test]
fn an_import_no_repository_has_is_a_build_item() {
    let t = tempfile::tempdir().unwrap();
    let z = "0".repeat(64);
    write(
        &t.path().join("spack/packages/lone/package.py"),
        &format!(
            "{HEADER}from spack_repo.builtin.packages.gone.package import Gone\n\n\
             class Lone(Gone):\n    \"\"\"L.\"\"\"\n    url = \"https://example.org/l-1.0.tgz\"\n    \
             version(\"1.0\", sha256=\"{z}\")\n\n    def install(self, spec, prefix):\n        make()\n"
        ),
    );
    let out = t.path().join("out/recipes");
    let summary = import_spack(&options(&t.path().join("spack"), &out, &[])).unwrap();
    let recipe = fs_err::read_to_string(out.join("lone.yaml")).unwrap();
    assert!(recipe.contains("system: spack"), "{recipe}");
    assert!(
        recipe.contains("kind: build\n      construct: \"import of a package\""),
        "{recipe}"
    );
    assert!(summary.report.outcomes[0].refused());
}

#[test]
fn directory_names_map_to_package_names() {
    assert_eq!(dir_name("zlib-ng"), "zlib_ng");
    assert_eq!(dir_name("7zip"), "_7zip");
    assert_eq!(package_name("_7zip"), "7zip");
    assert_eq!(package_name("py_numpy"), "py-numpy");
    // Python keywords (#34): `_global` is `global`, not `-global`.
    assert_eq!(package_name("_global"), "global");
    assert_eq!(package_name("_pass"), "pass");
    assert_eq!(dir_name("global"), "_global");
    assert_eq!(dir_name("pass"), "_pass");
    assert_eq!(package_name("_private_x"), "-private-x");
}

/// `stack import spack … global` finds `_global/package.py` and writes
/// `global.yaml` (it said there was no package `global`, and `--all` wrote
/// `-global.yaml`).
#[test]
fn packages_named_like_python_keywords_import_under_their_name() {
    let t = tempfile::tempdir().unwrap();
    let z = "0".repeat(64);
    for (dir, class) in [("_global", "Global"), ("_pass", "Pass")] {
        write(
            &t.path().join(format!("spack/packages/{dir}/package.py")),
            &format!(
                "{HEADER}class {class}(Package):\n    \"\"\"K.\"\"\"\n    url = \"https://example.org/k-1.0.tgz\"\n    version(\"1.0\", sha256=\"{z}\")\n"
            ),
        );
    }
    let out = t.path().join("out/recipes");
    import_spack(&options(&t.path().join("spack"), &out, &["global"])).unwrap();
    assert!(out.join("global.yaml").is_file());
    import_spack(&options(&t.path().join("spack"), &out, &[])).unwrap();
    assert_eq!(files(&out), ["global.yaml", "pass.yaml"]);
    let recipe = fs_err::read_to_string(out.join("pass.yaml")).unwrap();
    assert!(recipe.starts_with("name: pass\n"), "{recipe}");
}

/// #40 item 11: a package.py nested 100,000 levels deep (parentheses, or a
/// chain of `+`) overflowed the stack and ended the whole import (exit
/// 134). Now that package gets an error and the others are imported, on
/// the import's own threads.
#[test]
fn a_deeply_nested_package_is_an_error_of_its_own() {
    let t = tempfile::tempdir().unwrap();
    let z = "0".repeat(64);
    let packages = t.path().join("spack/packages");
    let deep = format!(
        "{HEADER}class Deep(Package):\n    \"\"\"D.\"\"\"\n    x = {}1{}\n    version(\"1.0\", sha256=\"{z}\")\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    write(&packages.join("deep/package.py"), &deep);
    let chain = format!(
        "{HEADER}class Chain(Package):\n    \"\"\"C.\"\"\"\n    x = 1{}\n    version(\"1.0\", sha256=\"{z}\")\n",
        " + 1".repeat(100_000)
    );
    write(&packages.join("chain/package.py"), &chain);
    write(
        &packages.join("fine/package.py"),
        &format!(
            "{HEADER}class Fine(Package):\n    \"\"\"F.\"\"\"\n    url = \"https://example.org/f-1.0.tgz\"\n    version(\"1.0\", sha256=\"{z}\")\n"
        ),
    );
    let out = t.path().join("out/recipes");
    let summary = import_spack(&options(&t.path().join("spack"), &out, &[])).unwrap();
    let failed: Vec<&str> = summary
        .report
        .failed
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(failed, ["chain", "deep"], "{:?}", summary.report.failed);
    assert!(
        summary.report.failed[1].1.contains("nests deeper than"),
        "{:?}",
        summary.report.failed
    );
    assert_eq!(files(&out), ["fine.yaml"]);
}

/// Each package's recipe lands, `written` follows the packages' order
/// (the index is built in that order), and a write that fails is the
/// import's error naming the file.
#[test]
fn written_recipes_keep_their_order_and_a_failed_write_is_the_error() {
    let t = tempfile::tempdir().unwrap();
    let packages = t.path().join("spack/packages");
    let names = ["alpha", "beta", "gamma", "delta", "epsilon"];
    for name in names {
        let class = format!("{}{}", name[..1].to_uppercase(), &name[1..]);
        write(
            &packages.join(name).join("package.py"),
            &format!(
                "{HEADER}class {class}(Package):\n    url = \"https://example.org/{name}-1.0.tgz\"\n    version(\"1.0\", sha256=\"{}\")\n",
                "0".repeat(64)
            ),
        );
    }
    let out = t.path().join("out/recipes");
    let summary = import_spack(&options(&t.path().join("spack"), &out, &[])).unwrap();
    let mut sorted = names.to_vec();
    sorted.sort();
    let expected: Vec<PathBuf> = sorted
        .iter()
        .map(|n| out.join(format!("{n}.yaml")))
        .collect();
    assert_eq!(summary.written, expected);
    for f in &expected {
        assert!(
            fs_err::read_to_string(f)
                .unwrap()
                .contains("version: \"1.0\""),
            "{}",
            f.display()
        );
    }
    // A directory where gamma's recipe goes: its write fails, and the
    // import says so (into a new destination as into an existing one).
    let blocked = t.path().join("blocked/recipes");
    fs_err::create_dir_all(blocked.join("gamma.yaml/x")).unwrap();
    for new in [false, true] {
        let opts = options(&t.path().join("spack"), &blocked, &[]);
        let e = match new {
            true => import_spack_new(&opts).unwrap_err(),
            false => import_spack(&opts).unwrap_err(),
        };
        assert!(
            matches!(&e, ImportError::Write { path, .. } if path.ends_with("gamma.yaml")),
            "{e}"
        );
    }
}
