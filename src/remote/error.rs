//! What goes wrong when packages are built elsewhere.

/// Errors of distributed builds.
#[derive(Debug, thiserror::Error)]
pub enum DistributedError {
    /// `--only NAME[/HASH]` selects no package of the plan (or, with a
    /// hash, more than one).
    #[error("--only {name}: no package `{name}` in the plan{}", hint(.known))]
    UnknownPackage { name: String, known: Vec<String> },
    /// A dependency of an `--only` package is neither installed nor cached.
    #[error(
        "{package}: its dependency {dep} ({hash}) is neither installed nor in the binary cache; its job must run (and push) first"
    )]
    MissingDependency {
        package: String,
        dep: String,
        hash: String,
    },
    /// `--only` and remote executors hand packages over through a binary cache.
    #[error(
        "{what} needs a binary cache that takes pushes (--binary-cache oci://… or the cluster's `binary_cache:`)"
    )]
    NoCache { what: String },
    /// A batch system command could not run or refused.
    #[error("{command}: {message}")]
    Command { command: String, message: String },
    /// Jobs failed; each with its log tail.
    #[error("{}", failed_message(.0))]
    JobsFailed(Vec<FailedJob>),
    /// Interrupted: the submitted jobs were cancelled.
    #[error("interrupted: cancelled the Slurm jobs {}", .0.join(", "))]
    Cancelled(Vec<String>),
    /// A job ended well but its package is not in the cache.
    #[error("{0} was built remotely but is not in the binary cache (did its push fail?)")]
    NotPushed(String),
    /// A job ended well but its package is not in the shared store.
    #[error(
        "{0} was built remotely but is not in the shared store (is the build directory on a file system the build nodes share, at the same path?)"
    )]
    NotInStore(String),
    /// `--only`: the package was built but could not be pushed.
    #[error("the binary cache did not take what was built: {}", .0.join("; "))]
    PushFailed(Vec<String>),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A remote job that did not succeed.
#[derive(Debug, Clone)]
pub struct FailedJob {
    pub package: String,
    pub job: String,
    /// `FAILED`, `CANCELLED`, `TIMEOUT`, … and Slurm's reason.
    pub state: String,
    pub log: std::path::PathBuf,
    pub log_tail: Vec<String>,
}

fn hint(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!(" (packages to build: {})", known.join(", "))
    }
}

fn failed_message(jobs: &[FailedJob]) -> String {
    let mut s = format!("{} remote job(s) did not succeed:", jobs.len());
    for j in jobs {
        s.push_str(&format!(
            "\n  {} (job {}): {}\n    log: {}",
            j.package,
            j.job,
            j.state,
            j.log.display()
        ));
        for l in &j.log_tail {
            s.push_str(&format!("\n    | {l}"));
        }
    }
    s
}

impl DistributedError {
    /// Wrong input (exit 2) rather than a failed operation.
    pub fn is_input_error(&self) -> bool {
        matches!(
            self,
            DistributedError::UnknownPackage { .. } | DistributedError::NoCache { .. }
        )
    }
}
