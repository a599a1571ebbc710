//! Errors of the resolve stage, and the explanation of a failed resolution.

use std::fmt;
use std::path::PathBuf;

use crate::diag::{Loc, display_path};

/// One line of an explanation: text, an optional `file:line`, and its
/// indentation (a deeper line says why the line above holds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplainLine {
    pub indent: usize,
    pub text: String,
    pub loc: Option<Loc>,
}

/// Why an environment cannot be resolved: the requirements that collide,
/// each with where it was written, and the chain of requirements that
/// brought each package in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub environment: String,
    /// One sentence, locations inline (`a requires x (file:line), but b …`).
    pub problem: String,
    pub lines: Vec<ExplainLine>,
    /// Alternatives the backtracking search also tried.
    pub tried: Vec<String>,
    pub hint: Option<String>,
}

/// `file:line` as shown in explanations (the path relative to the current
/// directory when below it).
pub fn short_loc(loc: &Loc) -> String {
    format!("{}:{}", display_path(loc.path()), loc.line)
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "cannot resolve environment `{}`", self.environment)?;
        write!(f, "  {}", self.problem)?;
        for l in &self.lines {
            write!(f, "\n  {}{}", "  ".repeat(l.indent), l.text)?;
            if let Some(loc) = &l.loc {
                write!(f, " ({})", short_loc(loc))?;
            }
        }
        if !self.tried.is_empty() {
            write!(
                f,
                "\n  backtracking also tried: {} — none of them resolves",
                self.tried.join(", ")
            )?;
        }
        if let Some(h) = &self.hint {
            write!(f, "\n  hint: {h}")?;
        }
        Ok(())
    }
}

/// A difference between `stack.lock` and what the inputs resolve to now.
pub type LockChange = String;

/// Errors of [`crate::resolve::resolve`] and of lock files.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// No configuration satisfies every requirement.
    #[error("{0}")]
    Unsatisfiable(Box<Explanation>),
    /// The stack names a compiler the cluster does not have (or the cluster
    /// has none).
    #[error("{message}")]
    Compiler { message: String, loc: Option<Loc> },
    /// The concrete dependencies form a cycle.
    #[error("dependency cycle in environment `{environment}`: {cycle}")]
    Cycle { environment: String, cycle: String },
    /// `--locked`: the plan differs from the lock file.
    #[error(
        "the resolution differs from {}:\n{}\n  hint: run `stack resolve --lock` to update the lock file, or drop `--locked`",
        display_path(.path),
        .changes.iter().map(|c| format!("  - {c}")).collect::<Vec<_>>().join("\n")
    )]
    LockMismatch {
        path: PathBuf,
        changes: Vec<LockChange>,
    },
    /// A lock file that cannot be read or parsed.
    #[error("cannot read lock file {}: {message}", display_path(.path))]
    LockRead { path: PathBuf, message: String },
    /// A lock file that cannot be written.
    #[error("cannot write lock file {}: {source}", display_path(.path))]
    LockWrite {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl ResolveError {
    /// The explanation of an unsatisfiable environment.
    pub fn explanation(&self) -> Option<&Explanation> {
        match self {
            ResolveError::Unsatisfiable(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the error is about the inputs (exit code 2) rather than a
    /// failed operation.
    pub fn is_input_error(&self) -> bool {
        matches!(
            self,
            ResolveError::Unsatisfiable(_)
                | ResolveError::Compiler { .. }
                | ResolveError::Cycle { .. }
        )
    }
}
