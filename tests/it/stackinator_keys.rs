//! No key of stackinator's formats is dropped without a word (issue 36):
//! every key of a recipe (config.yaml, compilers.yaml v1/v2,
//! environments.yaml with views, modules.yaml, packages.yaml) and of a
//! cluster (packages.yaml, network.yaml, repos.yaml, the older layout's
//! compilers.yaml and concretizer.yaml) is translated or warned about at
//! its position. A key that reaches the translation's safety net
//! (`stack::not-translated`: read by nothing, named by no diagnostic)
//! fails these tests.
//!
//! The fixtures (tests/fixtures/stackinator/recipe-keys, cluster/keys,
//! cluster/v5) hold every key of the formats and always run. The real
//! repositories run when `STACK_TEST_ALPS_UENV` and
//! `STACK_TEST_ALPS_CLUSTER_CONFIG` name checkouts of
//! github:eth-cscs/alps-uenv and github:eth-cscs/alps-cluster-config:
//!
//!     STACK_TEST_ALPS_UENV=/work/data/alps-uenv \
//!     STACK_TEST_ALPS_CLUSTER_CONFIG=/work/data/alps-cluster-config \
//!         cargo test --test it stackinator_keys

use std::path::{Path, PathBuf};

use stack::diag::{Code, Diagnostics};
use stack::stackinator::{TranslateOptions, translate};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stackinator")
}

/// The translation's diagnostics, whether it succeeded or not.
fn diagnostics(recipe: &Path, cluster: &Path) -> Diagnostics {
    let opts = TranslateOptions {
        recipe: recipe.to_path_buf(),
        cluster: cluster.to_path_buf(),
        spack_packages: None,
        cache: None,
    };
    match translate(&opts) {
        Ok(t) => t.warnings,
        Err(d) => d,
    }
}

/// `file:line: message` of every key that reached the safety net.
fn untranslated(d: &Diagnostics) -> Vec<String> {
    d.iter()
        .filter(|d| d.code == Code::NotTranslated)
        .map(|d| match d.loc() {
            Some(l) => format!("{l}: {}", d.message),
            None => d.message.clone(),
        })
        .collect()
}

/// `file:line: message` of every diagnostic, file names only.
fn listed(d: &Diagnostics) -> String {
    let mut out = String::new();
    for d in d.iter() {
        let kind = if d.is_error() { "error" } else { "warning" };
        match d.loc() {
            Some(l) => out.push_str(&format!(
                "{kind}: {}:{}: {}\n",
                l.file.file_name().unwrap().to_string_lossy(),
                l.line,
                d.message
            )),
            None => out.push_str(&format!("{kind}: {}\n", d.message)),
        }
    }
    out
}

/// Every key of the recipe format: translated, or a warning at its line.
#[test]
fn every_key_of_the_recipe_format_is_translated_or_warned_about() {
    let fx = fixtures();
    let d = diagnostics(&fx.join("recipe-keys"), &fx.join("cluster/keys"));
    assert_eq!(untranslated(&d), Vec::<String>::new());
    insta::assert_snapshot!("recipe_keys_diagnostics", listed(&d));
}

/// The older cluster layout (compilers.yaml, concretizer.yaml) with the
/// stackinator 5 recipe: every key translated or warned about; the OS
/// comes from the compilers' `operating_system`.
#[test]
fn every_key_of_the_older_cluster_layout_is_translated_or_warned_about() {
    let fx = fixtures();
    let opts = TranslateOptions {
        recipe: fx.join("recipe-v1"),
        cluster: fx.join("cluster/v5"),
        spack_packages: None,
        cache: None,
    };
    let t = translate(&opts).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(untranslated(&t.warnings), Vec::<String>::new());
    insta::assert_snapshot!("cluster_v5_diagnostics", listed(&t.warnings));
    let cluster = t.cluster.to_document();
    assert!(
        cluster.contains("target: aarch64\nos: sles15\nlibc: unknown\n"),
        "{cluster}"
    );
}

/// The translated recipe of the keys fixture: stackinator's defaults and
/// settings written out (`add_compilers`, the modules' prefix inspections,
/// exclude/include, autoload, per-package environment).
#[test]
fn the_keys_fixture_translates_into_a_stack_recipe() {
    let fx = fixtures();
    let opts = TranslateOptions {
        recipe: fx.join("recipe-keys"),
        cluster: fx.join("cluster/keys"),
        spack_packages: None,
        cache: None,
    };
    let t = translate(&opts).unwrap_or_else(|d| panic!("{d}"));
    let stack = t.stack.to_document();
    let stack = stack.replace(&fx.display().to_string(), "[FX]");
    insta::assert_snapshot!("recipe_keys_stack_yaml", stack);
    insta::assert_snapshot!("recipe_keys_cluster_yaml", t.cluster.to_document());
}

/// The cluster alps-uenv's CI maps an architecture to (gh200 → daint, …).
fn cluster_of(arch: &str) -> &'static str {
    match arch {
        "gh200" | "aarch64" => "daint",
        "a100" => "bristen",
        "amdgpu" | "mi200" | "mi300" | "hip54" => "beverin",
        "zen3" => "balfrin",
        _ => "eiger",
    }
}

/// Every recipe directory under `dir`.
fn recipe_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("config.yaml").is_file() && dir.join("environments.yaml").is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(rd) = fs_err::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.is_symlink())
        .collect();
    dirs.sort();
    for d in dirs {
        recipe_dirs(&d, out);
    }
}

/// Every key of every recipe of alps-uenv and every cluster of
/// alps-cluster-config (their working trees).
#[test]
fn every_key_of_alps_uenv_and_alps_cluster_config_is_translated_or_warned_about() {
    let (Some(uenv), Some(clusters)) = (
        stack::settings::test_alps_uenv(),
        stack::settings::test_alps_cluster_config(),
    ) else {
        eprintln!(
            "\n*** SKIPPED every_key_of_alps_uenv_and_alps_cluster_config_is_translated_or_warned_about: \
             set STACK_TEST_ALPS_UENV and STACK_TEST_ALPS_CLUSTER_CONFIG to checkouts of \
             github:eth-cscs/alps-uenv and github:eth-cscs/alps-cluster-config ***\n"
        );
        return;
    };
    if !uenv.join("recipes").is_dir() || !clusters.is_dir() {
        eprintln!(
            "\n*** SKIPPED: {} or {} is not a checkout ***\n",
            uenv.display(),
            clusters.display()
        );
        return;
    }
    let mut recipes = Vec::new();
    recipe_dirs(&uenv.join("recipes"), &mut recipes);
    let mut cluster_dirs: Vec<PathBuf> = fs_err::read_dir(&clusters)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("packages.yaml").is_file())
        .collect();
    cluster_dirs.sort();
    assert!(recipes.len() > 50, "{} recipes", recipes.len());
    assert!(cluster_dirs.len() > 5, "{} clusters", cluster_dirs.len());
    let mut missed = Vec::new();
    let mut clusters_seen = Vec::new();
    for r in &recipes {
        let arch = r.file_name().unwrap().to_string_lossy().into_owned();
        let mut cluster = clusters.join(cluster_of(&arch));
        if !cluster.is_dir() {
            cluster = cluster_dirs[0].clone();
        }
        clusters_seen.push(cluster.clone());
        missed.extend(untranslated(&diagnostics(r, &cluster)));
    }
    // Every cluster at least once, with the fixture's recipe.
    for c in cluster_dirs.iter().filter(|c| !clusters_seen.contains(c)) {
        missed.extend(untranslated(&diagnostics(&fixtures().join("recipe-v2"), c)));
    }
    missed.sort();
    missed.dedup();
    eprintln!(
        "stackinator keys: {} recipes, {} clusters walked",
        recipes.len(),
        cluster_dirs.len()
    );
    assert!(
        missed.is_empty(),
        "{} keys neither translated nor warned about:\n{}",
        missed.len(),
        missed.join("\n")
    );
}
