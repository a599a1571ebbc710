//! File filters: Spack's `filter_file` as a build step. A regular
//! expression replaced line by line in a file of the staged source tree,
//! with Python `re` semantics for the subset of patterns on which Python and
//! Rust's `regex` agree ([`pyre::translate`] refuses the rest).

mod apply;
pub mod pyre;

pub use apply::{FilterError, apply, compile};

/// One rendered filter.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileFilter {
    /// The file, relative to the source tree.
    pub file: String,
    /// A Python regular expression (a literal string with `string`).
    pub regex: String,
    /// The replacement: `\1`…`\9` are groups, `\\` is a backslash.
    pub replace: String,
    /// `regex` is a literal string, not a pattern.
    #[serde(default)]
    pub string: bool,
    /// A missing file is skipped instead of failing the build.
    #[serde(default)]
    pub ignore_absent: bool,
}
