//! The build system registry (`stack::build_kinds`) is the one place a kind
//! is declared: every registered kind loads through the package-recipe
//! loader with each of its keys, and the build side finds it by the job's
//! kind name (the tools the registry gives are the ones a job of that kind
//! declares).

use stack::build::BuildSystem;
use stack::build::host_tools::build_system_tools;
use stack::build_kinds::{self, KINDS};
use stack::diag::{Diagnostics, SourceFile};
use stack::recipes::parse_package;

/// The package file below `<dir>/spack/` that a package-file key names.
const PACKAGE_PY: &str = "class P:\n    pass\n";

fn load(build: &str) -> (Option<stack::recipes::PackageRecipe>, Diagnostics) {
    let text = format!(
        "name: p\ndescription: d\nversions:\n  - version: \"1.0\"\n    \
         url: https://example.org/p-1.0.tar.gz\n    sha256: {}\nbuild:\n{build}",
        "0".repeat(64)
    );
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("recipes");
    fs_err::create_dir_all(&repo).unwrap();
    let py = dir.path().join("spack/ns/p/package.py");
    fs_err::create_dir_all(py.parent().unwrap()).unwrap();
    fs_err::write(&py, PACKAGE_PY).unwrap();
    let file = repo.join("p.yaml");
    fs_err::write(&file, text).unwrap();
    let src = SourceFile::read(&file).unwrap();
    let mut d = Diagnostics::new();
    (parse_package(&src, &repo, &mut d), d)
}

/// A kind's `build:` section with its required keys (package files).
fn minimal(k: &dyn build_kinds::BuildKind) -> String {
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(PACKAGE_PY.as_bytes()));
    let mut text = format!("  system: {}\n", k.name());
    for key in k.keys() {
        if key.ty == build_kinds::KeyType::File {
            text.push_str(&format!(
                "  {}: {{file: ns/p/package.py, sha256: {sha}}}\n",
                key.name
            ));
        }
    }
    text
}

#[test]
fn every_registered_kind_loads_as_a_recipe_with_its_keys() {
    for k in KINDS {
        let (r, d) = load(&minimal(*k));
        let r = r.unwrap_or_else(|| panic!("{}: {d}", k.name()));
        assert!(!d.has_errors(), "{}: {d}", k.name());
        assert_eq!(r.build.system.name(), k.name());
        let own = build_kinds::key_names(*k);
        // A key of another kind is refused, naming the kinds that take it.
        for other in KINDS.iter().filter(|o| o.name() != k.name()) {
            for key in build_kinds::key_names(*other)
                .into_iter()
                .filter(|key| !own.contains(key))
            {
                let (_, d) = load(&format!("{}  {key}: []\n", minimal(*k)));
                assert!(d.has_errors(), "{} accepted {key}", k.name());
            }
        }
    }
    let (_, d) = load("  system: cmak\n");
    assert!(d.has_errors());
    assert!(d.to_string().contains("unknown build system `cmak`"), "{d}");
}

#[test]
fn every_kind_is_found_by_jobs_with_its_tools() {
    for k in KINDS {
        let s = BuildSystem::new(k.name());
        assert_eq!(s.kind().map(|f| f.name()), Some(k.name()));
        assert_eq!(build_system_tools(&s), k.tools());
    }
    assert_eq!(
        build_system_tools(&BuildSystem::new("cmake")),
        ["cmake", "ctest", "cpack"]
    );
    assert!(BuildSystem::new("scons").kind().is_none());
}
