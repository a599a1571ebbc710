//! Shipped recipes keep every version Spack lists (#34 item 4): a recipe of
//! `recipes/` named like a package of spack-packages has each version with a
//! source (an archive or a git reference) that the importer translates from
//! that package.py. alps-uenv's prgenv-gnu 24.7 asks `ninja@1.11`, which
//! `recipes/ninja.yaml` had dropped. Versions without a source (the
//! external-only cray-mpich's and cray-pmi's in spack-packages) are not
//! asked: Spack cannot fetch them either, and those recipes build the
//! vendor's binaries.
//!
//! The suite has no spack-packages checkout, so the versions are shipped as
//! facts in `tests/fixtures/recipe-spack-versions.txt` (written by
//! `scripts/recipe-spack-versions.py --list` from the pinned checkout).
//! With a checkout in `STACK_SPACK_PACKAGES`, the second test checks that
//! the list is what that checkout gives (it says loudly when it is skipped).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::harness::root;

use stack::import::spack::{Origin, convert};

fn list_path() -> PathBuf {
    root().join("tests/fixtures/recipe-spack-versions.txt")
}

/// The shipped list: package → versions.
fn shipped_list() -> BTreeMap<String, BTreeSet<String>> {
    let text = fs_err::read_to_string(list_path()).unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, version) = line.split_once(' ').unwrap();
        out.entry(name.to_string())
            .or_default()
            .insert(version.to_string());
    }
    out
}

/// The versions of `recipes/<name>.yaml`, as written.
fn recipe_versions(path: &Path) -> BTreeSet<String> {
    let (recipe, diags) = stack::recipes::load_package(path, &root().join("recipes"));
    assert!(!diags.has_errors(), "{}: {diags:?}", path.display());
    recipe
        .unwrap()
        .versions
        .iter()
        .map(|v| v.text.clone())
        .collect()
}

#[test]
fn shipped_recipes_keep_every_version_spack_lists() {
    let list = shipped_list();
    assert!(list.len() > 40, "{} packages listed", list.len());
    let mut missing = Vec::new();
    for (name, versions) in &list {
        let path = root().join("recipes").join(format!("{name}.yaml"));
        assert!(
            path.is_file(),
            "{name} is listed, recipes/ has no such recipe"
        );
        let ours = recipe_versions(&path);
        missing.extend(
            versions
                .iter()
                .filter(|v| !ours.contains(*v))
                .map(|v| format!("{name}@{v}")),
        );
    }
    assert!(
        missing.is_empty(),
        "{} versions of spack-packages missing from recipes/ (scripts/recipe-spack-versions.py --write adds them): {}",
        missing.len(),
        missing.join(" ")
    );
}

#[test]
fn the_shipped_list_is_what_the_checkout_lists() {
    let test = "the_shipped_list_is_what_the_checkout_lists";
    let Some(checkout) = stack::settings::spack_packages() else {
        eprintln!("SKIPPED {test}: set STACK_SPACK_PACKAGES to a spack-packages checkout");
        return;
    };
    let packages = stack::import::packages_dir(&checkout).unwrap();
    let mut recipes: Vec<PathBuf> = fs_err::read_dir(root().join("recipes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    recipes.sort();
    let mut spack: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in recipes {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = packages.join(stack::import::dir_name(&name));
        let Ok(src) = fs_err::read_to_string(dir.join("package.py")) else {
            continue;
        };
        let versions = convert(&name, &src, &dir, &Origin::default()).fetchable_version_names();
        if !versions.is_empty() {
            spack.insert(name, versions.into_iter().collect());
        }
    }
    let shipped = shipped_list();
    let differ: Vec<String> = spack
        .keys()
        .chain(shipped.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|n| spack.get(*n) != shipped.get(*n))
        .map(|n| {
            let (a, b) = (
                spack.get(n).cloned().unwrap_or_default(),
                shipped.get(n).cloned().unwrap_or_default(),
            );
            format!(
                "{n}: checkout only {:?}, list only {:?}",
                a.difference(&b).collect::<Vec<_>>(),
                b.difference(&a).collect::<Vec<_>>()
            )
        })
        .collect();
    assert!(
        differ.is_empty(),
        "{} differs from {} (scripts/recipe-spack-versions.py --list rewrites it):\n{}",
        list_path().display(),
        checkout.display(),
        differ.join("\n")
    );
}
