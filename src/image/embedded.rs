//! The pure-Rust writer (the `backhand` crate), used when mksquashfs is not
//! installed. Same normalisation as the mksquashfs flags: uid/gid 65534,
//! every mtime = the epoch, `a+rX`, no xattrs, entries in sorted order,
//! duplicate files stored once. Files are opened one at a time while the
//! image is written, so a large store does not exhaust file descriptors.

use std::io::{BufWriter, Cursor, Read};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

use backhand::compression::{CompressionOptions, Compressor, Gzip, Zstd};
use backhand::{FilesystemCompressor, FilesystemReader, FilesystemWriter, NodeHeader};
use walkdir::WalkDir;

use super::error::ImageError;
use super::mode::normalized_mode;
use super::{Compression, IMAGE_GID, IMAGE_UID, ImageOptions};

pub(crate) fn write(
    store_dir: &Path,
    out: &Path,
    epoch: u32,
    opts: &ImageOptions,
) -> Result<(), ImageError> {
    let bh = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ImageError::Backhand { path, source }
    };
    let root_mode = fs_err::metadata(store_dir)?.permissions().mode();
    let seed = seed_image(epoch, opts).map_err(bh(out))?;
    let mut reader = FilesystemReader::from_reader(Cursor::new(seed)).map_err(bh(out))?;
    // drop the placeholder entry; keep its id (65534) in the id table
    reader
        .root
        .nodes
        .retain(|n| n.fullpath != Path::new("/").join(SEED_ENTRY));
    reader.root.root_mut().header = NodeHeader::new(
        normalized_mode(root_mode, true) as u16,
        IMAGE_UID,
        IMAGE_GID,
        epoch,
    );
    let mut fs = FilesystemWriter::from_fs_reader(&reader).map_err(bh(out))?;
    fs.set_time(epoch);

    let header = |mode: u32| NodeHeader::new(mode as u16, IMAGE_UID, IMAGE_GID, epoch);
    for entry in WalkDir::new(store_dir)
        .min_depth(1)
        .sort_by_file_name()
        .follow_links(false)
    {
        let entry = entry.map_err(|e| {
            let path = e.path().map(Path::to_path_buf).unwrap_or_default();
            let io = e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("filesystem loop"));
            ImageError::Io(std::io::Error::new(
                io.kind(),
                format!("{io} (reading {})", path.display()),
            ))
        })?;
        let path = entry.path();
        let rel = path
            .strip_prefix(store_dir)
            .expect("walk stays below its root");
        let ft = entry.file_type();
        if ft.is_symlink() {
            let target = fs_err::read_link(path)?;
            fs.push_symlink(target, rel, header(0o777))
                .map_err(bh(path))?;
            continue;
        }
        let meta = entry.metadata().map_err(|e| {
            ImageError::Io(std::io::Error::other(format!(
                "{e} (reading {})",
                path.display()
            )))
        })?;
        let mode = meta.permissions().mode();
        if ft.is_dir() {
            fs.push_dir(rel, header(normalized_mode(mode, true)))
                .map_err(bh(path))?;
        } else if ft.is_file() {
            fs.push_file(
                LazyFile::new(path.to_path_buf()),
                rel,
                header(normalized_mode(mode, false)),
            )
            .map_err(bh(path))?;
        } else {
            let kind = if ft.is_fifo() {
                "named pipe"
            } else if ft.is_socket() {
                "socket"
            } else if ft.is_block_device() {
                "block device"
            } else {
                "character device"
            };
            return Err(ImageError::UnsupportedFile {
                path: path.to_path_buf(),
                kind,
            });
        }
    }
    let file = fs_err::File::create(out)?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    fs.write(&mut w).map_err(|source| match source {
        backhand::BackhandError::StdIo(io) => ImageError::Io(io),
        source => ImageError::Backhand {
            path: out.to_path_buf(),
            source,
        },
    })?;
    let file = w.into_inner().map_err(|e| ImageError::Io(e.into_error()))?;
    file.sync_all()?;
    Ok(())
}

const SEED_ENTRY: &str = ".stack-seed";

/// An empty image with the right compressor and block size and an id table
/// holding 65534. backhand has no setter for the root directory's mtime, but
/// a writer made from a reader inherits the reader's root header, which is
/// public: so the real image starts from this seed with its root header
/// replaced.
fn seed_image(epoch: u32, opts: &ImageOptions) -> Result<Vec<u8>, backhand::BackhandError> {
    let mut fs = FilesystemWriter::default();
    fs.set_time(epoch);
    fs.set_block_size(opts.block_size);
    fs.set_only_root_id();
    fs.set_compressor(compressor(opts.compression)?);
    fs.push_dir(
        SEED_ENTRY,
        NodeHeader::new(0o755, IMAGE_UID, IMAGE_GID, epoch),
    )?;
    let mut out = Cursor::new(Vec::new());
    fs.write(&mut out)?;
    Ok(out.into_inner())
}

fn compressor(c: Compression) -> Result<FilesystemCompressor, backhand::BackhandError> {
    match c {
        Compression::Gzip { level } => FilesystemCompressor::new(
            Compressor::Gzip,
            Some(CompressionOptions::Gzip(Gzip {
                compression_level: level.clamp(1, 9),
                window_size: 15,
                strategies: 0,
            })),
        ),
        Compression::Zstd { level } => FilesystemCompressor::new(
            Compressor::Zstd,
            Some(CompressionOptions::Zstd(Zstd {
                compression_level: level.clamp(1, 22),
            })),
        ),
        Compression::Xz => FilesystemCompressor::new(Compressor::Xz, None),
    }
}

/// A file that is opened on the first read and closed at end of file.
struct LazyFile {
    path: PathBuf,
    file: Option<fs_err::File>,
    done: bool,
}

impl LazyFile {
    fn new(path: PathBuf) -> Self {
        LazyFile {
            path,
            file: None,
            done: false,
        }
    }
}

impl Read for LazyFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.done {
            return Ok(0);
        }
        if self.file.is_none() {
            self.file = Some(fs_err::File::open(&self.path)?);
        }
        let n = self.file.as_mut().expect("opened above").read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.file = None;
            self.done = true;
        }
        Ok(n)
    }
}
