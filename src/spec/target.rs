//! Microarchitecture targets: the built-in table and `target=` constraints.
//!
//! The table is a small directed acyclic graph (a target may have two
//! parents, as in Spack: `zen4` is both a `zen3` and an `x86_64_v4`); a
//! target is a *descendant* of every target on a path up to its family root
//! (`x86_64` or `aarch64`).
//!
//! | constraint | meaning |
//! |------------|---------|
//! | `target=neoverse_v2` | exactly that target |
//! | `target=aarch64:` | `aarch64` or any descendant (the whole family) |
//! | `target=:zen3` | `zen3` or any of its ancestors |
//! | `target=zen2:zen4` | descendants of `zen2` that are ancestors of `zen4` |
//! | `target=zen2,neoverse_v2:` | union |

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use super::error::SpecError;

struct Microarch {
    name: &'static str,
    parents: &'static [&'static str],
}

const fn t(name: &'static str, parents: &'static [&'static str]) -> Microarch {
    Microarch { name, parents }
}

/// The built-in table, roots first; parents always precede children.
static TABLE: &[Microarch] = &[
    t("x86_64", &[]),
    t("x86_64_v2", &["x86_64"]),
    t("x86_64_v3", &["x86_64_v2"]),
    t("x86_64_v4", &["x86_64_v3"]),
    t("nehalem", &["x86_64_v2"]),
    t("sandybridge", &["nehalem"]),
    t("haswell", &["sandybridge", "x86_64_v3"]),
    t("broadwell", &["haswell"]),
    t("skylake", &["broadwell"]),
    t("skylake_avx512", &["skylake", "x86_64_v4"]),
    t("cascadelake", &["skylake_avx512"]),
    t("icelake", &["cascadelake"]),
    t("sapphirerapids", &["icelake"]),
    t("zen", &["x86_64_v3"]),
    t("zen2", &["zen"]),
    t("zen3", &["zen2"]),
    t("zen4", &["zen3", "x86_64_v4"]),
    t("zen5", &["zen4"]),
    t("aarch64", &[]),
    t("a64fx", &["aarch64"]),
    t("neoverse_n1", &["aarch64"]),
    t("neoverse_v1", &["neoverse_n1"]),
    t("neoverse_v2", &["neoverse_v1"]),
];

/// Archspec's other names, so that recipes imported from Spack
/// (`conflicts("target=ppc64le:")`) parse; none is an Alps target, so error
/// hints (`known_targets`) do not list them. Parents precede children.
static FOREIGN: &[Microarch] = &[
    t("westmere", &["nehalem"]),
    t("k10", &["x86_64"]),
    t("neoverse_n2", &["neoverse_n1"]),
    t("m1", &["aarch64"]),
    t("m2", &["m1"]),
    t("x86", &[]),
    t("ppc64", &[]),
    t("power7", &["ppc64"]),
    t("power8", &["power7"]),
    t("power9", &["power8"]),
    t("power10", &["power9"]),
    t("ppc64le", &[]),
    t("power8le", &["ppc64le"]),
    t("power9le", &["power8le"]),
    t("power10le", &["power9le"]),
    t("ppc", &[]),
    t("ppcle", &[]),
    t("arm", &[]),
    t("riscv64", &[]),
    t("sparc", &[]),
    t("sparc64", &[]),
];

fn entry(name: &str) -> Option<&'static Microarch> {
    TABLE.iter().chain(FOREIGN).find(|m| m.name == name)
}

/// Every name of both tables (what ranges range over).
fn all_targets() -> impl Iterator<Item = &'static str> {
    TABLE.iter().chain(FOREIGN).map(|m| m.name)
}

/// Every target of the built-in table, roots first (the cluster targets
/// error hints list).
pub fn known_targets() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|m| m.name)
}

/// Whether `name` is in the built-in table.
pub fn is_known_target(name: &str) -> bool {
    entry(name).is_some()
}

/// The family root of a known target: `"x86_64"` or `"aarch64"`.
pub fn target_family(name: &str) -> Option<&'static str> {
    let mut m = entry(name)?;
    while let Some(p) = m.parents.first() {
        m = entry(p)?;
    }
    Some(m.name)
}

/// The direct parents of a known target.
pub fn target_parents(name: &str) -> &'static [&'static str] {
    entry(name).map_or(&[], |m| m.parents)
}

/// Whether `target` is `ancestor` or descends from it (both known).
pub fn target_descends_from(target: &str, ancestor: &str) -> bool {
    if target == ancestor {
        return is_known_target(target);
    }
    target_parents(target)
        .iter()
        .any(|p| target_descends_from(p, ancestor))
}

/// The known target nearest to a misspelt name, if one is close enough
/// (ties go to the newer target, later in the table).
pub fn suggest_target(name: &str) -> Option<&'static str> {
    known_targets()
        .enumerate()
        .map(|(i, t)| (strsim::levenshtein(name, t), std::cmp::Reverse(i), t))
        .filter(|(d, _, t)| *d <= (t.len() / 3).max(2))
        .min_by_key(|(d, i, _)| (*d, *i))
        .map(|(_, _, t)| t)
}

/// One element of a [`TargetConstraint`].
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum TargetRange {
    /// `target=zen3`: exactly this target (may be outside the table when
    /// built with [`TargetConstraint::exact`]).
    Exact(String),
    /// `lo:`, `:hi`, `lo:hi` (at least one end is given).
    Between {
        lo: Option<String>,
        hi: Option<String>,
    },
}

impl TargetRange {
    fn admits(&self, target: &str) -> bool {
        match self {
            TargetRange::Exact(n) => n == target,
            TargetRange::Between { lo, hi } => {
                is_known_target(target)
                    && lo
                        .as_ref()
                        .is_none_or(|lo| target_descends_from(target, lo))
                    && hi
                        .as_ref()
                        .is_none_or(|hi| target_descends_from(hi, target))
            }
        }
    }
}

impl fmt::Display for TargetRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetRange::Exact(n) => f.write_str(n),
            TargetRange::Between { lo, hi } => write!(
                f,
                "{}:{}",
                lo.as_deref().unwrap_or(""),
                hi.as_deref().unwrap_or("")
            ),
        }
    }
}

/// A `target=` constraint: a union of [`TargetRange`]s, sorted and without
/// duplicates so that `parse(display(t)) == t`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TargetConstraint {
    ranges: Vec<TargetRange>,
}

fn bad_target(text: &str, offset: usize, len: usize, reason: impl Into<String>) -> SpecError {
    SpecError::InvalidTarget {
        text: text.to_string(),
        reason: reason.into(),
        offset,
        len,
    }
}

fn known_name(text: &str, name: &str, offset: usize) -> Result<String, SpecError> {
    if name.is_empty() {
        return Err(bad_target(text, offset, 0, "expected a target name"));
    }
    if let Some((i, c)) = name
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '.'))
    {
        return Err(bad_target(
            text,
            offset + i,
            c.len_utf8(),
            format!("`{c}` cannot appear in a target name"),
        ));
    }
    if !is_known_target(name) {
        return Err(SpecError::UnknownTarget {
            name: name.to_string(),
            suggestion: suggest_target(name).map(str::to_string),
            offset,
        });
    }
    Ok(name.to_string())
}

impl TargetConstraint {
    /// Exactly `name` (any name: a cluster may use a target outside the
    /// table; it then satisfies only constraints that name it exactly).
    pub fn exact(name: impl Into<String>) -> TargetConstraint {
        TargetConstraint {
            ranges: vec![TargetRange::Exact(name.into())],
        }
    }

    /// Parses `zen3`, `aarch64:`, `:zen3`, `zen2:zen4` and comma lists of
    /// them. Every name must be in the built-in table.
    pub fn parse(text: &str) -> Result<TargetConstraint, SpecError> {
        let mut ranges = Vec::new();
        let mut base = 0;
        for part in text.split(',') {
            let range = match part.find(':') {
                None => TargetRange::Exact(known_name(text, part, base)?),
                Some(colon) => {
                    let (lo, hi) = (&part[..colon], &part[colon + 1..]);
                    if let Some(second) = hi.find(':') {
                        return Err(bad_target(
                            text,
                            base + colon + 1 + second,
                            1,
                            "a target range has one `:`",
                        ));
                    }
                    if lo.is_empty() && hi.is_empty() {
                        return Err(bad_target(
                            text,
                            base,
                            part.len(),
                            "expected a target name before or after `:`",
                        ));
                    }
                    let lo = (!lo.is_empty())
                        .then(|| known_name(text, lo, base))
                        .transpose()?;
                    let hi = (!hi.is_empty())
                        .then(|| known_name(text, hi, base + colon + 1))
                        .transpose()?;
                    let r = TargetRange::Between { lo, hi };
                    if !all_targets().any(|t| r.admits(t)) {
                        return Err(bad_target(
                            text,
                            base,
                            part.len(),
                            format!(
                                "`{part}` matches no target: the first is not an ancestor of the second"
                            ),
                        ));
                    }
                    r
                }
            };
            ranges.push(range);
            base += part.len() + 1;
        }
        Ok(Self::normalized(ranges))
    }

    fn normalized(mut ranges: Vec<TargetRange>) -> TargetConstraint {
        ranges.sort();
        ranges.dedup();
        TargetConstraint { ranges }
    }

    pub fn ranges(&self) -> &[TargetRange] {
        &self.ranges
    }

    /// The single target, if this is `target=<name>`.
    pub fn is_exact(&self) -> Option<&str> {
        match self.ranges.as_slice() {
            [TargetRange::Exact(n)] => Some(n),
            _ => None,
        }
    }

    /// Whether the concrete target `target` meets this constraint.
    pub fn satisfied_by(&self, target: &str) -> bool {
        self.ranges.iter().any(|r| r.admits(target))
    }

    /// Every target this admits: the known ones plus exact names outside
    /// the table.
    pub fn targets(&self) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = all_targets()
            .filter(|t| self.satisfied_by(t))
            .map(str::to_string)
            .collect();
        for r in &self.ranges {
            if let TargetRange::Exact(n) = r {
                out.insert(n.clone());
            }
        }
        out
    }

    /// Whether some target meets both.
    pub fn intersects(&self, other: &TargetConstraint) -> bool {
        match (self.is_exact(), other.is_exact()) {
            (Some(t), _) => other.satisfied_by(t),
            (_, Some(t)) => self.satisfied_by(t),
            _ => self.targets().iter().any(|t| other.satisfied_by(t)),
        }
    }

    /// Whether every target of `self` meets `other`.
    pub fn is_subset_of(&self, other: &TargetConstraint) -> bool {
        match self.is_exact() {
            Some(t) => other.satisfied_by(t),
            None => self.targets().iter().all(|t| other.satisfied_by(t)),
        }
    }

    /// The targets in both, or `None`. Keeps the spelling of one side when
    /// the result equals it, else lists the targets.
    pub fn intersect(&self, other: &TargetConstraint) -> Option<TargetConstraint> {
        if self.is_subset_of(other) {
            return Some(self.clone());
        }
        if other.is_subset_of(self) {
            return Some(other.clone());
        }
        let both: Vec<TargetRange> = self
            .targets()
            .into_iter()
            .filter(|t| other.satisfied_by(t))
            .map(TargetRange::Exact)
            .collect();
        (!both.is_empty()).then(|| Self::normalized(both))
    }
}

impl fmt::Display for TargetConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

impl FromStr for TargetConstraint {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TargetConstraint::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TargetConstraint {
        TargetConstraint::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn table_is_well_formed() {
        for (i, m) in TABLE.iter().enumerate() {
            for p in m.parents {
                let at = TABLE.iter().position(|x| x.name == *p);
                assert!(
                    at.is_some_and(|at| at < i),
                    "{} has parent {p} not before it",
                    m.name
                );
            }
            assert!(target_family(m.name).is_some());
        }
    }

    #[test]
    fn families() {
        assert_eq!(target_family("neoverse_v2"), Some("aarch64"));
        assert_eq!(target_family("a64fx"), Some("aarch64"));
        assert_eq!(target_family("zen2"), Some("x86_64"));
        assert_eq!(target_family("x86_64_v4"), Some("x86_64"));
        assert_eq!(target_family("sapphirerapids"), Some("x86_64"));
        assert_eq!(target_family("power9le"), Some("ppc64le"));
        assert_eq!(target_family("westmere"), Some("x86_64"));
        assert!(is_known_target("ppc64le"));
        assert!(!known_targets().any(|t| t == "ppc64le"));
        assert!(tc("ppc64le:").satisfied_by("power9le"));
        assert!(!tc("ppc64le:").satisfied_by("zen2"));
        assert!(is_known_target("zen3"));
        assert!(!is_known_target("neoverse_v9"));
    }

    #[test]
    fn ranges() {
        assert!(tc("neoverse_v2").satisfied_by("neoverse_v2"));
        assert!(!tc("neoverse_v2").satisfied_by("neoverse_v1"));
        assert!(tc("aarch64:").satisfied_by("neoverse_v2"));
        assert!(tc("aarch64:").satisfied_by("aarch64"));
        assert!(tc("aarch64:").satisfied_by("a64fx"));
        assert!(!tc("aarch64:").satisfied_by("zen2"));
        assert!(tc(":zen3").satisfied_by("x86_64"));
        assert!(tc(":zen3").satisfied_by("x86_64_v3"));
        assert!(tc(":zen3").satisfied_by("zen"));
        assert!(!tc(":zen3").satisfied_by("zen4"));
        assert!(!tc(":zen3").satisfied_by("x86_64_v4"));
        let z = tc("zen2:zen4");
        for ok in ["zen2", "zen3", "zen4"] {
            assert!(z.satisfied_by(ok), "{ok}");
        }
        for no in ["zen", "zen5", "x86_64_v4", "neoverse_v2"] {
            assert!(!z.satisfied_by(no), "{no}");
        }
        assert!(tc("x86_64_v3:").satisfied_by("zen2"));
        assert!(tc("x86_64_v4:").satisfied_by("zen4"));
        assert!(!tc("x86_64_v4:").satisfied_by("zen3"));
        assert!(tc("zen2,neoverse_v1:").satisfied_by("neoverse_v2"));
        assert!(!tc("zen2").satisfied_by("mystery"));
        assert!(TargetConstraint::exact("mystery").satisfied_by("mystery"));
    }

    #[test]
    fn set_operations() {
        assert!(tc("aarch64:").intersects(&tc(":neoverse_v1")));
        assert!(!tc("aarch64:").intersects(&tc("x86_64:")));
        assert!(tc("neoverse_v2").is_subset_of(&tc("aarch64:")));
        assert!(!tc("aarch64:").is_subset_of(&tc("neoverse_v2")));
        assert_eq!(
            tc("aarch64:").intersect(&tc("neoverse_v2")),
            Some(tc("neoverse_v2"))
        );
        assert_eq!(
            tc("zen:").intersect(&tc(":zen3")).map(|t| t.to_string()),
            Some("zen,zen2,zen3".into())
        );
        assert_eq!(tc("zen2").intersect(&tc("zen3")), None);
        assert!(!TargetConstraint::exact("mystery").intersects(&tc("x86_64:")));
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "zen3",
            "aarch64:",
            ":zen3",
            "zen2:zen4",
            "neoverse_v2,zen2:",
        ] {
            assert_eq!(tc(s).to_string(), s);
        }
        assert_eq!(tc("zen3,zen2,zen3").to_string(), "zen2,zen3");
    }

    #[test]
    fn errors() {
        let e = TargetConstraint::parse("neoverse_v9").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown target `neoverse_v9`; did you mean `neoverse_v2`?"
        );
        let e = TargetConstraint::parse("zen2:neoverse_v9").unwrap_err();
        assert_eq!(e.offset(), 5);
        let e = TargetConstraint::parse("banana").unwrap_err();
        assert_eq!(e.to_string(), "unknown target `banana`");
        let e = TargetConstraint::parse("zen4:zen2").unwrap_err();
        assert!(e.to_string().contains("matches no target"), "{e}");
        assert!(TargetConstraint::parse(":").is_err());
        assert!(TargetConstraint::parse("").is_err());
        assert!(TargetConstraint::parse("zen2,").is_err());
        assert!(TargetConstraint::parse("a:b:c").is_err());
    }
}
