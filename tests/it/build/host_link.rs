//! The compiler wrapper's link guard: a link that would take a library from
//! the host's system directories fails unless the library is glibc's, the
//! compiler runtime, or one of a declared external's `libraries:`
//! (docs/build.md, "Host libraries: the link guard"). The fixture `hostlink`
//! probes `-lz` as a configure check would and links libm.

use std::path::Path;
use std::process::Command;

use stack::build::*;

use crate::harness::build::*;

/// Builds `hostlink` allowing `host_libraries`; its found.txt, the wrapper
/// log and the installed program's output.
fn build(host_libraries: &[&str]) -> (String, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ue");
    let mut j = job(
        &mount,
        "hostlink",
        fixture("hostlink"),
        BuildSystem::new("makefile"),
    );
    let prefix = j.prefix.clone();
    j.system
        .settings
        .set("make_args", vec![format!("PREFIX={}", prefix.display())]);
    j.host_libraries = host_libraries.iter().map(|s| s.to_string()).collect();
    let mut g = BuildGraph::new();
    g.add(j);
    let build = tmp.path().join("build");
    let mut opts = options(&build, &mount, MountMode::Direct);
    opts.keep_stage = true; // its wrapper.log
    let summary = run_plan(&g, &opts, &Recorder::default()).unwrap();
    assert_success(&summary);
    let found = fs_err::read_to_string(prefix.join("share/found.txt")).unwrap();
    let log = walkdir::WalkDir::new(build.join("stage"))
        .into_iter()
        .flatten()
        .find(|e| e.file_name() == "wrapper.log")
        .map(|e| fs_err::read_to_string(e.path()).unwrap())
        .unwrap_or_default();
    let out = Command::new(prefix.join("bin/usesm")).output().unwrap();
    (
        found,
        log,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn host_zlib() -> bool {
    let multiarch = format!("/usr/lib/{}-linux-gnu/libz.so", std::env::consts::ARCH);
    Path::new(&multiarch).exists() || Path::new("/usr/lib64/libz.so").exists()
}

#[test]
fn a_host_library_no_dependency_provides_does_not_link() {
    assert!(
        host_zlib(),
        "zlib1g-dev (scripts/install-deps.sh) installs libz.so"
    );
    let (found, log, out) = build(&[]);
    assert_eq!(found, "z=no\n", "the probe saw no zlib: {log}");
    let refused: Vec<&str> = log.lines().filter(|l| l.starts_with("Refused ")).collect();
    assert_eq!(refused.len(), 1, "{log}");
    assert!(refused[0].contains(" -lz"), "{log}");
    // glibc's libm links as always.
    assert_eq!(out, "1.5\n");
}

#[test]
fn a_declared_external_library_links() {
    assert!(host_zlib());
    let (found, log, _) = build(&["libz"]);
    assert_eq!(found, "z=yes\n", "{log}");
    assert!(!log.contains("Refused "), "{log}");
}
