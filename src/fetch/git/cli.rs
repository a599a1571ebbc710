//! Fetching from a repository on this machine (an absolute path or
//! `file://`) with the git command line, when it is installed.
//!
//! libgit2's local transport reads objects of every ref the remote has, so
//! a blob missing on an unrelated branch fails the fetch of one intact tag;
//! and it copies objects one by one (a 90 MB repository took 46 s where
//! `git fetch` takes seconds). Remote URLs keep going through libgit2.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::fetch::error::FetchError;

/// Whether `url` names a repository on this machine.
pub(crate) fn is_local(url: &str) -> bool {
    url.starts_with('/') || url.starts_with("file://")
}

/// The `git` program on `PATH`, if any (looked up once).
pub(crate) fn git() -> Option<&'static Path> {
    static GIT: OnceLock<Option<PathBuf>> = OnceLock::new();
    GIT.get_or_init(|| {
        crate::settings::search_path().and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join("git"))
                .find(|p| p.is_file())
        })
    })
    .as_deref()
}

/// `git fetch --no-tags URL REFSPECS…` into the bare repository `git_dir`.
pub(crate) fn fetch(
    git: &Path,
    git_dir: &Path,
    url: &str,
    refspecs: &[&str],
) -> Result<(), FetchError> {
    tracing::info!("git fetch {url} {} (git command line)", refspecs.join(" "));
    let out = Command::new(git)
        .args(["-c", "protocol.file.allow=always", "-c", "gc.auto=0"])
        .arg("--git-dir")
        .arg(git_dir)
        .args(["fetch", "--no-tags", "--quiet", "--"])
        .arg(url)
        .args(refspecs)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_OBJECT_DIRECTORY")
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .env_remove("GIT_INDEX_FILE")
        .output()?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Err(FetchError::Git {
        url: url.to_string(),
        action: "fetch",
        source: git2::Error::from_str(&format!("git fetch: {}", stderr.trim())),
    })
}
