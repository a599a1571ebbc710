//! What the fetch stage is asked for: plain input types, independent of recipes and plans.

use std::fmt;
use std::path::{Path, PathBuf};

use super::digest::Sha256Hex;
use super::error::FetchError;

/// One source to fetch: a package version and where its source lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRequest {
    /// Package name (used for mirror paths, messages and progress lines).
    pub package: String,
    /// Version string (used for mirror paths and messages).
    pub version: String,
    /// Where the source comes from.
    pub source: Source,
    /// `<package>/<stem>` of its per-package mirror path when that is not
    /// `<package>/<package>-<version>`: a resource's is
    /// `<package>/<resource>-<version>`, as Spack lays out mirrors.
    pub mirror_name: Option<String>,
}

/// Where a source comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A single file: a release archive, or with `expand: false` a payload such as an installer.
    Archive {
        /// `http://`, `https://`, `file://` URL or an absolute path.
        url: String,
        /// Expected sha256 (64 hex digits). `None` is refused unless unverified sources are allowed.
        sha256: Option<String>,
        /// `true`: extract when staging; `false`: copy the file as is.
        expand: bool,
        /// The recipe's `max_size:`: the most bytes the file may have when downloaded, and
        /// its archive when extracted (`None`: [`FetchOptions::max_download`] and
        /// 64 GiB of extraction).
        ///
        /// [`FetchOptions::max_download`]: super::FetchOptions::max_download
        max_size: Option<u64>,
    },
    /// A git repository checked out at one commit.
    Git {
        /// Any URL git2 understands (`https://`, `file://`) or an absolute path to a repository.
        url: String,
        /// What the recipe names: a tag, a branch or a commit.
        reference: GitRef,
        /// The commit the reference is pinned to (from `commit:` or `stack.lock`).
        commit: Option<String>,
        /// Also fetch and check out the submodules.
        submodules: bool,
    },
}

/// The git reference a recipe names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum GitRef {
    Tag(String),
    Branch(String),
    Commit(String),
}

impl fmt::Display for GitRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitRef::Tag(t) => write!(f, "tag {t}"),
            GitRef::Branch(b) => write!(f, "branch {b}"),
            GitRef::Commit(c) => write!(f, "commit {c}"),
        }
    }
}

impl SourceRequest {
    /// `name@version`, for messages.
    pub fn label(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// The upstream URL (archive URL or git URL).
    pub fn url(&self) -> &str {
        match &self.source {
            Source::Archive { url, .. } | Source::Git { url, .. } => url,
        }
    }
}

impl Source {
    /// The full commit this git source is pinned to, if it is pinned (a `commit:` pin, or a
    /// reference that is itself a full commit id).
    pub fn pinned_commit(&self) -> Option<&str> {
        match self {
            Source::Git {
                commit: Some(c), ..
            } if is_full_commit(c) => Some(c),
            Source::Git {
                reference: GitRef::Commit(c),
                ..
            } if is_full_commit(c) => Some(c),
            _ => None,
        }
    }
}

/// A full SHA-1 (40) or SHA-256 (64) object id in hex.
pub(crate) fn is_full_commit(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Where an archive URL points, once parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    Http(String),
    File(PathBuf),
}

impl Location {
    /// Parse `http(s)://`, `file://` or an absolute path.
    pub(crate) fn parse(url: &str) -> Result<Location, FetchError> {
        if url.starts_with("http://") || url.starts_with("https://") {
            Ok(Location::Http(url.to_string()))
        } else if let Some(rest) = url.strip_prefix("file://") {
            // file:///abs/path or file://localhost/abs/path
            let path = rest.strip_prefix("localhost").unwrap_or(rest);
            if !path.starts_with('/') {
                return Err(FetchError::InvalidUrl {
                    url: url.to_string(),
                    reason: "a file:// URL needs an absolute path (file:///dir/file)".into(),
                });
            }
            Ok(Location::File(PathBuf::from(percent_decode(path))))
        } else if Path::new(url).is_absolute() {
            Ok(Location::File(PathBuf::from(url)))
        } else {
            Err(FetchError::InvalidUrl {
                url: url.to_string(),
                reason: "expected an http://, https:// or file:// URL or an absolute path \
                         (relative paths are resolved by the recipe loader)"
                    .into(),
            })
        }
    }
}

/// Decode `%XX` escapes in a file URL path (spaces and the like).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(v) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The last path segment of a URL, without query or fragment: the file name a mirror or the
/// stage uses.
pub(crate) fn file_name_of(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    let name = no_query
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    if name.is_empty() {
        "source".to_string()
    } else {
        percent_decode(name)
    }
}

/// Validate the expected checksum of a request (if any).
pub(crate) fn expected_sha256(req: &SourceRequest) -> Result<Option<Sha256Hex>, FetchError> {
    match &req.source {
        Source::Archive {
            sha256: Some(s), ..
        } => Sha256Hex::parse(s)
            .map(Some)
            .ok_or_else(|| FetchError::InvalidChecksum {
                package: req.label(),
                value: s.clone(),
            }),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_locations() {
        assert_eq!(
            Location::parse("https://x.org/a.tar.gz").unwrap(),
            Location::Http("https://x.org/a.tar.gz".into())
        );
        assert_eq!(
            Location::parse("file:///srv/m/a%20b.tgz").unwrap(),
            Location::File("/srv/m/a b.tgz".into())
        );
        assert_eq!(
            Location::parse("/srv/a.tgz").unwrap(),
            Location::File("/srv/a.tgz".into())
        );
        assert!(Location::parse("file://rel/a.tgz").is_err());
        assert!(Location::parse("a.tgz").is_err());
        assert!(Location::parse("ftp://x/a.tgz").is_err());
    }

    #[test]
    fn file_names() {
        assert_eq!(
            file_name_of("https://x/y/z-1.0.tar.gz?raw=1"),
            "z-1.0.tar.gz"
        );
        assert_eq!(file_name_of("/a/b.zip"), "b.zip");
        assert_eq!(file_name_of("https://x/"), "x");
    }

    #[test]
    fn pinned_commits() {
        let c = "a".repeat(40);
        let git = |reference, commit| Source::Git {
            url: "/r".into(),
            reference,
            commit,
            submodules: false,
        };
        assert_eq!(
            git(GitRef::Tag("v1".into()), Some(c.clone())).pinned_commit(),
            Some(c.as_str())
        );
        assert_eq!(
            git(GitRef::Commit(c.clone()), None).pinned_commit(),
            Some(c.as_str())
        );
        assert_eq!(
            git(GitRef::Commit("abc123".into()), None).pinned_commit(),
            None
        );
        assert_eq!(
            git(GitRef::Branch("main".into()), None).pinned_commit(),
            None
        );
    }
}
