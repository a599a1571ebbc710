//! The build system registry (`stack::build_kinds`) is the one place a kind
//! is declared: every registered kind loads through the package-recipe
//! loader with each of its keys, and the build side finds it by the job's
//! kind name (the tools the registry gives are the ones a job of that kind
//! declares).

use std::path::Path;

use stack::build::BuildSystem;
use stack::build::host_tools::build_system_tools;
use stack::build_kinds::{self, KINDS};
use stack::diag::{Diagnostics, SourceFile};
use stack::recipes::parse_package;

fn load(build: &str) -> (Option<stack::recipes::PackageRecipe>, Diagnostics) {
    let text = format!(
        "name: p\ndescription: d\nversions:\n  - version: \"1.0\"\n    \
         url: https://example.org/p-1.0.tar.gz\n    sha256: {}\nbuild:\n{build}",
        "0".repeat(64)
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    fs_err::write(&file, text).unwrap();
    let src = SourceFile::read(&file).unwrap();
    let mut d = Diagnostics::new();
    (parse_package(&src, Path::new(dir.path()), &mut d), d)
}

#[test]
fn every_registered_kind_loads_as_a_recipe_with_its_keys() {
    for k in KINDS {
        let (r, d) = load(&format!("  system: {}\n", k.name()));
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
                let (_, d) = load(&format!("  system: {}\n  {key}: []\n", k.name()));
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
