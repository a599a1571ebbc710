//! Variant values: `+cuda` / `~cuda` (booleans) and `fabrics=cxi,shm`
//! (a set of values; a single-valued variant is a set of one).
//!
//! Semantics, as in Spack:
//! - a boolean constraint is met by the same boolean;
//! - a value constraint is met when its values are a subset of the concrete
//!   values (`fabrics=cxi` is met by `fabrics=cxi,shm,lnx`);
//! - merging two value sets takes their union (multi-valued variants) unless
//!   the caller says the variant is single-valued, then they must be equal.
//!
//! `key=true` / `key=false` parse as booleans (`+key` / `~key`).

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The value of one variant in a spec.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum VariantValue {
    /// `+name` (true) or `~name` / `-name` (false).
    Bool(bool),
    /// `name=a,b`: the set of values.
    Values(BTreeSet<String>),
}

/// Whether `c` may appear in an unquoted value (`key=value`).
pub(crate) fn is_bare_value_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '_' | '-' | '+' | '*' | '.' | ':' | '=' | '~' | '/' | '\\'
        )
}

/// Whether `c` may appear in a package, variant or key name.
pub(crate) fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-')
}

pub(crate) fn is_name_start(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Writes one value, quoted when it holds anything but bare value characters.
pub(crate) fn push_value(out: &mut String, value: &str) {
    let bare =
        !value.is_empty() && value.chars().all(is_bare_value_char) && !value.starts_with('=');
    if bare {
        out.push_str(value);
    } else if value.contains('"') {
        let _ = write!(out, "'{value}'");
    } else {
        let _ = write!(out, "\"{value}\"");
    }
}

impl VariantValue {
    /// A single value (`key=value`).
    pub fn single(value: impl Into<String>) -> VariantValue {
        VariantValue::Values(BTreeSet::from([value.into()]))
    }

    /// A set of values (`key=a,b`).
    pub fn values<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> VariantValue {
        VariantValue::Values(values.into_iter().map(Into::into).collect())
    }

    /// Whether `self` (usually concrete) meets `constraint`.
    pub fn satisfies(&self, constraint: &VariantValue) -> bool {
        match (self, constraint) {
            (VariantValue::Bool(a), VariantValue::Bool(b)) => a == b,
            (VariantValue::Values(have), VariantValue::Values(want)) => want.is_subset(have),
            _ => false,
        }
    }

    /// Whether one concrete value could meet both. Value sets always can
    /// (their union) unless the variant is single-valued.
    pub fn intersects(&self, other: &VariantValue, single_valued: bool) -> bool {
        match (self, other) {
            (VariantValue::Bool(a), VariantValue::Bool(b)) => a == b,
            (VariantValue::Values(a), VariantValue::Values(b)) => !single_valued || a == b,
            _ => false,
        }
    }

    /// Adds `other` to `self`: `Ok(true)` if `self` changed, `Err(())` if they
    /// cannot both hold.
    #[allow(clippy::result_unit_err)]
    pub fn constrain(&mut self, other: &VariantValue, single_valued: bool) -> Result<bool, ()> {
        match (&mut *self, other) {
            (VariantValue::Bool(a), VariantValue::Bool(b)) if a == b => Ok(false),
            (VariantValue::Values(a), VariantValue::Values(b)) => {
                if b.is_subset(a) && (!single_valued || a == b) {
                    Ok(false)
                } else if single_valued {
                    Err(())
                } else {
                    a.extend(b.iter().cloned());
                    Ok(true)
                }
            }
            _ => Err(()),
        }
    }

    /// The spec text for this value under `name`: `+name`, `~name` or
    /// `name=a,b`.
    pub fn to_spec_text(&self, name: &str) -> String {
        match self {
            VariantValue::Bool(true) => format!("+{name}"),
            VariantValue::Bool(false) => format!("~{name}"),
            VariantValue::Values(vals) => {
                let mut out = format!("{name}=");
                for (i, v) in vals.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_value(&mut out, v);
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset_semantics() {
        let have = VariantValue::values(["cxi", "shm", "lnx"]);
        assert!(have.satisfies(&VariantValue::single("cxi")));
        assert!(have.satisfies(&VariantValue::values(["cxi", "shm"])));
        assert!(!have.satisfies(&VariantValue::single("tcp")));
        assert!(!VariantValue::single("verbs").satisfies(&VariantValue::single("auto")));
        assert!(VariantValue::Bool(true).satisfies(&VariantValue::Bool(true)));
        assert!(!VariantValue::Bool(true).satisfies(&VariantValue::Bool(false)));
        assert!(!VariantValue::Bool(true).satisfies(&VariantValue::single("true")));
    }

    #[test]
    fn single_and_multi_valued_merges() {
        let mut m = VariantValue::single("cxi");
        assert_eq!(m.constrain(&VariantValue::single("shm"), false), Ok(true));
        assert_eq!(m, VariantValue::values(["cxi", "shm"]));
        assert_eq!(m.constrain(&VariantValue::single("shm"), false), Ok(false));
        let mut s = VariantValue::single("auto");
        assert!(!s.intersects(&VariantValue::single("verbs"), true));
        assert!(s.intersects(&VariantValue::single("verbs"), false));
        assert_eq!(s.constrain(&VariantValue::single("verbs"), true), Err(()));
        assert_eq!(s.constrain(&VariantValue::single("auto"), true), Ok(false));
        let mut b = VariantValue::Bool(true);
        assert_eq!(b.constrain(&VariantValue::Bool(false), false), Err(()));
        assert_eq!(b.constrain(&VariantValue::single("x"), false), Err(()));
    }

    #[test]
    fn spec_text_quotes_when_needed() {
        assert_eq!(VariantValue::Bool(true).to_spec_text("cuda"), "+cuda");
        assert_eq!(VariantValue::Bool(false).to_spec_text("cuda"), "~cuda");
        assert_eq!(
            VariantValue::values(["shm", "cxi"]).to_spec_text("fabrics"),
            "fabrics=cxi,shm"
        );
        assert_eq!(
            VariantValue::single("-O3 -g").to_spec_text("cflags"),
            "cflags=\"-O3 -g\""
        );
        assert_eq!(VariantValue::single("a\"b").to_spec_text("k"), "k='a\"b'");
        assert_eq!(VariantValue::single("").to_spec_text("k"), "k=\"\"");
        assert_eq!(
            VariantValue::single("80,90").to_spec_text("k"),
            "k=\"80,90\""
        );
    }
}
