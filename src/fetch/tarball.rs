//! Reproducible tarballs of a git commit (for mirrors): the same commit always gives the same
//! bytes: tree order, fixed owner (0/0, no names), mtime = committer time, modes 0755/0644,
//! gzip without timestamp or file name.

use std::io::Write;
use std::path::Path;

use flate2::{Compression, GzBuilder};

use super::error::FetchError;
use super::fetched::FetchedSubmodule;
use super::git::{self, Item};
use super::mirror::url_path;

/// Write `commit` of the cached repository `repo` (with `submodules` in place) as a
/// `.tar.gz` whose single top-level directory is `<repo name>-<commit[:12]>/`.
pub(crate) fn write_commit(
    repo: &Path,
    url: &str,
    commit: &str,
    submodules: &[FetchedSubmodule],
    out: &mut std::fs::File,
) -> Result<(), FetchError> {
    let mtime = git::commit_time(repo, url, commit)?.max(0) as u64;
    let name = url_path(url)
        .rsplit('/')
        .next()
        .unwrap_or("repo")
        .trim_end_matches(".git")
        .to_string();
    let top = format!("{name}-{}", &commit[..12.min(commit.len())]);
    let gz = GzBuilder::new()
        .mtime(0)
        .write(std::io::BufWriter::new(out), Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    let header = |kind: tar::EntryType, mode: u32, size: u64| {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(kind);
        h.set_mode(mode);
        h.set_size(size);
        h.set_mtime(mtime);
        h.set_uid(0);
        h.set_gid(0);
        h
    };
    let io = |e: std::io::Error| FetchError::Io(e);
    let mut h = header(tar::EntryType::Directory, 0o755, 0);
    tar.append_data(&mut h, format!("{top}/"), std::io::empty())
        .map_err(io)?;
    git::walk(repo, url, commit, submodules, &mut |item| {
        match item {
            Item::Dir(p) => {
                let mut h = header(tar::EntryType::Directory, 0o755, 0);
                tar.append_data(&mut h, Path::new(&top).join(p), std::io::empty())
            }
            Item::File {
                path,
                executable,
                data,
            } => {
                let mode = if executable { 0o755 } else { 0o644 };
                let mut h = header(tar::EntryType::Regular, mode, data.len() as u64);
                tar.append_data(&mut h, Path::new(&top).join(path), data)
            }
            Item::Symlink { path, target } => {
                let mut h = header(tar::EntryType::Symlink, 0o777, 0);
                let target = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(target);
                tar.append_link(&mut h, Path::new(&top).join(path), target)
            }
        }
        .map_err(io)
    })?;
    let gz = tar.into_inner().map_err(io)?;
    let mut buf = gz.finish().map_err(io)?;
    buf.flush().map_err(io)?;
    Ok(())
}
