//! The one harness of the integration tests: every test runs `stack`,
//! reaches the fixtures and starts its services through here.
//!
//! - [`Stack`] runs the built binary in an isolated environment (no
//!   inherited `STACK_*` variables, its own `HOME` and so its own default
//!   cache) and returns a [`Run`] to assert on; [`user`] runs it as an
//!   unprivileged user.
//! - [`root`], [`fixtures`], [`copy_fixture`]: the source tree and
//!   `tests/fixtures/`.
//! - Projects: [`tiny_build`] (`stack build` of a small project),
//!   [`spack_project`] (build-logic recipes), [`docs`] (the shipped inputs
//!   and the line matcher of the executed documentation).
//! - Services on loopback: [`registry`] (Debian's `docker-registry` with TLS
//!   and basic auth), [`slurm`] (slurmctld, slurmd and munged), [`http`]
//!   (a misbehaving HTTP server), [`git_http`] (`git http-backend` over HTTP
//!   or TLS, with redirects and non-git answers).
//! - Stage helpers: [`audit`] (gcc-built linkage cases, `ldd`), [`build`]
//!   (build jobs of the fixture projects, ELF checks), [`fetch`] (fetch
//!   options, archives, git), [`resolve`] (loading and resolving fixture
//!   stacks), [`view`] (an installed store for views and images).
//!
//! `harness_tests.rs` keeps it the only one: no test file defines its own
//! `stack` runner function, starts the binary itself or adds a
//! `*_support`/`*_common` module. Some files are also compiled into the benchmarks (`#[path]` in
//! `benches/`), so they do not use the rest of the harness.

#![allow(dead_code)]

pub mod audit;
pub mod build;
mod command;
pub mod docs;
pub mod fetch;
pub mod git_http;
pub mod http;
mod isolation;
pub mod registry;
pub mod resolve;
pub mod slurm;
pub mod spack_project;
pub mod tiny_build;
pub mod user;
pub mod view;

use std::path::{Path, PathBuf};
use std::process::Command;

pub use command::{Run, STACK, Stack};

/// The source tree (`CARGO_MANIFEST_DIR`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fixtures/<rel>`.
pub fn fixtures(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// `tests/fixtures/<rel>` copied (symlinks and modes kept) to `to`, which
/// must not exist; returns `to`.
pub fn copy_fixture(rel: &str, to: &Path) -> PathBuf {
    copy_tree(&fixtures(rel), to);
    to.to_path_buf()
}

/// `from` copied with `cp -a` to `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success(), "cp -a {} {}", from.display(), to.display());
}

/// `<from>/<dir>` packed as the reproducible archive `out` (sorted names,
/// mtime 0, owner and group 0); its sha256.
pub fn tarball(from: &Path, dir: &str, out: &Path) -> String {
    use sha2::Digest;
    let st = Command::new("tar")
        .args([
            "--sort=name",
            "--mtime=@0",
            "--owner=0",
            "--group=0",
            "-czf",
        ])
        .arg(out)
        .arg(dir)
        .current_dir(from)
        .status()
        .unwrap();
    assert!(st.success(), "tar of {}/{dir}", from.display());
    hex::encode(sha2::Sha256::digest(fs_err::read(out).unwrap()))
}
