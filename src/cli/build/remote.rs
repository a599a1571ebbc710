//! `stack build`'s distributed options: `--only PKG` (what a job of a
//! distributed build runs) and `--executor slurm` (submit the jobs).

use std::time::Duration;

use stack::ops::SlurmOptions;
use stack::settings::Flags;

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

impl RemoteArgs {
    /// The flags settings come from: `--executor`, `--shared-store`,
    /// `--group-seconds`.
    pub fn add_flags(&self, flags: &mut Flags) {
        flags.remote_executor = self.executor != Executor::Local;
        flags.shared_store = self.shared_store;
        flags.group_seconds = self.group_seconds;
    }

    /// The Slurm executor's options, if one was asked for (the operation
    /// adds the build directory, the shared store and the grouping).
    pub fn slurm(&self, password_stdin: bool) -> Result<Option<SlurmOptions>, CliError> {
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
        let program = std::env::current_exe()?;
        Ok(Some(SlurmOptions {
            program: program.to_string_lossy().into_owned(),
            argv: std::env::args().skip(1).collect(),
            sbatch_args: self
                .slurm_args
                .as_deref()
                .unwrap_or_default()
                .split_whitespace()
                .map(String::from)
                .collect(),
            poll: Duration::from_secs_f64(self.slurm_poll),
        }))
    }
}
