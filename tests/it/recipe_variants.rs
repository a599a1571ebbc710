//! Spack variants of the shipped recipes that alps-uenv recipes ask for
//! (issue 15, item 4): `ncurses +termlib`, `zstd build_system=cmake`,
//! `libxml2 +python`, `python +shared`/`~libxml2`, `perl +open`, and
//! `+rocm` of openmpi, libfabric and kokkos. Each is resolved with the shipped recipes for
//! `cluster-configs/alps-zen2` and its build job rendered: the arguments and
//! steps a variant turns on are checked, and the rendered jobs are
//! snapshot-tested.

use std::path::{Path, PathBuf};

use stack::pipeline::build_job;
use stack::resolve::Plan;
use stack::spec::Spec;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn plan(environments: &str) -> (tempfile::TempDir, Plan) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stack.yaml");
    std::fs::write(&file, format!("name: t\nenvironments:\n{environments}")).unwrap();
    let p = crate::harness::resolve::plan_with_builtin(
        file,
        Path::new(ROOT).join("cluster-configs/alps-zen2"),
    );
    (dir, p)
}

/// The rendered build job of the node that satisfies `spec`.
fn job(p: &Plan, spec: &str) -> String {
    let want = Spec::parse(spec).unwrap();
    let idx = p
        .nodes_sorted()
        .into_iter()
        .find(|&i| p.node(i).satisfies(&want))
        .unwrap_or_else(|| panic!("no {spec} in the plan"));
    let job = build_job(p, idx, PathBuf::from("/src"), 2).unwrap_or_else(|e| panic!("{e}"));
    crate::recipe_reviewed::describe(&job)
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({filters => vec![(r"-[0-9a-f]{8}\b", "-[HASH]")]}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn spack_defaults_and_the_variants_alps_recipes_ask_for_render() {
    let (_dir, p) = plan(
        "  a:\n    network: {}\n    specs: [ncurses, \"zstd build_system=cmake\", \"libxml2 +python\", \"perl +open\"]\n  \
         b:\n    network: {}\n    specs: [\"ncurses ~termlib\", \"python ~shared\"]\n  \
         c:\n    network: {}\n    specs: [zstd]\n  \
         d:\n    network: {}\n    specs: [\"zstd +programs\"]\n",
    );
    // ncurses: +termlib by default (Spack's), a separate libtinfo and
    // libncurses.so a linker script naming it
    let termlib = job(&p, "ncurses +termlib");
    assert!(termlib.contains("    --with-termlib\n"), "{termlib}");
    assert!(termlib.contains("INPUT(%s -ltinfo)"), "{termlib}");
    let plain = job(&p, "ncurses ~termlib");
    assert!(
        !plain.contains("termlib") && !plain.contains("post_install"),
        "{plain}"
    );
    // zstd: the Makefile by default, build/cmake with build_system=cmake
    let cmake = job(&p, "zstd build_system=cmake");
    assert!(cmake.contains("\"-S\", \"build/cmake\""), "{cmake}");
    assert!(
        cmake.contains("  make_args:\n    -C\n    cmake-build\n"),
        "{cmake}"
    );
    let make = job(&p, "zstd build_system=makefile ~programs");
    assert!(make.contains("  make_args:\n    -C\n    lib\n"), "{make}");
    assert!(
        !make.contains("cmake") && !make.contains("programs"),
        "{make}"
    );
    let programs = job(&p, "zstd +programs");
    assert!(programs.contains("\"-C\", \"programs\""), "{programs}");
    // libxml2 +python: the bindings for the stack's python, which is
    // +shared ~libxml2 (Spack's requirement; no cycle)
    let xml = job(&p, "libxml2 +python");
    assert!(xml.contains("    --with-python=/"), "{xml}");
    assert!(xml.contains("/site-packages\n"), "{xml}");
    assert!(job(&p, "python +shared ~libxml2").contains("--enable-shared"));
    assert!(job(&p, "python ~shared").contains("--disable-shared"));
    // perl +open: the default, a built perl always has open.pm
    assert!(job(&p, "perl +open").contains("-Duseshrplib"));
    let text = [termlib, plain, cmake, make, programs, xml].join("");
    snapshot("recipe_variants_alps_zen2", &text);
}

/// Tiny recipes of hip, hsa-rocr-dev, llvm-amdgpu and rocthrust in
/// `<dir>/rocm`, as spack-packages' translations provide them for
/// stackinator inputs (q-e-sirius mi200); the repository's path.
fn rocm_repo(dir: &Path) -> PathBuf {
    let rocm = dir.join("rocm");
    std::fs::create_dir(&rocm).unwrap();
    let zero = "0".repeat(64);
    for (name, extra) in [
        ("hip", "variants:\n  rocm: {default: true}\n"),
        ("hsa-rocr-dev", ""),
        ("llvm-amdgpu", ""),
        ("rocthrust", ""),
    ] {
        std::fs::write(
            rocm.join(format!("{name}.yaml")),
            format!(
                "name: {name}\ndescription: {name}\nversions:\n  - {{version: \"6.3.3\", url: https://example.org/{name}.tgz, sha256: {zero}}}\nbuild: {{system: generic}}\n{extra}"
            ),
        )
        .unwrap();
    }
    rocm
}

/// The plan of one environment `a` with `specs` (a YAML flow list's items)
/// and the ROCm recipes of [`rocm_repo`], for `alps-zen2`.
fn rocm_plan(specs: &str) -> Plan {
    let dir = tempfile::tempdir().unwrap();
    let rocm = rocm_repo(dir.path());
    let file = dir.path().join("stack.yaml");
    std::fs::write(
        &file,
        format!(
            "name: t\nrepos: [{}]\nenvironments:\n  a:\n    network: {{}}\n    specs: [{specs}]\n",
            rocm.display()
        ),
    )
    .unwrap();
    crate::harness::resolve::plan_with_builtin(
        file,
        Path::new(ROOT).join("cluster-configs/alps-zen2"),
    )
}

/// The prefix of the plan's `hip`.
fn hip(p: &Plan) -> String {
    p.nodes_sorted()
        .into_iter()
        .map(|i| p.node(i))
        .find(|n| n.name == "hip")
        .unwrap()
        .prefix
        .display()
        .to_string()
}

/// `kokkos +rocm` and `libfabric +rocm` build against a ROCm that another
/// repository provides (their dependencies are `elsewhere`).
#[test]
fn kokkos_and_libfabric_build_with_rocm_from_another_repository() {
    let p = rocm_plan(
        "\"kokkos@4.7.04 +rocm amdgpu_target=gfx90a\", \"libfabric@2.3.1 +rocm amdgpu_target=gfx90a fabrics=tcp\"",
    );
    let kokkos = job(&p, "kokkos +rocm");
    assert!(kokkos.contains("-DKokkos_ENABLE_HIP:BOOL=ON"), "{kokkos}");
    assert!(kokkos.contains("-DKokkos_ARCH_VEGA90A:BOOL=ON"), "{kokkos}");
    assert!(
        kokkos.contains(&format!(
            "-DCMAKE_CXX_COMPILER:STRING={}/bin/hipcc",
            hip(&p)
        )),
        "{kokkos}"
    );
    assert!(
        kokkos.contains("-DKokkos_ENABLE_ROCTHRUST:BOOL=ON"),
        "{kokkos}"
    );
    let fabric = job(&p, "libfabric +rocm");
    assert!(
        fabric.contains(&format!("--with-rocr={}", hip(&p))),
        "{fabric}"
    );
    assert!(!fabric.contains("--with-rocr=no"), "{fabric}");
}

/// `openmpi +rocm` (Spack's ROCmPackage variant, which Alps cluster
/// configurations prefer) builds GPU-aware against the hip another
/// repository provides, over a libfabric `+rocm`.
#[test]
fn openmpi_builds_with_rocm_from_another_repository() {
    let p = rocm_plan(
        "\"openmpi@5.0.10 +rocm amdgpu_target=gfx90a ^libfabric@2.3.1 +rocm amdgpu_target=gfx90a\"",
    );
    let ompi = job(&p, "openmpi +rocm");
    assert!(ompi.contains(&format!("--with-rocm={}", hip(&p))), "{ompi}");
    assert!(!ompi.contains("--without-rocm"), "{ompi}");
    let plain = job(&plan("  e:\n    specs: [openmpi]\n").1, "openmpi");
    assert!(plain.contains("--without-rocm"), "{plain}");
}

/// The resolve error of `specs` with the shipped recipes only, for
/// `alps-gh200`.
fn resolve_error(specs: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stack.yaml");
    std::fs::write(
        &file,
        format!("name: t\nenvironments:\n  e:\n    specs: [{specs}]\n"),
    )
    .unwrap();
    let opts = stack::stacks::InputOptions {
        recipe: file,
        cluster: Some(Path::new(ROOT).join("cluster-configs/alps-gh200")),
        ..Default::default()
    };
    let inputs = stack::stacks::load_inputs(&opts).unwrap_or_else(|d| panic!("{d:#?}"));
    crate::harness::resolve::resolve_inputs(&inputs, &Default::default())
        .map(|_| String::new())
        .unwrap_or_else(|e| e.to_string())
}

/// Without a repository that has hip, `openmpi +rocm` says which package is
/// missing; Open MPI releases without the ROCm source fix, and `+rocm`
/// without a GPU architecture, conflict.
#[test]
fn openmpi_rocm_without_rocm_recipes_or_on_old_releases_says_why() {
    let err = resolve_error("\"openmpi +rocm amdgpu_target=gfx90a\"");
    assert!(
        err.contains("no package recipe defines `llvm-amdgpu`")
            && err.contains("expects `llvm-amdgpu` from another repository"),
        "{err}"
    );
    let err = resolve_error("\"openmpi@5.0.8 +rocm amdgpu_target=gfx90a\"");
    assert!(
        err.contains("conflicts with `@:5.0.8 +rocm`: Open MPI 5.0.8 and older need a source fix"),
        "{err}"
    );
    let err = resolve_error("\"openmpi@5.0.10 +rocm\"");
    assert!(
        err.contains("conflicts with `amdgpu_target=none +rocm`"),
        "{err}"
    );
}
