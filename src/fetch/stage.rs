//! Staging: turning a fetched source into a source tree in a build directory.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::archive::{self, ArchiveFormat};
use super::digest::copy_hashing;
use super::error::FetchError;
use super::extract::SafeTree;
use super::fetched::{Fetched, FetchedContent};
use super::git::{self, Item};
use crate::lock::{EntryLock, LockMode};

/// A source tree ready for patching and building.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedSource {
    /// The source root (the `dest` given to [`stage`]).
    pub root: PathBuf,
    /// The single top-level directory of the archive that was stripped, if any.
    pub stripped: Option<String>,
    /// Entries written (files, directories, links).
    pub entries: u64,
}

/// How long staging waits for a git cache entry that is being fetched by another process.
const GIT_READ_LOCK_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Stage `fetched` into `dest` (created if missing; must be empty):
/// - an archive is extracted safely (see `extract.rs`), and if it holds a single top-level
///   directory, that directory's content becomes `dest` (as Spack does);
/// - an `expand: false` file is copied to `dest/<file name>` (executable bits kept);
/// - a git source is checked out at its commit (without `.git`), submodules included.
///
/// On error `dest` is left empty: everything is unpacked into a hidden directory inside `dest`
/// first and moved into place at the end, so nothing is ever written outside `dest`.
pub fn stage(fetched: &Fetched, dest: &Path) -> Result<StagedSource, FetchError> {
    fs_err::create_dir_all(dest)?;
    if fs_err::read_dir(dest)?.next().is_some() {
        return Err(FetchError::StageNotEmpty {
            dest: dest.to_path_buf(),
        });
    }
    match &fetched.content {
        FetchedContent::File {
            path,
            sha256,
            file_name,
            expand: false,
            ..
        } => {
            let target = dest.join(safe_file_name(file_name));
            let src = fs_err::File::open(path)?;
            let mut out = fs_err::File::create(&target)?;
            let (actual, size) = copy_hashing(src, &mut out, |_| {})?;
            if actual != *sha256 {
                drop(out);
                fs_err::remove_file(&target)?;
                return Err(FetchError::ChecksumMismatch {
                    package: fetched.label().into(),
                    recipe: None,
                    url: path.display().to_string(),
                    expected: sha256.to_string(),
                    actual: actual.to_string(),
                    bytes: size,
                });
            }
            // A payload such as an installer is meant to be run.
            out.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
            Ok(StagedSource {
                root: dest.to_path_buf(),
                stripped: None,
                entries: 1,
            })
        }
        FetchedContent::File {
            path, file_name, ..
        } => {
            let format = match ArchiveFormat::from_file_name(file_name) {
                Some(f) => f,
                None => {
                    ArchiveFormat::sniff(path)?.ok_or_else(|| FetchError::UnsupportedArchive {
                        archive: file_name.clone(),
                    })?
                }
            };
            unpack(
                dest,
                true,
                |tree| archive::extract(path, format, tree, file_name),
                file_name,
                fetched.max_size,
            )
        }
        FetchedContent::Git {
            repo,
            url,
            commit,
            submodules,
        } => {
            let _shared = EntryLock::acquire(
                &git_lock_of(repo),
                LockMode::Shared,
                GIT_READ_LOCK_TIMEOUT,
                || {},
            )?;
            let mtime = SystemTime::UNIX_EPOCH
                + Duration::from_secs(git::commit_time(repo, url, commit)?.max(0) as u64);
            unpack(
                dest,
                false,
                |tree| {
                    git::walk(repo, url, commit, submodules, &mut |item| {
                        use std::os::unix::ffi::OsStrExt;
                        match item {
                            Item::Dir(p) => tree.dir(p.as_os_str().as_bytes(), 0o755, Some(mtime)),
                            Item::File {
                                path,
                                executable,
                                mut data,
                            } => {
                                let mode = if executable { 0o755 } else { 0o644 };
                                tree.file(path.as_os_str().as_bytes(), mode, Some(mtime), &mut data)
                            }
                            Item::Symlink { path, target } => {
                                tree.symlink(path.as_os_str().as_bytes(), target)
                            }
                        }
                    })
                },
                url,
                fetched.max_size,
            )
        }
    }
}

/// The lock file of a cached bare repository (`<bucket>/git/<key>.git` → `<bucket>/.locks/git-<key>.lock`).
fn git_lock_of(repo: &Path) -> PathBuf {
    let key = repo
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".git").to_string())
        .unwrap_or_default();
    let bucket = repo
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    bucket.join(".locks").join(format!("git-{key}.lock"))
}

/// A file name from a URL, usable as one path component.
fn safe_file_name(name: &str) -> String {
    let n: String = name.replace(['/', '\0'], "_");
    if n.is_empty() || n == "." || n == ".." {
        "source".into()
    } else {
        n
    }
}

/// Fill a hidden directory inside `dest` with `fill`, optionally strip a single top-level
/// directory, check links against the final root, and move the result into `dest`.
fn unpack(
    dest: &Path,
    strip: bool,
    fill: impl FnOnce(&mut SafeTree) -> Result<(), FetchError>,
    label: &str,
    max_size: Option<u64>,
) -> Result<StagedSource, FetchError> {
    let tmp = tempfile::Builder::new()
        .prefix(".stack-unpack.")
        .tempdir_in(dest)?;
    let mut tree = SafeTree::new(tmp.path(), label);
    if let Some(max) = max_size {
        tree = tree.with_max_bytes(max, true);
    }
    fill(&mut tree)?;
    let mut top: Vec<_> = fs_err::read_dir(tmp.path())?.collect::<Result<_, _>>()?;
    let (root, stripped) = match top.as_slice() {
        [only] if strip && only.file_type()?.is_dir() => (
            only.path(),
            Some(only.file_name().to_string_lossy().into_owned()),
        ),
        _ => (tmp.path().to_path_buf(), None),
    };
    let entries = tree.finish(&root)?;
    top.clear();
    for entry in fs_err::read_dir(&root)? {
        let entry = entry?;
        fs_err::rename(entry.path(), dest.join(entry.file_name()))?;
    }
    drop(tmp);
    Ok(StagedSource {
        root: dest.to_path_buf(),
        stripped,
        entries,
    })
}
