//! What the fetch stage produces: verified sources in the cache, ready to stage.

use std::path::PathBuf;

use super::digest::Sha256Hex;

/// A source that is in the cache and verified (or explicitly allowed unverified).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub package: String,
    pub version: String,
    pub content: FetchedContent,
    /// Where the bytes came from this time.
    pub origin: Origin,
    /// How the content is known to be the right one.
    pub verification: Verification,
    /// The recipe's `max_size:` for this source: the most bytes staging may
    /// extract (`None`: 64 GiB).
    pub max_size: Option<u64>,
}

/// The cached content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchedContent {
    /// A file in the cache (an archive, a payload with `expand: false`, or a mirror's tarball
    /// of a git commit).
    File {
        /// The cache entry (`sources-v1/archive/<sha[:2]>/<sha>`); never modify it.
        path: PathBuf,
        /// sha256 of the content (computed while downloading).
        sha256: Sha256Hex,
        /// The file name from the URL (decides the archive format and the name of an
        /// unexpanded payload in the stage).
        file_name: String,
        /// Extract when staging (`false`: copy the file into the stage).
        expand: bool,
        /// Size in bytes.
        size: u64,
    },
    /// A commit in a cached bare repository.
    Git {
        /// The bare repository in the cache.
        repo: PathBuf,
        /// The upstream URL.
        url: String,
        /// The full commit id that will be checked out.
        commit: String,
        /// Submodules fetched because the recipe asked for them (empty otherwise).
        submodules: Vec<FetchedSubmodule>,
    },
}

/// A submodule of a git source, fetched into its own cached bare repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedSubmodule {
    /// Path inside the parent tree.
    pub path: String,
    /// URL (relative URLs resolved against the parent's).
    pub url: String,
    /// The commit the parent's tree records.
    pub commit: String,
    pub repo: PathBuf,
    /// Its own submodules.
    pub submodules: Vec<FetchedSubmodule>,
}

/// Where the bytes came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Already in the cache (re-verified).
    Cache,
    /// Downloaded (or copied) from a mirror.
    Mirror(String),
    /// Downloaded from the upstream URL.
    Upstream(String),
}

/// How a user reads it: `from the cache`, `from mirror <url>`, `from <url>`.
impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Cache => f.write_str("from the cache"),
            Origin::Mirror(m) => write!(f, "from mirror {m}"),
            Origin::Upstream(u) => write!(f, "from {u}"),
        }
    }
}

/// Why the content can be trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// Matches the sha256 the recipe gave.
    Sha256,
    /// A git commit the recipe (or lock) pinned: the commit id is itself a hash of the content.
    PinnedCommit,
    /// A mirror's tarball of the pinned commit (the mirror is trusted to have exported it).
    MirrorTarball { commit: String },
    /// Nothing to check against (allowed by `allow_unverified`); record it as unverified.
    Unverified,
}

impl Fetched {
    /// `name@version`.
    pub fn label(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// sha256 of a file source (what the lock records for an unverified archive).
    pub fn sha256(&self) -> Option<&Sha256Hex> {
        match &self.content {
            FetchedContent::File { sha256, .. } => Some(sha256),
            FetchedContent::Git { .. } => None,
        }
    }

    /// The git commit of a git source (also for a mirror tarball of one).
    pub fn commit(&self) -> Option<&str> {
        match (&self.content, &self.verification) {
            (FetchedContent::Git { commit, .. }, _) => Some(commit),
            (_, Verification::MirrorTarball { commit }) => Some(commit),
            _ => None,
        }
    }

    /// Whether the content was checked against a recipe checksum or pinned commit.
    pub fn is_verified(&self) -> bool {
        !matches!(self.verification, Verification::Unverified)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_read_as_words() {
        assert_eq!(Origin::Cache.to_string(), "from the cache");
        assert_eq!(
            Origin::Mirror("file:///m/x.tar.gz".into()).to_string(),
            "from mirror file:///m/x.tar.gz"
        );
        assert_eq!(Origin::Upstream("/src/x".into()).to_string(), "from /src/x");
    }
}
