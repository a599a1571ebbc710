//! What the evaluator collects from a method body, each item under the
//! condition of its `if` blocks: argument lists, environment changes,
//! install steps and file filters ([`Produced`]).

use crate::file_filter::FileFilter;
use crate::import::spack::evaluator::cond::Cond;

/// One argument under a condition.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgItem {
    pub cond: Cond,
    pub template: String,
}

/// One environment change.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvItem {
    pub cond: Cond,
    /// `set`, `unset`, `prepend_path`, `append_path`, `append_flags`.
    pub op: &'static str,
    pub var: String,
    pub value: Option<String>,
}

/// What a body produced.
#[derive(Debug, Default)]
pub struct Produced {
    pub args: Option<Vec<ArgItem>>,
    pub env: Vec<EnvItem>,
    /// Install steps of an `install()` body.
    pub install: Vec<InstallItem>,
    /// File edits of a `patch()`/`edit()` body.
    pub filters: Vec<FilterItem>,
}

/// One install action: `copy` (source glob, prefix-relative directory) or
/// `mkdir` (prefix-relative directory).
#[derive(Clone, Debug, PartialEq)]
pub struct InstallItem {
    pub cond: Cond,
    pub op: &'static str,
    pub from: Option<String>,
    pub to: String,
    /// The arguments of a `make` call.
    pub args: Vec<String>,
}

/// One file edit under the condition of its `if` blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterItem {
    pub cond: Cond,
    pub filter: FileFilter,
}
