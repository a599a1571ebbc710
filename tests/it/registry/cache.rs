//! The binary cache end to end with the demo stack: two builds pushing the
//! same packages at once, a fresh build directory filled from the cache
//! (nothing built, the same image), a corrupted blob rebuilt, and untrusted
//! packages refused.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use super::{root, text};
use crate::harness::registry::stack_client;
use crate::harness::registry::{PASSWORD, TestRegistry, USER};

fn build_cmd(reg: &TestRegistry, dir: &Path, sources: &Path, extra: &[&str]) -> Command {
    let mut c = stack_client();
    c.current_dir(root())
        .args([
            "build",
            "stacks/demo.yaml",
            "--cluster",
            "cluster-configs/local",
            "-j",
            "2",
        ])
        .arg("--build")
        .arg(dir)
        .arg("--cache")
        .arg(sources)
        .arg("--binary-cache")
        .arg(format!("oci://{}/stack-cache", reg.host()))
        .arg("--ca-file")
        .arg(reg.ca())
        .args(["--username", USER, "--password-stdin"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn spawn(mut c: Command) -> Child {
    use std::io::Write;
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{PASSWORD}\n").as_bytes())
        .unwrap();
    child
}

fn wait(child: Child) -> Output {
    let out = child.wait_with_output().unwrap();
    eprintln!("{}", text(&out));
    out
}

fn summary(out: &Output) -> String {
    let t = text(out);
    t.lines()
        .filter(|l| l.contains(" built, ") || l.starts_with("binary cache:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn demo_stack_through_the_binary_cache() {
    let reg = TestRegistry::start_tls();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let sources = w.join("sources");
    let keygen = stack_client()
        .args(["key", "generate"])
        .arg(w.join("site"))
        .output()
        .unwrap();
    assert!(keygen.status.success());
    let key = w.join("site.key");
    let public = w.join("site.pub");
    let signing = ["--sign-key", key.to_str().unwrap()];

    // Two builds of the same stack pushing the same packages at once.
    let a = spawn(build_cmd(&reg, &w.join("a"), &sources, &signing));
    let b = spawn(build_cmd(&reg, &w.join("b"), &sources, &signing));
    let (a, b) = (wait(a), wait(b));
    assert!(a.status.success() && b.status.success());
    let image = std::fs::read(w.join("a/store.squashfs")).unwrap();
    assert_eq!(image, std::fs::read(w.join("b/store.squashfs")).unwrap());

    // A fresh build directory from the cache builds nothing, same image.
    let trusted = ["--trusted-key", public.to_str().unwrap(), "--no-push"];
    let c = wait(spawn(build_cmd(&reg, &w.join("c"), &sources, &trusted)));
    assert!(c.status.success());
    let s = summary(&c);
    assert!(
        s.contains("6 installed, 0 rejected") && s.contains("0 built, 6 reused"),
        "{s}"
    );
    assert_eq!(image, std::fs::read(w.join("c/store.squashfs")).unwrap());

    // A corrupted blob in the registry's storage: detected, that one package rebuilt.
    let repo = reg
        .dir
        .path()
        .join("data/docker/registry/v2/repositories/stack-cache/libcalc/_layers/sha256");
    // The prefix tarball is libcalc's largest blob (the others: {}, a signature).
    let blob = fs_err::read_dir(&repo)
        .unwrap()
        .map(|l| {
            reg.blob_path(&format!(
                "sha256:{}",
                l.unwrap().file_name().to_string_lossy()
            ))
        })
        .max_by_key(|b| fs_err::metadata(b).unwrap().len())
        .unwrap();
    let mut bytes = fs_err::read(&blob).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    fs_err::write(&blob, bytes).unwrap();
    let d = wait(spawn(build_cmd(&reg, &w.join("d"), &sources, &trusted)));
    assert!(d.status.success());
    let s = summary(&d);
    assert!(
        s.contains("5 installed, 1 rejected") && s.contains("1 built, 5 reused"),
        "{s}"
    );
    assert!(text(&d).contains("digest mismatch"));
    assert_eq!(image, std::fs::read(w.join("d/store.squashfs")).unwrap());

    // Without the publisher's key nothing is installed from the cache.
    let e = wait(spawn(build_cmd(
        &reg,
        &w.join("e"),
        &sources,
        &["--no-push"],
    )));
    assert!(e.status.success());
    let s = summary(&e);
    assert!(
        s.contains("0 installed, 6 rejected") && s.contains("6 built"),
        "{s}"
    );

    // An unreachable cache: a warning, and the missing package is built.
    let store = w.join("e/store");
    let prefix = walkdir::WalkDir::new(&store)
        .max_depth(2)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("libcalc-")
        })
        .unwrap();
    std::fs::remove_dir_all(&prefix).unwrap();
    let out = stack_client()
        .current_dir(root())
        .args([
            "build",
            "stacks/demo.yaml",
            "--cluster",
            "cluster-configs/local",
            "-j",
            "2",
        ])
        .arg("--build")
        .arg(w.join("e"))
        .arg("--cache")
        .arg(&sources)
        .args([
            "--binary-cache",
            "oci://127.0.0.1:1/nothing-here",
            "--plain-http",
            "--retries",
            "1",
        ])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("not used") && t.contains("1 built, 5 reused"),
        "{t}"
    );
}
