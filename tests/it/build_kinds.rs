//! The build system registry (`stack::build_kinds`) is the one place a kind
//! is declared: every registered kind loads through the package-recipe
//! loader with each of its keys, and the build side runs it (its `System`
//! keyword is registered, and the tools the registry gives are the ones a
//! job of that kind declares).

use std::path::Path;

use stack::build::host_tools::build_system_tools;
use stack::build::{Autotools, Binary, BuildSystem, CMake, Generic, Makefile, Meson};
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
        let (r, d) = load(&format!("  system: {}\n", k.name));
        let r = r.unwrap_or_else(|| panic!("{}: {d}", k.name));
        assert!(!d.has_errors(), "{}: {d}", k.name);
        assert_eq!(r.build.system.name(), k.name);
        // A key of another kind is refused, naming the kinds that take it.
        for other in KINDS.iter().filter(|o| o.name != k.name) {
            for key in other.keys.iter().filter(|key| !k.keys.contains(key)) {
                let (_, d) = load(&format!("  system: {}\n  {key}: []\n", k.name));
                assert!(d.has_errors(), "{} accepted {key}", k.name);
            }
        }
    }
    let (_, d) = load("  system: cmak\n");
    assert!(d.has_errors());
    assert!(d.to_string().contains("unknown build system `cmak`"), "{d}");
}

#[test]
fn every_build_side_system_is_registered_with_its_tools() {
    let systems = [
        BuildSystem::Autotools(Autotools::default()),
        BuildSystem::CMake(CMake::default()),
        BuildSystem::Meson(Meson::default()),
        BuildSystem::Makefile(Makefile::default()),
        BuildSystem::Generic(Generic::default()),
        BuildSystem::Binary(Binary::default()),
    ];
    let keywords: Vec<&str> = systems.iter().map(|s| s.keyword()).collect();
    assert_eq!(
        keywords,
        build_kinds::names(),
        "registry and build side differ"
    );
    for s in &systems {
        let k = build_kinds::get(s.keyword()).unwrap();
        assert_eq!(build_system_tools(s), k.tools);
    }
    assert_eq!(
        build_system_tools(&BuildSystem::CMake(CMake::default())),
        ["cmake", "ctest", "cpack"]
    );
}
