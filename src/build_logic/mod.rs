//! Build logic at build time (DESIGN §14): a package whose build logic is
//! not fully expressed in YAML (`build: {system: spack, package: …}`) runs
//! its own `package.py` methods in Python, inside the build sandbox, through
//! stack's own implementation of the package API — the *layer*, a Python
//! tree under `src/build_logic/python/` shipped inside the binary.
//!
//! This module is the Rust side of that contract
//! (notes: the seam between build logic and the converter):
//!
//! | file | what |
//! |------|------|
//! | [`embedded`] | the layer's files (`include_bytes!`, listed by `build.rs`), [`API_VERSION`], writing the tree out once, content-addressed and read-only |
//! | [`request`] | the serde types of `request.json`, what the layer reads |
//! | [`job`] | what a build job carries to run the layer ([`LogicJob`]) and how it becomes a request in a stage |
//! | [`interpreter`] | which Python runs it (`STACK_PYTHON`, the cluster's `python` external, the host's `python3`) and its version check |
//! | [`run_env`] | the run environment the layer records (`setup_run_environment`): `outputs.run_env`, stored as `<prefix>/.stack/run-env.json` |
//! | [`files`] | package files: `spack/<ns>/<dir>/package.py` ⇔ module `spack_repo.<ns>.packages.<dir>.package`, sha256 checks |
//!
//! What runs is covered by node hashes: the `spack` build section (every
//! package file's sha256) and [`API_VERSION`]. The interpreter is not: the
//! build host must not change plan hashes.
//!
//! Depends on nothing but [`crate::settings`]; the build system kinds
//! ([`crate::build_kinds`]), the recipe loader, the resolver (the hash) and
//! the build stage read it.

pub mod embedded;
pub mod files;
pub mod interpreter;
pub mod job;
pub mod request;
pub mod run_env;

use std::path::PathBuf;

pub use embedded::{API_VERSION, write_layer};
pub use files::{PackageFile, module_name};
pub use interpreter::{Interpreter, InterpreterChoice, SUPPORTED_PYTHON};
pub use job::LogicJob;
pub use request::Request;
pub use run_env::{RUN_ENV_FILE, RunEnvOp};

/// The exit status of the layer for a package API it does not implement
/// (the message names the package.py line and the call).
pub const EXIT_UNSUPPORTED: i32 = 3;

/// The directory of a stage the request and the layer's outputs live in.
pub const STAGE_DIR: &str = ".stack-build-logic";

/// Errors of the build logic's Rust side.
#[derive(Debug, thiserror::Error)]
pub enum BuildLogicError {
    #[error(
        "{package}: {message}\n  hint: the call is not implemented by stack's package API (docs/import.md#supported-api); \
         translate this method into the recipe's YAML, or change the package file"
    )]
    Unsupported { package: String, message: String },

    #[error(
        "{package}: package file {} does not match its sha256 (expected {expected}, found {found})\n  hint: the recipe's `build:` section lists each file with its sha256; re-import the package or update the sha256 on purpose",
        path.display()
    )]
    Checksum {
        package: String,
        path: PathBuf,
        expected: String,
        found: String,
    },

    #[error("{package}: cannot read package file {}: {source}", path.display())]
    Unreadable {
        package: String,
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{package}: the run environment the build logic wrote ({}) is not valid: {message}", path.display())]
    BadRunEnv {
        package: String,
        path: PathBuf,
        message: String,
    },

    #[error(
        "{package}: the job runs build logic but carries none (written by another version of stack?)"
    )]
    NoLogic { package: String },

    #[error(transparent)]
    Interpreter(#[from] interpreter::InterpreterError),

    #[error(transparent)]
    Io(#[from] std::io::Error),
}
