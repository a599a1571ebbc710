//! Version constraints: the part after `@` in a spec.
//!
//! | text      | meaning |
//! |-----------|---------|
//! | `1.2`     | `1.2` or any version that starts with it (`1.2.0`, `1.2.5`, `1.2-dev`), not `1.20` |
//! | `=1.2`    | exactly `1.2` |
//! | `1.2:1.4` | from `1.2` up to `1.4` *including everything that starts with `1.4`* (`1.4.3`) |
//! | `:2`      | up to and including `2` and `2.x` |
//! | `2.2:`    | `2.2` and above (branches such as `main` included: they sort above all numbers) |
//! | `:`       | any version |
//! | `1.2,1.4:`| union of the elements |
//!
//! Lower bounds are inclusive; upper bounds include versions that start with
//! the bound, as in Spack. Pre-releases are below their release, so
//! `@1.2:` does not contain `1.2rc1` and `@:1.4` does not contain `1.5rc1`.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use super::error::SpecError;
use super::version::Version;

/// One element of a [`VersionConstraint`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum VersionRange {
    /// `=1.2`: exactly this version.
    Exact(Version),
    /// `lo:hi`, `lo:`, `:hi`, `:`, and `1.2` (which is `1.2:1.2`).
    /// `lo` is inclusive, `hi` also admits versions that start with it.
    Between {
        lo: Option<Version>,
        hi: Option<Version>,
    },
}

/// Whether `v` is under the upper bound `hi`: `v <= hi`, or `v` starts with
/// `hi` (for ordinary releases). This set is downward closed.
fn under(hi: &Version, v: &Version) -> bool {
    v <= hi || hi.is_prefix_of(v)
}

/// Whether everything under `h1` is also under `h2`. Sets under a bound are
/// downward closed in a total order, hence nested; this decides which one is
/// inside the other.
fn upper_within(h1: &Version, h2: &Version) -> bool {
    if h2.is_prefix_of(h1) {
        return true;
    }
    if h1.is_prefix_of(h2) {
        return false;
    }
    h1 <= h2
}

fn hi_within(h1: Option<&Version>, h2: Option<&Version>) -> bool {
    match (h1, h2) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(a), Some(b)) => upper_within(a, b),
    }
}

fn lo_within(l1: Option<&Version>, l2: Option<&Version>) -> bool {
    // is [l1, ...) inside [l2, ...)?
    match (l1, l2) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(a), Some(b)) => b <= a,
    }
}

/// The bounds of the intersection of two `lo:hi` ranges: the inner lower
/// and the inner upper bound.
fn between_bounds<'v>(
    (l1, h1): (&'v Option<Version>, &'v Option<Version>),
    (l2, h2): (&'v Option<Version>, &'v Option<Version>),
) -> (Option<&'v Version>, Option<&'v Version>) {
    let lo = if lo_within(l1.as_ref(), l2.as_ref()) {
        l1
    } else {
        l2
    };
    let hi = if hi_within(h1.as_ref(), h2.as_ref()) {
        h1
    } else {
        h2
    };
    (lo.as_ref(), hi.as_ref())
}

/// Whether the range `lo:hi` holds a version: its lower bound is under its
/// upper one.
fn nonempty_between(lo: Option<&Version>, hi: Option<&Version>) -> bool {
    match (lo, hi) {
        (Some(lo), Some(hi)) => under(hi, lo),
        _ => true,
    }
}

impl VersionRange {
    /// `@1.2`: the version and everything that starts with it.
    pub fn prefix(v: Version) -> VersionRange {
        VersionRange::Between {
            lo: Some(v.clone()),
            hi: Some(v),
        }
    }

    pub fn contains(&self, v: &Version) -> bool {
        match self {
            VersionRange::Exact(x) => x == v,
            VersionRange::Between { lo, hi } => {
                lo.as_ref().is_none_or(|lo| v >= lo) && hi.as_ref().is_none_or(|hi| under(hi, v))
            }
        }
    }

    fn is_nonempty(&self) -> bool {
        match self {
            VersionRange::Exact(_) => true,
            VersionRange::Between { lo: Some(lo), hi } => self.contains(lo) || hi.is_none(),
            VersionRange::Between { lo: None, .. } => true,
        }
    }

    /// The versions in both ranges, if any.
    pub fn intersect(&self, other: &VersionRange) -> Option<VersionRange> {
        use VersionRange::*;
        match (self, other) {
            (Exact(x), r) | (r, Exact(x)) => r.contains(x).then(|| Exact(x.clone())),
            (Between { lo: l1, hi: h1 }, Between { lo: l2, hi: h2 }) => {
                let (lo, hi) = between_bounds((l1, h1), (l2, h2));
                nonempty_between(lo, hi).then(|| Between {
                    lo: lo.cloned(),
                    hi: hi.cloned(),
                })
            }
        }
    }

    /// Whether some version is in both ranges: [`Self::intersect`] without
    /// making the intersection (the search asks this of every two
    /// requirements on a package).
    pub fn meets(&self, other: &VersionRange) -> bool {
        use VersionRange::*;
        match (self, other) {
            (Exact(x), r) | (r, Exact(x)) => r.contains(x),
            (Between { lo: l1, hi: h1 }, Between { lo: l2, hi: h2 }) => {
                let (lo, hi) = between_bounds((l1, h1), (l2, h2));
                nonempty_between(lo, hi)
            }
        }
    }

    /// Whether every version of `self` is in `other` (exact for ranges, a
    /// range is never reported inside an `=version`).
    pub fn is_within(&self, other: &VersionRange) -> bool {
        use VersionRange::*;
        match (self, other) {
            (Exact(x), r) => r.contains(x),
            (Between { .. }, Exact(_)) => false,
            (Between { lo: l1, hi: h1 }, Between { lo: l2, hi: h2 }) => {
                lo_within(l1.as_ref(), l2.as_ref()) && hi_within(h1.as_ref(), h2.as_ref())
            }
        }
    }

    fn lowest(&self) -> Option<&Version> {
        match self {
            VersionRange::Exact(v) => Some(v),
            VersionRange::Between { lo, .. } => lo.as_ref(),
        }
    }

    /// A total order used to print constraints canonically: by lower end,
    /// exact before ranges, then by upper end.
    pub(super) fn canonical_cmp(&self, other: &VersionRange) -> Ordering {
        let by_lo = self.lowest().cmp(&other.lowest());
        by_lo.then_with(|| match (self, other) {
            (VersionRange::Exact(a), VersionRange::Exact(b)) => a.as_str().cmp(b.as_str()),
            (VersionRange::Exact(_), _) => Ordering::Less,
            (_, VersionRange::Exact(_)) => Ordering::Greater,
            (VersionRange::Between { hi: h1, .. }, VersionRange::Between { hi: h2, .. }) => {
                match (h1, h2) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Greater,
                    (Some(_), None) => Ordering::Less,
                    (Some(a), Some(b)) => {
                        if a == b {
                            Ordering::Equal
                        } else if upper_within(a, b) {
                            Ordering::Less
                        } else {
                            Ordering::Greater
                        }
                    }
                }
            }
        })
    }
}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionRange::Exact(v) => write!(f, "={v}"),
            VersionRange::Between {
                lo: Some(lo),
                hi: Some(hi),
            } if lo.as_str() == hi.as_str() => write!(f, "{lo}"),
            VersionRange::Between { lo, hi } => {
                if let Some(lo) = lo {
                    write!(f, "{lo}")?;
                }
                f.write_str(":")?;
                if let Some(hi) = hi {
                    write!(f, "{hi}")?;
                }
                Ok(())
            }
        }
    }
}

/// A version constraint: a union of [`VersionRange`]s, never empty. Kept in
/// a canonical form (sorted, no element inside another), so equal constraints
/// print the same and `parse(display(c)) == c`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VersionConstraint {
    ranges: Vec<VersionRange>,
}

impl Default for VersionConstraint {
    fn default() -> Self {
        VersionConstraint::any()
    }
}

fn bad(text: &str, offset: usize, len: usize, reason: impl Into<String>) -> SpecError {
    SpecError::InvalidConstraint {
        text: text.to_string(),
        reason: reason.into(),
        offset,
        len,
    }
}

impl VersionConstraint {
    /// Any version (`:`).
    pub fn any() -> VersionConstraint {
        VersionConstraint {
            ranges: vec![VersionRange::Between { lo: None, hi: None }],
        }
    }

    /// Exactly one version (`=v`).
    pub fn exact(v: Version) -> VersionConstraint {
        VersionConstraint {
            ranges: vec![VersionRange::Exact(v)],
        }
    }

    /// The union of `ranges`; `None` if there are none or all are empty.
    pub fn from_ranges(
        ranges: impl IntoIterator<Item = VersionRange>,
    ) -> Option<VersionConstraint> {
        let ranges: Vec<_> = ranges.into_iter().filter(|r| r.is_nonempty()).collect();
        if ranges.is_empty() {
            return None;
        }
        Some(Self::normalized(ranges))
    }

    fn normalized(mut ranges: Vec<VersionRange>) -> VersionConstraint {
        ranges.sort_by(|a, b| a.canonical_cmp(b));
        ranges.dedup();
        VersionConstraint {
            ranges: super::covered::uncovered(ranges),
        }
    }

    /// Parses `1.2`, `=1.2`, `1.2:1.4`, `:2`, `2.2:`, `:` and comma lists.
    pub fn parse(text: &str) -> Result<VersionConstraint, SpecError> {
        if text.is_empty() {
            return Err(bad(
                text,
                0,
                0,
                "expected a version constraint, found nothing",
            ));
        }
        let mut ranges = Vec::new();
        let mut start = 0;
        for part in text.split(',') {
            let end = start + part.len();
            ranges.push(Self::parse_element(text, part, start)?);
            start = end + 1;
        }
        Ok(Self::normalized(ranges))
    }

    fn parse_element(text: &str, part: &str, base: usize) -> Result<VersionRange, SpecError> {
        let version = |s: &str, at: usize| -> Result<Version, SpecError> {
            Version::parse(s).map_err(|e| match e {
                SpecError::InvalidVersion {
                    reason,
                    offset,
                    len,
                    ..
                } => bad(text, at + offset, len, reason),
                other => other.shifted(text, at),
            })
        };
        if part.is_empty() {
            return Err(bad(
                text,
                base,
                0,
                "empty element in the version list (two commas, or a comma at an end)",
            ));
        }
        if let Some(rest) = part.strip_prefix('=') {
            if rest.is_empty() {
                return Err(bad(text, base, 1, "expected a version after `=`"));
            }
            return Ok(VersionRange::Exact(version(rest, base + 1)?));
        }
        match part.find(':') {
            None => Ok(VersionRange::prefix(version(part, base)?)),
            Some(colon) => {
                let (lo_s, hi_s) = (&part[..colon], &part[colon + 1..]);
                if let Some(second) = hi_s.find(':') {
                    return Err(bad(
                        text,
                        base + colon + 1 + second,
                        1,
                        "a range has one `:` (write `lo:hi`, `lo:` or `:hi`)",
                    ));
                }
                let lo = if lo_s.is_empty() {
                    None
                } else {
                    Some(version(lo_s, base)?)
                };
                let hi = if hi_s.is_empty() {
                    None
                } else {
                    Some(version(hi_s, base + colon + 1)?)
                };
                let r = VersionRange::Between { lo, hi };
                if !r.is_nonempty() {
                    return Err(bad(
                        text,
                        base,
                        part.len(),
                        format!("`{part}` is empty: `{lo_s}` is above `{hi_s}`"),
                    ));
                }
                Ok(r)
            }
        }
    }

    /// The elements, in canonical order.
    pub fn ranges(&self) -> &[VersionRange] {
        &self.ranges
    }

    /// Whether this is `:` (any version).
    pub fn is_any(&self) -> bool {
        self.ranges
            .iter()
            .any(|r| matches!(r, VersionRange::Between { lo: None, hi: None }))
    }

    /// The version, if this is a single `=version`.
    pub fn is_exact(&self) -> Option<&Version> {
        match self.ranges.as_slice() {
            [VersionRange::Exact(v)] => Some(v),
            _ => None,
        }
    }

    pub fn contains(&self, v: &Version) -> bool {
        self.ranges.iter().any(|r| r.contains(v))
    }

    /// Whether some version satisfies both.
    pub fn intersects(&self, other: &VersionConstraint) -> bool {
        self.ranges
            .iter()
            .any(|a| other.ranges.iter().any(|b| a.meets(b)))
    }

    /// The versions in both, or `None` if there are none.
    pub fn intersect(&self, other: &VersionConstraint) -> Option<VersionConstraint> {
        if self.is_subset_of(other) {
            return Some(self.clone());
        }
        if other.is_subset_of(self) {
            return Some(other.clone());
        }
        let parts: Vec<VersionRange> = self
            .ranges
            .iter()
            .flat_map(|a| other.ranges.iter().filter_map(move |b| a.intersect(b)))
            .collect();
        if parts.is_empty() {
            None
        } else {
            Some(Self::normalized(parts))
        }
    }

    /// Whether every version of `self` is in `other`. Conservative: each
    /// element of `self` must lie inside one element of `other` (a range that
    /// is covered only by several elements together is not recognised).
    pub fn is_subset_of(&self, other: &VersionConstraint) -> bool {
        self.ranges
            .iter()
            .all(|a| other.ranges.iter().any(|b| a.is_within(b)))
    }

    /// The versions from `candidates` this constraint admits, newest first,
    /// with branches last unless the constraint names them (a helper for
    /// choosing versions: numbered releases win over branches).
    pub fn newest<'a>(
        &self,
        candidates: impl IntoIterator<Item = &'a Version>,
    ) -> Vec<&'a Version> {
        let mut out: Vec<&Version> = candidates
            .into_iter()
            .filter(|v| self.contains(v))
            .collect();
        out.sort_by(|a, b| a.is_branch().cmp(&b.is_branch()).then_with(|| b.cmp(a)));
        out
    }
}

impl From<Version> for VersionConstraint {
    fn from(v: Version) -> Self {
        VersionConstraint::exact(v)
    }
}

impl fmt::Display for VersionConstraint {
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

impl FromStr for VersionConstraint {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        VersionConstraint::parse(s)
    }
}

/// Its text (its ranges in [`crate::diag::binary_form`]).
impl serde::Serialize for VersionConstraint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if crate::diag::binary_form::active() {
            return self.ranges.serialize(s);
        }
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for VersionConstraint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if crate::diag::binary_form::active() {
            let ranges = Vec::<VersionRange>::deserialize(d)?;
            return Ok(VersionConstraint { ranges });
        }
        let s = String::deserialize(d)?;
        VersionConstraint::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> VersionConstraint {
        VersionConstraint::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }
    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }
    fn has(cs: &str, vs: &str) -> bool {
        c(cs).contains(&v(vs))
    }

    #[test]
    fn single_version_is_a_prefix_match() {
        assert!(has("1.2", "1.2"));
        assert!(has("1.2", "1.2.0"));
        assert!(has("1.2", "1.2.9"));
        assert!(has("1.2", "1.2-dev"));
        assert!(!has("1.2", "1.20"));
        assert!(!has("1.2", "1.3"));
        assert!(!has("1.2", "1.1.9"));
        assert!(!has("1.2", "1.2rc1"));
        assert!(has("2.29.7-1", "2.29.7-1"));
        assert!(!has("2.29.7-1", "2.29.7-2"));
        assert!(has("main", "main"));
        assert!(!has("main", "master"));
    }

    #[test]
    fn exact_matches_only_the_version() {
        assert!(has("=1.2", "1.2"));
        assert!(!has("=1.2", "1.2.0"));
        assert!(!has("=1.2", "1.2.1"));
        assert_eq!(c("=1.2").is_exact(), Some(&v("1.2")));
        assert_eq!(c("1.2").is_exact(), None);
    }

    #[test]
    fn ranges_include_the_upper_prefix() {
        assert!(has("1.2:1.4", "1.2"));
        assert!(has("1.2:1.4", "1.3.7"));
        assert!(has("1.2:1.4", "1.4"));
        assert!(has("1.2:1.4", "1.4.3"));
        assert!(!has("1.2:1.4", "1.5"));
        assert!(!has("1.2:1.4", "1.5rc1"));
        assert!(!has("1.2:1.4", "1.1"));
        assert!(has(":2", "2.9.1"));
        assert!(has(":2", "0.1"));
        assert!(!has(":2", "3.0"));
        assert!(has("2.2:", "2.2.0"));
        assert!(has("2.2:", "17"));
        assert!(has("2.2:", "main"));
        assert!(!has("2.2:", "2.1.9"));
        assert!(!has("2.2:", "2.2rc1"));
        assert!(has(":", "anything"));
        assert!(has("1.4.3:1.4", "1.4.5"));
        assert!(!has(":main", "develop"));
        assert!(has(":main", "99"));
    }

    #[test]
    fn lists_are_unions() {
        assert!(has("1.2,1.4:", "1.2.5"));
        assert!(has("1.2,1.4:", "1.7"));
        assert!(!has("1.2,1.4:", "1.3"));
        assert_eq!(c("1.4:,1.2").to_string(), "1.2,1.4:");
        assert_eq!(c("1.2,1.2.5").to_string(), "1.2");
        assert_eq!(c("1.2,:").to_string(), ":");
        assert!(c("1.2,:").is_any());
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "1.2",
            "=1.2",
            "1.2:1.4",
            ":2",
            "2.2:",
            ":",
            "1.2,1.4:",
            "=2.29.7-1,main",
            "git.abc=1.2:",
        ] {
            assert_eq!(c(s).to_string(), s);
            assert_eq!(c(&c(s).to_string()), c(s));
        }
    }

    #[test]
    fn intersections() {
        let i = |a: &str, b: &str| c(a).intersect(&c(b)).map(|x| x.to_string());
        assert_eq!(i("1.2:", ":1.4"), Some("1.2:1.4".into()));
        assert_eq!(i("1.2:1.4", "1.3"), Some("1.3".into()));
        assert_eq!(i("1.2:1.4", "=1.3.1"), Some("=1.3.1".into()));
        assert_eq!(i(":1.4", ":1.4.3"), Some(":1.4.3".into()));
        assert_eq!(i("1.2", "1.2.3:"), Some("1.2.3:1.2".into()));
        assert_eq!(i("1.2", "2:"), None);
        assert_eq!(i("1.2,2.0", "1.9:"), Some("2.0".into()));
        assert_eq!(i(":", "2.0"), Some("2.0".into()));
        assert!(c("1.2:").intersects(&c(":1.2")));
        assert!(!c("1.3:").intersects(&c(":1.2")));
        assert!(c("1.2").intersects(&c("=1.2.4")));
    }

    #[test]
    fn subsets() {
        assert!(c("1.2.3").is_subset_of(&c("1.2")));
        assert!(c("=1.2.3").is_subset_of(&c("1.2")));
        assert!(c("1.3:1.4").is_subset_of(&c("1.2:")));
        assert!(!c("1.2").is_subset_of(&c("1.2.3")));
        assert!(!c(":").is_subset_of(&c("1.2:")));
        assert!(c("1.2").is_subset_of(&c(":")));
    }

    #[test]
    fn newest_prefers_releases_over_branches() {
        let vs: Vec<Version> = ["2.2.0", "main", "2.5.1", "1.0"]
            .iter()
            .map(|s| v(s))
            .collect();
        let pick =
            |s: &str| -> Vec<String> { c(s).newest(&vs).iter().map(|v| v.to_string()).collect() };
        assert_eq!(pick(":"), ["2.5.1", "2.2.0", "1.0", "main"]);
        assert_eq!(pick("2:"), ["2.5.1", "2.2.0", "main"]);
        assert_eq!(pick("main"), ["main"]);
    }

    #[test]
    fn errors() {
        let cases = [
            ("", "found nothing", 0),
            ("1.2,,1.4", "empty element", 4),
            ("1.2,", "empty element", 4),
            ("1.5:1.4", "is empty", 0),
            ("1:2:3", "one `:`", 3),
            ("=", "after `=`", 0),
            ("1.2:1.x!", "cannot appear", 7),
        ];
        for (text, msg, at) in cases {
            let e = VersionConstraint::parse(text).expect_err(text);
            assert!(e.to_string().contains(msg), "{text}: {e}");
            assert_eq!(e.offset(), at, "{text}: {e}");
        }
    }
}
