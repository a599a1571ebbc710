//! `sbatch` per package, dependencies as `afterok`.

use std::path::PathBuf;
use std::time::SystemTime;

use super::super::gitlab::shell_line;
use super::super::{DistributedError, RemoteReporter, Work};
use super::Slurm;

/// The end of the lock file's here-document in a batch script.
const LOCK_EOF: &str = "STACK_LOCK_EOF";

/// A submitted job.
#[derive(Clone, Debug)]
pub(super) struct Submitted {
    pub package: String,
    pub id: String,
    pub log: PathBuf,
    pub submitted: SystemTime,
}

/// Submit every package of `work`, dependencies first.
pub(super) fn submit_all(
    s: &Slurm,
    work: &Work,
    reporter: &dyn RemoteReporter,
) -> Result<Vec<Submitted>, DistributedError> {
    let names = work.job_names();
    let mut lock = fs_err::read_to_string(&s.opts.lock_file)?;
    if !lock.ends_with('\n') {
        lock.push('\n');
    }
    if lock.lines().any(|l| l == LOCK_EOF) {
        return Err(DistributedError::Command {
            command: "sbatch".into(),
            message: format!(
                "{} contains the line {LOCK_EOF}",
                s.opts.lock_file.display()
            ),
        });
    }
    let mut out: Vec<Submitted> = Vec::with_capacity(work.packages.len());
    for (k, p) in work.packages.iter().enumerate() {
        let dir = &s.opts.job_dir;
        let build_dir = dir.join(&names[k]);
        let lock_path = dir.join(format!("{}.lock", names[k]));
        let mut argv = s
            .opts
            .command
            .for_package(&p.name, &build_dir.to_string_lossy());
        argv.extend([
            "--locked".into(),
            "--lock-file".into(),
            lock_path.to_string_lossy().into_owned(),
        ]);
        let script = dir.join(format!("{}.sh", names[k]));
        let text = format!(
            "#!/bin/sh\n# {}@{} ({}), written by stack build --executor slurm\nset -e\n\
             mkdir -p {dir}\ncat > {lock} <<'{LOCK_EOF}'\n{lock_text}{LOCK_EOF}\nexec {cmd}\n",
            p.name,
            p.version,
            p.hash,
            dir = shell_line(&[dir.to_string_lossy().into_owned()]),
            lock = shell_line(&[lock_path.to_string_lossy().into_owned()]),
            lock_text = lock,
            cmd = shell_line(&argv)
        );
        fs_err::write(&script, text)?;
        let log = dir.join(format!("{}.log", names[k]));
        let _ = fs_err::remove_file(&log);
        let mut cmd = s.program("sbatch");
        cmd.arg("--parsable")
            .arg(format!("--job-name=stack:{}", names[k]))
            .arg(format!("--output={}", log.display()))
            .arg("--kill-on-invalid-dep=yes");
        let deps: Vec<&str> = p.deps.iter().map(|d| out[*d].id.as_str()).collect();
        if !deps.is_empty() {
            cmd.arg(format!("--dependency=afterok:{}", deps.join(":")));
        }
        cmd.args(&s.opts.sbatch_args).arg(&script);
        let id = match run(cmd, "sbatch") {
            Ok(stdout) => stdout
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string(),
            Err(e) => {
                cancel(s, &out);
                return Err(e);
            }
        };
        reporter.job(&p.name, &format!("submitted as job {id}"));
        tracing::info!("{}: Slurm job {id}", p.name);
        out.push(Submitted {
            package: p.name.clone(),
            id,
            log,
            submitted: SystemTime::now(),
        });
    }
    Ok(out)
}

/// Run a Slurm command; its stdout, or its stderr as the error.
pub(super) fn run(mut cmd: std::process::Command, what: &str) -> Result<String, DistributedError> {
    let out = cmd.output().map_err(|e| DistributedError::Command {
        command: what.to_string(),
        message: format!("cannot run it: {e} (is Slurm installed and on PATH?)"),
    })?;
    if !out.status.success() {
        return Err(DistributedError::Command {
            command: what.to_string(),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `scancel` the jobs (best effort).
pub(super) fn cancel(s: &Slurm, jobs: &[Submitted]) {
    if jobs.is_empty() {
        return;
    }
    let mut cmd = s.program("scancel");
    cmd.args(jobs.iter().map(|j| j.id.as_str()));
    if let Err(e) = run(cmd, "scancel") {
        tracing::warn!("{e}");
    }
}
