//! Which Python runs the layer, chosen once before a build that needs it
//! (a plan with `spack` packages to build):
//!
//! 1. `STACK_PYTHON` (a path, or a name looked up on `PATH`), when set;
//! 2. the cluster's external `python` (`<prefix>/bin/python3`), when the
//!    cluster configuration declares one — Spack and stackinator need a
//!    Python on the build host too;
//! 3. `python3` on the `PATH` of `stack` itself.
//!
//! The candidate is asked for `sys.executable` (so a launcher such as a
//! pyenv shim is replaced by the interpreter it starts, which runs in the
//! build's clean environment) and its version, which must be at least
//! [`SUPPORTED_PYTHON`]. The interpreter is never part of a node hash: the
//! build host does not change the plan.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The oldest Python the layer supports (major, minor).
pub const SUPPORTED_PYTHON: (u32, u32) = (3, 9);

/// Where the interpreter came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterpreterChoice {
    /// `STACK_PYTHON`.
    Override(PathBuf),
    /// The cluster's `python` external at this prefix.
    ClusterExternal(PathBuf),
    /// `python3` on the host's `PATH`.
    Host,
}

impl std::fmt::Display for InterpreterChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InterpreterChoice::Override(p) => write!(f, "STACK_PYTHON={}", p.display()),
            InterpreterChoice::ClusterExternal(p) => {
                write!(f, "the cluster's python external ({})", p.display())
            }
            InterpreterChoice::Host => f.write_str("python3 on PATH"),
        }
    }
}

/// The chosen interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpreter {
    /// Its `sys.executable`: an absolute path.
    pub path: PathBuf,
    /// `major.minor.micro`.
    pub version: (u32, u32, u32),
    pub choice: InterpreterChoice,
}

impl Interpreter {
    /// `3.11.7`.
    pub fn version_text(&self) -> String {
        let (a, b, c) = self.version;
        format!("{a}.{b}.{c}")
    }
}

/// Why no interpreter can run the build logic.
#[derive(Debug, thiserror::Error)]
pub enum InterpreterError {
    #[error(
        "no Python to run the build logic of {packages}: {reason}\n  hint: declare the cluster's python as an external (`packages: {{python: {{externals: [{{spec: python@3.11, prefix: /usr}}]}}}}`) or set STACK_PYTHON to a Python {}.{} or newer",
        SUPPORTED_PYTHON.0, SUPPORTED_PYTHON.1
    )]
    NotFound { packages: String, reason: String },

    #[error(
        "{} ({choice}) cannot run the build logic: {message}\n  hint: set STACK_PYTHON to a working Python {}.{} or newer",
        path.display(), SUPPORTED_PYTHON.0, SUPPORTED_PYTHON.1
    )]
    Probe {
        path: PathBuf,
        choice: InterpreterChoice,
        message: String,
    },

    #[error(
        "{} ({choice}) is Python {version}; the build logic needs Python {}.{} or newer\n  hint: set STACK_PYTHON to a newer Python, or declare one as the cluster's python external",
        path.display(), SUPPORTED_PYTHON.0, SUPPORTED_PYTHON.1
    )]
    Unsupported {
        path: PathBuf,
        choice: InterpreterChoice,
        version: String,
    },
}

/// A program name or path resolved on `PATH` (as `stack` sees it).
fn on_path(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return Some(name.to_path_buf());
    }
    let path = crate::settings::search_path()?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Ask `program` for its executable and version.
fn probe(program: &Path, choice: InterpreterChoice) -> Result<Interpreter, InterpreterError> {
    let fail = |message: String| InterpreterError::Probe {
        path: program.to_path_buf(),
        choice: choice.clone(),
        message,
    };
    let out = Command::new(program)
        .args([
            "-I",
            "-c",
            "import sys; print(sys.executable); print('%d.%d.%d' % tuple(sys.version_info[:3]))",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| fail(e.to_string()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(fail(format!(
            "it exited with {}: {}",
            out.status,
            err.trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let (Some(exe), Some(version)) = (lines.next(), lines.next()) else {
        return Err(fail(format!("unexpected answer `{}`", text.trim())));
    };
    let parts: Vec<u32> = version.split('.').filter_map(|p| p.parse().ok()).collect();
    let [a, b, c] = parts[..] else {
        return Err(fail(format!("unexpected version `{version}`")));
    };
    let path = if exe.is_empty() {
        program.to_path_buf()
    } else {
        PathBuf::from(exe)
    };
    if (a, b) < SUPPORTED_PYTHON {
        return Err(InterpreterError::Unsupported {
            path,
            choice,
            version: version.to_string(),
        });
    }
    Ok(Interpreter {
        path,
        version: (a, b, c),
        choice,
    })
}

/// Choose and check the interpreter. `cluster_python` is the prefix of
/// the cluster's `python` external, if it declares one; `packages` names
/// what needs it (for the error).
pub fn choose(
    cluster_python: Option<&Path>,
    packages: &str,
) -> Result<Interpreter, InterpreterError> {
    if let Some(p) = crate::settings::python() {
        let choice = InterpreterChoice::Override(p.clone());
        let Some(program) = on_path(&p) else {
            return Err(InterpreterError::NotFound {
                packages: packages.to_string(),
                reason: format!("STACK_PYTHON={} is not on PATH", p.display()),
            });
        };
        return probe(&program, choice);
    }
    if let Some(prefix) = cluster_python {
        let program = prefix.join("bin/python3");
        return probe(
            &program,
            InterpreterChoice::ClusterExternal(prefix.to_path_buf()),
        );
    }
    match on_path(Path::new("python3")) {
        Some(program) => probe(&program, InterpreterChoice::Host),
        None => Err(InterpreterError::NotFound {
            packages: packages.to_string(),
            reason: "the cluster declares no python external and there is no python3 on PATH"
                .into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        fs_err::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs_err::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn the_hosts_python_answers_with_its_executable() {
        let Some(p) = on_path(Path::new("python3")) else {
            return; // no python3 here: `choose` is covered by the build tests
        };
        let i = probe(&p, InterpreterChoice::Host).unwrap();
        assert!(i.path.is_absolute(), "{i:?}");
        assert!((i.version.0, i.version.1) >= SUPPORTED_PYTHON, "{i:?}");
    }

    #[test]
    fn old_and_broken_interpreters_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let old = script(tmp.path(), "old", "echo /opt/py2/bin/python; echo 2.7.18");
        let e = probe(&old, InterpreterChoice::Host)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is Python 2.7.18"), "{e}");
        assert!(e.contains("/opt/py2/bin/python"), "{e}");
        let broken = script(tmp.path(), "broken", "echo nope >&2; exit 1");
        let e = probe(&broken, InterpreterChoice::ClusterExternal("/x".into()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("the cluster's python external (/x)"), "{e}");
        assert!(e.contains("nope"), "{e}");
        let e = probe(&tmp.path().join("missing"), InterpreterChoice::Host)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot run the build logic"), "{e}");
        let old = script(tmp.path(), "old3", "echo /usr/bin/python3.6; echo 3.6.15");
        let e = probe(&old, InterpreterChoice::Host)
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs Python 3.9 or newer"), "{e}");
        let ok = script(tmp.path(), "ok", "echo /opt/py/bin/python3.9; echo 3.9.2");
        let i = probe(&ok, InterpreterChoice::Host).unwrap();
        assert_eq!(i.path, PathBuf::from("/opt/py/bin/python3.9"));
        assert_eq!(i.version_text(), "3.9.2");
    }
}
