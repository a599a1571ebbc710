//! `stack build`'s distributed options: `--only PKG` (what a job of a
//! distributed build runs) and `--executor slurm` (submit the jobs).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use stack::remote::slurm::{Slurm, SlurmOptions};
use stack::remote::{JobCommand, RemoteBuilder};
use stack::settings::{Flags, Settings};

use super::super::CliError;

/// Distributed build options of `stack build`.
#[derive(Debug, Clone, clap::Args)]
pub struct RemoteArgs {
    /// Build only this package (repeatable) from dependencies installed or in
    /// the binary cache, push it, and stop before views and image (what each
    /// job of a distributed build runs). PKG is a name (every package of
    /// that name), or NAME/HASH with a prefix of its node hash (one package:
    /// what jobs give, so that two packages of one name get a job each).
    #[arg(long, value_name = "PKG", help_heading = "Distributed builds")]
    pub only: Vec<String>,
    /// Where packages are built: `local` (this machine) or `slurm` (one
    /// batch job per package, handed over through the binary cache).
    #[arg(long, value_enum, default_value_t = Executor::Local, help_heading = "Distributed builds")]
    pub executor: Executor,
    /// Extra sbatch arguments for every job, split at white space
    /// (e.g. "--partition=build --time=02:00:00 --cpus-per-task=16").
    #[arg(
        long,
        value_name = "ARGS",
        allow_hyphen_values = true,
        help_heading = "Distributed builds"
    )]
    pub slurm_args: Option<String>,
    /// Seconds between two squeue polls.
    #[arg(
        long,
        default_value_t = 2.0,
        value_name = "SECS",
        help_heading = "Distributed builds"
    )]
    pub slurm_poll: f64,
    /// Group small packages into one Slurm job of at most this many
    /// estimated seconds (the last recorded build times, else an earlier
    /// build's from the binary cache, else an estimate from the build
    /// system; 0: one job per package)
    /// [default: the cluster's `ci: {group_seconds}`, else 60].
    #[arg(
        long,
        value_name = "SECS",
        value_parser = seconds,
        help_heading = "Distributed builds"
    )]
    pub group_seconds: Option<f64>,
    /// The build directory is on a file system the build nodes share at the
    /// same path [default: the cluster's `ci: {shared_store}`]: Slurm jobs
    /// build straight into its store, without the binary cache. With
    /// --only: build into this store, push nothing (what such a job runs).
    #[arg(long, help_heading = "Distributed builds")]
    pub shared_store: bool,
}

/// A number of seconds, 0 or more (`--group-seconds`).
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "expected seconds (a number, 0 or more), found `{s}`"
        )),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Executor {
    Local,
    Slurm,
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

impl RemoteArgs {
    /// The flags settings come from: `--executor`, `--shared-store`,
    /// `--group-seconds`.
    pub fn add_flags(&self, flags: &mut Flags) {
        flags.remote_executor = self.executor != Executor::Local;
        flags.shared_store = self.shared_store;
        flags.group_seconds = self.group_seconds;
    }

    /// The remote executor, if one was asked for; the shared store and the
    /// grouping from `settings`.
    pub fn executor(
        &self,
        build_dir: &Path,
        password_stdin: bool,
        settings: &Settings,
    ) -> Result<Option<Arc<dyn RemoteBuilder>>, CliError> {
        if self.executor == Executor::Local {
            if self.group_seconds.is_some() {
                return Err(CliError::input(miette::miette!(
                    help = "add --executor slurm",
                    "--group-seconds is for --executor slurm"
                )));
            }
            if self.slurm_args.is_some() {
                return Err(CliError::input(miette::miette!(
                    help = "add --executor slurm",
                    "--slurm-args is for --executor slurm"
                )));
            }
            return Ok(None);
        }
        if !self.only.is_empty() {
            return Err(CliError::input(miette::miette!(
                "--only is what each Slurm job runs; it does not go with --executor slurm"
            )));
        }
        if password_stdin {
            return Err(CliError::input(miette::miette!(
                help = "give the jobs credentials they can read: --docker-config FILE or --token-file FILE",
                "--password-stdin cannot reach Slurm jobs"
            )));
        }
        if !(self.slurm_poll > 0.0 && self.slurm_poll <= 3600.0) {
            return Err(CliError::input(miette::miette!(
                "--slurm-poll: expected seconds between 0 and 3600, found {}",
                self.slurm_poll
            )));
        }
        let build_dir = std::path::absolute(build_dir)?;
        let program = std::env::current_exe()?;
        let program = program.to_string_lossy().into_owned();
        let shared = settings.shared_store;
        let mut args = job_args(std::env::args().skip(1), shared);
        if shared {
            args.extend(["--shared-store".into(), "--no-binary-cache".into()]);
        }
        Ok(Some(Arc::new(Slurm::new(SlurmOptions {
            command: JobCommand { program, args },
            job_dir: build_dir.join("slurm"),
            sbatch_args: self
                .slurm_args
                .as_deref()
                .unwrap_or_default()
                .split_whitespace()
                .map(String::from)
                .collect(),
            poll: Duration::from_secs_f64(self.slurm_poll),
            lock_file: build_dir.join(stack::resolve::LOCK_FILE),
            bin_dir: None::<PathBuf>,
            group_seconds: settings.group_seconds,
            shared_store: shared.then(|| build_dir.join("store")),
        }))))
    }
}

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
