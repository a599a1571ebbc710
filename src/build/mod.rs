//! The `build` stage: installed prefixes from rendered build jobs.
//!
//! Input: a [`BuildGraph`] of [`BuildJob`]s — every recipe value already
//! rendered (argv vectors, paths, relocation data) by the caller from the
//! resolver's plan and the fetched, patched sources. Output: a
//! [`BuildSummary`]; the prefixes themselves are registered in the
//! [`store`](crate::store).
//!
//! ```text
//! run_plan ─ Workspace: lock <build>/build.lock (lock::BuildLock), mount mode:
//!            direct, or private user+mount namespace (crate::sandbox)
//!          ─ reuse prefixes with a valid installed.json (store::prefix)
//!          ─ schedule: critical path first (scheduler), -j N tokens (jobserver)
//!              └ per package (package): clean env (env) + compiler wrapper (wrapper)
//!                stage → configure → build → install (systems/*) → relocate → register
//! ```
//!
//! Invariants:
//! - nothing is installed until `installed.json` is written (last, atomically);
//!   a prefix without it is wiped and rebuilt;
//! - at most `jobs` processes of all builds run at once;
//! - every linked ELF file gets RPATHs to its link dependencies and its own
//!   prefix (the wrapper), or has them set after install (relocation).

pub mod build_env;
mod build_id;
mod build_paths;
mod command;
mod compiler_tools;
mod costs;
mod env;
mod error;
mod executor;
mod graph;
pub mod host_libs;
pub mod host_tools;
mod install_steps;
mod job;
mod jobserver;
mod log;
mod options;
mod package;
mod phases;
mod relocate;
mod report;
mod run;
mod scheduler;
mod stage_prune;
mod tree;
mod workspace;
pub mod wrapper;

pub use crate::build_kinds::{JobSettings, JobValue};
pub use compiler_tools::WRAPPER_PROGRAM;
pub use costs::recorded_costs;
pub use env::apply_ops;
pub use error::{BuildError, PackageError};
pub use executor::{LocalStore, PrefixCache};
pub use graph::{BuildGraph, JobId};
pub use job::{
    AddNeeded, BuildJob, BuildSystem, CompilerPaths, DepKind, DepPrefix, EnvOp, InstallStep,
    ListEdit, Relocation, Steps,
};
pub use log::{TAIL_LINES, tail as log_tail};
pub use options::{BuildOptions, MountMode};
pub use report::{
    BuildReporter, BuildSummary, NoopReporter, PackageReport, PackageStatus, Phase, Timing,
};
pub use run::{run_in, run_plan};
pub use scheduler::{NodeState, Schedule};
pub use workspace::Workspace;
pub use wrapper::Dtags;
