//! The source cache: a content-addressed store of archives plus bare git repositories.
//!
//! Layout under the cache base (`~/.cache/stack`, `STACK_CACHE`, or `--cache DIR`):
//!
//! ```text
//! sources-v1/                     format-versioned bucket: a format change bumps the suffix
//!   archive/<sha[:2]>/<sha256>    verified files, named by the sha256 of their content
//!   git/<name>-<urlhash>.git      bare repositories, one per URL (sha256 of the URL)
//!   git-tarballs/<commit>         sha256 of a mirror's tarball of that commit (in archive/)
//!   .locks/archive-<sha>.lock     per-entry lock files (protocol: `lock::EntryLock`)
//!   .locks/git-<name>-<urlhash>.lock
//! ```
//!
//! Entries are written to a hidden temp file *in the same directory* (`.<sha>.<random>.tmp`)
//! and renamed into place once verified, so a reader never sees a partial file and a crash
//! leaves at most a temp file, which the next writer of that entry removes.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::digest::Sha256Hex;

/// Name of the format-versioned bucket inside the cache base directory.
pub const SOURCES_BUCKET: &str = "sources-v1";

/// Handle on a source cache directory (cheap to clone; does not touch the disk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceCache {
    root: PathBuf,
}

impl SourceCache {
    /// A cache whose base directory is `base` (entries go to `base/sources-v1/`).
    pub fn new(base: impl Into<PathBuf>) -> SourceCache {
        SourceCache {
            root: base.into().join(SOURCES_BUCKET),
        }
    }

    /// The default base directory: `$STACK_CACHE`, else `$XDG_CACHE_HOME/stack`, else
    /// `$HOME/.cache/stack`, else the temporary directory's `stack-cache`
    /// ([`crate::settings::Settings::cache_base`]).
    pub fn default_base() -> PathBuf {
        crate::settings::cache_base()
    }

    /// The bucket directory (`<base>/sources-v1`).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the archive with this sha256 lives (whether or not it is there).
    pub fn archive_path(&self, sha: &Sha256Hex) -> PathBuf {
        self.root
            .join("archive")
            .join(sha.prefix())
            .join(sha.as_str())
    }

    /// The cached archive with this sha256, if present (not re-verified: fetching does that).
    pub fn lookup(&self, sha: &Sha256Hex) -> Option<PathBuf> {
        let p = self.archive_path(sha);
        p.is_file().then_some(p)
    }

    pub(crate) fn archive_lock(&self, sha: &Sha256Hex) -> PathBuf {
        self.root
            .join(".locks")
            .join(format!("archive-{}.lock", sha.as_str()))
    }

    /// Where downloads of unverified sources go before their digest is known.
    pub(crate) fn incoming_dir(&self) -> PathBuf {
        self.root.join("archive").join(".incoming")
    }

    /// Which cached archive holds a mirror's tarball of git commit `commit` (a small text file
    /// with its sha256), so an air-gapped rebuild does not copy it from the mirror again.
    pub(crate) fn git_tarball_index(&self, commit: &str) -> PathBuf {
        self.root.join("git-tarballs").join(commit)
    }

    /// Directory name of the bare repository for `url`: readable stem plus a URL hash.
    pub(crate) fn git_key(url: &str) -> String {
        let canonical = url.trim_end_matches('/');
        let hash = hex::encode(Sha256::digest(canonical.as_bytes()));
        let stem = canonical
            .rsplit(['/', ':'])
            .next()
            .unwrap_or("repo")
            .trim_end_matches(".git");
        let stem: String = stem
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let stem = stem.trim_start_matches('.');
        let stem = if stem.is_empty() { "repo" } else { stem };
        format!("{stem}-{}", &hash[..16])
    }

    /// The bare repository caching `url`.
    pub fn git_repo_path(&self, url: &str) -> PathBuf {
        self.root
            .join("git")
            .join(format!("{}.git", Self::git_key(url)))
    }

    pub(crate) fn git_lock(&self, url: &str) -> PathBuf {
        self.root
            .join(".locks")
            .join(format!("git-{}.lock", Self::git_key(url)))
    }
}

/// A hidden temp file next to `final_path`, removed on drop unless persisted.
pub(crate) fn temp_sibling(final_path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = final_path.parent().expect("cache paths have a parent");
    fs_err::create_dir_all(dir)?;
    let name = final_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
}

/// Remove temp siblings of `final_path` left by a crashed process. Call only while holding
/// the entry's exclusive lock (then no live process can own them).
pub(crate) fn remove_stale_temps(final_path: &Path) {
    let (Some(dir), Some(name)) = (final_path.parent(), final_path.file_name()) else {
        return;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let n = e.file_name();
        let n = n.to_string_lossy();
        if n.starts_with(&prefix) && n.ends_with(".tmp") {
            tracing::debug!("removing stale temp file {}", e.path().display());
            let p = e.path();
            let _ = if p.is_dir() {
                fs_err::remove_dir_all(&p)
            } else {
                fs_err::remove_file(&p)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let c = SourceCache::new("/c");
        let sha = Sha256Hex::parse(&"0a".repeat(32)).unwrap();
        assert_eq!(
            c.archive_path(&sha),
            PathBuf::from(format!("/c/sources-v1/archive/0a/{}", "0a".repeat(32)))
        );
        let key = SourceCache::git_key("https://github.com/ofiwg/libfabric.git");
        assert!(key.starts_with("libfabric-"), "{key}");
        assert_eq!(key.len(), "libfabric-".len() + 16);
        assert_eq!(
            key,
            SourceCache::git_key("https://github.com/ofiwg/libfabric.git/")
        );
        assert_ne!(
            key,
            SourceCache::git_key("https://example.org/libfabric.git")
        );
        assert!(SourceCache::git_key("/").starts_with("repo-"));
    }

    #[test]
    fn stale_temps_are_removed() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("abc");
        let t = temp_sibling(&f).unwrap();
        let (_, p) = t.keep().unwrap();
        fs_err::write(d.path().join("other"), "x").unwrap();
        remove_stale_temps(&f);
        assert!(!p.exists());
        assert!(d.path().join("other").exists());
    }
}
