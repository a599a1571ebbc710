//! Build-time template values the Spack importer writes: a dependency's
//! variants (`{{ deps.tvdep.variants.mode }}`, Spack's
//! `spec["dep"].variants["mode"].value`) and a multi-valued variant's
//! smallest value (`{{ variants.gpus | first }}`, Spack's `value[0]`),
//! rendered by a real `stack build` of two sourceless generic packages.

use std::path::Path;

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    fs_err::create_dir_all(p.parent().unwrap()).unwrap();
    fs_err::write(p, text).unwrap();
}

#[test]
fn dependency_variants_and_first_values_render_at_build_time() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    write(
        t,
        "cluster-configs/local/cluster.yaml",
        "name: local\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    );
    write(
        t,
        "recipes/tvdep.yaml",
        "name: tvdep\ndescription: a dependency with a valued variant\n\
         versions:\n  - {version: \"1.0\", source: none}\n\
         variants:\n  mode: {default: fast, values: [fast, safe]}\n\
         build:\n  system: generic\n  install: [{mkdir: share}]\n",
    );
    write(
        t,
        "recipes/tvuser.yaml",
        "name: tvuser\ndescription: reads its dependency's variant\n\
         versions:\n  - {version: \"1.0\", source: none}\n\
         variants:\n  gpus: {default: [\"90\", \"80\"], values: [\"70\", \"80\", \"90\"], multi: true}\n\
         dependencies:\n  - {spec: tvdep, type: link}\n\
         build:\n  system: generic\n  install:\n    \
         - {mkdir: \"share/mode-{{ deps.tvdep.variants.mode }}\"}\n    \
         - {mkdir: \"share/gpus-{{ variants.gpus | first }}\"}\n",
    );
    write(
        t,
        "stacks/s.yaml",
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    specs: [\"tvuser ^tvdep mode=safe\"]\n",
    );
    let (code, text) = crate::harness::tiny_build::build(t, &[]);
    assert_eq!(code, 0, "{text}");
    let store = t.join("build/store");
    let user = walkdir::WalkDir::new(&store)
        .max_depth(2)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .find(|p| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("tvuser-1.0-"))
        })
        .expect("tvuser is installed");
    assert!(user.join("share/mode-safe").is_dir(), "{text}");
    // Spack sorts a multi-valued variant's values: value[0] is "80".
    assert!(user.join("share/gpus-80").is_dir(), "{text}");
}
