//! The Slurm executor of `stack build --executor slurm`: one batch job per
//! group of packages ([`Work::groups`]), chained with
//! `--dependency=afterok`, each running `stack build --only PKG [--only
//! PKG2 …]` on its node (dependencies pulled from the binary cache, the
//! packages built and pushed). The submitter follows the jobs with `squeue`
//! (states, and the lines the jobs write to their logs), cancels them with
//! `scancel` on Ctrl-C, and returns when every job has ended; the pipeline
//! then pulls everything from the cache and goes on exactly as locally.
//!
//! Files, under `<build>/slurm/`: `<job>.sh` (the batch script), `<job>.log`
//! (its output: the submitter reads it when the file system is shared, or
//! on a single machine), `<job>/` (the job's build directory; its store and
//! sources are removed once every job succeeded, its `logs/` stay; with a
//! shared store, its `store` is a link to the submitter's) and `jobs.json`
//! (job ids and the times seen: submitted, started, ended).

mod follow;
mod interrupt;
mod submit;

use std::path::PathBuf;
use std::time::Duration;

use super::{DistributedError, JobCommand, RemoteBuilder, RemoteReporter, Work};

pub use follow::JobTimes;

/// How to submit.
#[derive(Clone, Debug)]
pub struct SlurmOptions {
    /// What a job runs (`--build`, `--only` are added per job).
    pub command: JobCommand,
    /// Scripts, logs and job build directories.
    pub job_dir: PathBuf,
    /// Extra `sbatch` arguments (`--partition=…`, `--time=…`, `--cpus-per-task=…`).
    pub sbatch_args: Vec<String>,
    /// How often `squeue` is asked.
    pub poll: Duration,
    /// The plan's lock file, copied into every batch script (sbatch sends
    /// the script to the node: no shared file system needed) and given to
    /// the job's `stack build --locked --lock-file`.
    pub lock_file: PathBuf,
    /// The `sbatch`, `squeue`, `scancel` programs (a directory, or `None`: `PATH`).
    pub bin_dir: Option<PathBuf>,
    /// Group small packages into jobs of about this many estimated seconds
    /// (0: one job per package).
    pub group_seconds: f64,
    /// A store every node sees at the same path (the submitter's): each
    /// job's `store` is a symbolic link to it, so jobs build into it and
    /// nothing goes through the binary cache (`command` says so to `stack`).
    pub shared_store: Option<PathBuf>,
}

/// Submits work as Slurm jobs.
#[derive(Debug)]
pub struct Slurm {
    opts: SlurmOptions,
}

impl Slurm {
    pub fn new(opts: SlurmOptions) -> Slurm {
        Slurm { opts }
    }

    fn program(&self, name: &str) -> std::process::Command {
        match &self.opts.bin_dir {
            Some(d) => std::process::Command::new(d.join(name)),
            None => std::process::Command::new(name),
        }
    }
}

impl RemoteBuilder for Slurm {
    fn name(&self) -> &str {
        "slurm"
    }

    fn build(&self, work: &Work, reporter: &dyn RemoteReporter) -> Result<(), DistributedError> {
        fs_err::create_dir_all(&self.opts.job_dir)?;
        let _guard = interrupt::Guard::install();
        let groups = work.groups(self.opts.group_seconds);
        tracing::info!(
            "{} packages in {} Slurm jobs:\n{}",
            work.packages.len(),
            groups.len(),
            work.describe(&groups)
        );
        let jobs = submit::submit_all(self, work, &groups, reporter)?;
        follow::follow(self, &jobs, reporter)?;
        // Everything is in the cache now: the jobs' stores and source trees
        // (each holds its dependencies) go; their logs and records stay.
        // (A shared store's link is removed, not what it points to.)
        for g in &groups {
            for sub in ["store", "sources", "stage", "cache-tmp"] {
                let dir = self.opts.job_dir.join(&g.name).join(sub);
                if let Err(e) = crate::store::wipe(&dir) {
                    tracing::warn!("cannot remove {}: {e}", dir.display());
                }
            }
        }
        Ok(())
    }
}
