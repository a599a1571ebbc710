//! Issue #34's classes of silent mistranslation, one fixture package.py
//! each (tests/fixtures/import/fidelity, written for these tests): the
//! imported recipe says what the package.py says, or flags the difference.

use std::path::{Path, PathBuf};

use crate::import::{ImportOptions, ImportSummary, import_spack};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/fidelity")
}

/// Import every fixture into a temporary repository: the summary, the
/// directory of recipes, and the temporary directory (kept alive).
fn import_all() -> (ImportSummary, PathBuf, tempfile::TempDir) {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("recipes");
    let summary = import_spack(&ImportOptions {
        from: fixtures(),
        packages: Vec::new(),
        out: out.clone(),
        with_repos: Vec::new(),
        dry_run: false,
    })
    .unwrap();
    (summary, out, t)
}

fn recipe(out: &Path, name: &str) -> String {
    fs_err::read_to_string(out.join(format!("{name}.yaml"))).unwrap()
}

/// The `url:` of version `v` in a recipe's text.
fn url_of(recipe: &str, v: &str) -> String {
    let at = recipe
        .find(&format!("- version: {v}\n"))
        .or_else(|| recipe.find(&format!("- version: \"{v}\"\n")))
        .unwrap_or_else(|| panic!("version {v}: {recipe}"));
    let rest = &recipe[at..];
    let line = rest
        .lines()
        .find(|l| l.trim_start().starts_with("url: "))
        .unwrap();
    line.trim_start()
        .trim_start_matches("url: ")
        .trim_matches('"')
        .to_string()
}

/// Versions with mixed separators (`1.9-4`), a pre-release in the class URL
/// (`MUST-v1.8.0-rc1`): the version is substituted as written, whole (it
/// was `mixeddemo_1.8.42-4`-style and `MUST-v1.9.0-rc1`).
#[test]
fn version_urls_substitute_the_version_as_written() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "r-mixed-demo");
    for v in ["1.9-4", "1.9-1", "1.8-42"] {
        assert_eq!(
            url_of(&r, v),
            format!("https://cran.r-project.org/src/contrib/mixeddemo_{v}.tar.gz"),
            "{r}"
        );
    }
    let m = recipe(&out, "must-demo");
    assert_eq!(
        url_of(&m, "1.9.0"),
        "https://example.org/files/MUST-v1.9.0.tar.gz",
        "{m}"
    );
}

/// `virtual = True` placeholders (`mpi`, `c`) get no recipe: written, they
/// hid the virtuals from every provider. A package with no version the
/// stack can fetch gets none either (the recipe would not load); both are
/// reported.
#[test]
fn virtual_placeholders_and_versionless_packages_are_not_written() {
    let (summary, out, _t) = import_all();
    for name in ["mpi", "c", "virtual-empty-demo"] {
        assert!(!out.join(format!("{name}.yaml")).exists(), "{name}");
    }
    let not_written: Vec<&str> = summary
        .report
        .not_written
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(not_written, ["c", "mpi", "virtual-empty-demo"]);
    let why = &summary.report.not_written[2].1;
    assert!(why.contains("md5 checksum only"), "{why}");
    assert!(why.contains("svn fetcher"), "{why}");
    assert!(summary.report.not_written[1].1.contains("virtual"));
    // Every written recipe has versions.
    for e in fs_err::read_dir(&out).unwrap() {
        let text = fs_err::read_to_string(e.unwrap().path()).unwrap();
        assert!(!text.contains("versions: []"), "{text}");
    }
}

/// `spec["mpi"].mpifc` was written `{{ deps["mpi"].prefix }}/bin/mpifc`, a
/// file no MPI installs: the provider decides, so the hook is not
/// translated (it runs from package.py at build time).
#[test]
fn mpi_provider_attributes_are_not_guessed() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "mpi-user-demo");
    assert!(!r.contains("/bin/mpifc"), "{r}");
    assert!(!r.contains("/bin/mpicc"), "{r}");
    assert!(r.contains("dependency .mpifc"), "{r}");
    assert!(r.contains("system: spack"), "{r}");
}

/// A bare `version("develop")` of a git package and `version("5.0",
/// git=…)` were written as branches of their names; Spack clones the
/// remote's default branch. They are kept and noted; named branches and
/// tags stay.
#[test]
fn versions_without_a_branch_are_not_given_one() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "develop-demo");
    assert!(!r.contains("branch: develop"), "{r}");
    assert!(!r.contains("branch: \"5.0\""), "{r}");
    assert!(
        r.contains("develop: git: the remote's default branch"),
        "{r}"
    );
    assert!(r.contains("5.0: git: the remote's default branch"), "{r}");
    assert!(r.contains("branch: main"), "{r}");
    assert!(r.contains("tag: v1.0"), "{r}");
}

/// Perl and R packages depend on `perl`/`r` (Spack's base classes extend
/// them); `extends("python")` is build and run, with `python-venv`, under
/// the same condition.
#[test]
fn base_classes_and_extends_add_their_dependencies() {
    let (_, out, _t) = import_all();
    let perl = recipe(&out, "perl-demo");
    assert!(
        perl.contains("- {spec: perl, type: [build, run], when: \"build_system=perl\"}"),
        "{perl}"
    );
    let r = recipe(&out, "r-base-demo");
    assert!(r.contains("- {spec: r, type: [build, run]}"), "{r}");
    let py = recipe(&out, "py-extends-demo");
    assert!(
        py.contains("- {spec: python, type: [build, run], when: \"+python\"}"),
        "{py}"
    );
    assert!(
        py.contains("- {spec: python-venv, type: [build, run], when: \"+python\"}"),
        "{py}"
    );
}

/// `depends_on("cxx", when="@1.3.4:1.3.5")` was an unconditional language.
#[test]
fn conditional_languages_keep_their_conditions() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "lang-when-demo");
    let block = &r[r.find("languages:").expect("languages")..];
    let block = &block[..block.find("\n  build_system").unwrap_or(block.len())];
    assert!(block.contains("- c\n"), "{block}");
    assert!(
        block.contains("- {language: cxx, when: \"@1.3.4:1.3.5\"}"),
        "{block}"
    );
    assert!(
        block.contains("- {language: fortran, when: \"+fortran\"}"),
        "{block}"
    );
    assert!(
        block.contains("- {language: fortran, when: \"@2:\"}"),
        "{block}"
    );
}

/// libogg: CMake is offered from 1.3.4 on, Autotools is Spack's default.
/// A static Autotools recipe resolved with `build_system=cmake` and built
/// with Autotools, its CMake-only variants doing nothing; a conflict
/// instead would refuse plans Spack makes (cp2k asks for mctc-lib's
/// `build_system=cmake`). Such a package builds from package.py, whose
/// builder follows the variant, and no build system is refused.
#[test]
fn packages_with_several_build_systems_build_from_package_py() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "conditional-bs-demo");
    assert!(r.contains("system: spack"), "{r}");
    assert!(!r.contains("conflicts:"), "{r}");
    assert!(r.contains("build_system"), "{r}");
    assert!(
        r.contains("construct: \"build system not translated\""),
        "{r}"
    );
}

/// `CudaPackage`'s `cuda_arch=90` needs `cuda@12.0:`, `ROCmPackage`'s
/// `amdgpu_target=gfx942` `llvm-amdgpu@5.7.0:` (Spack's base classes); the
/// importer's bases gave only `cuda when +cuda`, so a stack could pair an
/// architecture with a CUDA that cannot build for it. The ROCm targets are
/// Spack's whole list (`gfx90a:xnack-`, `gfx1036`, …).
#[test]
fn gpu_bases_bring_the_releases_each_architecture_needs() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "gpu-arch-demo");
    for dep in [
        r#"{spec: cuda, when: "+cuda"}"#,
        r#"{spec: "cuda@12.0:", when: "cuda_arch=90"}"#,
        r#"{spec: "cuda@12.8:12.9", when: "cuda_arch=101"}"#,
        r#"{spec: "cuda@:6.0", when: "cuda_arch=10"}"#,
        r#"{spec: "llvm-amdgpu@5.7.0:", when: "amdgpu_target=gfx942"}"#,
        r#"{spec: "llvm-amdgpu@5.2.0:", when: "amdgpu_target=gfx1036"}"#,
    ] {
        assert!(r.contains(dep), "{dep}:\n{r}");
    }
    assert!(r.contains("gfx90a:xnack-") && r.contains("gfx1251"), "{r}");
    let (_, diags) = crate::recipes::load_package(&out.join("gpu-arch-demo.yaml"), &out);
    assert!(!diags.has_errors(), "{diags:?}");
}

/// `%fortran=aocc@:4.2` holds when the Fortran compiler is aocc; it was
/// written `%aocc@:4.2`, which holds when any language's is, so a node
/// built `%gcc %fortran=aocc` escaped the conflict.
#[test]
fn per_language_compilers_keep_their_language() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "lang-compiler-demo");
    assert!(r.contains(r#"{when: "+mpi %fortran=aocc@:4.2"}"#), "{r}");
    assert!(r.contains(r#"{when: "~mpi %c,cxx=clang@:15"}"#), "{r}");
    let (_, diags) = crate::recipes::load_package(&out.join("lang-compiler-demo.yaml"), &out);
    assert!(!diags.has_errors(), "{diags:?}");
}

/// In Spack 1.x `%curl@:7` is a direct dependency on curl (and
/// MesonPackage's `%meson@:1.0` one on meson); the stack's `%` is the
/// compiler, so `%curl@:7` never held and the conflict was silently void.
#[test]
fn a_sigil_naming_a_package_that_is_not_a_compiler_is_a_dependency() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "dep-sigil-demo");
    for c in [
        r#"{when: "+tls ^curl@:7"}"#,
        r#"{when: "~tls %gcc@:9"}"#,
        r#"{when: "build_system=meson ^python@3.12: ^meson@:1.0"}"#,
    ] {
        assert!(r.contains(c), "{c}:\n{r}");
    }
    let (_, diags) = crate::recipes::load_package(&out.join("dep-sigil-demo.yaml"), &out);
    assert!(!diags.has_errors(), "{diags:?}");
}

/// Where Spack finds the version: glued to the name (`edgedemo4.3`, it was
/// `edgedemo4.4.6.1` from the `3` alone); nowhere (a commit archive: the
/// version was written between every character of the URL); `up_to(2)` of
/// `2.06` is `2.6` (Spack's components are integers; it was `2.06`).
#[test]
fn urls_follow_where_spack_finds_the_version() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "url-edge-demo");
    assert_eq!(
        url_of(&r, "4.6.1"),
        "https://example.org/files/edgedemo4.6.1/edgedemo4.6.1.tar.gz",
        "{r}"
    );
    assert_eq!(
        url_of(&r, "2.06"),
        "https://example.org/old/edge%202.6/edgedemo_2.06.tgz",
        "{r}"
    );
    let n = recipe(&out, "url-noversion-demo");
    assert_eq!(
        url_of(&n, "v1.0.0-31-gabc1234"),
        "https://example.org/archive/abc1234def5678abc1234def5678abc1234def56.tar.gz",
        "{n}"
    );
}

/// Base classes the importer did not know gave nothing: oneAPI packages had
/// no `envmods` variant (nor their conflicts with other architectures),
/// `build_system=nmake` no conflict with Linux, waf no python.
#[test]
fn oneapi_nmake_and_waf_bases_bring_their_directives() {
    let (_, out, _t) = import_all();
    let o = recipe(&out, "oneapi-demo");
    assert!(o.contains("envmods: {default: true"), "{o}");
    assert!(o.contains(r#"{when: "target=aarch64:""#), "{o}");
    let n = recipe(&out, "nmake-demo");
    assert!(
        n.contains(r#"{when: "platform=linux build_system=nmake"}"#),
        "{n}"
    );
    assert!(
        n.contains(r#"{spec: "python@2.5:", type: build, when: "build_system=waf"}"#),
        "{n}"
    );
    for name in ["oneapi-demo", "nmake-demo"] {
        let (_, diags) = crate::recipes::load_package(&out.join(format!("{name}.yaml")), &out);
        assert!(!diags.has_errors(), "{name}: {diags:?}");
    }
}

/// `default=("4", "d")` of a multi-valued variant is the values 4 and d (it
/// was written `["['4'", " 'd']"]`); `type="all"` is every type (it was a
/// type named `all`, read as build only).
#[test]
fn tuple_defaults_and_the_all_type_read_as_spack_reads_them() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "tuple-default-demo");
    assert!(r.contains(r#"default: ["4", d]"#), "{r}");
    assert!(
        r.contains(r#"{spec: "metis+shared", type: [build, link, run]}"#),
        "{r}"
    );
    let (_, diags) = crate::recipes::load_package(&out.join("tuple-default-demo.yaml"), &out);
    assert!(!diags.has_errors(), "{diags:?}");
}

/// `pypi += "…tar.gz"` in the class body: the attribute as built (the URL
/// was the first half, a directory); it was reported as a class-level
/// statement but the versions' URLs were written from the half.
#[test]
fn class_attributes_built_with_plus_equals_are_read_whole() {
    let (_, out, _t) = import_all();
    let r = recipe(&out, "py-augmented-demo");
    assert_eq!(
        url_of(&r, "1.4.0"),
        "https://files.pythonhosted.org/packages/source/a/augmented_demo_with_a_long_name/augmented_demo_with_a_long_name-1.4.0.tar.gz",
        "{r}"
    );
    assert!(!r.contains("class-level augmented_assignment"), "{r}");
}
