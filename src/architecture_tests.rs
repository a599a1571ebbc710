//! The module import matrix of `src/lib.rs`, checked: every `crate::…` path
//! in the code (comments aside) of a top-level module names a module that
//! module may use. A new module, or a new edge, is added here on purpose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which top-level modules each module may use. Stages use earlier stages
/// (and `diag`, `spec`, `settings`); `pipeline` runs them all; `ops` sits
/// on top.
pub(crate) const ALLOWED: &[(&str, &[&str])] = &[
    ("diag", &[]),
    // Advisory file locks: the source cache's entries, the build directory.
    ("lock", &[]),
    // Build logic at build time (the Python package API layer, the request,
    // the interpreter): read by the kinds, the recipe loader, the hash and
    // the build stage.
    ("build_logic", &["settings"]),
    // The build system kinds: read by the recipe loader and the build stage.
    // `build_logic`: the `spack` kind runs it.
    ("build_kinds", &["build_logic"]),
    // File filters (`filter:` of a build section, Spack's filter_file): read
    // by the recipe loader and the importer, run by the build stage.
    ("file_filter", &[]),
    ("spec", &["diag"]),
    ("settings", &[]),
    // Opening below a directory without links, with or without `openat2`.
    ("beneath", &[]),
    // The trust roots of every HTTPS client (registry, sources, git).
    ("tls", &["settings"]),
    // Tera without the environment, files, time or randomness: recipes,
    // hooks and module templates.
    ("template", &["diag"]),
    // `stack import spack`: package.py in, recipe files out (nothing
    // downstream sees it).
    (
        "import",
        &["diag", "spec", "settings", "file_filter", "beneath"],
    ),
    // Stackinator recipe and cluster directories → our recipe files (Spack
    // repositories through `import`).
    (
        "stackinator",
        &["diag", "spec", "settings", "import", "recipes"],
    ),
    (
        "recipes",
        &[
            "diag",
            "spec",
            "settings",
            "build_kinds",
            "build_logic",
            "file_filter",
            "template",
        ],
    ),
    // `sign`: the binary cache's trusted keys are part of the cluster config.
    ("cluster", &["diag", "spec", "settings", "recipes", "sign"]),
    // `settings`: the built-in repository's index lives in the cache.
    (
        "stacks",
        &["diag", "spec", "settings", "recipes", "cluster", "template"],
    ),
    // `build_logic`: node hashes cover the layer's version.
    (
        "resolve",
        &[
            "diag",
            "spec",
            "recipes",
            "cluster",
            "stacks",
            "build_logic",
        ],
    ),
    // `recipes`: `stack checksum` turns a recipe's versions into requests.
    (
        "fetch",
        &["diag", "spec", "settings", "recipes", "tls", "lock"],
    ),
    ("patch", &["diag", "fetch"]),
    ("store", &["diag", "lock", "beneath"]),
    // The namespaces builds and hooks run in: nothing but libc.
    ("sandbox", &[]),
    (
        "build",
        &[
            "diag",
            "spec",
            "settings",
            "store",
            "lock",
            "build_kinds",
            "build_logic",
            "file_filter",
            "sandbox",
        ],
    ),
    // `sandbox`: the hooks run in the build's namespace.
    // `resolve`: `stack diff` and `stack find` read lock files and plans.
    (
        "view",
        &[
            "diag", "spec", "settings", "store", "sandbox", "resolve", "template",
        ],
    ),
    ("image", &["diag", "settings", "view"]),
    // Runs alone in CI: nothing but diagnostics.
    ("audit", &["diag"]),
    // The build report: the plan (a lock file) and the records of the
    // earlier stages, read as files.
    ("report", &["diag", "resolve"]),
    // Checks installed prefixes and images against their manifests.
    ("verify", &["diag", "settings", "store", "view", "image"]),
    // The OCI side: a registry client, signatures over it, uenv images in
    // it, and the per-package binary cache that build hooks into.
    ("registry", &["diag", "settings", "tls"]),
    ("sign", &["diag", "registry"]),
    ("oci", &["diag", "settings", "registry", "sign"]),
    (
        "binary_cache",
        &[
            "diag", "spec", "settings", "store", "build", "resolve", "registry", "sign", "oci",
        ],
    ),
    // Builds beyond one machine: the plan's packages as Slurm jobs and CI
    // pipelines; the cluster's `ci:` settings.
    (
        "remote",
        &[
            "diag",
            "settings",
            "cluster",
            "resolve",
            "store",
            "build",
            "binary_cache",
        ],
    ),
    // Plan + package recipes → build jobs: templates rendered, `when:`
    // decided, compiler flags, the build logic's request.
    (
        "render",
        &[
            "diag",
            "spec",
            "recipes",
            "resolve",
            "store",
            "build",
            "build_logic",
            "file_filter",
            "template",
        ],
    ),
    (
        "pipeline",
        &[
            "render",
            "diag",
            "lock",
            "spec",
            "settings",
            "recipes",
            "cluster",
            "stacks",
            "resolve",
            "fetch",
            "patch",
            "store",
            "build",
            "build_logic",
            "sandbox",
            "file_filter",
            "view",
            "image",
            "audit",
            "verify",
            "registry",
            "sign",
            "oci",
            "binary_cache",
            "remote",
            "report",
            "template",
        ],
    ),
    (
        "ops",
        &[
            "diag",
            // `build_logic`: the layer's version keys the package API check's cache
            "build_logic",
            // `import`: Spack's directory names in stackinator diagnostics
            "import",
            "stackinator",
            "spec",
            "settings",
            "recipes",
            "cluster",
            "stacks",
            "resolve",
            "fetch",
            "patch",
            "store",
            "build",
            "view",
            "image",
            "audit",
            "pipeline",
            "verify",
            "registry",
            "sign",
            "oci",
            "binary_cache",
            "remote",
            "report",
        ],
    ),
];

/// What a module's test files (`tests.rs`, `*_tests.rs`) may use beyond
/// the matrix: a later stage that checks what the module writes.
const TEST_ALLOWED: &[(&str, &[&str])] = &[
    // the importer's tests load the recipes it writes with the real loader
    ("import", &["recipes"]),
];

fn is_test_file(file: &Path) -> bool {
    file.file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s == "tests" || s.ends_with("_tests"))
}

/// Top-level modules named after `crate::` in `code`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::X, b, c::{…}}` on one line: the first
                // segment of each top-level item.
                let mut depth = 0;
                let mut item_start = true;
                for (j, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => item_start = true,
                        c if item_start && (c.is_ascii_alphabetic() || c == '_') => {
                            out.insert(ident(&group[j..]));
                            item_start = false;
                        }
                        _ => {}
                    }
                }
            } else {
                out.insert(ident(rest));
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn modules_import_only_what_the_matrix_allows() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut problems = Vec::new();
    for entry in fs_err::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let module = stem.to_string();
        if [
            "lib",
            "main",
            "cli",
            "bin",
            "architecture_tests",
            "drawing_tests",
            "function_length_tests",
        ]
        .contains(&module.as_str())
        {
            continue;
        }
        let Some(may) = allowed.get(module.as_str()) else {
            problems.push(format!("module `{module}` is not in the import matrix"));
            continue;
        };
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else {
            files.push(path.clone());
        }
        for file in files {
            let code = fs_err::read_to_string(&file).unwrap();
            let test_may: &[&str] = match is_test_file(&file) {
                true => TEST_ALLOWED
                    .iter()
                    .find(|(m, _)| *m == module)
                    .map_or(&[], |(_, t)| *t),
                false => &[],
            };
            for used in crate_paths(&code) {
                if used != module
                    && allowed.contains_key(used.as_str())
                    && !may.contains(&used.as_str())
                    && !test_may.contains(&used.as_str())
                {
                    problems.push(format!(
                        "{}: `{module}` uses `crate::{used}`",
                        file.strip_prefix(&src).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn crate_paths_reads_plain_and_grouped_uses() {
    let code = "use crate::build::{self, X};\n// crate::audit in a comment\n\
                use crate::{diag::Loc, spec, view::{a, b}};\nlet x = crate::store::wipe(p);\n";
    let got: Vec<String> = crate_paths(code).into_iter().collect();
    assert_eq!(got, ["build", "diag", "spec", "store", "view"]);
}
