//! The `image` stage: the store directory → a reproducible `store.squashfs`.
//!
//! Two writers produce the image:
//! - [`Writer::Mksquashfs`]: the real `mksquashfs` (4.4 or newer), with
//!   stackinator's flags (`-noappend -no-recovery`, gzip level 3) plus what
//!   makes the result reproducible (see [`mksquashfs`]);
//! - [`Writer::Embedded`]: a pure-Rust writer (the `backhand` crate) used when
//!   `mksquashfs` is missing, so `stack build` works without squashfs-tools.
//!
//! Both normalise the tree the same way: every entry is owned by
//! `nobody` (uid/gid 65534, not root: see stackinator#213), has its mtime set
//! to `SOURCE_DATE_EPOCH` (default 315576060 = 1980-01-01, stackinator's
//! value), gets `a+rX` (readable by all, directories and executables
//! searchable by all), has no xattrs, and directories are sorted. Packing the
//! same tree twice with the same writer and options gives byte-identical
//! files. The store itself is not modified.
//!
//! [`export_meta`] copies `<store>/meta` beside the image, where uenv looks
//! first.

mod embedded;
mod error;
mod extract;
pub mod mksquashfs;
mod mode;
pub mod run;
mod stale;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

pub use error::ImageError;
pub use extract::extract_meta;
pub use mode::normalized_mode;

/// Owner of every file in the image: `nobody`.
pub const IMAGE_UID: u32 = 65534;
/// Group of every file in the image: `nogroup`/`nobody`.
pub const IMAGE_GID: u32 = 65534;
/// mtime when neither the options nor `SOURCE_DATE_EPOCH` give one
/// (1980-01-01, as stackinator; 0 breaks zip-based tools).
pub const DEFAULT_EPOCH: u32 = 315_576_060;

/// Which program writes the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Writer {
    /// `mksquashfs` when it is installed (and new enough), else embedded.
    #[default]
    Auto,
    /// Always `mksquashfs`; an error when it is missing.
    Mksquashfs,
    /// Always the pure-Rust writer.
    Embedded,
}

/// Compression of data and metadata blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// zlib/gzip at `level` 1..=9 (stackinator uses 3).
    Gzip { level: u32 },
    /// zstd at `level` 1..=22.
    Zstd { level: u32 },
    /// xz with default settings.
    Xz,
}

impl Default for Compression {
    fn default() -> Self {
        Compression::Gzip { level: 3 }
    }
}

/// How to pack.
#[derive(Debug, Clone)]
pub struct ImageOptions {
    /// mtime of every entry and of the filesystem. `None`: the
    /// `SOURCE_DATE_EPOCH` environment variable, else [`DEFAULT_EPOCH`].
    pub source_date_epoch: Option<u32>,
    pub writer: Writer,
    pub compression: Compression,
    /// Data block size in bytes (a power of two, 4 KiB..1 MiB).
    pub block_size: u32,
    /// The mksquashfs program (default: `mksquashfs` on PATH).
    pub mksquashfs: Option<PathBuf>,
    /// Threads for mksquashfs (default: all).
    pub processors: Option<usize>,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions {
            source_date_epoch: None,
            writer: Writer::Auto,
            compression: Compression::default(),
            block_size: 128 * 1024,
            mksquashfs: None,
            processors: None,
        }
    }
}

impl ImageOptions {
    /// Options that use mksquashfs when `prefer` (and it exists), else the
    /// embedded writer.
    pub fn prefer_mksquashfs(prefer: bool) -> Self {
        ImageOptions {
            writer: if prefer {
                Writer::Auto
            } else {
                Writer::Embedded
            },
            ..ImageOptions::default()
        }
    }
}

/// Which writer produced an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriterUsed {
    Mksquashfs { program: PathBuf, version: String },
    Embedded,
}

impl std::fmt::Display for WriterUsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriterUsed::Mksquashfs { program, version } => {
                write!(f, "{} {version}", program.display())
            }
            WriterUsed::Embedded => write!(f, "embedded writer (backhand)"),
        }
    }
}

/// What [`pack`] wrote.
#[derive(Debug, Clone)]
pub struct ImageInfo {
    pub path: PathBuf,
    pub size: u64,
    /// Hex sha256 of the image file (uenv's image id).
    pub sha256: String,
    pub writer: WriterUsed,
    /// The mtime applied to every entry.
    pub epoch: u32,
    pub duration: Duration,
}

/// Pack `store_dir` into `out_file` (written to a temporary sibling, then
/// renamed into place).
pub fn pack(
    store_dir: &Path,
    out_file: &Path,
    opts: &ImageOptions,
) -> Result<ImageInfo, ImageError> {
    let start = Instant::now();
    if !store_dir.is_dir() {
        return Err(ImageError::StoreMissing {
            path: store_dir.to_path_buf(),
        });
    }
    if !opts.block_size.is_power_of_two() || !(4096..=1 << 20).contains(&opts.block_size) {
        return Err(ImageError::BadOption {
            message: format!(
                "block size {} is not a power of two between 4096 and 1048576",
                opts.block_size
            ),
        });
    }
    let epoch = resolve_epoch(opts.source_date_epoch)?;
    let parent = match out_file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs_err::create_dir_all(&parent)?;
    let file_name = out_file
        .file_name()
        .ok_or_else(|| ImageError::BadOption {
            message: format!("{} is not a file path", out_file.display()),
        })?
        .to_string_lossy()
        .into_owned();
    stale::remove_stale_temps(&parent, &file_name);
    let tmp = parent.join(format!(".{file_name}.tmp-{}", std::process::id()));

    let result = write_with(store_dir, &tmp, epoch, opts);
    let writer = match result {
        Ok(w) => w,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    fs_err::rename(&tmp, out_file)?;
    let (size, sha256) = hash_file(out_file)?;
    let info = ImageInfo {
        path: out_file.to_path_buf(),
        size,
        sha256,
        writer,
        epoch,
        duration: start.elapsed(),
    };
    tracing::info!(
        image = %info.path.display(),
        size = info.size,
        writer = %info.writer,
        "packed image"
    );
    Ok(info)
}

fn write_with(
    store_dir: &Path,
    tmp: &Path,
    epoch: u32,
    opts: &ImageOptions,
) -> Result<WriterUsed, ImageError> {
    match opts.writer {
        Writer::Embedded => {
            embedded::write(store_dir, tmp, epoch, opts)?;
            Ok(WriterUsed::Embedded)
        }
        Writer::Mksquashfs => {
            let tool = mksquashfs::find(opts.mksquashfs.as_deref())?;
            mksquashfs::write(&tool, store_dir, tmp, epoch, opts)?;
            Ok(tool.into_used())
        }
        Writer::Auto => match mksquashfs::find(opts.mksquashfs.as_deref()) {
            Ok(tool) => {
                mksquashfs::write(&tool, store_dir, tmp, epoch, opts)?;
                Ok(tool.into_used())
            }
            Err(e) => {
                tracing::info!("{e}; using the embedded squashfs writer");
                embedded::write(store_dir, tmp, epoch, opts)?;
                Ok(WriterUsed::Embedded)
            }
        },
    }
}

/// The epoch to use: the option, else `SOURCE_DATE_EPOCH`, else
/// [`DEFAULT_EPOCH`].
pub fn resolve_epoch(explicit: Option<u32>) -> Result<u32, ImageError> {
    if let Some(e) = explicit {
        return Ok(e);
    }
    match crate::settings::source_date_epoch() {
        Some(s) => s.trim().parse::<u32>().map_err(|_| ImageError::BadOption {
            message: format!(
                "SOURCE_DATE_EPOCH={s} is not a number of seconds between 0 and 4294967295"
            ),
        }),
        _ => Ok(DEFAULT_EPOCH),
    }
}

fn hash_file(path: &Path) -> Result<(u64, String), ImageError> {
    let mut f = fs_err::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok((size, hex::encode(hasher.finalize())))
}

/// The files of `<build>/meta/` that are not in the image: they hold
/// wall-clock data. The build record (`build.json`, [`crate::view::BUILD_RECORD`])
/// and the build report's run record (`run.json`).
pub const BESIDE_IMAGE: [&str; 2] = [crate::view::BUILD_RECORD, "run.json"];

/// Copy `<store_dir>/meta` to `<dest_dir>/meta` (replacing it), where uenv
/// looks for the metadata of an image before it looks inside.
pub fn export_meta(store_dir: &Path, dest_dir: &Path) -> Result<PathBuf, ImageError> {
    let from = store_dir.join("meta");
    if !from.join("env.json").is_file() {
        return Err(ImageError::MetaMissing { path: from });
    }
    let to = dest_dir.join("meta");
    // The records of the build live only beside the image; keep them.
    let kept: Vec<(PathBuf, Vec<u8>)> = BESIDE_IMAGE
        .iter()
        .filter_map(|name| {
            let path = to.join(name);
            fs_err::read(&path).ok().map(|bytes| (path, bytes))
        })
        .collect();
    crate::view::meta::remove_any(&to).map_err(ImageError::from_view)?;
    crate::view::copy_tree(&from, &to).map_err(ImageError::from_view)?;
    for (path, bytes) in kept {
        fs_err::write(&path, bytes)?;
    }
    Ok(to)
}
