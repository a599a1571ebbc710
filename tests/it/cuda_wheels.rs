//! CUDA from NVIDIA's PyPI wheels, end to end (issue 20): `stack build`
//! assembles `cuda@13.0.2-wheels-<arch>` from seven checksummed wheels served
//! by a local mirror (downloaded once by scripts/install-deps.sh), then
//! builds a fixture CUDA library (`tests/fixtures/gpu/cudalib`) with nvcc
//! through the wrapper; a second build in another build directory gives
//! identical bytes, while two plain nvcc runs do not. And aws-ofi-nccl
//! `+cuda` through the shipped recipe's configure logic against that CUDA
//! prefix, with a fixture source (`tests/fixtures/gpu/ofi-plugin`) over a
//! libfabric-like library (cxi-mini's mini-libfabric as a libfabric
//! version): RPATH to the CUDA prefix's lib64, audit clean.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::harness::{Stack, root};

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
        n >= 7,
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
    build_on(
        stack,
        &root().join("cluster-configs/local"),
        build,
        cache,
        mirror,
    )
}

fn build_on(stack: &Path, cluster: &Path, build: &Path, cache: &Path, mirror: &Path) -> String {
    let out = Stack::bare()
        .command()
        .current_dir(root())
        .args(["--color", "never", "build"])
        .arg(stack)
        .arg("--cluster")
        .arg(cluster)
        .args(["-j", "2", "--build"])
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

/// `tar czf dist/<name>.tar.gz -C <parent of dir> <dir's name>`; its sha256.
fn tar_of(dir: &Path, dist: &Path, name: &str) -> (PathBuf, String) {
    std::fs::create_dir_all(dist).unwrap();
    let out = dist.join(format!("{name}.tar.gz"));
    let st = Command::new("tar")
        .arg("-czf")
        .arg(&out)
        .arg("-C")
        .arg(dir.parent().unwrap())
        .arg(dir.file_name().unwrap())
        .status()
        .unwrap();
    assert!(st.success());
    let sha = sha256(&out);
    (out, sha)
}

/// Overlays adding a fixture version to the shipped aws-ofi-nccl and
/// libfabric recipes (the rest of each recipe is the shipped one), a cluster
/// `local` plus Debian's hwloc and the site's NCCL as externals, and a stack
/// asking for aws-ofi-nccl +cuda over the wheel CUDA.
fn write_plugin_stack(tmp: &Path) -> (PathBuf, PathBuf) {
    let dist = tmp.join("dist");
    let (plugin, plugin_sha) = tar_of(
        &root().join("tests/fixtures/gpu/ofi-plugin"),
        &dist,
        "aws-ofi-nccl-1.21.1-fixture",
    );
    let fabric = root().join("tests/fixtures/cxi-mini/dist/mini-libfabric-2.0.tar.gz");
    let repo = tmp.join("overlays");
    std::fs::create_dir_all(&repo).unwrap();
    let overlay = |name: &str, version: &str, url: &Path, sha: &str| {
        std::fs::write(
            repo.join(format!("{name}.yaml")),
            format!(
                "name: {name}\noverlay: true\nversions:\n  - {{version: \"{version}\", url: \"{}\", sha256: {sha}}}\n",
                url.display()
            ),
        )
        .unwrap();
    };
    overlay("aws-ofi-nccl", "1.21.1-fixture", &plugin, &plugin_sha);
    overlay("libfabric", "2.0-mini", &fabric, &sha256(&fabric));
    // The site's NCCL: the plugin builds against its own copy of NCCL's
    // net-plugin headers and links no libnccl, so the dependency only orders
    // (no lib/ here: a real one would be in the RPATH as a declared external).
    let nccl = tmp.join("site/nccl");
    std::fs::create_dir_all(&nccl).unwrap();
    let local = std::fs::read_to_string(root().join("cluster-configs/local/cluster.yaml")).unwrap();
    let externals = format!(
        "packages:\n  hwloc: {{buildable: false, externals: [{{spec: hwloc@2.9.0, prefix: /usr}}]}}\n  \
         nccl: {{buildable: false, externals: [{{spec: \"nccl@2.28.9-1 fabrics=auto cuda_arch=90\", prefix: {}}}]}}\n",
        nccl.display()
    );
    let cluster = tmp.join("cluster");
    std::fs::create_dir_all(&cluster).unwrap();
    std::fs::write(
        cluster.join("cluster.yaml"),
        local.replacen("packages:\n", &externals, 1),
    )
    .unwrap();
    let stack = tmp.join("plugin.yaml");
    std::fs::write(
        &stack,
        format!(
            "name: plugin\nmount: /user-environment\ncompiler: gcc\nrepos: [{}]\nenvironments:\n  gpu:\n    specs: [\"aws-ofi-nccl@1.21.1-fixture +cuda\", \"libfabric@2.0-mini\", \"cuda@13.0.2-wheels\"]\n",
            repo.display()
        ),
    )
    .unwrap();
    (stack, cluster)
}

fn dynamic(so: &Path) -> String {
    let out = Command::new("readelf").arg("-dW").arg(so).output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn aws_ofi_nccl_cuda_builds_against_wheel_cuda() {
    let tmp = tempfile::tempdir().unwrap();
    let mirror = wheel_mirror(&tmp.path().join("mirror"));
    let (stack, cluster) = write_plugin_stack(tmp.path());
    let b = tmp.path().join("build");
    let stderr = build_on(&stack, &cluster, &b, &tmp.path().join("cache"), &mirror);
    assert!(stderr.contains("3 built"), "{stderr}");
    assert!(stderr.contains("audit: clean"), "{stderr}");
    let store = b.join("store");
    let plugin = prefix_of(&store, "aws-ofi-nccl");
    let cuda = prefix_of(&store, "cuda");
    let fabric = prefix_of(&store, "libfabric");
    let mount = |p: &Path| {
        Path::new("/user-environment")
            .join(p.strip_prefix(&store).unwrap())
            .display()
            .to_string()
    };
    // configure took the version from .release_version (pre_bootstrap).
    let log = std::fs::read_dir(b.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with("aws-ofi-nccl-") && n.ends_with(".log")
        })
        .expect("the plugin's build log");
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.contains("ofi-plugin-fixture 1.21.1-fixture"),
        "no version from .release_version in the log"
    );
    assert!(
        log.contains(&format!("--with-cuda={}", mount(&cuda))),
        "{log}"
    );
    assert!(!log.contains("--with-hwloc="), "a system prefix was passed");

    let so = plugin.join("lib/libnccl-net-ofi.so");
    let d = dynamic(&so);
    for needed in ["libcudart.so.13", "libminifabric.so"] {
        assert!(d.contains(&format!("Shared library: [{needed}")), "{d}");
    }
    let rpath = d
        .lines()
        .find(|l| l.contains("(RUNPATH)") || l.contains("(RPATH)"))
        .unwrap_or_else(|| panic!("no run path:\n{d}"));
    assert!(
        rpath.contains(&format!("{}/lib", mount(&fabric))),
        "{rpath}"
    );
    assert!(rpath.contains(&mount(&cuda)), "{rpath}");
    assert!(!rpath.contains("/usr"), "{rpath}");
    assert!(
        !rpath.contains(&tmp.path().display().to_string()),
        "{rpath}"
    );

    // The audit as CI runs it: every library resolves inside the stack.
    let out = Stack::bare()
        .command()
        .args(["--color", "never", "audit"])
        .arg(&store)
        .args(["--mount", "/user-environment"])
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
}
