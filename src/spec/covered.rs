//! Which ranges of a version list another range of the list already
//! covers: `1.2,1.2.3` keeps `1.2`. A list is read for every spec a recipe
//! writes, and generated recipes write lists of a hundred versions
//! (`@13.1.1-aarch64,13.1.1-x86_64,…`), so the common form is decided
//! without comparing every two ranges.

use std::collections::HashSet;

use super::constraint::VersionRange;
use super::version::Component;

/// Lists this long or shorter are compared pairwise: cheaper than a set.
const PAIRWISE_UP_TO: usize = 8;

/// The ranges of `sorted` (in canonical order, without duplicates) that no
/// other range of it covers, in order. Of two ranges that cover each
/// other, the first is kept.
pub(super) fn uncovered(sorted: Vec<VersionRange>) -> Vec<VersionRange> {
    if sorted.len() < 2 {
        return sorted;
    }
    let points = (sorted.len() > PAIRWISE_UP_TO)
        .then(|| plain_points(&sorted))
        .flatten();
    match points {
        Some(releases) => uncovered_points(&sorted, &releases),
        None => uncovered_pairwise(&sorted),
    }
}

/// Every two ranges compared.
fn uncovered_pairwise(sorted: &[VersionRange]) -> Vec<VersionRange> {
    let mut kept = Vec::with_capacity(sorted.len());
    for (i, r) in sorted.iter().enumerate() {
        let covered = sorted
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && r.is_within(o) && (!o.is_within(r) || j < i));
        if !covered {
            kept.push(r.clone());
        }
    }
    kept
}

/// The release components of each range when every range is a plain
/// point (`1.2`, which is `1.2:1.2`, of an ordinary release: no
/// pre-release, git or branch version).
fn plain_points(ranges: &[VersionRange]) -> Option<Vec<&[Component]>> {
    ranges
        .iter()
        .map(|r| match r {
            VersionRange::Between {
                lo: Some(lo),
                hi: Some(hi),
            } if lo == hi => lo.plain_release(),
            _ => None,
        })
        .collect()
}

/// For plain points, `p` lies within `q` exactly when `q`'s release
/// components start `p`'s (`1.2` holds `1.2.3`, and `q <= p` follows); two
/// points with the same components are equal and were removed. So a point
/// is covered when a shorter start of its components is another point.
fn uncovered_points(sorted: &[VersionRange], releases: &[&[Component]]) -> Vec<VersionRange> {
    let all: HashSet<&[Component]> = releases.iter().copied().collect();
    sorted
        .iter()
        .zip(releases)
        .filter(|(_, rel)| !(1..rel.len()).any(|n| all.contains(&rel[..n])))
        .map(|(r, _)| r.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::VersionConstraint;

    fn sorted(list: &str) -> Vec<VersionRange> {
        let mut ranges: Vec<VersionRange> =
            VersionConstraint::parse(list).unwrap().ranges().to_vec();
        ranges.sort_by(|a, b| a.canonical_cmp(b));
        ranges.dedup();
        ranges
    }

    /// The shortcut keeps what comparing every two ranges keeps, for lists
    /// drawn from versions that start one another, pre-releases, branch
    /// and word versions, exact versions and ranges.
    #[test]
    fn the_shortcut_keeps_what_pairwise_comparison_keeps() {
        let pool = [
            "1",
            "1.2",
            "1.2.3",
            "1.20",
            "1.2.3.4",
            "2",
            "1.2-rc1",
            "develop",
            "1.2.3-aarch64",
            "1.2.3-x86_64",
            "13.0.2-wheels-aarch64",
            "13.0.2",
            "=1.2",
            "1.2:1.4",
            "0.9",
        ];
        let mut lists = 0;
        for a in 0..pool.len() {
            for b in 0..pool.len() {
                for c in 0..pool.len() {
                    let list = format!("{},{},{}", pool[a], pool[b], pool[c]);
                    let ranges = sorted(&list);
                    if let Some(rel) = plain_points(&ranges) {
                        lists += 1;
                        assert_eq!(
                            uncovered_points(&ranges, &rel),
                            uncovered_pairwise(&ranges),
                            "{list}"
                        );
                    }
                }
            }
        }
        assert!(lists > 500, "only {lists} lists took the shortcut");
    }

    #[test]
    fn a_point_keeps_the_versions_it_starts_out_of_the_list() {
        let kept = uncovered(sorted("1.2.3,1.2,2.0.1,1.20,2"));
        let text: Vec<String> = kept.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["1.2", "1.20", "2"]);
    }
}
