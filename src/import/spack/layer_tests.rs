//! The folders of `import/spack` depend one way, in the order of the
//! pipeline: a folder's code (its tests aside) names only itself and the
//! folders before it, never the module root (which runs them all).

use std::path::{Path, PathBuf};

/// The folders, first step first.
const LAYERS: &[&str] = &["reader", "evaluator", "directives", "hooks", "emit"];

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

/// The code of a file without its test modules and comments.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segment after each `crate::import::spack::` in `code`.
fn spack_paths(code: &str) -> Vec<String> {
    let prefix = "crate::import::spack::";
    code.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &code[i + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            rest[..end].to_string()
        })
        .collect()
}

#[test]
fn folders_use_only_themselves_and_earlier_folders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/import/spack");
    let mut wrong = Vec::new();
    for (at, layer) in LAYERS.iter().enumerate() {
        let mut files = Vec::new();
        rust_files(&root.join(layer), &mut files);
        assert!(!files.is_empty(), "no files in {layer}");
        for file in files {
            let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            if stem == "tests" || stem.ends_with("_tests") {
                continue;
            }
            let code = code(&fs_err::read_to_string(&file).unwrap());
            let name = file.strip_prefix(&root).unwrap().display().to_string();
            if code.contains("super::super::") && !name.contains("/flags/") {
                wrong.push(format!(
                    "{name}: names the module root through super::super"
                ));
            }
            for target in spack_paths(&code) {
                match LAYERS.iter().position(|l| *l == target) {
                    Some(t) if t <= at => {}
                    Some(_) => wrong.push(format!("{name} ({layer}) uses the later {target}")),
                    None => wrong.push(format!("{name} ({layer}) uses the module root's {target}")),
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn paths_and_test_modules_are_read_as_code_is() {
    let text = "use crate::import::spack::evaluator::value::Value; // crate::import::spack::emit\n\
                fn f() { crate::import::spack::reader::parsed::parse(\"\"); }\n\
                #[cfg(test)]\nmod tests { use crate::import::spack::hooks; }\n";
    assert_eq!(spack_paths(&code(text)), vec!["evaluator", "reader"]);
}
