//! Source locations and collected diagnostics shared by every loader.
//!
//! Loaders never stop at the first problem: they push [`Diagnostic`]s into a
//! [`Diagnostics`] list and the CLI renders all of them (miette) with
//! `file:line:col`, what was expected and, where one exists, a suggestion.
//!
//! - [`Loc`]: where something came from (file, line, column, byte span).
//! - [`Spanned<T>`]: a value with its [`Loc`].
//! - [`SourceFile`]: a file's text, attached to diagnostics so miette can show
//!   the offending line with a caret.
//! - [`Diagnostic`] / [`Diagnostics`]: one problem / a collection of them.
//! - [`yaml`]: the spanned YAML reader the loaders are built on;
//!   [`yaml_out`]: the writer recipes are written back out with.
//! - [`did_you_mean`]: nearest-name suggestions.
//! - [`binary_form`]: models (and their locations) in binary form, for caches.

pub mod binary_form;
mod chain;
mod class;
mod diagnostic;
mod json;
mod lined;
pub mod retry;
mod source;
mod suggest;
pub mod yaml;
pub mod yaml_out;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use chain::error_chain;
pub use class::{Classify, ErrorClass, input_if};
pub use diagnostic::{Code, Diagnostic, Diagnostics, Label, Severity};
pub use lined::Lined;
pub use retry::Retry;
pub use source::display_path;
pub use source::{OriginSpan, Origins, SourceFile};
pub use suggest::{backticked, did_you_mean, nearest};

/// A position in a source file: 1-based line and column (in characters), and
/// the byte range (`offset`, `len`) of the item in the file's text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub file: Arc<PathBuf>,
    pub line: usize,
    pub col: usize,
    /// Byte offset of the item's first character in the file.
    pub offset: usize,
    /// Length in bytes of the item (0 when unknown).
    pub len: usize,
    /// Where this item was written in a generated file it was translated
    /// into (a stackinator recipe's translation): diagnostics point at the
    /// user's file and mention this one only as the translation.
    pub via: Option<Arc<Loc>>,
}

impl Loc {
    /// A location without a byte span (offset 0, length 0).
    pub fn new(file: impl Into<PathBuf>, line: usize, col: usize) -> Self {
        Loc {
            file: Arc::new(file.into()),
            line,
            col,
            offset: 0,
            len: 0,
            via: None,
        }
    }

    /// The start of a file (line 1, column 1), for problems with the file as a whole.
    pub fn file_start(file: impl Into<PathBuf>) -> Self {
        Loc::new(file, 1, 1)
    }

    /// The file this location is in.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// This location's byte range as a miette span.
    pub fn span(&self) -> miette::SourceSpan {
        miette::SourceSpan::new(self.offset.into(), self.len)
    }
}

/// A model's `{:?}` text without its locations (`Loc { … }`): two models
/// read from different texts (a file and its rewrite) compare equal when
/// only their locations differ. For tests.
#[cfg(test)]
pub(crate) fn debug_without_locs(model: &impl fmt::Debug) -> String {
    let debug = format!("{model:?}");
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug.as_str();
    while let Some(at) = rest.find("Loc {") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('}').expect("a Loc's closing brace");
        out.push_str("Loc");
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    out
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

/// A value together with where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Spanned<T> {
    pub value: T,
    pub loc: Loc,
}

impl<T> Spanned<T> {
    pub fn new(value: T, loc: Loc) -> Self {
        Spanned { value, loc }
    }

    /// Transform the value, keeping the location.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Spanned<U> {
        Spanned {
            value: f(self.value),
            loc: self.loc,
        }
    }

    pub fn as_ref(&self) -> Spanned<&T> {
        Spanned {
            value: &self.value,
            loc: self.loc.clone(),
        }
    }
}

impl<T> std::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: fmt::Display> fmt::Display for Spanned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loc_displays_file_line_col() {
        let loc = Loc::new("/a/b.yaml", 3, 7);
        assert_eq!(loc.to_string(), "/a/b.yaml:3:7");
        assert_eq!(loc.span(), miette::SourceSpan::new(0.into(), 0));
    }

    #[test]
    fn spanned_derefs_and_maps() {
        let s = Spanned::new(String::from("x"), Loc::new("f", 1, 1));
        assert_eq!(s.len(), 1);
        let n = s.map(|s| s.len());
        assert_eq!(n.value, 1);
        assert_eq!(n.loc.line, 1);
    }
}
