//! Source mirrors in Spack's layout: where fetching looks, and `mirror::create` to fill one.
//!
//! ```text
//! <mirror>/
//!   _source-cache/archive/<sha[:2]>/<sha256>.<ext>   archives, by content
//!   _source-cache/git/<url path>/<commit>.tar.gz      git sources: reproducible tarball of a commit
//!   <name>/<name>-<version>.<ext>                     relative symlink to one of the above
//!   <name>/<resource>-<version>.<ext>                 the same for a named resource of <name>
//! ```
//!
//! A mirror is a directory (absolute path or `file://` URL) or an `http(s)://` URL serving the
//! same tree. Fetching tries each mirror in order, content-addressed path first, before the
//! upstream URL.

use std::path::{Path, PathBuf};

use super::archive::extension_of;
use super::cache::temp_sibling;
use super::digest::{Sha256Hex, copy_hashing, sha256_file};
use super::error::FetchError;
use super::fetched::{FetchedContent, Verification};
use super::options::FetchOptions;
use super::reporter::FetchReporter;
use super::source::SourceRequest;
use super::tarball;

/// Join a mirror base (URL or path) and a relative path.
pub(crate) fn join(base: &str, rel: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), rel)
}

fn dot(ext: Option<&str>) -> String {
    ext.map(|e| format!(".{e}")).unwrap_or_default()
}

/// `_source-cache/archive/<sha[:2]>/<sha>.<ext>`.
pub fn archive_path(sha: &Sha256Hex, ext: Option<&str>) -> String {
    format!(
        "_source-cache/archive/{}/{}{}",
        sha.prefix(),
        sha.as_str(),
        dot(ext)
    )
}

/// `<name>/<name>-<version>.<ext>` (or the request's own
/// `<name>/<stem>.<ext>`), if its parts are safe path segments.
pub fn named_path(req: &SourceRequest, ext: Option<&str>) -> Option<String> {
    let ok = |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\0']);
    let (package, version) = (&req.package, &req.version);
    match &req.mirror_name {
        Some(name) => {
            let (dir, stem) = name.split_once('/')?;
            (ok(dir) && ok(stem)).then(|| format!("{dir}/{stem}{}", dot(ext)))
        }
        None => (ok(package) && ok(version))
            .then(|| format!("{package}/{package}-{version}{}", dot(ext))),
    }
}

/// `_source-cache/git/<url path>/<commit>.tar.gz`.
pub fn git_path(url: &str, commit: &str) -> String {
    format!("_source-cache/git/{}/{commit}.tar.gz", url_path(url))
}

/// The path part of a git URL (`https://github.com/ofiwg/libfabric.git` → `ofiwg/libfabric.git`,
/// `/srv/git/x` → `srv/git/x`, `git@host:a/b.git` → `a/b.git`).
pub(crate) fn url_path(url: &str) -> String {
    let rest = if let Some((_, after)) = url.split_once("://") {
        if url.starts_with("file://") {
            after.to_string()
        } else {
            after
                .split_once('/')
                .map(|(_, p)| p)
                .unwrap_or("")
                .to_string()
        }
    } else if !url.starts_with('/') && url.contains(':') {
        url.split_once(':')
            .map(|(_, p)| p)
            .unwrap_or("")
            .to_string()
    } else {
        url.to_string()
    };
    let parts: Vec<&str> = rest
        .split(['/', '?', '#'])
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    if parts.is_empty() {
        "repo".into()
    } else {
        parts.join("/")
    }
}

/// Mirror locations to try for a file source, in order.
pub(crate) fn file_candidates(
    mirrors: &[String],
    req: &SourceRequest,
    sha: Option<&Sha256Hex>,
    ext: Option<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    for m in mirrors {
        if let Some(sha) = sha {
            out.push(join(m, &archive_path(sha, ext)));
        }
        if let Some(named) = named_path(req, ext) {
            out.push(join(m, &named));
        }
    }
    out
}

/// One source written to a mirror.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorEntry {
    pub package: String,
    pub version: String,
    /// The content file (`_source-cache/...`).
    pub path: PathBuf,
    /// The `<name>/<name>-<version>.<ext>` symlink, if name and version make a safe path.
    pub link: Option<PathBuf>,
    /// sha256 of the content file.
    pub sha256: Sha256Hex,
    /// The git commit, for git sources.
    pub commit: Option<String>,
    /// `false` if the mirror already had it.
    pub added: bool,
}

/// What [`create`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MirrorReport {
    pub entries: Vec<MirrorEntry>,
}

/// Fetch every source (through the cache) and write it into the mirror directory `dir`.
/// Git sources become reproducible tarballs of their pinned (or resolved) commit.
pub fn create(
    requests: &[SourceRequest],
    dir: &Path,
    options: &FetchOptions,
    reporter: &dyn FetchReporter,
) -> Result<MirrorReport, FetchError> {
    let fetched = super::fetch_all(requests, options, reporter)?;
    fs_err::create_dir_all(dir)?;
    let mut report = MirrorReport::default();
    for (req, f) in requests.iter().zip(&fetched) {
        let entry = match &f.content {
            FetchedContent::File {
                path,
                sha256,
                file_name,
                ..
            } => {
                let (rel, ext, commit) = match &f.verification {
                    Verification::MirrorTarball { commit } => (
                        git_path(req.url(), commit),
                        Some("tar.gz".to_string()),
                        Some(commit.clone()),
                    ),
                    _ => {
                        let ext = extension_of(file_name);
                        (archive_path(sha256, ext.as_deref()), ext, None)
                    }
                };
                let target = dir.join(&rel);
                let added = copy_verified(path, &target, sha256)?;
                let link = link_named(dir, named_path(req, ext.as_deref()), &target)?;
                MirrorEntry {
                    package: f.package.clone(),
                    version: f.version.clone(),
                    path: target,
                    link,
                    sha256: sha256.clone(),
                    commit,
                    added,
                }
            }
            FetchedContent::Git {
                repo,
                url,
                commit,
                submodules,
            } => {
                let target = dir.join(git_path(url, commit));
                let added = if target.is_file() {
                    false
                } else {
                    let mut tmp = temp_sibling(&target)?;
                    tarball::write_commit(repo, url, commit, submodules, tmp.as_file_mut())?;
                    tmp.persist(&target).map_err(|e| e.error)?;
                    true
                };
                let sha256 = sha256_file(&target)?;
                let link = link_named(dir, named_path(req, Some("tar.gz")), &target)?;
                MirrorEntry {
                    package: f.package.clone(),
                    version: f.version.clone(),
                    path: target,
                    link,
                    sha256,
                    commit: Some(commit.clone()),
                    added,
                }
            }
        };
        report.entries.push(entry);
    }
    Ok(report)
}

/// Copy a cache file into the mirror unless an identical file is there; returns whether it
/// copied. Verifies the bytes it writes.
fn copy_verified(src: &Path, target: &Path, sha: &Sha256Hex) -> Result<bool, FetchError> {
    if target.is_file() && sha256_file(target)? == *sha {
        return Ok(false);
    }
    let mut tmp = temp_sibling(target)?;
    let (actual, size) = copy_hashing(fs_err::File::open(src)?, tmp.as_file_mut(), |_| {})?;
    if actual != *sha {
        return Err(FetchError::ChecksumMismatch {
            package: "mirror copy".into(),
            recipe: None,
            url: src.display().to_string(),
            expected: sha.to_string(),
            actual: actual.to_string(),
            bytes: size,
        });
    }
    tmp.persist(target).map_err(|e| e.error)?;
    Ok(true)
}

/// Point `<dir>/<named>` (`<name>/<name>-<version>.<ext>`) at `target` with a relative
/// symlink (replaced atomically if it pointed elsewhere).
fn link_named(
    dir: &Path,
    named: Option<String>,
    target: &Path,
) -> Result<Option<PathBuf>, FetchError> {
    let Some(named) = named else {
        return Ok(None);
    };
    let link = dir.join(&named);
    let rel_target = Path::new("..").join(target.strip_prefix(dir).expect("target is in dir"));
    if std::fs::read_link(&link).ok().as_deref() == Some(rel_target.as_path()) {
        return Ok(Some(link));
    }
    let parent = link.parent().expect("named path has a parent");
    fs_err::create_dir_all(parent)?;
    let tmp = parent.join(format!(
        ".{}.{}.tmp",
        link.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(&rel_target, &tmp).map_err(|source| FetchError::LocalFile {
        path: tmp.clone(),
        source,
    })?;
    fs_err::rename(&tmp, &link)?;
    Ok(Some(link))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::Source;

    #[test]
    fn paths() {
        assert_eq!(
            url_path("https://github.com/ofiwg/libfabric.git"),
            "ofiwg/libfabric.git"
        );
        assert_eq!(url_path("file:///srv/git/x/"), "srv/git/x");
        assert_eq!(url_path("/srv/../x"), "srv/x");
        assert_eq!(url_path("git@github.com:a/b.git"), "a/b.git");
        assert_eq!(url_path("https://host"), "repo");
        let sha = Sha256Hex::parse(&"ab".repeat(32)).unwrap();
        let req = SourceRequest {
            mirror_name: None,
            package: "zlib".into(),
            version: "1.3".into(),
            source: Source::Archive {
                url: "https://x/zlib-1.3.tar.gz".into(),
                sha256: Some(sha.to_string()),
                expand: true,
                max_size: None,
            },
        };
        assert_eq!(
            file_candidates(
                &["file:///m/".into(), "http://h/m".into()],
                &req,
                Some(&sha),
                Some("tar.gz")
            ),
            vec![
                format!("file:///m/_source-cache/archive/ab/{sha}.tar.gz"),
                "file:///m/zlib/zlib-1.3.tar.gz".to_string(),
                format!("http://h/m/_source-cache/archive/ab/{sha}.tar.gz"),
                "http://h/m/zlib/zlib-1.3.tar.gz".to_string(),
            ]
        );
        let named = |package: &str, version: &str, mirror_name: Option<&str>| SourceRequest {
            package: package.into(),
            version: version.into(),
            mirror_name: mirror_name.map(str::to_string),
            ..req.clone()
        };
        assert_eq!(named_path(&named("a", "../b", None), None), None);
        assert_eq!(
            named_path(&named("cuda", "12.4", None), Some("run")).unwrap(),
            "cuda/cuda-12.4.run"
        );
        // A resource: Spack's `<package>/<resource>-<version>`.
        let manpages = named(
            "git-resource",
            "4954390466c1",
            Some("git/git-manpages-2.53.0"),
        );
        assert_eq!(
            named_path(&manpages, Some("tar.gz")).unwrap(),
            "git/git-manpages-2.53.0.tar.gz"
        );
        assert_eq!(named_path(&named("x", "1", Some("../y")), None), None);
    }
}
