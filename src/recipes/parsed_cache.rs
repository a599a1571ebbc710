//! The cache of loaded recipes: a recipe file whose load gave no
//! diagnostic is kept, as its [`PackageRecipe`] in binary form, under
//! `<cache>/parsed-recipes/` (one file per recipe: see [`ParsedCache`]),
//! and a later command that reads the same text decodes it instead of
//! parsing the YAML again.
//!
//! An entry is used only when all of these hold, and is a miss otherwise
//! (never an error):
//!
//! - it was written by this build of `stack`: its first line is
//!   [`IDENTITY`], the entry format, the package version and a fingerprint
//!   of the sources and `Cargo.lock` (`STACK_SOURCE_HASH`, from build.rs);
//! - its checksum (xxh3-128 of the rest) holds: a truncated or damaged
//!   entry does not decode;
//! - it is the entry of the same recipe file, repository directory and
//!   text (xxh3-128 of the text);
//! - every file the load read besides the recipe (patch files and package
//!   files, whose presence and sha256 it checked) has the device, inode,
//!   size and modification time it had when the entry was written.
//!
//! A recipe whose load gave any diagnostic (even a warning) is parsed
//! every time, so its diagnostics are always the parser's. Writing an
//! entry never fails a command: a cache that cannot be written is logged
//! (`tracing`) and skipped.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128;

use crate::diag::SourceFile;
use crate::diag::binary_form::{decode_with_files, encode_with_files};

use super::build::Setting;
use super::package::{PackageRecipe, PatchSource};

/// The directory of the cache under a cache base.
pub const CACHE_DIR: &str = "parsed-recipes";

/// The first line of every entry: which build of `stack` wrote it.
pub const IDENTITY: &str = concat!(
    "stack-parsed-recipe 1 ",
    env!("CARGO_PKG_VERSION"),
    " ",
    env!("STACK_SOURCE_HASH"),
    "\n"
);

/// What an entry says of the file it was written for (after the identity
/// line and the checksum); the recipe follows it.
#[derive(Serialize, Deserialize)]
struct Head {
    path: PathBuf,
    repo_dir: PathBuf,
    text_hash: u128,
    /// The files the recipe's locations name (see
    /// [`crate::diag::binary_form`]).
    files: Vec<PathBuf>,
    /// The other files the load read, each with its [`stamp`].
    read: Vec<(PathBuf, Stamp)>,
}

/// A file's identity: device, inode, size, modification time (seconds and
/// nanoseconds).
type Stamp = (u64, u64, u64, i64, i64);

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
}

/// The files the load of `recipe` read besides its own: patch files and
/// package files.
fn read_files(recipe: &PackageRecipe) -> Vec<&Path> {
    let patches = recipe.patches.iter().filter_map(|p| match &p.source {
        PatchSource::File(f) => Some(f.path.as_path()),
        PatchSource::Url(_) => None,
    });
    let package_files = recipe
        .build
        .system
        .settings
        .iter()
        .flat_map(|(_, s)| match s {
            Setting::File(Some(f)) => std::slice::from_ref(f),
            Setting::Files(list) => list.as_slice(),
            _ => &[],
        });
    patches
        .chain(package_files.map(|f| f.path.as_path()))
        .collect()
}

/// The cache of loaded recipes in one directory, one file per recipe
/// (named by a hash of the recipe's path and repository directory): a
/// command opens only the entries of the recipes it parses, in parallel
/// as it parses them, and a recipe edited rewrites only its own entry.
#[derive(Clone, Debug)]
pub struct ParsedCache {
    dir: PathBuf,
}

impl ParsedCache {
    /// The cache kept in `dir` (made when the first entry is written).
    pub fn new(dir: impl Into<PathBuf>) -> ParsedCache {
        ParsedCache { dir: dir.into() }
    }

    /// The entry file of the recipe `path` of repository `repo_dir`.
    pub fn entry_file(&self, path: &Path, repo_dir: &Path) -> PathBuf {
        let mut key = path.as_os_str().as_encoded_bytes().to_vec();
        key.push(0);
        key.extend_from_slice(repo_dir.as_os_str().as_encoded_bytes());
        self.dir.join(format!("{:032x}", xxh3_128(&key)))
    }

    /// The recipe of `src` (of repository `repo_dir`) when its entry is
    /// valid (see the module documentation).
    pub fn load(&self, src: &SourceFile, repo_dir: &Path) -> Option<PackageRecipe> {
        let file = self.entry_file(src.path(), repo_dir);
        let bytes = std::fs::read(&file).ok()?;
        let recipe = decode(&bytes, src, repo_dir);
        if recipe.is_none() {
            tracing::debug!("{}: stale or not an entry: parsing", file.display());
        }
        recipe
    }

    /// Keep `recipe`, loaded from `src` without a diagnostic. A cache
    /// that cannot be written is logged and skipped.
    pub fn store(&self, src: &SourceFile, repo_dir: &Path, recipe: &PackageRecipe) {
        if src.origins().is_some() {
            return;
        }
        let Some(bytes) = encode(src, repo_dir, recipe) else {
            return;
        };
        let file = self.entry_file(src.path(), repo_dir);
        // Written whole and renamed into place: a concurrent reader sees
        // the old entry or the new one.
        let write = || -> std::io::Result<()> {
            fs_err::create_dir_all(&self.dir)?;
            let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
            std::io::Write::write_all(&mut tmp, &bytes)?;
            tmp.persist(&file).map_err(|e| e.error)?;
            Ok(())
        };
        if let Err(e) = write() {
            tracing::debug!("recipe cache {}: {e}", self.dir.display());
        }
    }
}

/// The entry of `recipe` (`None`: it cannot be written, e.g. a file it
/// read is gone).
fn encode(src: &SourceFile, repo_dir: &Path, recipe: &PackageRecipe) -> Option<Vec<u8>> {
    let read = read_files(recipe)
        .into_iter()
        .map(|p| Some((p.to_path_buf(), stamp(p)?)))
        .collect::<Option<Vec<_>>>()?;
    let (body, files) = encode_with_files(|| postcard::to_stdvec(recipe));
    let body = match body {
        Ok(body) => body,
        Err(e) => {
            tracing::debug!("{}: not cached: {e}", src.path().display());
            return None;
        }
    };
    let head = Head {
        path: src.path().to_path_buf(),
        repo_dir: repo_dir.to_path_buf(),
        text_hash: xxh3_128(src.text().as_bytes()),
        files: files.iter().map(|f| f.to_path_buf()).collect(),
        read,
    };
    let mut rest = postcard::to_stdvec(&head).ok()?;
    rest.extend_from_slice(&body);
    let mut out = Vec::with_capacity(IDENTITY.len() + 16 + rest.len());
    out.extend_from_slice(IDENTITY.as_bytes());
    out.extend_from_slice(&xxh3_128(&rest).to_le_bytes());
    out.extend_from_slice(&rest);
    Some(out)
}

/// The recipe of entry `bytes` when it is one for `src` (see the module
/// documentation).
fn decode(bytes: &[u8], src: &SourceFile, repo_dir: &Path) -> Option<PackageRecipe> {
    let rest = bytes.strip_prefix(IDENTITY.as_bytes())?;
    let (sum, rest) = rest.split_first_chunk::<16>()?;
    if u128::from_le_bytes(*sum) != xxh3_128(rest) {
        return None;
    }
    let (head, body) = postcard::take_from_bytes::<Head>(rest).ok()?;
    let same = head.path == src.path()
        && head.repo_dir == repo_dir
        && head.text_hash == xxh3_128(src.text().as_bytes())
        && head.read.iter().all(|(p, s)| stamp(p).as_ref() == Some(s));
    if !same {
        return None;
    }
    // The recipe's own file is the source's `Arc`, as after a parse.
    let files: Vec<Arc<PathBuf>> = head
        .files
        .into_iter()
        .map(|f| {
            if f == src.path() {
                src.path_arc()
            } else {
                Arc::new(f)
            }
        })
        .collect();
    let (recipe, trailing) =
        decode_with_files(files, || postcard::take_from_bytes::<PackageRecipe>(body)).ok()?;
    trailing.is_empty().then_some(recipe)
}

#[cfg(test)]
#[path = "parsed_cache_tests.rs"]
mod tests;
