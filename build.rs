//! Build script: `STACK_TRANSLATOR_HASH`, a fingerprint of the sources that
//! decide what a Spack package translates to and whether the translation
//! loads (src/import, src/recipes, src/spec). The stackinator glue keys its
//! cache of translated Spack repositories with it, so a changed importer
//! re-translates instead of serving recipes translated by an older one.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

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

fn main() {
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
}
