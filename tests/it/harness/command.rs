//! [`Stack`]: the built `stack` binary as a command, in an isolated
//! environment, and [`Run`]: what it printed and how it exited.

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitStatus, Output, Stdio};

use super::isolation;

/// The `stack` binary of this build.
pub const STACK: &str = env!("CARGO_BIN_EXE_stack");

/// Variables removed from every command besides `STACK_*`: they change
/// what `stack` does (logging, TLS roots, registry credentials, dates,
/// the cache base).
const REMOVED: &[&str] = &[
    "RUST_LOG",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "DOCKER_CONFIG",
    "SOURCE_DATE_EPOCH",
    "XDG_CACHE_HOME",
];

/// `stack` with an isolated environment: no inherited `STACK_*` variable
/// (nor the others in [`REMOVED`]), `HOME` a directory of this test run (so
/// the default cache, `~/.cache/stack`, is the run's own), `--color never`
/// first unless [`Stack::bare`]. Everything else is a builder over
/// [`Command`]; [`Stack::run`] waits and decodes the output.
pub struct Stack {
    cmd: Command,
    stdin: Option<Vec<u8>>,
}

impl Stack {
    /// `stack --color never`.
    pub fn new() -> Stack {
        let mut s = Stack::bare();
        s.cmd.args(["--color", "never"]);
        s
    }

    /// `stack` without arguments (for `--help` and `--version` texts, which
    /// are compared as `stack` prints them).
    pub fn bare() -> Stack {
        Stack::wrapping(Command::new(STACK))
    }

    /// `cmd` (a wrapper such as `setpriv …` whose last argument is
    /// [`STACK`]) with the isolated environment.
    pub(crate) fn wrapping(mut cmd: Command) -> Stack {
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("STACK_") {
                cmd.env_remove(k);
            }
        }
        for k in REMOVED {
            cmd.env_remove(k);
        }
        cmd.env("HOME", isolation::home());
        Stack { cmd, stdin: None }
    }

    /// Runs in `dir`.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Stack {
        self.cmd.current_dir(dir);
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Stack {
        self.cmd.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Stack
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Stack {
        self.cmd.env(key, value);
        self
    }

    pub fn envs<I, K, V>(mut self, vars: I) -> Stack
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.cmd.envs(vars);
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Stack {
        self.cmd.env_remove(key);
        self
    }

    /// `STACK_CACHE=dir` (the source cache and the caches below it).
    pub fn cache(self, dir: impl AsRef<Path>) -> Stack {
        self.env("STACK_CACHE", dir.as_ref())
    }

    /// `bytes` on standard input (closed after them).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Stack {
        self.stdin = Some(bytes.into());
        self
    }

    /// The command, to spawn or configure further (pipes, signals).
    pub fn command(self) -> Command {
        self.cmd
    }

    /// Runs to the end; the raw output.
    pub fn output(mut self) -> Output {
        let Some(input) = self.stdin.take() else {
            return self
                .cmd
                .stdin(Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("run {STACK}: {e}"));
        };
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("run {STACK}: {e}"));
        child.stdin.take().unwrap().write_all(&input).unwrap();
        child.wait_with_output().unwrap()
    }

    /// Runs to the end; the output decoded.
    pub fn run(self) -> Run {
        Run::from(self.output())
    }
}

/// What a command printed and how it exited.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    /// The exit code, -1 when killed by a signal.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            status: out.status,
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// stdout then stderr.
    pub fn text(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// [`Self::text`] on one line: words separated by one space, the `|`
    /// margins of wrapped diagnostics dropped.
    pub fn flat(&self) -> String {
        flat(&self.text())
    }

    /// (exit code, [`Self::text`]).
    pub fn code_text(&self) -> (i32, String) {
        (self.code, self.text())
    }

    /// (exit code, [`Self::flat`]).
    pub fn code_flat(&self) -> (i32, String) {
        (self.code, self.flat())
    }

    /// (exit code, stdout, stderr).
    pub fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }

    /// `dir` (as given and canonical) replaced by `with` in both streams.
    pub fn replace_dir(self, dir: &Path, with: &str) -> Run {
        let canonical = dir.canonicalize().unwrap().display().to_string();
        let plain = dir.display().to_string();
        let norm = |s: String| s.replace(&canonical, with).replace(&plain, with);
        Run {
            stdout: norm(self.stdout),
            stderr: norm(self.stderr),
            ..self
        }
    }

    /// Panics with the output unless the command succeeded.
    #[track_caller]
    pub fn assert_success(&self) -> &Run {
        assert!(
            self.success(),
            "stack failed ({}):\n{}",
            self.status,
            self.text()
        );
        self
    }

    /// Panics with the output unless the command exited with `code`.
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Run {
        assert_eq!(self.code, code, "exit code:\n{}", self.text());
        self
    }
}

/// `text` on one line: words separated by one space, `|` margins dropped.
pub fn flat(text: &str) -> String {
    text.split_whitespace()
        .filter(|w| *w != "|")
        .collect::<Vec<_>>()
        .join(" ")
}
