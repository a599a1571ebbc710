//! Versions and their Spack-compatible ordering.
//!
//! A version is split into *components*: runs of digits (compared as numbers)
//! and runs of letters (compared as text), separated by `.`, `-` or `_`
//! (separators are kept for display but do not take part in comparisons, so
//! `2.0 == 2_0`). A letter run directly after digits starts a new component
//! (`1rc1` is `1`, `rc`, `1`).
//!
//! Ordering, from Spack:
//! - components compare pairwise; a version that is a prefix of another is
//!   the smaller one (`1.2 < 1.2.0 < 1.2.1`);
//! - a number is greater than any text component (`1.18.0 < 1.18.0-dev <
//!   1.18.1`, `10xyz < 10.1xyz`) except the *infinity* words `stable < trunk
//!   < head < master < main < develop`, which are greater than every number;
//! - a trailing `alpha`, `beta` or `rc` (optionally followed by a number)
//!   marks a pre-release, smaller than the release: `1.0alpha < 1.0beta2 <
//!   1.0rc1 < 1.0`;
//! - `git.<ref>=<version>` compares as `<version>`, just above it (and below
//!   anything greater): `1.2 < git.abc=1.2 < 1.2.0`;
//! - one deliberate difference from Spack: a version without any number (a
//!   *branch*: `main`, `develop`, `stable`, `cxi-next`) is greater than every
//!   version that contains a number, even when it is not one of the infinity
//!   words. Spack puts such unknown names below all numbers; stack wants
//!   branches above releases and never chosen unless asked for.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use super::error::SpecError;

/// Words that compare above every number, weakest first (Spack's list).
const INFINITY_WORDS: [&str; 6] = ["stable", "trunk", "head", "master", "main", "develop"];

/// A non-negative integer of any length, without its leading zeros (`007`
/// is `7`): a machine word when it fits (every component of every real
/// version: decoding a cached recipe allocates nothing for it), its digits
/// otherwise, so that huge date-like components never overflow. A number
/// is a `Word` whenever it fits, so equal numbers have equal forms.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(from = "NumForm")]
pub(crate) enum Num {
    Word(u64),
    Digits(String),
}

/// [`Num`] as written: read back through [`Num::new`], which keeps the
/// one-form-per-number rule whatever the bytes say.
#[derive(serde::Deserialize)]
enum NumForm {
    Word(u64),
    Digits(String),
}

impl From<NumForm> for Num {
    fn from(n: NumForm) -> Num {
        match n {
            NumForm::Word(w) => Num::Word(w),
            NumForm::Digits(d) => Num::new(&d),
        }
    }
}

impl Num {
    fn new(digits: &str) -> Num {
        let trimmed = digits.trim_start_matches('0');
        match trimmed.parse() {
            Ok(w) => Num::Word(w),
            Err(_) if trimmed.is_empty() => Num::Word(0),
            Err(_) => Num::Digits(trimmed.to_string()),
        }
    }
}

impl Ord for Num {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Num::Word(a), Num::Word(b)) => a.cmp(b),
            // Digits are only kept for what does not fit a word.
            (Num::Word(_), Num::Digits(_)) => Ordering::Less,
            (Num::Digits(_), Num::Word(_)) => Ordering::Greater,
            (Num::Digits(a), Num::Digits(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
        }
    }
}

impl PartialOrd for Num {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One component of a version: a number or a run of letters.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) enum Component {
    Num(Num),
    Str(String),
}

fn infinity_rank(s: &str) -> Option<usize> {
    INFINITY_WORDS.iter().position(|w| *w == s)
}

impl Ord for Component {
    fn cmp(&self, other: &Self) -> Ordering {
        use Component::*;
        match (self, other) {
            (Num(a), Num(b)) => a.cmp(b),
            (Str(a), Str(b)) => match (infinity_rank(a), infinity_rank(b)) {
                (Some(i), Some(j)) => i.cmp(&j),
                (Some(_), None) => Ordering::Greater,
                (None, Some(_)) => Ordering::Less,
                (None, None) => a.cmp(b),
            },
            (Num(_), Str(s)) => {
                if infinity_rank(s).is_some() {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (Str(_), Num(_)) => other.cmp(self).reverse(),
        }
    }
}

impl PartialOrd for Component {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Pre-release kind; `Final` is an ordinary release.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub(crate) enum PreKind {
    Alpha,
    Beta,
    Rc,
    Final,
}

fn pre_kind(word: &str) -> Option<PreKind> {
    match word {
        "alpha" => Some(PreKind::Alpha),
        "beta" => Some(PreKind::Beta),
        "rc" => Some(PreKind::Rc),
        "final" => Some(PreKind::Final),
        _ => None,
    }
}

/// A package version such as `2.5.1`, `2.29.7-1`, `1.18.0-dev`, `main` or
/// `git.v2.3.0rc1=2.3.0`. See the module documentation for the ordering.
///
/// `Display` gives back the text it was parsed from. Equality and hashing
/// follow the ordering (separators and leading zeros are ignored).
#[derive(Clone, Debug)]
pub struct Version {
    text: String,
    /// Byte offset in `text` where each release component ends.
    ends: Vec<usize>,
    release: Vec<Component>,
    pre: (PreKind, Option<Num>),
    git: Option<String>,
    branch: bool,
}

fn invalid(text: &str, offset: usize, len: usize, reason: impl Into<String>) -> SpecError {
    SpecError::InvalidVersion {
        text: text.to_string(),
        reason: reason.into(),
        offset,
        len,
    }
}

fn char_len(s: &str, at: usize) -> usize {
    s[at..].chars().next().map_or(0, char::len_utf8)
}

/// Characters allowed in a git ref of `git.<ref>=<version>`.
pub(crate) fn is_git_ref_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')
}

impl Version {
    /// Parses a version. Errors say which character is wrong and where
    /// (byte offsets into `text`).
    pub fn parse(text: &str) -> Result<Version, SpecError> {
        if let Some(rest) = text.strip_prefix("git.") {
            let Some(eq) = rest.find('=') else {
                return Err(invalid(
                    text,
                    0,
                    text.len(),
                    "a git version needs the version it stands for: `git.<ref>=<version>`",
                ));
            };
            let git_ref = &rest[..eq];
            if git_ref.is_empty() {
                return Err(invalid(text, 4, 1, "expected a git ref after `git.`"));
            }
            if let Some((i, c)) = git_ref.char_indices().find(|(_, c)| !is_git_ref_char(*c)) {
                return Err(invalid(
                    text,
                    4 + i,
                    c.len_utf8(),
                    format!("`{c}` cannot appear in a git ref"),
                ));
            }
            let base = 4 + eq + 1;
            let inner = Self::parse_plain(&text[base..]).map_err(|e| e.shifted(text, base))?;
            return Ok(Version {
                text: text.to_string(),
                ends: inner.ends.iter().map(|e| e + base).collect(),
                git: Some(git_ref.to_string()),
                ..inner
            });
        }
        Self::parse_plain(text)
    }

    fn parse_plain(text: &str) -> Result<Version, SpecError> {
        if text.is_empty() {
            return Err(invalid(text, 0, 0, "expected a version, found nothing"));
        }
        let bytes = text.as_bytes();
        let segments = segments(text)?;
        let word = |&(s, e): &(usize, usize)| &text[s..e];
        let is_num = |seg: &(usize, usize)| bytes[seg.0].is_ascii_digit();
        let n = segments.len();
        let mut pre = (PreKind::Final, None);
        let mut keep = n;
        if n >= 3
            && !is_num(&segments[n - 2])
            && is_num(&segments[n - 1])
            && pre_kind(word(&segments[n - 2])).is_some()
        {
            pre = (
                pre_kind(word(&segments[n - 2])).unwrap_or(PreKind::Final),
                Some(Num::new(word(&segments[n - 1]))),
            );
            keep = n - 2;
        } else if n >= 2 && !is_num(&segments[n - 1]) {
            if let Some(kind) = pre_kind(word(&segments[n - 1])) {
                pre = (kind, None);
                keep = n - 1;
            }
        }
        let release: Vec<Component> = segments[..keep]
            .iter()
            .map(|seg| {
                if is_num(seg) {
                    Component::Num(Num::new(word(seg)))
                } else {
                    Component::Str(word(seg).to_string())
                }
            })
            .collect();
        let branch = release.iter().all(|c| matches!(c, Component::Str(_)));
        Ok(Version {
            text: text.to_string(),
            ends: segments[..keep].iter().map(|s| s.1).collect(),
            release,
            pre,
            git: None,
            branch,
        })
    }

    /// The text this version was parsed from.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// A version without any number (`main`, `master`, `develop`, `stable`,
    /// any other name): sorts above every numbered version and is only
    /// chosen when a constraint asks for it.
    pub fn is_branch(&self) -> bool {
        self.branch
    }

    /// `alpha`, `beta` or `rc` releases (`1.0rc1`, `2.0-beta`).
    pub fn is_prerelease(&self) -> bool {
        self.pre.0 != PreKind::Final
    }

    /// The ref of a `git.<ref>=<version>` version.
    pub fn git_ref(&self) -> Option<&str> {
        self.git.as_deref()
    }

    /// The version a git version stands for (`git.abc=1.2` → `1.2`); other
    /// versions are returned unchanged.
    pub fn ref_version(&self) -> Version {
        match &self.git {
            None => self.clone(),
            Some(_) => {
                let at = self.text.find('=').map_or(0, |i| i + 1);
                Version {
                    text: self.text[at..].to_string(),
                    ends: self.ends.iter().map(|e| e - at).collect(),
                    git: None,
                    ..self.clone()
                }
            }
        }
    }

    /// Number of release components (`2.29.7-1` has 4; a pre-release suffix
    /// does not count).
    pub fn len(&self) -> usize {
        self.release.len()
    }

    /// Always false: a version has at least one component.
    pub fn is_empty(&self) -> bool {
        self.release.is_empty()
    }

    /// The first `n` components with their separators (`2.29.7-1` up to 2 is
    /// `2.29`), or `None` when `n` is 0 or larger than [`Version::len`]. A git
    /// version gives a plain version.
    pub fn up_to(&self, n: usize) -> Option<Version> {
        if n == 0 || n > self.release.len() {
            return None;
        }
        let plain = self.ref_version();
        Version::parse(&plain.text[..plain.ends[n - 1]]).ok()
    }

    /// Whether `other` starts with all components of `self`: `1.2` is a
    /// prefix of `1.2`, `1.2.0` and `1.2-dev`, not of `1.20`. Only ordinary
    /// releases act as prefixes (not pre-releases or git versions). This is
    /// what makes the constraint `@1.2` match `1.2.5`.
    pub fn is_prefix_of(&self, other: &Version) -> bool {
        self.pre.0 == PreKind::Final
            && self.git.is_none()
            && other.release.starts_with(&self.release)
    }

    /// The release components of an ordinary release (not a pre-release,
    /// git or branch version): what [`Self::is_prefix_of`] compares.
    pub(crate) fn plain_release(&self) -> Option<&[Component]> {
        let plain = self.pre == (PreKind::Final, None) && self.git.is_none() && !self.branch;
        plain.then_some(self.release.as_slice())
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.branch
            .cmp(&other.branch)
            .then_with(|| self.release.cmp(&other.release))
            .then_with(|| self.pre.cmp(&other.pre))
            .then_with(|| self.git.cmp(&other.git))
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl Hash for Version {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.branch.hash(state);
        self.release.hash(state);
        self.pre.hash(state);
        self.git.hash(state);
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Version {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s)
    }
}

/// A version's fields, as [`crate::diag::binary_form`] writes them.
#[derive(serde::Serialize)]
struct VersionOut<'a> {
    text: &'a str,
    ends: &'a [usize],
    release: &'a [Component],
    pre: &'a (PreKind, Option<Num>),
    git: &'a Option<String>,
    branch: bool,
}

#[derive(serde::Deserialize)]
struct VersionIn {
    text: String,
    ends: Vec<usize>,
    release: Vec<Component>,
    pre: (PreKind, Option<Num>),
    git: Option<String>,
    branch: bool,
}

/// Its text (its fields in binary form).
impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if crate::diag::binary_form::active() {
            return VersionOut {
                text: &self.text,
                ends: &self.ends,
                release: &self.release,
                pre: &self.pre,
                git: &self.git,
                branch: self.branch,
            }
            .serialize(s);
        }
        s.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if crate::diag::binary_form::active() {
            let v = VersionIn::deserialize(d)?;
            // The component ends index the text.
            if !v.ends.iter().all(|&e| v.text.is_char_boundary(e)) {
                return Err(serde::de::Error::custom(
                    "a version's components overrun its text",
                ));
            }
            return Ok(Version {
                text: v.text,
                ends: v.ends,
                release: v.release,
                pre: v.pre,
                git: v.git,
                branch: v.branch,
            });
        }
        let s = String::deserialize(d)?;
        Version::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// The segments of a version (runs of digits or of letters) as byte
/// ranges, checking the separators between them.
fn segments(text: &str) -> Result<Vec<(usize, usize)>, SpecError> {
    let bytes = text.as_bytes();
    let mut segments: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    let mut last_was_sep = true;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() || c.is_ascii_alphabetic() {
            let digit = c.is_ascii_digit();
            let start = i;
            while i < bytes.len()
                && (if digit {
                    bytes[i].is_ascii_digit()
                } else {
                    bytes[i].is_ascii_alphabetic()
                })
            {
                i += 1;
            }
            segments.push((start, i));
            last_was_sep = false;
        } else if matches!(c, b'.' | b'-' | b'_') {
            if i == 0 {
                return Err(invalid(
                    text,
                    0,
                    1,
                    format!(
                        "a version must start with a letter or digit, not `{}`",
                        c as char
                    ),
                ));
            }
            if last_was_sep {
                return Err(invalid(text, i, 1, "two separators in a row"));
            }
            last_was_sep = true;
            i += 1;
        } else {
            let len = char_len(text, i);
            let ch = &text[i..i + len];
            return Err(invalid(
                text,
                i,
                len,
                format!("`{ch}` cannot appear in a version (letters, digits, `.`, `-`, `_`)"),
            ));
        }
    }
    if last_was_sep {
        return Err(invalid(
            text,
            text.len() - 1,
            1,
            "a version cannot end with a separator",
        ));
    }
    Ok(segments)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn assert_lt(a: &str, b: &str) {
        assert!(v(a) < v(b), "expected {a} < {b}");
        assert!(v(b) > v(a), "expected {b} > {a}");
        assert_ne!(v(a), v(b));
    }

    #[test]
    fn numeric_components_compare_as_numbers() {
        assert_lt("1.2", "1.10");
        assert_lt("2.9.9", "2.10.0");
        assert_lt("1.2", "1.2.0");
        assert_lt("1.2.0", "1.2.1");
        assert_lt("2.2.0", "2.5.1");
        assert_lt("20230101", "20240101");
        assert_lt("99999999999999999999999", "100000000000000000000000");
        assert_eq!(v("1.02"), v("1.2"));
        // Across the machine word: u64::MAX, then one more, then with zeros.
        assert_lt("18446744073709551615", "18446744073709551616");
        assert_lt("9.18446744073709551615", "9.18446744073709551616");
        assert_eq!(v("0018446744073709551616"), v("18446744073709551616"));
        assert_eq!(v("000"), v("0"));
    }

    /// A number decoded in its long form but short enough for a word is a
    /// word, so that it still equals the same number parsed.
    #[test]
    fn numbers_have_one_form_whatever_the_bytes_say() {
        let decoded: Num = serde_json::from_str(r#"{"Digits":"0042"}"#).unwrap();
        assert_eq!(decoded, Num::Word(42));
        let big: Num = serde_json::from_str(r#"{"Digits":"18446744073709551616"}"#).unwrap();
        assert_eq!(big, Num::new("18446744073709551616"));
        assert!(matches!(big, Num::Digits(_)));
    }

    #[test]
    fn separators_do_not_matter_for_comparison() {
        assert_eq!(v("2.0"), v("2_0"));
        assert_eq!(v("2.0"), v("2-0"));
        assert_eq!(v("2_0").to_string(), "2_0");
        assert_lt("2.29.7-1", "2.29.7-2");
        assert_lt("2.29.7", "2.29.7-1");
        assert_lt("2.29.7-1", "2.29.8");
    }

    #[test]
    fn alpha_components_sort_below_numbers() {
        assert_lt("1.18.0", "1.18.0-dev");
        assert_lt("1.18.0-dev", "1.18.1");
        assert_lt("1.18.0-dev", "1.18.0.1");
        assert_lt("10xyz", "10.1xyz");
        assert_lt("1.0a", "1.0b");
        assert_lt("1.0a", "1.0aa");
        assert_lt("1b.fc17", "1.fc17");
    }

    #[test]
    fn prereleases_sort_below_the_release() {
        assert_lt("1.0alpha", "1.0beta");
        assert_lt("1.0beta2", "1.0rc1");
        assert_lt("1.0rc1", "1.0rc2");
        assert_lt("1.0rc", "1.0rc1");
        assert_lt("1.0rc2", "1.0");
        assert_lt("1.0-rc1", "1.0");
        assert_lt("0.9", "1.0rc1");
        assert!(v("2.0-beta").is_prerelease());
        assert!(!v("2.0").is_prerelease());
        assert_eq!(v("1.0final"), v("1.0"));
    }

    #[test]
    fn branches_sort_above_every_numbered_version() {
        for b in [
            "main", "master", "develop", "stable", "trunk", "head", "cxi-next",
        ] {
            assert!(v(b).is_branch(), "{b}");
            assert_lt("99999.9", b);
            assert_lt("2.5.1", b);
        }
        assert_lt("stable", "trunk");
        assert_lt("trunk", "head");
        assert_lt("head", "master");
        assert_lt("master", "main");
        assert_lt("main", "develop");
        assert_lt("cxi-next", "stable");
        assert!(!v("2.5.1").is_branch());
        assert!(!v("v1.2").is_branch());
        assert!(!v("develop-1.2").is_branch());
        // an infinity word as a component beats any number (Spack)
        assert_lt("1.9", "1.develop");
    }

    #[test]
    fn git_versions_compare_as_their_version() {
        let g = v("git.v2.3.0rc1=2.3.0");
        assert_eq!(g.git_ref(), Some("v2.3.0rc1"));
        assert_eq!(g.to_string(), "git.v2.3.0rc1=2.3.0");
        assert_eq!(g.ref_version(), v("2.3.0"));
        assert_eq!(g.ref_version().to_string(), "2.3.0");
        assert_lt("2.3.0", "git.v2.3.0rc1=2.3.0");
        assert_lt("git.v2.3.0rc1=2.3.0", "2.3.0.0");
        assert_lt("git.v2.3.0rc1=2.3.0", "2.3.1");
        assert_lt("2.2.9", "git.v2.3.0rc1=2.3.0");
        assert_lt("git.a=2.3.0", "git.b=2.3.0");
        assert_eq!(v("git.feature/x=main").git_ref(), Some("feature/x"));
        assert!(v("git.feature/x=main").is_branch());
        assert_eq!(v("git.abc=1.2.3").up_to(2), Some(v("1.2")));
    }

    #[test]
    fn up_to_and_prefix() {
        let x = v("2.29.7-1");
        assert_eq!(x.len(), 4);
        assert_eq!(x.up_to(2).map(|v| v.to_string()), Some("2.29".into()));
        assert_eq!(x.up_to(4).map(|v| v.to_string()), Some("2.29.7-1".into()));
        assert_eq!(x.up_to(0), None);
        assert_eq!(x.up_to(5), None);
        assert!(v("1.2").is_prefix_of(&v("1.2")));
        assert!(v("1.2").is_prefix_of(&v("1.2.7")));
        assert!(v("1.2").is_prefix_of(&v("1.2-dev")));
        assert!(!v("1.2").is_prefix_of(&v("1.20")));
        assert!(!v("1.2rc1").is_prefix_of(&v("1.2.3")));
        assert!(!v("git.x=1.2").is_prefix_of(&v("1.2.3")));
    }

    #[test]
    fn errors_point_at_the_bad_character() {
        let cases = [
            ("", "expected a version, found nothing", 0),
            ("1.2!", "`!` cannot appear", 3),
            ("1..2", "two separators", 2),
            (".1", "must start", 0),
            ("1.2.", "cannot end", 3),
            ("git.abc", "git version needs", 0),
            ("git.=1.2", "expected a git ref", 4),
            ("git.a b=1", "` ` cannot appear in a git ref", 5),
            ("git.abc=1..2", "two separators", 10),
            ("1.2é", "`é` cannot appear", 3),
        ];
        for (text, msg, at) in cases {
            let err = Version::parse(text).expect_err(text);
            assert!(err.to_string().contains(msg), "{text}: {err}");
            assert_eq!(err.offset(), at, "{text}: {err}");
        }
    }

    #[test]
    fn hash_follows_equality() {
        use std::collections::HashSet;
        let set: HashSet<Version> = ["2.0", "2_0", "2.00", "02.0"]
            .iter()
            .map(|s| v(s))
            .collect();
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn serde_uses_the_text() {
        let x = v("2.29.7-1");
        let json = serde_json::to_string(&x).unwrap();
        assert_eq!(json, "\"2.29.7-1\"");
        let back: Version = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_string(), "2.29.7-1");
        assert!(serde_json::from_str::<Version>("\"1..2\"").is_err());
    }
}
