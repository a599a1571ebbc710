//! The static binary a centre installs (README "Installing on a cluster", docs/install.md) on an
//! older glibc: `scripts/static-older-glibc.sh` makes a Debian 11 root (glibc 2.31) with
//! debootstrap and runs the static `stack` in it: `--version`, `check`, `build` and `audit` of
//! the demo, fetches from a loopback http mirror and a git smart-http server by host name, and an
//! unresolvable host with `hosts: files dns myhostname` (a clean error, not glibc's abort).
//!
//! Gated, loudly: it needs root, debootstrap, the Debian archive, and the static pair already
//! built (`scripts/static-binary.sh`, about an hour on two cores, too long for a test). Set
//! `STACK_TEST_BULLSEYE_ROOT=DIR` to keep the debootstrap root between runs.

use std::path::Path;
use std::process::Command;

fn skip(why: &str) {
    eprintln!("\n*** SKIPPED static_binary: {why} ***\n");
}

fn missing_prerequisite(dist: &Path) -> Option<String> {
    if !nix::unistd::geteuid().is_root() {
        return Some("not root (debootstrap and chroot need it)".into());
    }
    if !Command::new("debootstrap")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some("debootstrap is not installed".into());
    }
    ["stack", "stack-wrap"]
        .iter()
        .find(|exe| !dist.join(exe).is_file())
        .map(|exe| {
            format!(
                "{} missing: build the static pair with scripts/static-binary.sh",
                dist.join(exe).display()
            )
        })
}

#[test]
fn the_static_binary_builds_and_fetches_by_host_name_on_glibc_2_31() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dist = repo.join("target/x86_64-unknown-linux-gnu/dist");
    if !cfg!(target_arch = "x86_64") {
        return skip("x86_64 only (the Debian 11 root is amd64)");
    }
    if let Some(why) = missing_prerequisite(&dist) {
        return skip(&why);
    }
    let mut cmd = Command::new(repo.join("scripts/static-older-glibc.sh"));
    cmd.arg(&dist);
    if let Some(root) = std::env::var_os("STACK_TEST_BULLSEYE_ROOT") {
        cmd.env("ROOT", root);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for expected in [
        "(Debian GLIBC 2.31-",
        "stack 0.1.0",
        "stacks/demo.yaml: ok",
        "built and audited in",
        "fetch (no local tarballs) --mirror http://mirror.centre.test:",
        "exit 1: a fetch error naming the host",
        "all checks passed on ldd (Debian GLIBC 2.31-",
    ] {
        assert!(
            stdout.contains(expected),
            "no `{expected}` in:\n{stdout}\n{stderr}"
        );
    }
}
