//! Build script:
//!
//! * `STACK_TRANSLATOR_HASH`, a fingerprint of the sources that decide what
//!   a Spack package translates to and whether the translation loads
//!   (src/import, src/recipes, src/spec). The stackinator glue keys its
//!   cache of translated Spack repositories with it, so a changed importer
//!   re-translates instead of serving recipes translated by an older one.
//! * `STACK_SOURCE_HASH`, a fingerprint of every source file (`src/`),
//!   `build.rs` and `Cargo.lock`: the cache of loaded recipes
//!   (`src/recipes/parsed_cache.rs`) reads only entries written by a
//!   binary built from the same sources, so a changed model, loader or
//!   dependency never reads an older layout.
//! * `$OUT_DIR/build_logic_files.rs`: every file of the Python package API
//!   layer (`src/build_logic/python/`, its `tests/` directories and Python
//!   caches left out) as an `include_bytes!` entry, and `API_VERSION`, the
//!   sha256 of their relative paths and contents (`crate::build_logic`). A
//!   new file there needs no Rust edit.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The Python layer's tree, relative to the package root.
const LAYER_DIR: &str = "src/build_logic/python";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The files of the Python layer below `dir` (relative to `root`), sorted:
/// no `tests/` directory, no `__pycache__`, no compiled or hidden files.
fn layer_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "__pycache__" || name.ends_with(".pyc") {
            continue;
        }
        if p.is_dir() {
            if name != "tests" {
                layer_files(root, &p, out);
            }
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

/// `$OUT_DIR/build_logic_files.rs`: `FILES` and `API_VERSION`.
fn embed_layer() {
    println!("cargo:rerun-if-changed={LAYER_DIR}");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join(LAYER_DIR);
    let mut files = Vec::new();
    layer_files(&root, &root, &mut files);
    files.sort();
    let mut digest = Sha256::new();
    let mut code = String::from("/// Every file of the layer: path relative to its root, bytes.\n");
    code.push_str("pub static FILES: &[(&str, &[u8])] = &[\n");
    for rel in &files {
        let bytes = std::fs::read(root.join(rel)).expect("a layer file is readable");
        digest.update(rel.as_bytes());
        digest.update([0]);
        digest.update((bytes.len() as u64).to_le_bytes());
        digest.update(&bytes);
        code.push_str(&format!(
            "    ({rel:?}, include_bytes!({:?})),\n",
            root.join(rel).to_string_lossy()
        ));
    }
    code.push_str("];\n");
    let hex: String = digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    code.push_str(&format!(
        "/// The sha256 of the layer's files (paths and contents).\npub const API_VERSION: &str = {hex:?};\n"
    ));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("build_logic_files.rs"), code).expect("OUT_DIR is writable");
}

fn main() {
    embed_layer();
    let mut files = Vec::new();
    for dir in ["src/import", "src/recipes", "src/spec"] {
        println!("cargo:rerun-if-changed={dir}");
        rust_files(Path::new(dir), &mut files);
    }
    files.sort();
    let mut h = DefaultHasher::new();
    for f in &files {
        h.write(f.as_os_str().as_encoded_bytes());
        h.write(&std::fs::read(f).unwrap_or_default());
    }
    println!("cargo:rustc-env=STACK_TRANSLATOR_HASH={:016x}", h.finish());
    source_hash();
}

/// `STACK_SOURCE_HASH`: every `.rs` file below `src/`, `build.rs` and
/// `Cargo.lock` (paths and contents).
fn source_hash() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.lock");
    let mut files = vec![PathBuf::from("build.rs"), PathBuf::from("Cargo.lock")];
    rust_files(Path::new("src"), &mut files);
    files.sort();
    let mut h = DefaultHasher::new();
    for f in &files {
        h.write(f.as_os_str().as_encoded_bytes());
        h.write(&std::fs::read(f).unwrap_or_default());
    }
    println!("cargo:rustc-env=STACK_SOURCE_HASH={:016x}", h.finish());
}
