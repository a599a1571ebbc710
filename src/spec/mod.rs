//! TEMPORARY stand-in for the `spec` module so that the `load` branch
//! compiles before the real spec language lands on `main` (branch `spec`).
//! It implements only the API surface the loaders use; on merge, take the
//! `spec` branch's version of this file and delete this one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A parse error with the byte offset and length of the offending part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{message}")]
pub struct SpecParseError {
    pub offset: usize,
    pub len: usize,
    pub message: String,
}

/// A version (stub: compares components numerically where possible).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version(String);

impl Version {
    pub fn parse(s: &str) -> Result<Version, SpecParseError> {
        if s.is_empty() || s.chars().any(|c| c.is_whitespace() || c == ':' || c == ',') {
            return Err(SpecParseError {
                offset: 0,
                len: s.len(),
                message: format!("invalid version `{s}`"),
            });
        }
        Ok(Version(s.to_string()))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let key = |s: &str| {
            s.split(['.', '-', '_'])
                .map(|c| c.parse::<u64>().map_err(|_| c.to_string()))
                .collect::<Vec<_>>()
        };
        key(&self.0).cmp(&key(&other.0))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A version constraint (stub: the text after `@`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VersionConstraint(pub Option<String>);

/// A variant value in a spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantValue {
    Bool(bool),
    Values(BTreeSet<String>),
}

/// A (possibly abstract) spec.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Spec {
    pub name: Option<String>,
    pub versions: VersionConstraint,
    pub variants: BTreeMap<String, VariantValue>,
    pub compiler: Option<Box<Spec>>,
    pub target: Option<String>,
    pub platform: Option<String>,
    pub deps: Vec<Spec>,
}

fn err(offset: usize, len: usize, message: impl Into<String>) -> SpecParseError {
    SpecParseError {
        offset,
        len: len.max(1),
        message: message.into(),
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, SpecParseError> {
        let mut specs = vec![Spec::default()];
        let mut pos = 0;
        for tok in text.split(' ') {
            let start = pos;
            pos += tok.len() + 1;
            if tok.is_empty() {
                continue;
            }
            let mut rest = tok;
            let mut off = start;
            while !rest.is_empty() {
                let cur = specs.last_mut().expect("non-empty");
                let c = rest.chars().next().expect("non-empty");
                let end = rest[1..]
                    .find(['+', '~', '^', '%', '@'])
                    .map_or(rest.len(), |i| i + 1);
                let (piece, tail) = rest.split_at(end);
                match c {
                    '^' => {
                        let name = &piece[1..];
                        if !is_name(name) {
                            return Err(err(off, piece.len(), "expected a package name after `^`"));
                        }
                        specs.push(Spec {
                            name: Some(name.to_string()),
                            ..Spec::default()
                        });
                    }
                    '@' => {
                        let v = &piece[1..];
                        if v.is_empty() {
                            return Err(err(off, 1, "expected a version after `@`"));
                        }
                        cur.versions = VersionConstraint(Some(v.to_string()));
                    }
                    '+' | '~' => {
                        let name = &piece[1..];
                        if !is_name(name) {
                            return Err(err(off, piece.len(), "expected a variant name"));
                        }
                        cur.variants
                            .insert(name.to_string(), VariantValue::Bool(c == '+'));
                    }
                    '%' => {
                        let mut comp = Spec::parse(&piece[1..])
                            .map_err(|e| err(off + 1 + e.offset, e.len, e.message))?;
                        comp.deps.clear();
                        cur.compiler = Some(Box::new(comp));
                    }
                    _ => {
                        if let Some((k, v)) = piece.split_once('=') {
                            if !is_name(k) {
                                return Err(err(
                                    off,
                                    k.len(),
                                    "expected a variant name before `=`",
                                ));
                            }
                            if v.is_empty() {
                                return Err(err(off + k.len(), 1, "expected a value after `=`"));
                            }
                            match k {
                                "target" => cur.target = Some(v.to_string()),
                                "platform" => cur.platform = Some(v.to_string()),
                                _ => {
                                    let vals = v.split(',').map(str::to_string).collect();
                                    cur.variants
                                        .insert(k.to_string(), VariantValue::Values(vals));
                                }
                            }
                        } else if cur.name.is_none() && is_name(piece) {
                            cur.name = Some(piece.to_string());
                        } else {
                            return Err(err(off, piece.len(), format!("unexpected `{piece}`")));
                        }
                    }
                }
                off += piece.len();
                rest = tail;
            }
        }
        let mut root = specs.remove(0);
        root.deps = specs;
        Ok(root)
    }

    /// Stub: names equal (or unnamed) and every variant of `other` equal here.
    pub fn satisfies(&self, other: &Spec) -> bool {
        (other.name.is_none() || self.name == other.name)
            && (other.versions.0.is_none()
                || self.versions.0.as_deref().is_some_and(|v| {
                    other
                        .versions
                        .0
                        .as_deref()
                        .is_some_and(|o| v.starts_with(o))
                }))
            && other
                .variants
                .iter()
                .all(|(k, v)| self.variants.get(k) == Some(v))
    }

    /// Stub: names compatible.
    pub fn intersects(&self, other: &Spec) -> bool {
        self.name.is_none() || other.name.is_none() || self.name == other.name
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(n) = &self.name {
            f.write_str(n)?;
        }
        if let Some(v) = &self.versions.0 {
            write!(f, "@{v}")?;
        }
        for (k, v) in &self.variants {
            match v {
                VariantValue::Bool(true) => write!(f, " +{k}")?,
                VariantValue::Bool(false) => write!(f, " ~{k}")?,
                VariantValue::Values(vs) => write!(
                    f,
                    " {k}={}",
                    vs.iter().cloned().collect::<Vec<_>>().join(",")
                )?,
            }
        }
        Ok(())
    }
}

/// Stub target table.
pub fn is_known_target(t: &str) -> bool {
    let t = t.trim_end_matches(':');
    [
        "x86_64",
        "x86_64_v2",
        "x86_64_v3",
        "x86_64_v4",
        "zen2",
        "zen3",
        "zen4",
        "aarch64",
        "neoverse_v1",
        "neoverse_v2",
    ]
    .contains(&t)
}
