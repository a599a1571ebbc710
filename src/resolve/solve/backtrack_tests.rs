//! The search backtracking on a dependency's requirement that clashes with
//! the others on its package (not only on `conflicts:`): the dependent's
//! older versions first, then a variant of the dependency's condition that
//! nothing asked for. Small recipes written to a temporary directory, one
//! per shape met in the alps-uenv recipes (issue #15).

use std::path::Path;

use crate::resolve::render::render_choices;
use crate::resolve::{Plan, ResolveError, ResolveOptions, resolve};
use crate::stacks::{InputOptions, load_inputs};

const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A recipe `name` with `versions`, a generic build and `extra`.
fn recipe(name: &str, versions: &[&str], extra: &str) -> String {
    let mut y = format!("name: {name}\ndescription: {name}\nversions:\n");
    for v in versions {
        y.push_str(&format!(
            "  - {{version: \"{v}\", url: https://example.org/{name}-{v}.tgz, sha256: {SHA}}}\n"
        ));
    }
    y.push_str("build: {system: generic}\n");
    y.push_str(extra);
    y
}

/// Recipes of a `fallback_repos:` directory: read as Spack translations
/// are, with conditional dependencies on unknown packages allowed.
fn fallback_recipes() -> Vec<(&'static str, String)> {
    vec![
        // nvshmem: `+python` with the default `+pytorch` asks for a package
        // no repository has (alps-uenv's `py-pytorch`).
        (
            "shm",
            recipe(
                "shm",
                &["3.4"],
                "variants:\n  python: {default: false}\n  pytorch: {default: true, when: \"+python\"}\n\
                 dependencies:\n  - {spec: \"no-such-pkg@2.6:\", when: \"+python +pytorch\"}\n",
            ),
        ),
    ]
}

/// Build tools built twice (`separate_tests.rs`) and providers named by a
/// root.
fn tool_recipes() -> Vec<(&'static str, String)> {
    vec![
        // Build tools built twice (`separate_tests.rs`): py-cython, wanted
        // at 3.0 by py-fastrlock and at 3.1.1: by py-grpcio, both only to
        // build; `zl` is a library both versions link.
        ("zl", recipe("zl", &["1.3", "1.2"], "")),
        (
            "cy",
            recipe(
                "cy",
                &["3.1", "3.0"],
                "build_tool: true\ndependencies:\n  - {spec: zl, type: link}\n",
            ),
        ),
        (
            "fastr",
            recipe(
                "fastr",
                &["0.8"],
                "dependencies:\n  - {spec: \"cy@3.0\", type: build}\n  - {spec: zl, type: link}\n",
            ),
        ),
        (
            "grpc",
            recipe(
                "grpc",
                &["1.75"],
                "dependencies:\n  - {spec: \"cy@3.1:\", type: build}\n",
            ),
        ),
        (
            "cylink",
            recipe(
                "cylink",
                &["1.0"],
                "dependencies:\n  - {spec: \"cy@3.0\", type: link}\n",
            ),
        ),
        // `%lv=lvm` names the provider: `lvm` fails (no `hp@9`), `lva`
        // would do.
        (
            "lva",
            recipe("lva", &["1.0"], "provides:\n  - {virtual: lv}\n"),
        ),
        (
            "lvm",
            recipe(
                "lvm",
                &["1.0"],
                "provides:\n  - {virtual: lv}\ndependencies:\n  - \"hp@9\"\n",
            ),
        ),
        ("ms", recipe("ms", &["1.0"], "dependencies:\n  - lv\n")),
        // llvm provides `libllvm` per version: `when: "@2"`, `when: "@1"`.
        (
            "lvp",
            recipe(
                "lvp",
                &["2.0", "1.0"],
                "provides:\n  - {virtual: lvx, when: \"@2\"}\n  - {virtual: lvx, when: \"@1\"}\n",
            ),
        ),
        (
            "lvuser",
            recipe("lvuser", &["1.0"], "dependencies:\n  - lvx\n"),
        ),
        (
            "lvpin",
            recipe("lvpin", &["1.0"], "dependencies:\n  - \"lvp@1\"\n"),
        ),
        // A separate build that cannot share the environment's `zl`.
        (
            "cyx",
            recipe(
                "cyx",
                &["3.1", "3.0"],
                "build_tool: true\ndependencies:\n  - {spec: zl, type: link}\n  - {spec: \"zl@1.2\", type: link, when: \"@3.0\"}\n",
            ),
        ),
        (
            "fx",
            recipe(
                "fx",
                &["1.0"],
                "dependencies:\n  - {spec: \"cyx@3.0\", type: build}\n",
            ),
        ),
        (
            "gx",
            recipe(
                "gx",
                &["1.0"],
                "dependencies:\n  - {spec: \"cyx@3.1:\", type: build}\n",
            ),
        ),
        // The same shapes with a package that is not a build tool.
        ("cn", recipe("cn", &["3.1", "3.0"], "")),
        (
            "fastn",
            recipe(
                "fastn",
                &["0.8"],
                "dependencies:\n  - {spec: \"cn@3.0\", type: build}\n",
            ),
        ),
        (
            "grpcn",
            recipe(
                "grpcn",
                &["1.75"],
                "dependencies:\n  - {spec: \"cn@3.1:\", type: build}\n",
            ),
        ),
    ]
}

fn recipes() -> Vec<(&'static str, String)> {
    vec![
        // rocthrust: each version needs the same version of hip.
        ("hp", recipe("hp", &["7.2", "6.4", "5.7"], "")),
        (
            "thrust",
            recipe(
                "thrust",
                &["7.2", "6.4", "5.7"],
                "dependencies:\n  - {spec: \"hp@7.2\", when: \"@7.2\"}\n  - {spec: \"hp@6.4\", when: \"@6.4\"}\n  - {spec: \"hp@5.7\", when: \"@5.7\"}\n",
            ),
        ),
        // The ROCm libraries' lock-step versions: `rbl` (rocblas) asks `hp`
        // and `rcm` (rocm-cmake) for its own version (see
        // `only_the_decisions_that_shaped_a_failure_are_backtracked_over`).
        ("rcm", recipe("rcm", &["7.2", "6.4", "5.7"], "")),
        (
            "rbl",
            recipe(
                "rbl",
                &["7.2", "6.4", "5.7"],
                "dependencies:\n  - {spec: \"hp@7.2\", when: \"@7.2\"}\n  - {spec: \"hp@6.4\", when: \"@6.4\"}\n  - {spec: \"hp@5.7\", when: \"@5.7\"}\n  \
                 - {spec: \"rcm@7.2\", when: \"@7.2\"}\n  - {spec: \"rcm@6.4\", when: \"@6.4\"}\n  - {spec: \"rcm@5.7\", when: \"@5.7\"}\n",
            ),
        ),
        // spdlog and umpire: each asks fmt for a range.
        ("fm", recipe("fm", &["12.0", "11.0", "10.0"], "")),
        (
            "splog",
            recipe(
                "splog",
                &["1.16", "1.15", "1.14"],
                "dependencies:\n  - {spec: \"fm@12\", when: \"@1.16:\"}\n  - {spec: \"fm@11\", when: \"@1.15\"}\n  - {spec: \"fm@10\", when: \"@1.14\"}\n",
            ),
        ),
        (
            "ump",
            recipe("ump", &["2025"], "dependencies: [\"fm@9:11\"]\n"),
        ),
        // A logger whose fmt range comes through a middle package: a clash
        // refusing a candidate at once cannot see it, opening `mid` meets it.
        (
            "lg",
            recipe(
                "lg",
                &["2", "1"],
                "dependencies:\n  - {spec: \"mid@2\", when: \"@2\"}\n  - {spec: \"mid@1\", when: \"@1\"}\n",
            ),
        ),
        (
            "mid",
            recipe(
                "mid",
                &["2", "1"],
                "dependencies:\n  - {spec: \"fm@12\", when: \"@2\"}\n  - {spec: \"fm@11\", when: \"@1\"}\n",
            ),
        ),
        // A package asking for a version nobody has: the failure that ends
        // a search in which an earlier clash was resolved by backtracking.
        ("zz", recipe("zz", &["1.0"], "")),
        (
            "libu",
            recipe(
                "libu",
                &["1.0"],
                "dependencies: [zz]\nconflicts:\n  - {when: \"^zz@:1\", message: needs zz 2}\n",
            ),
        ),
        // conduit: `+hdf5 +hdf5_compat` (both default) asks for an old hdf5.
        ("hd", recipe("hd", &["1.14", "1.8"], "")),
        (
            "cond",
            recipe(
                "cond",
                &["0.9", "0.8"],
                "variants:\n  hdf5: {default: true}\n  hdf5_compat: {default: true, when: \"+hdf5\"}\n\
                 dependencies:\n  - {spec: hd, when: \"+hdf5\"}\n  - {spec: \"hd@1.8\", when: \"+hdf5 +hdf5_compat\"}\n",
            ),
        ),
        (
            "adio",
            recipe("adio", &["2.10"], "dependencies: [\"hd@1.12:\"]\n"),
        ),
        // A dependent that refuses the flip cond would take.
        (
            "usr",
            recipe(
                "usr",
                &["1.0"],
                "dependencies: [cond]\nconflicts:\n  - {when: \"^cond~hdf5_compat\", message: needs the compat API}\n",
            ),
        ),
        // trilinos: `~wrapper` (default) asks for kokkos~wrapper; with a
        // conflict that a flip avoids first.
        (
            "kk",
            recipe("kk", &["4.0"], "variants:\n  wrapper: {default: false}\n"),
        ),
        (
            "tril",
            recipe(
                "tril",
                &["16.0"],
                "variants:\n  kokkos: {default: true}\n  wrapper: {default: false}\n  aztec: {default: true}\n  epetra: {default: true}\n\
                 dependencies:\n  - {spec: \"kk+wrapper\", when: \"+kokkos +wrapper\"}\n  - {spec: \"kk~wrapper\", when: \"+kokkos ~wrapper\"}\n\
                 conflicts:\n  - {when: \"+aztec ~epetra\"}\n",
            ),
        ),
    ]
}

pub(super) struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    pub(super) fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("recipes");
        fs_err::create_dir(&repo).unwrap();
        for (name, text) in recipes().into_iter().chain(tool_recipes()) {
            fs_err::write(repo.join(format!("{name}.yaml")), text).unwrap();
        }
        let fallback = dir.path().join("fallback");
        fs_err::create_dir(&fallback).unwrap();
        for (name, text) in fallback_recipes() {
            fs_err::write(fallback.join(format!("{name}.yaml")), text).unwrap();
        }
        Fixture { dir }
    }

    /// Resolve one environment with `specs` (YAML flow list items).
    pub(super) fn resolve(&self, specs: &str) -> Result<Plan, ResolveError> {
        self.resolve_with(specs, &ResolveOptions::default())
    }

    fn resolve_with(&self, specs: &str, opts: &ResolveOptions) -> Result<Plan, ResolveError> {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/resolve");
        let file = self.dir.path().join("stack.yaml");
        let text = format!(
            "name: t\nrepos: [{}, {}]\nfallback_repos: [{}]\nenvironments:\n  e:\n    specs: [{specs}]\n",
            self.dir.path().join("recipes").display(),
            fixtures.join("recipes").display(),
            self.dir.path().join("fallback").display()
        );
        fs_err::write(&file, text).unwrap();
        let input = InputOptions {
            recipe: file,
            cluster: Some(fixtures.join("cluster-configs/local")),
            no_builtin: true,
            ..InputOptions::default()
        };
        let inputs = load_inputs(&input).unwrap_or_else(|d| panic!("{d:#?}"));
        resolve(&inputs.recipe, &inputs.cluster, &inputs.repo, opts)
    }

    /// `name@version variants` of the one node called `name`.
    fn node(&self, plan: &Plan, name: &str) -> String {
        let n = plan
            .graph
            .node_weights()
            .find(|n| n.name == name)
            .unwrap_or_else(|| panic!("no {name}"));
        let variants: Vec<String> = n.variants.iter().map(|(k, v)| v.to_spec_text(k)).collect();
        format!("{}@{} {}", n.name, n.version, variants.join(" "))
            .trim_end()
            .to_string()
    }
}

pub(super) fn ok(r: Result<Plan, ResolveError>) -> Plan {
    r.unwrap_or_else(|e| panic!("resolution failed:\n{e}"))
}

#[test]
fn a_dependent_takes_the_version_whose_dependency_meets_a_pinned_one() {
    let f = Fixture::new();
    let plan = ok(f.resolve("\"hp@6.4\", thrust"));
    assert_eq!(f.node(&plan, "thrust"), "thrust@6.4");
    assert_eq!(f.node(&plan, "hp"), "hp@6.4");
}

#[test]
fn a_pinned_version_no_recipe_has_is_the_failure_not_the_clash_before_it() {
    let f = Fixture::new();
    let text = f.resolve("\"hp@5.4\", thrust").unwrap_err().to_string();
    assert!(
        text.contains("no version of `hp` satisfies `@5.4`"),
        "{text}"
    );
}

/// Six packages of ten versions each merely depend on `rbl`; `rsp@7.2`
/// (hipsparse, which needs them, so decided before them) fixed `rcm@7.2`
/// while the stack pins `hp@5.7`. Only `rsp` can change that: blaming the
/// six for `rbl`'s failure too made the search try their 10^6 combinations
/// (q-e-sirius mi200 gave up after 200,000 alternatives).
#[test]
fn only_the_decisions_that_shaped_a_failure_are_backtracked_over() {
    let f = Fixture::new();
    let dir = f.dir.path().join("recipes");
    let versions: Vec<String> = (0..10).map(|i| format!("1.{i}")).collect();
    let versions: Vec<&str> = versions.iter().map(String::as_str).collect();
    let mut users = Vec::new();
    for i in 0..6 {
        let name = format!("u{i}");
        fs_err::write(
            dir.join(format!("{name}.yaml")),
            recipe(&name, &versions, "dependencies: [rbl]\n"),
        )
        .unwrap();
        users.push(name);
    }
    let mut rsp = format!("dependencies: [{}", users.join(", "));
    for v in ["7.2", "6.4", "5.7"] {
        rsp.push_str(&format!(", {{spec: \"rcm@{v}\", when: \"@{v}\"}}"));
    }
    rsp.push_str("]\n");
    fs_err::write(
        dir.join("rsp.yaml"),
        recipe("rsp", &["7.2", "6.4", "5.7"], &rsp),
    )
    .unwrap();
    let specs = "\"hp@5.7\", rsp";
    let opts = ResolveOptions {
        max_steps: Some(5_000),
        ..ResolveOptions::default()
    };
    let plan = ok(f.resolve_with(specs, &opts));
    assert_eq!(f.node(&plan, "rsp"), "rsp@5.7");
    assert_eq!(f.node(&plan, "rbl"), "rbl@5.7");
    assert_eq!(f.node(&plan, "u5"), "u5@1.9");
}

#[test]
fn the_failure_that_ended_the_search_is_reported_with_the_first_clash_below() {
    let f = Fixture::new();
    // lg@2 asks, through mid@2, for fm@12, ump for fm@9:11: backtracking
    // takes lg@1 and gets past that clash; libu's conflict with zz@:1,
    // checked once everything is decided, then ends the search.
    let text = f.resolve("lg, ump, libu").unwrap_err().to_string();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("cannot resolve environment `e`"),
        "{text}"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .contains("`libu@1.0` conflicts with `^zz@:1`"),
        "{text}"
    );
    assert!(
        text.contains(
            "the first clash met, which backtracking went past: `mid@2` requires `fm@12`"
        ),
        "{text}"
    );
}

#[test]
fn when_a_flip_got_past_the_first_cause_the_failure_after_it_is_reported() {
    let f = Fixture::new();
    // cond's default +hdf5_compat clashes with adio's hd@1.12:; the flip
    // to ~hdf5_compat gets past that, and usr's conflict then ends it.
    // The clash refused cond's candidates as they were applied: no failure
    // was met before the one shown.
    let text = f.resolve("usr, adio").unwrap_err().to_string();
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .contains("`usr@1.0` conflicts with `^cond~hdf5_compat`"),
        "{text}"
    );
    assert!(!text.contains("the first clash met"), "{text}");
}

#[test]
fn two_dependents_asking_for_ranges_meet_at_an_older_version() {
    let f = Fixture::new();
    let plan = ok(f.resolve("fm, splog, ump"));
    assert_eq!(f.node(&plan, "splog"), "splog@1.15");
    assert_eq!(f.node(&plan, "fm"), "fm@11.0");
}

#[test]
fn a_default_variant_of_the_condition_flips_after_every_version() {
    let f = Fixture::new();
    let plan = ok(f.resolve("cond, adio"));
    // hdf5_compat exists only with +hdf5: it flips, hdf5 stays.
    assert_eq!(f.node(&plan, "cond"), "cond@0.9 +hdf5 ~hdf5_compat");
    assert_eq!(f.node(&plan, "hd"), "hd@1.14");
    let choices = render_choices(&plan);
    assert!(
        choices.contains("`cond@0.9` takes `~hdf5_compat`, not the default `+hdf5_compat`, as `hd@1.8` when `+hdf5 +hdf5_compat` clashes with the other requirements on `hd`"),
        "{choices}"
    );
    // Asked for, it stays, and the clash is the failure, with positions.
    let text = f
        .resolve("\"cond+hdf5_compat\", adio")
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("`cond` requires `hd@1.8` when `+hdf5 +hdf5_compat` ("),
        "{text}"
    );
    assert!(text.contains("`adio@2.10` requires `hd@1.12:` ("), "{text}");
    assert!(text.contains("; tried 0.9, 0.8"), "{text}");
}

#[test]
fn a_flip_learnt_after_a_conflict_flip_is_tried_too() {
    let f = Fixture::new();
    // tril~epetra flips aztec (a conflict) in the first flipped attempt;
    // then kk+wrapper clashes with `kk~wrapper` and tril takes +wrapper.
    let plan = ok(f.resolve("\"kk+wrapper\", \"tril~epetra\""));
    assert_eq!(
        f.node(&plan, "tril"),
        "tril@16.0 ~aztec ~epetra +kokkos +wrapper"
    );
    // Without the conflict, the same.
    let plan = ok(f.resolve("\"kk+wrapper\", tril"));
    assert_eq!(
        f.node(&plan, "tril"),
        "tril@16.0 +aztec +epetra +kokkos +wrapper"
    );
    // With wrapper asked for, kokkos is the variant left to flip.
    let plan = ok(f.resolve("\"kk+wrapper\", \"tril~wrapper\""));
    assert_eq!(
        f.node(&plan, "tril"),
        "tril@16.0 +aztec +epetra ~kokkos ~wrapper"
    );
    // With both asked for, nothing is: the clash, which refuses tril as it
    // is applied, is the failure.
    let text = f
        .resolve("\"kk+wrapper\", \"tril~wrapper+kokkos\"")
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("`tril@16.0` requires `kk~wrapper` when `+kokkos ~wrapper` ("),
        "{text}"
    );
    assert!(
        text.contains("but the stack asks for `kk+wrapper` ("),
        "{text}"
    );
}

#[test]
fn a_default_variant_asking_for_a_package_no_repository_has_flips() {
    let f = Fixture::new();
    let plan = ok(f.resolve("\"shm +python\""));
    assert_eq!(f.node(&plan, "shm"), "shm@3.4 +python ~pytorch");
    let choices = render_choices(&plan);
    assert!(
        choices.contains("takes `~pytorch`, not the default `+pytorch`, as `no-such-pkg@2.6:` when `+python +pytorch` no repository has a recipe for `no-such-pkg`"),
        "{choices}"
    );
    // Asked for, the missing package is the failure.
    let text = f
        .resolve("\"shm +python +pytorch\"")
        .unwrap_err()
        .to_string();
    assert!(text.contains("no-such-pkg"), "{text}");
}

/// A search that gives up says so, and that the failure shown is the first
/// clash it met, whatever that failure's own hint.
#[test]
fn a_search_that_gives_up_says_so() {
    let f = Fixture::new();
    let opts = ResolveOptions {
        max_steps: Some(2),
        ..ResolveOptions::default()
    };
    let text = f
        .resolve_with("splog, ump, libu", &opts)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("the search gave up after trying 3 alternatives: the failure above is the first clash it met"),
        "{text}"
    );
    assert!(text.contains("to narrow the search"), "{text}");
    // With room, the same search ends on its real failure.
    let text = f.resolve("splog, ump, libu").unwrap_err().to_string();
    assert!(!text.contains("gave up"), "{text}");
}

/// A root's `%virtual=provider` is a requirement, not a preference: when
/// the provider fails, the virtual gets no other one.
#[test]
fn a_provider_a_root_names_for_a_virtual_is_the_only_one() {
    let f = Fixture::new();
    let plan = ok(f.resolve("ms"));
    assert_eq!(f.node(&plan, "lva"), "lva@1.0");
    let text = f.resolve("\"ms %lv=lvm\"").unwrap_err().to_string();
    assert!(text.contains("hp@9"), "{text}");
    assert!(!text.contains("lva"), "{text}");
}

/// Each `provides:` entry of a provider is a way to provide the virtual:
/// llvm provides `libllvm` when `@22`, when `@21`, …; py-llvmlite's
/// `llvm@20` takes the entry that fits.
#[test]
fn every_provides_entry_of_a_provider_is_an_alternative() {
    let f = Fixture::new();
    let plan = ok(f.resolve("lvuser, lvpin"));
    assert_eq!(f.node(&plan, "lvp"), "lvp@1.0");
    let plan = ok(f.resolve("lvuser"));
    assert_eq!(f.node(&plan, "lvp"), "lvp@2.0");
}
