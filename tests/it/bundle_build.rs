//! A version with `source: none` (a Spack bundle) builds from an empty
//! source tree: nothing is fetched, its dependencies are built, its install
//! steps run (docs/recipes.md, versions).

use std::path::Path;
use std::process::Command;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn a_sourceless_version_builds_from_an_empty_tree() {
    let t = tempfile::tempdir().unwrap();
    let t = t.path();
    write(t, "src/leaf-1.0/README", "leaf\n");
    let st = Command::new("tar")
        .args(["czf", "leaf-1.0.tar.gz", "leaf-1.0"])
        .current_dir(t.join("src"))
        .status()
        .unwrap();
    assert!(st.success());
    use sha2::Digest;
    let sha = hex::encode(sha2::Sha256::digest(
        std::fs::read(t.join("src/leaf-1.0.tar.gz")).unwrap(),
    ));
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    let leaf = t.join("src/leaf-1.0.tar.gz");
    write(
        t,
        "recipes/leaf.yaml",
        &format!(
            "name: leaf\ndescription: leaf\nversions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n\
             build:\n  system: generic\n  install:\n    - {{copy: README, to: share/README}}\n",
            leaf.display()
        ),
    );
    write(
        t,
        "recipes/bundle.yaml",
        "name: bundle\ndescription: bundle\nversions:\n  - {version: \"1.0\", source: none}\n\
         dependencies: [leaf]\nbuild:\n  system: generic\n  install:\n    - {mkdir: share/bundle}\n",
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [bundle]\n",
    );
    let (code, text) = crate::harness::tiny_build::build(t, &[]);
    assert_eq!(code, 0, "{text}");
    let prefixes: Vec<_> = walkdir::WalkDir::new(t.join("build/store"))
        .max_depth(2)
        .into_iter()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("bundle-1.0-"))
        .collect();
    assert!(
        prefixes
            .iter()
            .any(|e| e.path().join("share/bundle").is_dir()),
        "{text}"
    );
}
