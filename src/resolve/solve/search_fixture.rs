//! The fixture of the search tests (`backtrack_tests`, `separate_tests`):
//! small recipes written to a temporary directory, one per shape met in the
//! alps-uenv recipes (issue #15), and an environment resolved from them.

use std::path::Path;

use crate::resolve::{Plan, ResolveError, ResolveOptions, resolve};
use crate::stacks::{InputOptions, load_inputs};

const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A recipe `name` with `versions`, a generic build and `extra`.
pub(super) fn recipe(name: &str, versions: &[&str], extra: &str) -> String {
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

/// Build tools built twice (`separate_tests.rs`).
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
        // A dependent's conditions on its separate build: a conflict, and a
        // build-time `when:`.
        (
            "grpcc",
            recipe(
                "grpcc",
                &["1.75"],
                "dependencies:\n  - {spec: \"cy@3.1:\", type: build}\n\
                 conflicts:\n  - {when: \"^cy@3.1\", message: \"cy 3.1 miscompiles it\"}\n",
            ),
        ),
        (
            "grpce",
            recipe(
                "grpce",
                &["1.75"],
                "dependencies:\n  - {spec: \"cy@3.1:\", type: build}\n\
                 env:\n  - {set: {CY31: \"1\"}, when: \"^cy@3.1\"}\n",
            ),
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

/// Separate builds that separate again: `nt@1` (for `nd1`) and `nt@2`
/// (for `nd2`) build with `nu@1` and link `nl`, which builds with `nu@2`.
fn nested_recipes() -> Vec<(&'static str, String)> {
    let tool = "build_tool: true\n";
    vec![
        ("nu", recipe("nu", &["2.0", "1.0"], tool)),
        (
            "nl",
            recipe(
                "nl",
                &["1.0"],
                "dependencies:\n  - {spec: \"nu@2\", type: build}\n",
            ),
        ),
        (
            "nt",
            recipe(
                "nt",
                &["2.0", "1.0"],
                "build_tool: true\ndependencies:\n  - {spec: \"nu@1\", type: build}\n  - {spec: nl, type: link}\n",
            ),
        ),
        (
            "nd1",
            recipe(
                "nd1",
                &["1.0"],
                "dependencies:\n  - {spec: \"nt@1\", type: build}\n\
                 env:\n  - {set: {NU1: \"1\"}, when: \"^nu@1\"}\n",
            ),
        ),
        (
            "nd2",
            recipe(
                "nd2",
                &["1.0"],
                "dependencies:\n  - {spec: \"nt@2\", type: build}\n",
            ),
        ),
    ]
}

/// Providers named by a root, and per-version `provides:` entries.
fn provider_recipes() -> Vec<(&'static str, String)> {
    vec![
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
    ]
}

pub(super) struct Fixture {
    pub(super) dir: tempfile::TempDir,
}

impl Fixture {
    pub(super) fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("recipes");
        fs_err::create_dir(&repo).unwrap();
        for (name, text) in recipes()
            .into_iter()
            .chain(tool_recipes())
            .chain(provider_recipes())
            .chain(nested_recipes())
        {
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

    pub(super) fn resolve_with(
        &self,
        specs: &str,
        opts: &ResolveOptions,
    ) -> Result<Plan, ResolveError> {
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
    pub(super) fn node(&self, plan: &Plan, name: &str) -> String {
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
