//! Source locations and collected diagnostics shared by every loader.
//!
//! Loaders never stop at the first problem: they push [`Diagnostic`]s into a
//! [`Diagnostics`] list and the CLI renders all of them (miette) with
//! `file:line:col`, what was expected and, where one exists, a suggestion.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// A position in a source file (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: Arc<PathBuf>,
    pub line: usize,
    pub col: usize,
}

impl Loc {
    pub fn new(file: impl Into<PathBuf>, line: usize, col: usize) -> Self {
        Loc {
            file: Arc::new(file.into()),
            line,
            col,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}
