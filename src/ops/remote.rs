//! `stack build --executor slurm`: the Slurm executor for a build, with the
//! command line each job runs — the submitter's own, without what each job
//! sets itself.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::remote::slurm::{Slurm, SlurmOptions};
use crate::remote::{JobCommand, RemoteBuilder};

/// A remote executor, for [`crate::pipeline::BuildRequest::remote`].
pub type RemoteExecutor = Arc<dyn RemoteBuilder>;

/// What `stack build --executor slurm` asks for.
#[derive(Debug, Clone)]
pub struct SlurmRequest {
    /// The build directory, absolute.
    pub build_dir: PathBuf,
    /// The `stack` program the jobs run.
    pub program: String,
    /// The submitter's arguments (without the program).
    pub argv: Vec<String>,
    /// Extra sbatch arguments for every job.
    pub sbatch_args: Vec<String>,
    /// Time between two squeue polls.
    pub poll: Duration,
    /// Group small packages into jobs of at most this many estimated seconds.
    pub group_seconds: f64,
    /// The build nodes share the build directory at the same path: jobs
    /// build into its store, without the binary cache.
    pub shared_store: bool,
}

/// The Slurm executor of `req`: one batch job per group of packages, each
/// running the submitter's command line for its packages.
pub fn slurm_executor(req: SlurmRequest) -> RemoteExecutor {
    let shared = req.shared_store;
    let mut args = job_args(req.argv.into_iter(), shared);
    if shared {
        args.extend(["--shared-store".into(), "--no-binary-cache".into()]);
    }
    Arc::new(Slurm::new(SlurmOptions {
        command: JobCommand {
            program: req.program,
            args,
        },
        job_dir: req.build_dir.join("slurm"),
        sbatch_args: req.sbatch_args,
        poll: req.poll,
        lock_file: req.build_dir.join(crate::resolve::LOCK_FILE),
        bin_dir: None::<PathBuf>,
        group_seconds: req.group_seconds,
        shared_store: shared.then(|| req.build_dir.join("store")),
    }))
}

/// Flags of the submitter's command line that a job does not repeat (it
/// gets its own).
const PER_JOB_FLAGS: &[&str] = &["--shared-store"];

/// Options of the submitter that a job sharing its store does without.
const CACHE_OPTIONS: &[&str] = &["--binary-cache"];

/// Options taking a value that the submitter's command line has and a
/// job's must not (each job gets its own).
const PER_JOB: &[&str] = &[
    "--build",
    "--executor",
    "--slurm-args",
    "--slurm-poll",
    "--group-seconds",
    "--lock-file",
    "--only",
    "--jobs",
    "-j",
];

/// The submitter's arguments without those each job sets itself (and,
/// with a shared store, without the binary cache); relative paths stay
/// relative to the submit directory (Slurm starts jobs there).
fn job_args(argv: impl Iterator<Item = String>, shared: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_value = false;
    let mut dropped: Vec<&str> = PER_JOB.to_vec();
    if shared {
        dropped.extend(CACHE_OPTIONS);
    }
    for a in argv {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if PER_JOB_FLAGS.contains(&a.as_str()) || (shared && a == "--no-binary-cache") {
            continue;
        }
        if dropped.contains(&a.as_str()) {
            skip_value = true;
            continue;
        }
        let joined = dropped.iter().any(|o| {
            a.strip_prefix(o)
                .is_some_and(|rest| rest.starts_with('=') || (*o == "-j" && !rest.is_empty()))
        });
        if !joined {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_job_options_are_dropped_in_every_form() {
        let argv = "build s.yaml --build b -j 4 --executor slurm --slurm-args=--time=1 --cluster c -j8 --binary-cache oci://r/c --jobs=2 --slurm-poll 0.5 --group-seconds 30";
        assert_eq!(
            job_args(argv.split(' ').map(String::from), false),
            [
                "build",
                "s.yaml",
                "--cluster",
                "c",
                "--binary-cache",
                "oci://r/c"
            ]
        );
    }

    #[test]
    fn jobs_sharing_the_store_drop_the_binary_cache() {
        let argv = "build s.yaml --shared-store --binary-cache=oci://r/c --cluster c --binary-cache oci://r/d";
        assert_eq!(
            job_args(argv.split(' ').map(String::from), true),
            ["build", "s.yaml", "--cluster", "c"]
        );
    }
}
