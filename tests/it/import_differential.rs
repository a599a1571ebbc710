//! The differential check (#34): imported recipes compared with the
//! directives their package.py records when the Python package API layer's
//! oracle (`src/build_logic/python/directives.py`) runs the class body — for
//! our fixtures, and for a fixed, seeded sample of a spack-packages checkout
//! (`STACK_SPACK_PACKAGES`; the test says loudly when it is skipped). Every
//! difference must be flagged in `imported.untranslated`: none is silent.

use std::path::{Path, PathBuf};

use crate::harness::root;

use stack::import::differential::{PackageCheck, Standing, check, package_names, sample};

/// The oracle, or `None` (said on stderr) when the layer is not there.
fn layer(test: &str) -> Option<PathBuf> {
    let layer = root().join("src/build_logic/python");
    if layer.join("directives.py").is_file() {
        return Some(layer);
    }
    eprintln!("SKIPPED {test}: no oracle at {}", layer.display());
    None
}

fn silent(checks: &[PackageCheck]) -> Vec<String> {
    checks
        .iter()
        .flat_map(|c| {
            c.differences
                .iter()
                .filter(|d| d.standing == Standing::Silent)
                .map(move |d| format!("{}: {d}", c.name))
        })
        .collect()
}

fn check_all(repo: &Path, names: &[String], layer: &Path) -> Vec<PackageCheck> {
    let (counts, checks) = check(repo, names, Path::new("python3"), layer).unwrap();
    eprintln!("{}: {counts}", repo.display());
    assert_eq!(counts.packages, names.len());
    checks
}

/// The suite's form (CI has no spack-packages): the importer's fixtures.
#[test]
fn fixture_packages_have_no_silent_differences() {
    let Some(layer) = layer("fixture_packages_have_no_silent_differences") else {
        return;
    };
    for dir in [
        "tests/fixtures/import/spack",
        "tests/fixtures/import/fidelity",
    ] {
        let repo = root().join(dir);
        let names = package_names(&repo);
        assert!(names.len() > 10, "{dir}");
        let checks = check_all(&repo, &names, &layer);
        let s = silent(&checks);
        assert!(
            s.is_empty(),
            "{dir}: {} silent differences:\n{}",
            s.len(),
            s.join("\n")
        );
    }
}

/// The sample: 60 packages of the checkout, the same ones for the same
/// checkout (seed 34). The whole repository: `scripts/import-differential.sh`.
#[test]
fn a_seeded_sample_of_spack_packages_has_no_silent_differences() {
    let test = "a_seeded_sample_of_spack_packages_has_no_silent_differences";
    let Some(checkout) = stack::settings::spack_packages() else {
        eprintln!("SKIPPED {test}: set STACK_SPACK_PACKAGES to a spack-packages checkout");
        return;
    };
    let Some(layer) = layer(test) else { return };
    let names = sample(&package_names(&checkout), 60, 34);
    assert_eq!(names.len(), 60, "{}", checkout.display());
    let checks = check_all(&checkout, &names, &layer);
    let s = silent(&checks);
    assert!(
        s.is_empty(),
        "{} silent differences:\n{}",
        s.len(),
        s.join("\n")
    );
}
