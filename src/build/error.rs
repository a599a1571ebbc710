//! Errors of the build stage.
//!
//! [`BuildError`] stops the whole build before or outside any package
//! (bad graph, lock, mount point); a package failure is not an error of
//! [`run_plan`](super::run_plan) but a [`PackageStatus::Failed`](super::PackageStatus)
//! entry in the summary, built from a [`PackageError`].

use std::path::PathBuf;

use crate::store::StoreError;

use super::report::Phase;

/// Fatal errors of [`run_plan`](super::run_plan).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("the build graph has a dependency cycle: {}", names.join(" -> "))]
    Cycle { names: Vec<String> },

    #[error("job `{job}` depends on job index {index}, which does not exist")]
    BadEdge { job: String, index: usize },

    #[error("`{first}` and `{second}` both install into {}", prefix.display())]
    DuplicatePrefix {
        prefix: PathBuf,
        first: String,
        second: String,
    },

    #[error(
        "the prefix of `{name}` ({}) is not under the mount point {}\n  hint: every package installs below the mount point",
        prefix.display(), mount.display()
    )]
    PrefixOutsideMount {
        name: String,
        prefix: PathBuf,
        mount: PathBuf,
    },

    #[error(
        "the mount point {} does not exist and {reason}\n  hint: create the empty directory once (as root: `mkdir {}`); builds then run in a private mount namespace without root",
        mount.display(), mount.display()
    )]
    MountPointMissing { mount: PathBuf, reason: String },

    #[error(
        "cannot use a private user+mount namespace for {}: {message}\n  hint: enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces>0) or make the mount point writable",
        mount.display()
    )]
    Namespace { mount: PathBuf, message: String },

    #[error(
        "the build options (build directory {}, mount {}) are not those the workspace was opened with ({}, mount {})",
        options.0.display(), options.1.display(), workspace.0.display(), workspace.1.display()
    )]
    WorkspaceMismatch {
        options: (PathBuf, PathBuf),
        workspace: (PathBuf, PathBuf),
    },

    #[error("compiler `{}` not found on PATH\n  hint: give an absolute path in the cluster configuration", name.display())]
    CompilerNotFound { name: PathBuf },

    #[error("cannot find the `stack` executable for the compiler wrapper: {0}")]
    WrapperExe(std::io::Error),

    #[error("cannot start the jobserver: {0}")]
    Jobserver(std::io::Error),

    #[error(transparent)]
    Store(#[from] StoreError),

    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Why one package failed.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error("`{argv}` failed ({status}) in {}", cwd.display())]
    Command {
        argv: String,
        status: String,
        /// The exit status (`None`: ended by a signal).
        code: Option<i32>,
        cwd: PathBuf,
    },

    #[error("cannot run `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },

    /// A program the build ran that it does not declare.
    #[error(transparent)]
    UndeclaredTool(Box<UndeclaredTool>),

    #[error("install step `copy {from}` matched nothing in {}", dir.display())]
    NothingToCopy { from: String, dir: PathBuf },

    #[error("bad install step pattern `{pattern}`: {message}")]
    BadPattern { pattern: String, message: String },

    #[error("relocation of {}: {message}", file.display())]
    Relocate { file: PathBuf, message: String },

    #[error(
        "unknown build system `{kind}`\n  hint: the job was written by another version of stack; known: {}",
        crate::build_kinds::names().join(", ")
    )]
    UnknownBuildKind { kind: String },

    #[error(transparent)]
    Filter(#[from] crate::file_filter::FilterError),

    #[error(transparent)]
    BuildLogic(#[from] crate::build_logic::BuildLogicError),

    #[error(transparent)]
    Store(#[from] StoreError),

    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A [`PackageError`] with the phase it happened in.
#[derive(Debug)]
pub(crate) struct PhaseError {
    pub phase: Phase,
    pub error: PackageError,
}

/// A program a build ran without declaring it ([`PackageError::UndeclaredTool`]).
#[derive(Debug, thiserror::Error)]
#[error(
    "{package}: `{tool}` is not on the build PATH (`{argv}` failed{}){}{}\n  hint: declare it: a dependency `{{spec: <package with {tool}>, type: build}}` in the recipe (an external of the cluster configuration will do); only the base tools of docs/build.md are there undeclared",
    line.map(|n| format!("; the log says `{tool}` was not found at line {n}, before the failure")).unwrap_or_default(),
    recipe.as_ref().map(|r| format!("; recipe {}", r.display())).unwrap_or_default(),
    host.as_ref().map(|h| format!("; the host has {}, which builds do not see", h.display())).unwrap_or_default()
)]
pub struct UndeclaredTool {
    pub package: String,
    pub recipe: Option<PathBuf>,
    pub tool: String,
    pub argv: String,
    pub host: Option<PathBuf>,
    /// The log's line that says so, when it is not at the end of the log
    /// (the tool's absence only warned).
    pub line: Option<usize>,
}
