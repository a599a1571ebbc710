//! CUDA from NVIDIA's PyPI wheels, end to end (issue 20): `stack build`
//! assembles `cuda@13.0.2-wheels-<arch>` from six checksummed wheels served
//! by a local mirror (downloaded once by scripts/install-deps.sh), then
//! builds a fixture CUDA library (`tests/fixtures/gpu/cudalib`) with nvcc
//! through the wrapper; a second build in another build directory gives
//! identical bytes, while two plain nvcc runs do not.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use sha2::{Digest, Sha256};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where scripts/install-deps.sh put the wheels.
fn wheels_dir() -> PathBuf {
    match std::env::var_os("STACK_TEST_WHEELS") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").expect("HOME"))
            .join(".cache/stack-test/cuda-wheels"),
    }
}

fn sha256(path: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

/// A Spack-layout mirror (`_source-cache/archive/<sha[:2]>/<sha>.whl`)
/// holding the wheels for this machine's architecture.
fn wheel_mirror(dir: &Path) -> PathBuf {
    let wheels = wheels_dir();
    let arch = std::env::consts::ARCH;
    let mut n = 0;
    for e in std::fs::read_dir(&wheels)
        .unwrap_or_else(|e| panic!("{}: {e}; run scripts/install-deps.sh", wheels.display()))
    {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(&format!("{arch}.whl")) {
            continue;
        }
        let sha = sha256(&p);
        let to = dir.join(format!("_source-cache/archive/{}/{sha}.whl", &sha[..2]));
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        if std::fs::hard_link(&p, &to).is_err() {
            std::fs::copy(&p, &to).unwrap();
        }
        n += 1;
    }
    assert!(
        n >= 6,
        "{n} wheels in {}; run scripts/install-deps.sh",
        wheels.display()
    );
    dir.to_path_buf()
}

/// The fixture library as a tarball, its recipe in a repository, and a
/// stack recipe using both.
fn write_stack(tmp: &Path) -> PathBuf {
    let dist = tmp.join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    let tarball = dist.join("cudalib-1.0.tar.gz");
    let st = Command::new("tar")
        .arg("-czf")
        .arg(&tarball)
        .arg("-C")
        .arg(root().join("tests/fixtures/gpu"))
        .arg("cudalib")
        .status()
        .unwrap();
    assert!(st.success());
    let repo = tmp.join("gpu-recipes");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(
        repo.join("cudalib.yaml"),
        format!(
            "name: cudalib\ndescription: fixture CUDA library\nversions:\n  - {{version: \"1.0\", url: \"{}\", sha256: {}}}\n\
             dependencies:\n  - cuda@13.0.2-wheels\nbuild:\n  system: makefile\n  make_args: [\"PREFIX={{{{ prefix }}}}\"]\n",
            tarball.display(),
            sha256(&tarball)
        ),
    )
    .unwrap();
    let stack = tmp.join("gpu.yaml");
    std::fs::write(
        &stack,
        format!(
            "name: gpu\nmount: /user-environment\ncompiler: gcc\nrepos: [{}]\nenvironments:\n  gpu:\n    specs: [cudalib]\n",
            repo.display()
        ),
    )
    .unwrap();
    stack
}

fn build(stack: &Path, build: &Path, cache: &Path, mirror: &Path) -> String {
    let out = Command::cargo_bin("stack")
        .unwrap()
        .current_dir(root())
        .args(["--color", "never", "build"])
        .arg(stack)
        .args(["--cluster", "cluster-configs/local", "-j", "2", "--build"])
        .arg(build)
        .arg("--cache")
        .arg(cache)
        .arg("--mirror")
        .arg(mirror)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "stack build failed:\n{stderr}");
    stderr
}

/// The one installed prefix of `name` in the store.
fn prefix_of(store: &Path, name: &str) -> PathBuf {
    let mut found = Vec::new();
    for e in walk(store, 3) {
        let n = e.file_name().unwrap().to_string_lossy().into_owned();
        if n.starts_with(&format!("{name}-")) && e.is_dir() {
            found.push(e);
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}

fn walk(dir: &Path, depth: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if depth == 0 {
        return out;
    }
    for e in std::fs::read_dir(dir).into_iter().flatten() {
        let p = e.unwrap().path();
        if p.is_dir() && !p.is_symlink() {
            out.extend(walk(&p, depth - 1));
        }
        out.push(p);
    }
    out
}

#[test]
fn cuda_from_wheels_builds_a_cuda_library_reproducibly() {
    let tmp = tempfile::tempdir().unwrap();
    let mirror = wheel_mirror(&tmp.path().join("mirror"));
    let stack = write_stack(tmp.path());
    let b = tmp.path().join("build");
    let cache = tmp.path().join("cache");

    let stderr = build(&stack, &b, &cache, &mirror);
    assert!(stderr.contains("2 built"), "{stderr}");
    let store = b.join("store");
    let cuda = prefix_of(&store, "cuda");
    // The layout nvcc.profile expects.
    for p in [
        "bin/nvcc",
        "bin/cudafe++",
        "bin/ptxas",
        "nvvm/bin/cicc",
        "nvvm/libdevice/libdevice.10.bc",
        "include/cuda_runtime.h",
        "include/crt/host_config.h",
        "include/cccl/cuda/std/version",
        "include/nvtx3/nvToolsExt.h",
        "lib64/libcudart.so",
        "lib64/libcudart_static.a",
    ] {
        assert!(cuda.join(p).exists(), "{} missing", cuda.join(p).display());
    }
    let arch_dir = match std::env::consts::ARCH {
        "aarch64" => "sbsa-linux",
        _ => "x86_64-linux",
    };
    assert!(cuda.join("targets").join(arch_dir).join("include").is_dir());

    let lib = prefix_of(&store, "cudalib");
    let so = std::fs::read(lib.join("lib/libkern.so")).unwrap();
    let ar = std::fs::read(lib.join("lib/libkern.a")).unwrap();
    let text = String::from_utf8_lossy(&so);
    assert!(text.contains("kern_launch"));
    // nvcc's process-id temporary names are gone.
    assert!(!text.contains("tmpxft_"), "a tmpxft_ name in libkern.so");
    assert!(!String::from_utf8_lossy(&ar).contains("tmpxft_"));

    // Build everything again in another build directory: identical bytes.
    let b2 = tmp.path().join("build-again");
    build(&stack, &b2, &cache, &mirror);
    let store = b2.join("store");
    let lib = prefix_of(&store, "cudalib");
    assert!(
        std::fs::read(lib.join("lib/libkern.so")).unwrap() == so,
        "libkern.so differs between two builds"
    );
    assert!(
        std::fs::read(lib.join("lib/libkern.a")).unwrap() == ar,
        "libkern.a differs between two builds"
    );

    // The control: the real nvcc twice, without the wrapper, differs.
    let cuda = prefix_of(&store, "cuda");
    std::fs::copy(
        root().join("tests/fixtures/gpu/cudalib/kern.cu"),
        tmp.path().join("kern.cu"),
    )
    .unwrap();
    let objs: Vec<Vec<u8>> = (0..2)
        .map(|_| {
            let st = Command::new(cuda.join("bin/nvcc"))
                .current_dir(tmp.path())
                .args([
                    "-arch=sm_90",
                    "-Xcompiler",
                    "-fPIC",
                    "-c",
                    "kern.cu",
                    "-o",
                    "kern.o",
                ])
                .status()
                .unwrap();
            assert!(st.success());
            std::fs::read(tmp.path().join("kern.o")).unwrap()
        })
        .collect();
    assert!(
        objs[0] != objs[1],
        "plain nvcc gave identical objects: the test proves nothing"
    );
}
