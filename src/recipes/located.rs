//! Small located building blocks shared by all three file kinds: specs as
//! written ([`SpecRef`], [`When`]), conditional values ([`Conditional`]),
//! paths and URLs resolved against the file they appear in ([`PathRef`],
//! [`Resource`]).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::diag::Loc;
use crate::spec::Spec;

/// A spec as written in a file: parsed, with its original text and location.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SpecRef {
    pub spec: Spec,
    /// The text as written (for display and error messages).
    pub text: String,
    pub loc: Loc,
}

impl SpecRef {
    /// The package name, if the spec has one (`when:` conditions do not).
    pub fn name(&self) -> Option<&str> {
        self.spec.name.as_deref()
    }
}

impl fmt::Display for SpecRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A `when:` condition: an anonymous spec (`+cuda`, `@:2 target=aarch64:`)
/// that the package being configured must satisfy.
pub type When = SpecRef;

/// A value that applies only when its condition holds (always, when `when`
/// is `None`). Used for conditional argument lists, install steps, env ops …
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Conditional<T> {
    pub when: Option<When>,
    pub value: T,
    pub loc: Loc,
}

impl<T> Conditional<T> {
    /// An unconditional value.
    pub fn always(value: T, loc: Loc) -> Self {
        Conditional {
            when: None,
            value,
            loc,
        }
    }
}

/// Template strings that become argv elements, possibly conditional.
/// Flatten the entries whose `when` holds, in order.
pub type ArgList = Vec<Conditional<Vec<String>>>;

/// A local path as written in a file, resolved against that file's
/// directory (`path` is absolute).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PathRef {
    /// As written.
    pub text: String,
    /// Absolute.
    pub path: PathBuf,
    pub loc: Loc,
}

impl fmt::Display for PathRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Where something is fetched from: a remote URL, or a local path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Resource {
    /// `http(s)://`, `ftp://`, `ssh://`, `git@host:path` … kept verbatim.
    Remote(String),
    /// A local file or directory (from `file://` or a path relative to the
    /// file it is written in), absolute.
    Local(PathBuf),
}

impl Resource {
    /// Interpret `text` written in a file located in `base_dir`.
    pub fn parse(text: &str, base_dir: &Path) -> Resource {
        if let Some(path) = text.strip_prefix("file://") {
            return Resource::Local(absolutize(Path::new(path), base_dir));
        }
        if text.contains("://") || is_scp_like(text) {
            return Resource::Remote(text.to_string());
        }
        Resource::Local(absolutize(Path::new(text), base_dir))
    }

    pub fn as_local(&self) -> Option<&Path> {
        match self {
            Resource::Local(p) => Some(p),
            Resource::Remote(_) => None,
        }
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Resource::Remote(u) => f.write_str(u),
            Resource::Local(p) => write!(f, "{}", p.display()),
        }
    }
}

/// `user@host:path` (git's scp-like syntax).
fn is_scp_like(text: &str) -> bool {
    match (text.find('@'), text.find(':')) {
        (Some(at), Some(colon)) => at < colon && !text[..colon].contains('/'),
        _ => false,
    }
}

/// `path` made absolute against `base_dir`, with `.` and `..` removed
/// lexically (symlinks are not resolved).
pub fn absolutize(path: &Path, base_dir: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base_dir.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_resolve_relative_paths() {
        let base = Path::new("/repo/recipes");
        assert_eq!(
            Resource::parse("../dist/a.tar.gz", base),
            Resource::Local("/repo/dist/a.tar.gz".into())
        );
        assert_eq!(
            Resource::parse("file:///srv/a.tgz", base),
            Resource::Local("/srv/a.tgz".into())
        );
        assert_eq!(
            Resource::parse("https://x.org/a.tgz", base),
            Resource::Remote("https://x.org/a.tgz".into())
        );
        assert_eq!(
            Resource::parse("git@github.com:o/r.git", base),
            Resource::Remote("git@github.com:o/r.git".into())
        );
        assert_eq!(
            Resource::parse("./sub/../r.git", base),
            Resource::Local("/repo/recipes/r.git".into())
        );
    }

    #[test]
    fn absolutize_keeps_absolute_paths() {
        assert_eq!(
            absolutize(Path::new("/a/./b/../c"), Path::new("/x")),
            PathBuf::from("/a/c")
        );
        assert_eq!(
            absolutize(Path::new("c"), Path::new("/x/y")),
            PathBuf::from("/x/y/c")
        );
    }
}
