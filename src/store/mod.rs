//! The `store` stage: installed prefixes and their metadata.
//!
//! A package installs straight into its final prefix (below the mount point).
//! The prefix counts as installed only when `<prefix>/.stack/installed.json`
//! exists, parses and carries the expected hash; that file is written last,
//! through a temporary sibling and a rename ([`atomic`]). Anything else found
//! at a prefix is a leftover of an interrupted build and is wiped before the
//! package is built again ([`prefix`]).
//!
//! ```text
//! <prefix>/.stack/manifest.json   every file: path, kind, mode, size, sha256 / link target
//! <prefix>/.stack/installed.json  spec, hash, dependency hashes, manifest digest (last)
//! <build>/logs/<slug>.log         the build log
//! <build>/logs/<slug>.json        build time and wall seconds (BuildFacts)
//! ```
//!
//! Nothing that differs between two builds of the same lockfile (times, host
//! paths, logs) is written into a prefix: the store, and so the image, is a
//! function of the inputs.
//!
//! The build directory is guarded by one exclusive lock
//! ([`crate::lock::BuildLock`]); a contended one is [`StoreError::Locked`].
//!
//! This module depends on nothing but `std`, serde and the filesystem: the
//! build stage calls it as its final step, and later stages (views, image)
//! read the records.

pub mod atomic;
pub mod beneath;
pub mod manifest;
pub mod modes;
pub mod owned;
pub mod prefix;
pub mod quick_check;
pub mod record;
pub mod xattrs;

use std::path::{Path, PathBuf};

pub use beneath::Beneath;
pub use manifest::{EntryKind, ManifestEntry, manifest, manifest_of, walk_prefix};
pub use modes::normalize_modes;
pub use owned::Owned;
pub use prefix::{PrefixState, inspect, wipe};
pub use record::{
    BuildFacts, InstalledRecord, RecordDep, RecordPatch, read_record, register, write_facts,
};

/// Where `path`, a path under the mount point, lives on the host when the
/// store is at `store_root` (the mount point itself, or `<build>/store`
/// mounted over it); `None` when `path` is not under the mount point.
pub fn host_path(mount: &Path, store_root: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(mount).ok()?;
    Some(if mount == store_root {
        path.to_path_buf()
    } else {
        store_root.join(rel)
    })
}

/// Name of the metadata directory inside every prefix.
pub const META_DIR: &str = ".stack";
/// The completion marker, written last.
pub const INSTALLED_FILE: &str = "installed.json";
/// The file manifest.
pub const MANIFEST_FILE: &str = "manifest.json";
/// Everything a prefix's metadata directory may hold: the manifest, the
/// completion marker and a `spack` package's recorded run environment
/// (`build_logic::RUN_ENV_FILE`). Anything else there is reported by
/// `stack verify` and refused before packing.
pub const META_FILES: &[&str] = &[MANIFEST_FILE, INSTALLED_FILE, "run-env.json"];

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "the build directory {} is locked by another `stack` process{}\n  hint: wait for it to finish, or use another build directory",
        dir.display(),
        holder.as_deref().map(|h| format!(" ({h})")).unwrap_or_default()
    )]
    Locked {
        dir: PathBuf,
        holder: Option<String>,
    },

    #[error("{}: invalid install record: {message}", path.display())]
    BadRecord { path: PathBuf, message: String },

    #[error(
        "{}: {kind} in an installed prefix\n  hint: a prefix may hold only files, directories and symlinks; remove it in an install step (or do not install it)",
        path.display()
    )]
    SpecialFile { path: PathBuf, kind: &'static str },

    #[error(
        "{}: extended attributes {} in an installed prefix\n  hint: manifests record no extended attributes and images carry none (a file capability would be lost); remove them in an install step (`setfattr -x NAME FILE`)",
        path.display(),
        names.join(", ")
    )]
    Xattrs { path: PathBuf, names: Vec<String> },

    #[error(
        "{} holds files this build directory did not install; refusing to replace or remove them:\n{}{}  hint: build into a mount point of its own, use `--mount-mode namespace`, or move these files away",
        store.display(),
        listed.iter().map(|p| format!("  {}\n", p.display())).collect::<String>(),
        if *more > 0 { format!("  … and {more} more\n") } else { String::new() }
    )]
    Foreign {
        store: PathBuf,
        listed: Vec<PathBuf>,
        more: usize,
    },

    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<crate::lock::FileLockError> for StoreError {
    /// The build directory lock's errors, as they were before the locks had
    /// a module of their own.
    fn from(e: crate::lock::FileLockError) -> StoreError {
        use crate::lock::FileLockError;
        match e {
            FileLockError::Held { dir, holder } => StoreError::Locked { dir, holder },
            FileLockError::Io(e) => StoreError::Io(e),
            FileLockError::Lock { path, source } => StoreError::Io(std::io::Error::new(
                source.kind(),
                format!("locking {}: {source}", path.display()),
            )),
            FileLockError::Timeout { path, waited } => StoreError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "{}: waited {} s for the lock",
                    path.display(),
                    waited.as_secs()
                ),
            )),
        }
    }
}
