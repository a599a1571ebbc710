//! Issue 13, item 20: recipes/mukautuva.yaml over Debian's MPICH and Open MPI
//! as externals in `/usr` (apt: mpich libmpich-dev openmpi-bin
//! libopenmpi-dev). The shipped recipe's build and env sections build the
//! fixture shim tests/fixtures/mpi-abi/mini-muk-1.0 (mukautuva's Makefile
//! targets, variables and header layout; mukautuva itself is third-party and
//! is built by scripts/mukautuva-real.sh from a local mirror). A tiny MPI
//! program compiled against the shim's mpi.h runs with `mpiexec -n 2` over
//! each implementation, in the built store (`stack run --view`), with the
//! `MPI_LIB` the view exports.

use std::path::Path;
use std::process::Command;

use sha2::Digest;

use crate::harness::Stack;

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mpi-abi")
        .join(rel)
}

fn write(t: &Path, rel: &str, text: &str) {
    let p = t.join(rel);
    fs_err::create_dir_all(p.parent().unwrap()).unwrap();
    fs_err::write(p, text).unwrap();
}

/// The shipped mukautuva recipe with its `versions:` replaced by the
/// fixture shim's tarball (everything else as shipped).
fn recipe_over_fixture(t: &Path) -> String {
    let src = t.join("src");
    fs_err::create_dir_all(&src).unwrap();
    let st = Command::new("tar")
        .args(["czf"])
        .arg(src.join("mini-muk-1.0.tar.gz"))
        .arg("-C")
        .arg(fixture(""))
        .arg("mini-muk-1.0")
        .status()
        .unwrap();
    assert!(st.success());
    let archive = src.join("mini-muk-1.0.tar.gz");
    let sha = hex::encode(sha2::Sha256::digest(fs_err::read(&archive).unwrap()));
    let shipped = fs_err::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("recipes/mukautuva.yaml"),
    )
    .unwrap();
    let mut out = String::new();
    let mut in_versions = false;
    for line in shipped.lines() {
        if line == "versions:" {
            in_versions = true;
            out.push_str(&format!(
                "versions:\n  - {{version: \"1.0\", url: {}, sha256: {sha}}}\n",
                archive.display()
            ));
            continue;
        }
        if in_versions && line.starts_with("  - ") {
            continue;
        }
        in_versions = false;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A project: the recipe, a cluster with `package` as the `/usr` external
/// that provides mpi, and a stack of `spec` with a view.
fn project(t: &Path, package: &str, version: &str, soname: &str, spec: &str) {
    write(t, "recipes/mukautuva.yaml", &recipe_over_fixture(t));
    write(
        t,
        "cluster-configs/c/cluster.yaml",
        &format!(
            "name: c\ntarget: x86_64\ncompilers:\n  - {{spec: gcc@12.2.0, cc: /usr/bin/gcc, cxx: /usr/bin/g++}}\n\
             packages:\n  {package}: {{buildable: false, externals: [{{spec: {package}@{version}, prefix: /usr}}]}}\n  \
             mpi: {{require: {package}}}\naudit: {{allow: [{soname}]}}\n"
        ),
    );
    write(
        t,
        "stacks/s.yaml",
        &format!(
            "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [../recipes]\nenvironments:\n  e:\n    \
             specs: [\"{spec}\"]\n    views:\n      default: {{link: roots}}\n"
        ),
    );
    fs_err::copy(fixture("hello-mpi.c"), t.join("hello-mpi.c")).unwrap();
}

/// Builds the stack, then compiles hello-mpi.c against the view's mpi.h and
/// libmuk.so and runs it on two ranks with `mpiexec`; returns the sorted lines
/// and the MPI_LIB the view set.
fn build_and_run(t: &Path, mpiexec: &str) -> (Vec<String>, String) {
    let (code, out, err) = Stack::new()
        .current_dir(t)
        .args([
            "build",
            "stacks/s.yaml",
            "--cluster",
            "cluster-configs/c",
            "--cache",
            "cache",
            "--build",
            "build",
        ])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .run()
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let view = "/user-environment/env/default";
    let script = format!(
        "printf 'MPI_LIB=%s\\n' \"$MPI_LIB\" >&2 && \
         gcc -I{view}/include hello-mpi.c -L{view}/lib -lmuk -Wl,-rpath,{view}/lib -o hello && \
         {mpiexec} -n 2 ./hello"
    );
    let (code, out, err) = Stack::new()
        .current_dir(t)
        .args([
            "run", "build", "--view", "default", "--", "sh", "-c", &script,
        ])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .run()
        .parts();
    assert_eq!(code, 0, "{out}{err}");
    let mut lines: Vec<String> = out.lines().map(str::to_string).collect();
    lines.sort();
    let mpi_lib = err
        .lines()
        .find_map(|l| l.strip_prefix("MPI_LIB="))
        .unwrap_or_default()
        .to_string();
    (lines, mpi_lib)
}

#[test]
fn mukautuva_recipe_runs_over_debian_mpich_with_mpiexec() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(t, "mpich", "4.0.2", "libmpich.so.12", "mukautuva");
    let (lines, mpi_lib) = build_and_run(t, "mpiexec.mpich");
    // Debian's libmpi.so may be Open MPI's (alternatives): MPICH by its soname.
    assert_eq!(mpi_lib, "libmpich.so.12");
    assert_eq!(
        lines,
        [
            "rank 0 of 2: sum 3 over MPICH",
            "rank 1 of 2: sum 3 over MPICH"
        ]
    );
}

#[test]
fn mukautuva_recipe_runs_over_debian_open_mpi_with_mpiexec() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    project(
        t,
        "openmpi",
        "4.1.4",
        "libmpi.so.40",
        "mukautuva wrapper=ompi",
    );
    let (lines, mpi_lib) = build_and_run(t, "mpiexec.openmpi --oversubscribe");
    assert_eq!(mpi_lib, "libmpi.so.40");
    assert_eq!(
        lines,
        [
            "rank 0 of 2: sum 3 over Open MPI",
            "rank 1 of 2: sum 3 over Open MPI"
        ]
    );
}
