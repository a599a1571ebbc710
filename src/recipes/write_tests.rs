use std::path::{Path, PathBuf};

use crate::diag::{Diagnostics, SourceFile, debug_without_locs};
use crate::recipes::{load_package, parse_package};

/// Every `<dir>/*.yaml` below `root` where `dir` is called `recipes`.
fn recipe_files(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            recipe_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "yaml")
            && root.file_name().is_some_and(|n| n == "recipes")
        {
            out.push(path);
        }
    }
}

/// Loads `path`, writes it, loads the text again (under the same path, so
/// relative paths resolve alike) and compares the two models. `None` for a
/// file that does not load cleanly (fixtures of errors).
fn round_trip(path: &Path) -> Option<(String, String, String)> {
    let repo_dir = path.parent().expect("in a directory");
    let (recipe, diags) = load_package(path, repo_dir);
    let recipe = recipe.filter(|_| !diags.has_errors())?;
    let text = recipe.to_yaml();
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(path, text.clone()), repo_dir, &mut again);
    assert!(
        !again.has_errors(),
        "{}: the written recipe does not load: {:?}\n{text}",
        path.display(),
        again.iter().map(|d| d.to_string()).collect::<Vec<_>>()
    );
    let back = back.expect("loads");
    Some((debug_without_locs(&recipe), debug_without_locs(&back), text))
}

#[test]
fn every_recipe_reads_back_as_the_same_model() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["recipes", "stacks", "tests/fixtures"] {
        let dir = root.join(dir);
        if dir.file_name().is_some_and(|n| n == "recipes") {
            // The built-in repository itself.
            if let Ok(entries) = std::fs::read_dir(&dir) {
                files.extend(
                    entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "yaml")),
                );
            }
        } else {
            recipe_files(&dir, &mut files);
        }
    }
    files.sort();
    let mut checked = 0;
    for path in &files {
        let Some((before, after, text)) = round_trip(path) else {
            continue;
        };
        assert_eq!(before, after, "{}: written as\n{text}", path.display());
        checked += 1;
    }
    // The built-in repository alone has more than 40 recipes.
    assert!(
        checked > 40,
        "only {checked} of {} recipes checked",
        files.len()
    );
}

#[test]
fn defaults_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.yaml");
    let text = "name: tiny\ndescription: A tiny package\nversions:\n- version: \"1.0\"\n  url: https://example.org/tiny-1.0.tar.gz\n  sha256: 0000000000000000000000000000000000000000000000000000000000000000\ndependencies:\n- zlib\n- {spec: cmake, type: [build]}\nbuild:\n  system: makefile\n  make_args: [\"PREFIX={{ prefix }}\"]\n";
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors());
    insta::assert_snapshot!(recipe.to_yaml());
}

#[test]
fn versioned_provides_and_test_dependencies_are_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.yaml");
    let text = "name: tiny\ndescription: d\nversions: [{version: \"1.0\", url: a.tgz, sha256: 0000000000000000000000000000000000000000000000000000000000000000}]\ndependencies: [{spec: check, type: [test]}, {spec: \"mpi@3:\", type: [link, run]}]\nprovides: [\"xmpi@:3.1\", {virtual: \"blas@2:\", when: \"@1:\"}]\nbuild: {system: generic}\n";
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    let written = recipe.to_yaml();
    assert!(written.contains("type: [test]"), "{written}");
    assert!(written.contains("\"xmpi@:3.1\""), "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
}

#[test]
fn build_tool_is_read_and_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cy.yaml");
    let text = "name: cy\ndescription: d\nversions: [{version: \"3.1\", url: a.tgz, sha256: 0000000000000000000000000000000000000000000000000000000000000000}]\nbuild_tool: true\nbuild: {system: generic}\n";
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    assert!(recipe.build_tool);
    let written = recipe.to_yaml();
    assert!(written.contains("build_tool: true"), "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
    // not a boolean: an error at its position
    let bad = text.replace("build_tool: true", "build_tool: yes please");
    let mut d = Diagnostics::new();
    let _ = parse_package(&SourceFile::new(&path, bad), dir.path(), &mut d);
    assert!(
        d.has_errors() && d.to_string().contains("build_tool"),
        "{d}"
    );
}

#[test]
fn libraries_are_read_and_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zz.yaml");
    let text = "name: zz\ndescription: d\nversions: [{version: \"1.0\", url: a.tgz, sha256: 0000000000000000000000000000000000000000000000000000000000000000}]\nlibraries: [libz, libzz_extra]\nbuild: {system: generic}\n";
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    assert_eq!(recipe.library_names(), ["libz", "libzz_extra"]);
    let written = recipe.to_yaml();
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
    // the default: lib<name>, or the name when it starts with lib
    let plain = text.replace("libraries: [libz, libzz_extra]\n", "");
    let mut d = Diagnostics::new();
    let r = parse_package(&SourceFile::new(&path, plain.clone()), dir.path(), &mut d).unwrap();
    assert_eq!(r.library_names(), ["libzz"]);
    let named = plain.replace("name: zz", "name: libfoo");
    let r = parse_package(&SourceFile::new(&path, named), dir.path(), &mut d).unwrap();
    assert_eq!(r.library_names(), ["libfoo"]);
    // a file name, a path or a glob is not a library name: an error at its position
    for bad in ["libz.so.1", "/usr/lib/libz", "libz*", "z"] {
        let text = text.replace("libzz_extra", bad);
        let mut d = Diagnostics::new();
        let _ = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d);
        let shown = d.to_string();
        assert!(
            d.has_errors() && shown.contains(&format!("`{bad}` is not a library name")),
            "{bad}: {shown}"
        );
    }
}

#[test]
fn resource_destinations_are_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.yaml");
    let sha = "0".repeat(64);
    let text = format!(
        "name: tiny\ndescription: d\nversions:\n  - {{version: \"1.0\", url: a.tgz, sha256: {sha}, resources: [{{url: b.tgz, sha256: {sha}, destination: ./data/x/}}, {{url: c.tgz, sha256: {sha}, destination: .}}]}}\nbuild: {{system: generic}}\n"
    );
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    let written = recipe.to_yaml();
    assert!(written.contains("destination: data/x"), "{written}");
    assert_eq!(written.matches("destination").count(), 1, "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
}

#[test]
fn max_size_of_versions_and_resources_is_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    let zero = "0".repeat(64);
    let text = format!(
        "name: big\ndescription: d\nversions:\n- {{version: \"1.0\", url: a.tgz, sha256: {zero}, max_size: 40 GiB,\n   \
         resources: [{{url: b.whl, sha256: {zero}, max_size: 1048576}}]}}\nbuild: {{system: generic}}\n"
    );
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    let written = recipe.to_yaml();
    assert!(written.contains("max_size: \"40 GiB\""), "{written}");
    assert!(written.contains("1048576"), "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
    let crate::recipes::Source::Archive(a) = &back.versions[0].source else {
        panic!("an archive")
    };
    assert_eq!(a.max_size.as_ref().map(|s| s.bytes), Some(40 << 30));
    assert_eq!(
        a.resources[0].max_size.as_ref().map(|s| s.bytes),
        Some(1 << 20)
    );
}

#[test]
fn a_bad_max_size_is_an_error_at_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    let text = format!(
        "name: big\ndescription: d\nversions:\n- {{version: \"1.0\", url: a.tgz, sha256: {}, max_size: 40 GB}}\nbuild: {{system: generic}}\n",
        "0".repeat(64)
    );
    let mut d = Diagnostics::new();
    let _ = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d);
    let errors: Vec<String> = d.iter().map(|e| e.to_string()).collect();
    assert!(d.has_errors());
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`max_size: 40 GB` is not a size: unknown unit `GB`")),
        "{errors:?}"
    );
}

#[test]
fn autotools_out_of_source_is_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.yaml");
    let text = "name: tiny\ndescription: d\nversions: [{version: \"1.0\", url: a.tgz, sha256: 0000000000000000000000000000000000000000000000000000000000000000}]\nbuild: {system: autotools, out_of_source: true}\n";
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    let written = recipe.to_yaml();
    assert!(written.contains("out_of_source: true"), "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
}

#[test]
fn cmake_source_subdir_is_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.yaml");
    let text = "name: tiny\ndescription: d\nversions: [{version: \"1.0\", url: a.tgz, sha256: 0000000000000000000000000000000000000000000000000000000000000000}]\nbuild: {system: cmake, source_subdir: cpp}\n";
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    let written = recipe.to_yaml();
    assert!(written.contains("source_subdir: cpp"), "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
}

#[test]
fn a_variant_defined_once_per_condition_is_written_back_as_a_list() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("std.yaml");
    let zero = "0".repeat(64);
    let text = format!(
        "name: std\ndescription: d\nversions: [{{version: \"5.0\", url: a.tgz, sha256: {zero}}}]\n\
         variants:\n  cxxstd:\n    - {{default: \"17\", values: [\"14\", \"17\"], when: \"@:4\"}}\n    \
         - {{default: \"20\", values: [\"20\", \"23\"], when: \"@5:\"}}\nbuild: {{system: generic}}\n"
    );
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    assert_eq!(recipe.variant_defs("cxxstd").count(), 2);
    assert_eq!(recipe.variant_names().collect::<Vec<_>>(), ["cxxstd"]);
    let written = recipe.to_yaml();
    assert!(written.contains("cxxstd:\n    - "), "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
}

#[test]
fn file_filters_are_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.yaml");
    let sha = "0".repeat(64);
    let text = format!(
        "name: tiny\ndescription: d\nversions: [{{version: \"1.0\", url: a.tgz, sha256: {sha}}}]\nvariants:\n  x: {{default: false}}\n\
         build:\n  system: makefile\n  filter:\n    - {{file: Makefile, regex: \"^(CC\\\\s*=).*\", replace: \"\\\\1 {{{{ compiler.cc }}}}\"}}\n    \
         - {{file: src/a.mk, regex: \"-Werror\", replace: \"\", string: true, ignore_absent: true, when: \"+x\"}}\n"
    );
    let mut d = Diagnostics::new();
    let recipe = parse_package(&SourceFile::new(&path, text), dir.path(), &mut d).unwrap();
    assert!(!d.has_errors(), "{d:?}");
    assert_eq!(recipe.build.filters.len(), 2);
    assert_eq!(recipe.build.filters[0].regex, r"^(CC\s*=).*");
    let written = recipe.to_yaml();
    assert!(written.contains("ignore_absent: true"), "{written}");
    let mut again = Diagnostics::new();
    let back = parse_package(&SourceFile::new(&path, written), dir.path(), &mut again).unwrap();
    assert_eq!(debug_without_locs(&recipe), debug_without_locs(&back));
}
