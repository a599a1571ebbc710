//! `sbatch` per group of packages, dependencies as `afterok`.

use std::path::PathBuf;
use std::time::SystemTime;

use super::super::gitlab::shell_line;
use super::super::{DistributedError, Group, RemoteReporter, Work};
use super::Slurm;

/// The end of the lock file's here-document in a batch script.
const LOCK_EOF: &str = "STACK_LOCK_EOF";

/// A submitted job.
#[derive(Clone, Debug)]
pub(super) struct Submitted {
    /// The job's name (a package, or `first+N` for a group).
    pub package: String,
    /// The names of its packages, comma-separated.
    pub packages: String,
    pub id: String,
    pub log: PathBuf,
    pub submitted: SystemTime,
}

/// Submit a job per group of `work`, dependencies first.
pub(super) fn submit_all(
    s: &Slurm,
    work: &Work,
    groups: &[Group],
    reporter: &dyn RemoteReporter,
) -> Result<Vec<Submitted>, DistributedError> {
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
    let mut out: Vec<Submitted> = Vec::with_capacity(groups.len());
    for g in groups {
        let script = write_script(s, work, g, &lock)?;
        let log = s.opts.job_dir.join(format!("{}.log", g.name));
        let _ = fs_err::remove_file(&log);
        let mut cmd = s.program("sbatch");
        cmd.arg("--parsable")
            .arg(format!("--job-name=stack:{}", g.name))
            .arg(format!("--output={}", log.display()))
            .arg("--kill-on-invalid-dep=yes");
        let deps: Vec<&str> = g.deps.iter().map(|d| out[*d].id.as_str()).collect();
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
        let packages = work.package_names(g);
        match g.packages.len() {
            1 => reporter.job(&g.name, &format!("submitted as job {id}")),
            _ => reporter.job(&g.name, &format!("submitted as job {id} ({packages})")),
        }
        tracing::info!("{}: Slurm job {id}", g.name);
        out.push(Submitted {
            package: g.name.clone(),
            packages,
            id,
            log,
            submitted: SystemTime::now(),
        });
    }
    Ok(out)
}

/// The batch script of `g`: the lock file as a here-document, then `stack
/// build --only …` of its packages.
fn write_script(
    s: &Slurm,
    work: &Work,
    g: &Group,
    lock: &str,
) -> Result<PathBuf, DistributedError> {
    let dir = &s.opts.job_dir;
    let build_dir = dir.join(&g.name);
    let lock_path = dir.join(format!("{}.lock", g.name));
    let selected: Vec<&super::super::work::Package> =
        g.packages.iter().map(|k| &work.packages[*k]).collect();
    let mut argv = s
        .opts
        .command
        .for_packages(&selected, &build_dir.to_string_lossy());
    argv.extend([
        "--locked".into(),
        "--lock-file".into(),
        lock_path.to_string_lossy().into_owned(),
    ]);
    let header: Vec<String> = g
        .packages
        .iter()
        .map(|k| {
            let p = &work.packages[*k];
            format!("# {}@{} ({})\n", p.name, p.version, p.hash)
        })
        .collect();
    let script = dir.join(format!("{}.sh", g.name));
    let link = match &s.opts.shared_store {
        Some(store) => format!(
            "mkdir -p {build}\nln -sfn {store} {link}\n",
            build = shell_line(&[build_dir.to_string_lossy().into_owned()]),
            store = shell_line(&[store.to_string_lossy().into_owned()]),
            link = shell_line(&[build_dir.join("store").to_string_lossy().into_owned()]),
        ),
        None => String::new(),
    };
    let text = format!(
        "#!/bin/sh\n# written by stack build --executor slurm\n{}set -e\n\
         mkdir -p {dir}\n{link}cat > {lock_file} <<'{LOCK_EOF}'\n{lock}{LOCK_EOF}\nexec {cmd}\n",
        header.concat(),
        dir = shell_line(&[dir.to_string_lossy().into_owned()]),
        lock_file = shell_line(&[lock_path.to_string_lossy().into_owned()]),
        cmd = shell_line(&argv)
    );
    fs_err::write(&script, text)?;
    Ok(script)
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
