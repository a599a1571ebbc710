//! `stack resolve stacks/prgenv-gnu.yaml` on `cluster-configs/local`: the
//! prgenv-gnu roots of alps-uenv resolve over the shipped recipes only (no
//! `--repo`, no network), and the plan is snapshot-tested (tree and the
//! packages of the JSON plan).

use std::path::Path;
use std::process::Output;

use crate::harness::Stack;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn resolve(extra: &[&str]) -> Output {
    Stack::bare()
        .command()
        .current_dir(ROOT)
        .env_remove("STACK_REPOS")
        .args([
            "resolve",
            "stacks/prgenv-gnu.yaml",
            "--cluster",
            "cluster-configs/local",
            "--color",
            "never",
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .replace(ROOT, "[ROOT]")
}

#[test]
fn prgenv_gnu_resolves_on_the_local_cluster() {
    assert!(Path::new(ROOT).join("stacks/prgenv-gnu.yaml").is_file());
    let out = resolve(&[]);
    let tree = stdout(&out);
    // No error diagnostics: only warnings (unreviewed imported recipes).
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("  x "), "{err}");
    assert!(
        tree.starts_with("stack `prgenv-gnu` for cluster `local`"),
        "{tree}"
    );
    insta::assert_snapshot!("prgenv_gnu_local_tree", tree);
}

#[test]
fn prgenv_gnu_plan_has_every_root_and_a_fixed_closure() {
    let json = stdout(&resolve(&["--format", "json"]));
    let plan: serde_json::Value = serde_json::from_str(&json).unwrap();
    let nodes = plan["nodes"].as_array().expect("nodes");
    let mut names: Vec<String> = nodes
        .iter()
        .map(|n| {
            let ext = if n["external"].as_bool() == Some(true) {
                " (external)"
            } else {
                ""
            };
            format!(
                "{}@{}{ext}",
                n["name"].as_str().unwrap(),
                n["version"].as_str().unwrap()
            )
        })
        .collect();
    names.sort();
    names.dedup();
    for root in [
        "boost",
        "cmake",
        "fftw",
        "fmt",
        "gsl",
        "hdf5",
        "kokkos",
        "kokkos-kernels",
        "kokkos-tools",
        "netlib-scalapack",
        "lua",
        "libtree",
        "lz4",
        "meson",
        "netcdf-c",
        "netcdf-cxx",
        "netcdf-cxx4",
        "netcdf-fortran",
        "ninja",
        "openblas",
        "osu-micro-benchmarks",
        "papi",
        "python",
        "superlu",
        "zlib-ng",
    ] {
        let built = format!("{root}@");
        assert!(
            names
                .iter()
                .any(|n| n.starts_with(&built) && !n.ends_with("(external)")),
            "{root} is not built by the plan:\n{names:#?}"
        );
    }
    insta::assert_snapshot!("prgenv_gnu_local_packages", names.join("\n"));
}
