//! Environment operations (`env:` of a package, `build_env:`, view `env_vars:`).

use std::fmt;

use crate::diag::Loc;

use super::located::When;

/// What an [`EnvOp`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum EnvOpKind {
    /// `VAR=value`.
    Set,
    /// Remove `VAR`.
    Unset,
    /// `VAR=value:$VAR`.
    PrependPath,
    /// `VAR=$VAR:value`.
    AppendPath,
    /// `VAR="$VAR value"` (`VAR=value` when unset or empty): Spack's
    /// `env.append_flags`; only in `build_env:`.
    AppendFlags,
}

impl EnvOpKind {
    /// The key used in YAML.
    pub fn key(self) -> &'static str {
        match self {
            EnvOpKind::Set => "set",
            EnvOpKind::Unset => "unset",
            EnvOpKind::PrependPath => "prepend_path",
            EnvOpKind::AppendPath => "append_path",
            EnvOpKind::AppendFlags => "append_flags",
        }
    }

    pub const KEYS: [&'static str; 4] = ["set", "unset", "prepend_path", "append_path"];

    /// The operations of `build_env:` (the run environment and views have
    /// no flag lists).
    pub const BUILD_KEYS: [&'static str; 5] = [
        "set",
        "unset",
        "prepend_path",
        "append_path",
        "append_flags",
    ];

    pub fn from_key(key: &str) -> Option<EnvOpKind> {
        match key {
            "set" => Some(EnvOpKind::Set),
            "unset" => Some(EnvOpKind::Unset),
            "prepend_path" => Some(EnvOpKind::PrependPath),
            "append_path" => Some(EnvOpKind::AppendPath),
            "append_flags" => Some(EnvOpKind::AppendFlags),
            _ => None,
        }
    }
}

/// One environment change, applied in file order. `value` is a template
/// (empty for `unset`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EnvOp {
    pub kind: EnvOpKind,
    pub var: String,
    pub value: String,
    pub when: Option<When>,
    pub loc: Loc,
}

impl fmt::Display for EnvOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            EnvOpKind::Unset => write!(f, "unset {}", self.var),
            k => write!(f, "{} {}={}", k.key(), self.var, self.value),
        }
    }
}
