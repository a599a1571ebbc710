//! Running one command of a package build.
//!
//! Each command gets the package's clean environment, the jobserver, the
//! log as stdout/stderr, no stdin, `PR_SET_PDEATHSIG(SIGKILL)` (it dies with
//! the worker thread that waits for it), and — in namespace mode — its own
//! user+mount namespace. Its wall time is added to the package's child time.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::PackageError;
use super::jobserver::JobServer;
use super::log::BuildLog;
use crate::sandbox::Namespace;

/// Runs commands for one package.
pub struct Runner<'a> {
    pub env: BTreeMap<OsString, OsString>,
    pub log: &'a BuildLog,
    pub jobserver: &'a JobServer,
    pub namespace: Option<&'a Arc<Namespace>>,
    children: Cell<Duration>,
}

impl<'a> Runner<'a> {
    pub fn new(
        env: BTreeMap<OsString, OsString>,
        log: &'a BuildLog,
        jobserver: &'a JobServer,
        namespace: Option<&'a Arc<Namespace>>,
    ) -> Self {
        Runner {
            env,
            log,
            jobserver,
            namespace,
            children: Cell::new(Duration::ZERO),
        }
    }

    /// Total wall time spent in children so far.
    pub fn children(&self) -> Duration {
        self.children.get()
    }

    /// Run `argv` in `cwd` with the jobserver; fail on a non-zero exit.
    pub fn run(&self, argv: &[String], cwd: &Path) -> Result<(), PackageError> {
        self.run_with(argv, cwd, true)
    }

    /// Like [`Runner::run`]; `jobserver: false` leaves `MAKEFLAGS` out.
    pub fn run_with(
        &self,
        argv: &[String],
        cwd: &Path,
        jobserver: bool,
    ) -> Result<(), PackageError> {
        let Some((program, args)) = argv.split_first() else {
            return Ok(());
        };
        self.log
            .line(&format!("==> {} (in {})", shell_words(argv), cwd.display()));
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(cwd)
            .env_clear()
            .envs(&self.env)
            .stdin(Stdio::null())
            .stdout(self.log.stdio()?)
            .stderr(self.log.stdio()?);
        if jobserver {
            self.jobserver.configure(&mut cmd);
        }
        // SAFETY: prctl is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                nix::libc::prctl(nix::libc::PR_SET_PDEATHSIG, nix::libc::SIGKILL);
                Ok(())
            });
        }
        if let Some(ns) = self.namespace {
            ns.apply(&mut cmd, cwd)?;
        }
        let start = Instant::now();
        let status = cmd.status();
        self.children.set(self.children.get() + start.elapsed());
        let status = status.map_err(|source| PackageError::Spawn {
            program: program.clone(),
            source,
        })?;
        if status.success() {
            return Ok(());
        }
        let code = status.code();
        let status = match (status.code(), status.signal()) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(s)) => format!("killed by signal {s}"),
            _ => status.to_string(),
        };
        self.log.line(&format!("==> failed: {status}"));
        Err(PackageError::Command {
            argv: shell_words(argv),
            status,
            code,
            cwd: cwd.to_path_buf(),
        })
    }
}

/// Render an argv for humans, quoting where needed.
pub fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(
            shell_words(&["sed".into(), "-i".into(), "s/a b/c/".into(), "it's".into()]),
            r"sed -i 's/a b/c/' 'it'\''s'"
        );
    }

    #[test]
    fn runs_with_clean_env_and_logs() {
        let d = tempfile::tempdir().unwrap();
        let log = BuildLog::create(&d.path().join("l.log")).unwrap();
        let js = JobServer::new(2).unwrap();
        let mut env = BTreeMap::new();
        env.insert(OsString::from("PATH"), OsString::from("/usr/bin:/bin"));
        env.insert(OsString::from("ONLY"), OsString::from("me"));
        let r = Runner::new(env, &log, &js, None);
        r.run(
            &[
                "sh".into(),
                "-c".into(),
                "echo ONLY=$ONLY HOME=$HOME; echo $MAKEFLAGS".into(),
            ],
            d.path(),
        )
        .unwrap();
        let err = r
            .run(&["sh".into(), "-c".into(), "exit 3".into()], d.path())
            .unwrap_err();
        assert!(err.to_string().contains("exit status 3"), "{err}");
        let text = fs_err::read_to_string(log.path()).unwrap();
        assert!(text.contains("ONLY=me HOME=\n"), "{text}");
        assert!(text.contains("--jobserver-auth="), "{text}");
        assert!(r.children() > Duration::ZERO);
    }
}
