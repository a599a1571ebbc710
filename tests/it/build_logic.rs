//! `system: spack` packages built for real: their package.py runs at build
//! time through stack's Python package API layer (docs/import.md, "What
//! runs at build time"). Fixtures: tests/fixtures/spack-py (README).

use crate::harness::spack_project::{Project, run};

/// A CMake package whose `cmake_args` follow its variants, built twice
/// (`~shout greeting=hello` and `+shout greeting=servus`): each binary
/// greets as its variants say, and the `run_after("install")` hook ran.
#[test]
fn cmake_args_follow_the_variants() {
    let p = Project::new();
    p.cmvariant_recipe();
    p.write_stack(
        &[
            ("plain", &["cmvariant"]),
            ("loud", &["cmvariant +shout greeting=servus"]),
        ],
        "",
    );
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let prefixes = p.prefixes("cmvariant");
    assert_eq!(prefixes.len(), 2, "{prefixes:?}");
    let mut said: Vec<(String, String)> = prefixes
        .iter()
        .map(|pre| {
            let greet = run(&pre.join("bin/cmvariant"), &[]);
            let hook = fs_err::read_to_string(pre.join("share/cmvariant/configured.txt")).unwrap();
            (greet, hook)
        })
        .collect();
    said.sort();
    assert_eq!(
        said,
        [
            ("SERVUS\n".to_string(), "shout=True\n".to_string()),
            ("hello\n".to_string(), "shout=False\n".to_string()),
        ]
    );
    let log = p.log("cmvariant");
    assert!(log.contains("-DCMV_SHOUT:BOOL="), "{log}");
}

/// A Makefile package whose `edit` fixes the Makefile (the compiler, the
/// prefix and a value from a variant) before `make`.
#[test]
fn a_makefile_package_is_edited_before_make() {
    let p = Project::new();
    p.spack_recipe(
        "mkedit",
        "mkedit",
        &format!(
            "versions:\n{}variants:\n  answer: {{default: \"42\", values: [\"42\", \"7\"], description: the answer}}\n",
            p.version("mkedit-1.0", "1.0")
        ),
        &[],
    );
    p.write_stack(&[("e", &["mkedit answer=7"])], "");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let out = run(&p.prefix("mkedit").join("bin/mkedit"), &[]);
    assert_eq!(out, "the answer is 7\n");
}

/// A package with its own `install()`: a C library and a Fortran program
/// compiled with the wrappers, files installed with `install`,
/// `install_tree`, `mkdirp`, `working_dir`.
#[test]
fn an_install_method_compiles_c_and_fortran() {
    let p = Project::new();
    p.spack_recipe(
        "plaininstall",
        "plaininstall",
        &format!("versions:\n{}", p.version("plaininstall-1.0", "1.0")),
        &[],
    );
    p.write_stack(&[("e", &["plaininstall"])], "");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let pre = p.prefix("plaininstall");
    // Linked with an RPATH to its own lib below the mount point.
    assert_eq!(p.run_mounted(&pre, "bin/twice"), "twice 21 is 42\n");
    assert_eq!(
        fs_err::read_to_string(pre.join("share/doc/README")).unwrap(),
        "twice 1.0\n"
    );
    assert!(pre.join("include/twice.h").is_file());
    assert!(text.contains("audit: clean"), "{text}");
}

/// `@when` multimethods: the install and a helper method are chosen by
/// the concrete spec (`+fast` takes the other definitions).
#[test]
fn when_multimethods_follow_the_spec() {
    let p = Project::new();
    p.spack_recipe(
        "whenpick",
        "whenpick",
        &format!(
            "versions:\n{}variants:\n  fast: {{default: false, description: the other path}}\n",
            p.version("whenpick-1.0", "1.0")
        ),
        &[],
    );
    p.write_stack(
        &[("slow", &["whenpick"]), ("fast", &["whenpick +fast"])],
        "",
    );
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let mut said: Vec<String> = p
        .prefixes("whenpick")
        .iter()
        .map(|pre| run(&pre.join("bin/whenpick"), &[]))
        .collect();
    said.sort();
    assert_eq!(said, ["fast (fast install)\n", "slow (plain install)\n"]);
}

/// `flag_handler` routes the spec's flags: `cflags` are injected by the
/// compiler wrapper (with one the handler adds), `cppflags` become CMake
/// arguments; neither is injected by stack behind the handler's back.
#[test]
fn flag_handler_routes_the_specs_flags() {
    let p = Project::new();
    p.spack_recipe(
        "flagroute",
        "flagroute",
        &format!(
            "versions:\n{}dependencies:\n  - {{spec: cmake, type: build}}\n",
            p.version("flagroute-1.0", "1.0")
        ),
        &[],
    );
    p.write_stack(
        &[(
            "e",
            &["flagroute cflags=-DFROM_SPEC_C cppflags=-DFROM_SPEC_CPP"],
        )],
        "",
    );
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
    let out = run(&p.prefix("flagroute").join("bin/flagroute"), &[]);
    assert_eq!(
        out,
        "cflags from the spec; flag_handler added one; cppflags as build-system arguments\n"
    );
    let log = p.log("flagroute");
    let configure = log
        .lines()
        .find(|l| l.starts_with("==> ") && l.contains("/cmake ") && l.contains(" -G "))
        .unwrap_or_else(|| panic!("no configure line in\n{log}"));
    assert!(configure.contains("-DFROM_SPEC_CPP"), "{configure}");
    assert!(!configure.contains("-DFROM_SPEC_C "), "{configure}");
}

/// A call the layer does not implement fails the build, naming the
/// package.py file and line and the call; exit 1, nothing installed.
#[test]
fn an_api_the_layer_lacks_is_a_build_error_with_the_line() {
    let p = Project::new();
    p.spack_recipe(
        "lacksapi",
        "lacksapi",
        &format!("versions:\n{}", p.version("lacksapi-1.0", "1.0")),
        &[],
    );
    p.write_stack(&[("e", &["lacksapi"])], "");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 1, "{text}");
    // The package file as it ran: checked and copied into the stage.
    let want = ".stack-build-logic/spack/fixtures/lacksapi/package.py:19: Spec.tree is not implemented by stack's package API";
    assert!(text.contains(want), "{want}\nin\n{text}");
    assert!(text.contains("is not implemented"), "{text}");
    for pre in p.prefixes("lacksapi") {
        assert!(
            !pre.join(".stack/installed.json").exists(),
            "{}",
            pre.display()
        );
    }
}

/// `stack check` reads the package files of a `system: spack` recipe: a
/// missing one, a changed one (sha256) and one outside `spack/` are errors
/// with the recipe's file and line; the build refuses them before fetching.
#[test]
fn check_reports_missing_and_changed_package_files() {
    let p = Project::new();
    p.spack_recipe(
        "cmvariant",
        "cmvariant",
        &format!(
            "versions:\n{}dependencies:\n  - {{spec: cmake, type: build}}\n",
            p.version("cmvariant-1.0", "1.0")
        ),
        &[],
    );
    p.write_stack(&[("e", &["cmvariant"])], "");
    let (code, text) = p.check();
    assert_eq!(code, 0, "{text}");

    // Changed after the recipe was written.
    let file = p.path().join("spack/fixtures/cmvariant/package.py");
    let original = fs_err::read_to_string(&file).unwrap();
    fs_err::write(&file, format!("{original}# changed\n")).unwrap();
    let (code, text) = p.check();
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("stack::package-file-checksum"), "{text}");
    assert!(
        text.contains("sha256 mismatch for package file `fixtures/cmvariant/package.py`"),
        "{text}"
    );
    assert!(text.contains("recipes/cmvariant.yaml:"), "{text}");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 2, "{text}");
    assert!(!text.contains("Fetch"), "refused before fetching:\n{text}");

    // Missing.
    fs_err::remove_file(&file).unwrap();
    let (code, text) = p.check();
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("stack::package-file-missing"), "{text}");
    assert!(
        text.contains("package file `fixtures/cmvariant/package.py` not found"),
        "{text}"
    );

    // Outside spack/, through a link.
    let outside = p.path().join("elsewhere.py");
    fs_err::write(&outside, &original).unwrap();
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    let (code, text) = p.check();
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("leads outside the repository's `spack/` directory"),
        "{text}"
    );
}

/// A `system: spack` recipe whose imported block lists the methods that
/// run as `info` items builds without a review; one with an item running
/// package.py does not settle (`build`: an untranslated resource) is
/// refused before anything is fetched, as a preflight failure.
#[test]
fn only_what_package_py_does_not_settle_awaits_review() {
    let p = Project::new();
    let head = format!(
        "versions:\n{}variants:\n  shout: {{default: false, description: capitals}}\n  \
         greeting: {{default: hello, values: [hello, servus], description: the word}}\n\
         dependencies:\n  - {{spec: cmake, type: build}}\n",
        p.version("cmvariant-1.0", "1.0")
    );
    let imported = |kind: &str, construct: &str| {
        format!(
            "imported:\n  from: spack\n  languages: [c]\n  untranslated:\n    \
             - {{line: 27, kind: {kind}, construct: \"{construct}\"}}\n"
        )
    };
    p.spack_recipe(
        "cmvariant",
        "cmvariant",
        &format!("{head}{}", imported("build", "directive resource")),
        &[],
    );
    p.write_stack(&[("e", &["cmvariant"])], "");
    let (code, text) = p.build(&[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("preflight: imported recipes with untranslated build logic"),
        "{text}"
    );
    assert!(text.contains("line 27: directive resource"), "{text}");
    assert!(!text.contains("Fetch"), "{text}");

    p.spack_recipe(
        "cmvariant",
        "cmvariant",
        &format!("{head}{}", imported("info", "method cmake_args")),
        &[],
    );
    let (code, text) = p.build(&[]);
    assert_eq!(code, 0, "{text}");
}
