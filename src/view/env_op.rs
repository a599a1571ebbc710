//! Environment operations (`env:` of a package, `env_vars` of a view) and
//! the fixed tables that decide how they are applied.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One change to the environment. Values may contain placeholders (see
/// [`crate::view::placeholder`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "op")]
pub enum EnvOp {
    /// `VAR=value`.
    Set { var: String, value: String },
    /// Remove `VAR` from the environment.
    Unset { var: String },
    /// Put `value` in front of the `:`-separated list in `VAR`.
    PrependPath { var: String, value: String },
    /// Put `value` at the end of the `:`-separated list in `VAR`.
    AppendPath { var: String, value: String },
}

impl EnvOp {
    pub fn set(var: impl Into<String>, value: impl Into<String>) -> Self {
        EnvOp::Set {
            var: var.into(),
            value: value.into(),
        }
    }

    /// `set` with a null value (the recipe's `{VAR: null}`) is an unset.
    pub fn set_or_unset(var: impl Into<String>, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(v) => EnvOp::set(var, v),
            None => EnvOp::unset(var),
        }
    }

    pub fn unset(var: impl Into<String>) -> Self {
        EnvOp::Unset { var: var.into() }
    }

    pub fn prepend_path(var: impl Into<String>, value: impl Into<String>) -> Self {
        EnvOp::PrependPath {
            var: var.into(),
            value: value.into(),
        }
    }

    pub fn append_path(var: impl Into<String>, value: impl Into<String>) -> Self {
        EnvOp::AppendPath {
            var: var.into(),
            value: value.into(),
        }
    }

    pub fn var(&self) -> &str {
        match self {
            EnvOp::Set { var, .. }
            | EnvOp::Unset { var }
            | EnvOp::PrependPath { var, .. }
            | EnvOp::AppendPath { var, .. } => var,
        }
    }

    pub fn value(&self) -> Option<&str> {
        match self {
            EnvOp::Set { value, .. }
            | EnvOp::PrependPath { value, .. }
            | EnvOp::AppendPath { value, .. } => Some(value),
            EnvOp::Unset { .. } => None,
        }
    }

    pub fn kind(&self) -> OpKind {
        match self {
            EnvOp::Set { .. } => OpKind::Set,
            EnvOp::Unset { .. } => OpKind::Unset,
            EnvOp::PrependPath { .. } => OpKind::Prepend,
            EnvOp::AppendPath { .. } => OpKind::Append,
        }
    }
}

impl fmt::Display for EnvOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvOp::Set { var, value } => write!(f, "set {var}={value}"),
            EnvOp::Unset { var } => write!(f, "unset {var}"),
            EnvOp::PrependPath { var, value } => write!(f, "prepend_path {var} {value}"),
            EnvOp::AppendPath { var, value } => write!(f, "append_path {var} {value}"),
        }
    }
}

/// The kind of an operation, as uenv's env.json names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    Set,
    Unset,
    Prepend,
    Append,
}

impl OpKind {
    /// The `op` string of env.json.
    pub fn uenv_name(self) -> &'static str {
        match self {
            OpKind::Set => "set",
            OpKind::Unset => "unset",
            OpKind::Prepend => "prepend",
            OpKind::Append => "append",
        }
    }
}

/// Variables that are always `:`-separated lists (stackinator's fixed set).
/// Any other variable becomes a list too as soon as some operation prepends
/// or appends to it; otherwise it is a scalar.
pub const PREFIX_LIST_VARS: &[&str] = &[
    "ACLOCAL_PATH",
    "CMAKE_PREFIX_PATH",
    "CPATH",
    "LD_LIBRARY_PATH",
    "LIBRARY_PATH",
    "MANPATH",
    "MODULEPATH",
    "PATH",
    "PKG_CONFIG_PATH",
    "PYTHONPATH",
];

/// Prefix inspections applied to every view root and every module's prefix:
/// each listed sub-directory that exists is prepended to the variable
/// (`""` is the prefix itself).
pub const PREFIX_INSPECTIONS: &[(&str, &[&str])] = &[
    ("PATH", &["bin"]),
    ("MANPATH", &["share/man", "man"]),
    (
        "PKG_CONFIG_PATH",
        &["lib/pkgconfig", "lib64/pkgconfig", "share/pkgconfig"],
    ),
    ("ACLOCAL_PATH", &["share/aclocal"]),
    ("CMAKE_PREFIX_PATH", &[""]),
];

/// Whether `name` is a valid environment variable name.
pub fn valid_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn var_names() {
        assert!(valid_var_name("PATH"));
        assert!(valid_var_name("_x1"));
        assert!(!valid_var_name("1X"));
        assert!(!valid_var_name("A-B"));
        assert!(!valid_var_name(""));
    }

    #[test]
    fn set_null_is_unset() {
        assert_eq!(
            EnvOp::set_or_unset("PYTHONPATH", None::<String>),
            EnvOp::unset("PYTHONPATH")
        );
        assert_eq!(EnvOp::set_or_unset("A", Some("b")), EnvOp::set("A", "b"));
    }
}
