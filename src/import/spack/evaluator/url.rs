//! Where a version's archive comes from: Spack's default substitution of the
//! version into the class's `url`, mirror mix-ins (`gnu_mirror_path`, …). A package's own
//! `url_for_version` is evaluated in `url_method`.

use crate::import::spack::evaluator::value::Value;

/// Mirror mix-ins: the attribute naming the path and the first mirror.
const MIRRORS: &[(&str, &str)] = &[
    ("gnu_mirror_path", "https://ftpmirror.gnu.org/"),
    (
        "sourceforge_mirror_path",
        "https://prdownloads.sourceforge.net/",
    ),
    ("sourceware_mirror_path", "https://sourceware.org/pub/"),
    ("xorg_mirror_path", "https://www.x.org/archive/individual/"),
];

/// The URL template of the class (`class_url` of the directives) over any
/// attribute lookup (a method's scope, where
/// `self.gnu_mirror_path = …` may have replaced the class's value).
pub fn class_url_with<'v>(get: impl Fn(&str) -> Option<&'v Value>) -> Option<String> {
    if let Some(Value::Str(u)) = get("url") {
        return Some(u.clone());
    }
    if let Some(Value::List(us)) = get("urls") {
        if let Some(Value::Str(u)) = us.first() {
            return Some(u.clone());
        }
    }
    for (attr, mirror) in MIRRORS {
        if let Some(Value::Str(path)) = get(attr) {
            return Some(format!("{mirror}{}", path.trim_start_matches('/')));
        }
    }
    None
}

/// Spack's default (`substitute_version`): the version written in `url`
/// replaced by `version` exactly as the package writes it, at every
/// occurrence of that text. Separators are not rewritten: with
/// `mgcv_1.9-4.tar.gz` the version `1.8-42` gives `mgcv_1.8-42.tar.gz`, and a
/// URL written `foo-1_2_3.tgz` gives `foo-1.4.0.tgz` for `1.4.0`, as in Spack
/// (such packages have a `url_for_version`). `known` are the package's
/// versions, which help find the one in the URL. `None`: no version in it.
pub fn substitute(url: &str, version: &str, known: &[&str]) -> Option<String> {
    let reference = reference_version(url, known)?;
    Some(url.replace(&reference, version))
}

/// The version written in a URL, as Spack parses it from the file name
/// (`MUST-v1.8.0-rc1` is `1.8.0-rc1`, whether or not `1.8.0` is a version
/// of the package); a known version that the parsed run ends with or that
/// the name holds without a parse wins (`foo_v2-1.2.3` is `1.2.3`); then a
/// known version anywhere in the URL, then one parsed from the other path
/// components.
fn reference_version(url: &str, known: &[&str]) -> Option<String> {
    let mut sorted: Vec<&str> = known
        .iter()
        .copied()
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    sorted.sort_by_key(|v| std::cmp::Reverse(v.len()));
    let stem = file_stem(url);
    let in_stem = sorted.iter().find(|v| find_bounded(stem, v).is_some());
    match (parsed_version(stem), in_stem) {
        (Some(p), Some(k)) if !p.starts_with(*k) => return Some(k.to_string()),
        (Some(p), _) => return Some(p),
        (None, Some(k)) => return Some(k.to_string()),
        (None, None) => {}
    }
    if let Some(k) = sorted.iter().find(|v| find_bounded(url, v).is_some()) {
        return Some(k.to_string());
    }
    let path = url.split_once("://").map_or(url, |(_, rest)| rest);
    let mut components = path.split('/').skip(1).collect::<Vec<_>>();
    components.pop();
    components.iter().rev().find_map(|c| parsed_version(c))
}

/// The last path component of a URL without its query and archive
/// extension (`hdf-4.2.12` of `…/src/hdf-4.2.12.tar.gz`).
fn file_stem(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let file = path.rsplit('/').find(|c| !c.is_empty()).unwrap_or(path);
    let lower = file.to_ascii_lowercase();
    const EXTENSIONS: &[&str] = &[
        ".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".tar.lz", ".tar.z", ".tgz", ".tbz2", ".tbz",
        ".txz", ".tar", ".zip", ".gz", ".bz2", ".xz", ".zst", ".7z", ".whl", ".jar", ".rpm",
        ".deb", ".sh", ".run", ".exe", ".dmg", ".gem",
    ];
    match EXTENSIONS.iter().find(|e| lower.ends_with(*e)) {
        Some(e) => &file[..file.len() - e.len()],
        None => file,
    }
}

/// Words of a version after its numbers (`2022-rc.1`, `1.8.0-rc1`,
/// `3.0b2`); any other word ends it (`1.2.3-src`, `2.0-linux`).
const PRE_RELEASE: &[&str] = &[
    "rc", "alpha", "beta", "pre", "dev", "post", "a", "b", "p", "patch", "update", "u",
];

/// The version-like part of a file name with no known version in it: a
/// run starting with a digit (after the start, a separator or `v`), of
/// numbers joined by `.`, `_` or `-`, with pre-release words and a short
/// letter suffix (`1.1.1d`). The first run with a separator wins, else the
/// first run.
fn parsed_version(stem: &str) -> Option<String> {
    let b = stem.as_bytes();
    let starts_run = |i: usize| {
        let before = |k: usize| k.checked_sub(1).map(|j| b[j]);
        let sep = |c: Option<u8>| c.is_none_or(|c| matches!(c, b'.' | b'_' | b'-' | b'/'));
        b[i].is_ascii_digit()
            && (sep(before(i)) || (matches!(before(i), Some(b'v' | b'V')) && sep(before(i - 1))))
    };
    // A name glued to its version (`squashfs4.3`, Spack's `namever`): the
    // first digit after a name of letters only, when the version is the
    // rest of the file name and joined by dots only (`autopep8-2.3.2` is a
    // name ending in a digit, then its version).
    let glued = b
        .iter()
        .position(u8::is_ascii_digit)
        .filter(|&i| i > 0 && b[..i].iter().all(|c| c.is_ascii_alphabetic() || *c == b'+'))
        .filter(|&i| {
            let rest = &stem[i..];
            version_run(rest) == rest && !rest.contains(['-', '_'])
        });
    let runs: Vec<&str> = (0..b.len())
        .filter(|&i| starts_run(i) || Some(i) == glued)
        .map(|i| version_run(&stem[i..]))
        .filter(|r| !r.is_empty())
        .collect();
    runs.iter()
        .find(|r| r.contains(['.', '_', '-']))
        .or(runs.first())
        .map(|r| r.to_string())
}

/// The longest prefix of `rest` (starting with a digit) that reads as a
/// version.
fn version_run(rest: &str) -> &str {
    let mut end = 0;
    let mut at = 0;
    let word_ok = |w: &str, first: bool| {
        let digits = w.trim_start_matches(|c: char| c.is_ascii_digit());
        let letters = digits.trim_end_matches(|c: char| c.is_ascii_digit());
        let lead = w.len() - digits.len();
        (lead > 0
            && letters.chars().all(|c| c.is_ascii_lowercase())
            && (letters.len() <= 2 || PRE_RELEASE.contains(&letters)))
            || (!first && lead == 0 && PRE_RELEASE.contains(&letters.to_ascii_lowercase().as_str()))
    };
    for (n, word) in rest.split(['.', '_', '-']).enumerate() {
        if word.is_empty()
            || !word.chars().all(|c| c.is_ascii_alphanumeric())
            || !word_ok(word, n == 0)
        {
            break;
        }
        at += word.len();
        end = at;
        at += 1; // the separator
        if at > rest.len() {
            break;
        }
    }
    &rest[..end]
}

pub(crate) fn restyle(version: &str, sep: char) -> String {
    version
        .chars()
        .map(|c| if matches!(c, '.' | '_' | '-') { sep } else { c })
        .collect()
}

fn is_boundary(b: Option<u8>) -> bool {
    !b.is_some_and(|b| b.is_ascii_digit())
}

fn find_bounded(hay: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = start.checked_sub(1).map(|i| hay.as_bytes()[i]);
        let after = hay.as_bytes().get(end).copied();
        // `1.2` must not match inside `11.2` or `1.23` / `1.2.5`.
        let after_ok = is_boundary(after)
            && !(matches!(after, Some(b'.' | b'_'))
                && hay
                    .as_bytes()
                    .get(end + 1)
                    .is_some_and(|b| b.is_ascii_digit()));
        let before_ok = is_boundary(before)
            && !(matches!(before, Some(b'.'))
                && start >= 2
                && hay.as_bytes()[start - 2].is_ascii_digit());
        if before_ok && after_ok {
            return Some(start);
        }
        from = start + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_substitution_inserts_the_version_as_written() {
        let url = "https://github.com/zlib-ng/zlib-ng/archive/2.0.0.tar.gz";
        assert_eq!(
            substitute(url, "2.3.3", &["2.3.3", "2.0.0"]).as_deref(),
            Some("https://github.com/zlib-ng/zlib-ng/archive/2.3.3.tar.gz")
        );
        // Every occurrence of the version as written in the file name.
        let url = "https://example.org/v1.2.3/foo-1.2.3.tgz";
        assert_eq!(
            substitute(url, "1.4.0", &[]).as_deref(),
            Some("https://example.org/v1.4.0/foo-1.4.0.tgz")
        );
        // Separators are not rewritten (Spack's `substitute_version`).
        let url = "https://example.org/foo-1_2_3.tgz";
        assert_eq!(
            substitute(url, "1.4.0", &[]).as_deref(),
            Some("https://example.org/foo-1.4.0.tgz")
        );
        assert_eq!(substitute("https://example.org/foo.tgz", "1.0", &[]), None);
        // A name glued to its version (Spack's `namever`): squashfs.
        let url = "https://example.org/squashfs/squashfs4.3/squashfs4.3.tar.gz";
        assert_eq!(
            substitute(url, "4.6.1", &["4.6.1", "4.5.1"]).as_deref(),
            Some("https://example.org/squashfs/squashfs4.6.1/squashfs4.6.1.tar.gz")
        );
        // A pre-release word glued to the number (`v3.0.0beta5`).
        let url = "https://github.com/vbfnlo/vbfnlo/archive/v3.0.0beta5.tar.gz";
        assert_eq!(
            substitute(url, "3.0", &["3.0", "2.7.1"]).as_deref(),
            Some("https://github.com/vbfnlo/vbfnlo/archive/v3.0.tar.gz")
        );
        // A name ending in a digit is not glued to its version.
        let url = "https://files.pythonhosted.org/packages/source/a/autopep8/autopep8-2.3.2.tar.gz";
        assert_eq!(
            substitute(url, "1.7.0", &["2.3.2", "1.7.0"]).as_deref(),
            Some("https://files.pythonhosted.org/packages/source/a/autopep8/autopep8-1.7.0.tar.gz")
        );
        let url = "https://example.org/d/v4.2.0/dftd4-4.2.0.tar.xz";
        assert_eq!(
            substitute(url, "3.7.0", &[]).as_deref(),
            Some("https://example.org/d/v3.7.0/dftd4-3.7.0.tar.xz")
        );
        // No version in the URL (a commit archive): the URL as it is, not
        // the version written between every character of it.
        let url = "https://github.com/o/r/archive/97eb6c1da2fb31380ab9cd495173c5b59da47a6c.tar.gz";
        assert_eq!(substitute(url, "v1.0.0-31-g97eb6c1", &[]), None);
    }

    /// #34: versions with mixed separators (CRAN's `1.9-4`), dates,
    /// pre-releases and letter suffixes are replaced whole.
    #[test]
    fn mixed_separators_dates_and_suffixes_are_replaced_whole() {
        let cran = "https://cran.r-project.org/src/contrib/mgcv_1.9-4.tar.gz";
        let known = ["1.9-4", "1.9-1", "1.8-42"];
        assert_eq!(
            substitute(cran, "1.8-42", &known).as_deref(),
            Some("https://cran.r-project.org/src/contrib/mgcv_1.8-42.tar.gz")
        );
        let cases = [
            (
                "https://github.com/sandialabs/seacas/archive/v2019-08-20.tar.gz",
                "2025-03-13",
                "https://github.com/sandialabs/seacas/archive/v2025-03-13.tar.gz",
            ),
            (
                "https://github.com/votca/votca/tarball/v2022-rc.1",
                "2026",
                "https://github.com/votca/votca/tarball/v2026",
            ),
            (
                "https://hpc.rwth-aachen.de/must/files/MUST-v1.8.0-rc1.tar.gz",
                "1.9.0",
                "https://hpc.rwth-aachen.de/must/files/MUST-v1.9.0.tar.gz",
            ),
            (
                "https://example.org/foo_v2-1.2.3.tgz",
                "1.4",
                "https://example.org/foo_v2-1.4.tgz",
            ),
            (
                "https://www.openssl.org/source/openssl-1.1.1d.tar.gz",
                "3.6.1",
                "https://www.openssl.org/source/openssl-3.6.1.tar.gz",
            ),
            (
                "https://example.org/foo-1.2.3-src.tar.gz",
                "2.0",
                "https://example.org/foo-2.0-src.tar.gz",
            ),
        ];
        for (url, v, want) in cases {
            // The package's versions do not change where the version is.
            let known = [v, "1.8.0", "1.2.3", "2019-08-20"];
            assert_eq!(substitute(url, v, &known).as_deref(), Some(want), "{url}");
        }
    }
}
