//! Archive formats and reading them into a [`SafeTree`].

use std::io::{BufReader, Read};
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::error::FetchError;
use super::extract::SafeTree;

/// A supported archive format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    Tar,
    TarGz,
    TarBz2,
    TarXz,
    TarZst,
    Zip,
}

/// Name suffixes of each format (the first is the canonical extension).
const SUFFIXES: &[(&str, ArchiveFormat)] = &[
    ("tar.gz", ArchiveFormat::TarGz),
    ("tgz", ArchiveFormat::TarGz),
    ("tar.bz2", ArchiveFormat::TarBz2),
    ("tbz2", ArchiveFormat::TarBz2),
    ("tbz", ArchiveFormat::TarBz2),
    ("tar.xz", ArchiveFormat::TarXz),
    ("txz", ArchiveFormat::TarXz),
    ("tar.zst", ArchiveFormat::TarZst),
    ("tzst", ArchiveFormat::TarZst),
    ("tar", ArchiveFormat::Tar),
    ("zip", ArchiveFormat::Zip),
];

impl ArchiveFormat {
    /// Guess the format from a file name (`libfoo-1.0.tar.gz`).
    pub fn from_file_name(name: &str) -> Option<ArchiveFormat> {
        let lower = name.to_ascii_lowercase();
        SUFFIXES
            .iter()
            .find(|(s, _)| {
                lower
                    .strip_suffix(s)
                    .is_some_and(|rest| rest.ends_with('.'))
            })
            .map(|&(_, f)| f)
    }

    /// Recognise the format from the first bytes of a file.
    pub fn sniff(path: &Path) -> std::io::Result<Option<ArchiveFormat>> {
        let mut head = [0u8; 512];
        let mut f = fs_err::File::open(path)?;
        let mut n = 0;
        while n < head.len() {
            let m = f.read(&mut head[n..])?;
            if m == 0 {
                break;
            }
            n += m;
        }
        let h = &head[..n];
        Ok(if h.starts_with(&[0x1f, 0x8b]) {
            Some(ArchiveFormat::TarGz)
        } else if h.starts_with(b"BZh") {
            Some(ArchiveFormat::TarBz2)
        } else if h.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Some(ArchiveFormat::TarXz)
        } else if h.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(ArchiveFormat::TarZst)
        } else if h.starts_with(b"PK\x03\x04") || h.starts_with(b"PK\x05\x06") {
            Some(ArchiveFormat::Zip)
        } else if n >= 262 && &h[257..262] == b"ustar" {
            Some(ArchiveFormat::Tar)
        } else {
            None
        })
    }

    /// Canonical extension (`tar.gz`, `zip`, …).
    pub fn extension(self) -> &'static str {
        SUFFIXES
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(s, _)| *s)
            .expect("every format has a suffix")
    }
}

/// The extension a mirror uses for a file: the archive suffix if it is one (`tar.gz`),
/// otherwise the last `.ext` of the name (`run`, `patch`), if any.
pub(crate) fn extension_of(file_name: &str) -> Option<String> {
    let lower = file_name.to_ascii_lowercase();
    if let Some((s, _)) = SUFFIXES.iter().find(|(s, _)| {
        lower
            .strip_suffix(s)
            .is_some_and(|rest| rest.ends_with('.'))
    }) {
        return Some(file_name[file_name.len() - s.len()..].to_string());
    }
    let (stem, ext) = file_name.rsplit_once('.')?;
    (!stem.is_empty()
        && !ext.is_empty()
        && ext.len() <= 8
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic()))
    .then(|| ext.to_string())
}

/// Extract `path` (of `format`) into `tree`.
pub(crate) fn extract(
    path: &Path,
    format: ArchiveFormat,
    tree: &mut SafeTree,
    label: &str,
) -> Result<(), FetchError> {
    let file = BufReader::with_capacity(1 << 16, fs_err::File::open(path)?);
    let bad = |e: std::io::Error| FetchError::BadArchive {
        archive: label.to_string(),
        reason: e.to_string(),
    };
    match format {
        ArchiveFormat::Tar => extract_tar(file, tree, label),
        ArchiveFormat::TarGz => {
            extract_tar(flate2::bufread::MultiGzDecoder::new(file), tree, label)
        }
        ArchiveFormat::TarBz2 => {
            extract_tar(bzip2::bufread::MultiBzDecoder::new(file), tree, label)
        }
        ArchiveFormat::TarXz => extract_tar(
            xz2::bufread::XzDecoder::new_multi_decoder(file),
            tree,
            label,
        ),
        ArchiveFormat::TarZst => extract_tar(
            zstd::stream::read::Decoder::with_buffer(file).map_err(bad)?,
            tree,
            label,
        ),
        ArchiveFormat::Zip => extract_zip(path, tree, label),
    }
}

fn extract_tar(reader: impl Read, tree: &mut SafeTree, label: &str) -> Result<(), FetchError> {
    use tar::EntryType;
    let bad = |e: std::io::Error| FetchError::BadArchive {
        archive: label.to_string(),
        reason: e.to_string(),
    };
    let mut archive = tar::Archive::new(reader);
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let header = entry.header();
        let kind = header.entry_type();
        let mode = header.mode().unwrap_or(0o644);
        let mtime = header
            .mtime()
            .ok()
            .map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        let name = entry.path_bytes().into_owned();
        match kind {
            // Old (v7) archives mark directories as regular files whose name ends in `/`.
            EntryType::Regular if name.ends_with(b"/") => tree.dir(&name, mode, mtime)?,
            EntryType::Regular | EntryType::Continuous | EntryType::GNUSparse => {
                tree.file(&name, mode, mtime, &mut entry)?
            }
            EntryType::Directory => tree.dir(&name, mode, mtime)?,
            EntryType::Symlink => {
                let target = entry.link_name_bytes().unwrap_or_default().into_owned();
                tree.symlink(&name, &target)?
            }
            EntryType::Link => {
                let target = entry.link_name_bytes().unwrap_or_default().into_owned();
                tree.hardlink(&name, &target)?
            }
            EntryType::XGlobalHeader => {}
            EntryType::Char => return Err(tree.special(&name, "character device")),
            EntryType::Block => return Err(tree.special(&name, "block device")),
            EntryType::Fifo => return Err(tree.special(&name, "FIFO")),
            other => {
                return Err(tree.refuse(&name, format!("unsupported tar entry type {other:?}")));
            }
        }
    }
    Ok(())
}

fn extract_zip(path: &Path, tree: &mut SafeTree, label: &str) -> Result<(), FetchError> {
    let bad = |e: zip::result::ZipError| FetchError::BadArchive {
        archive: label.to_string(),
        reason: e.to_string(),
    };
    let file = BufReader::new(fs_err::File::open(path)?);
    let mut zip = zip::ZipArchive::new(file).map_err(bad)?;
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(bad)?;
        let name = f.name_raw().to_vec();
        let mode = f.unix_mode();
        let mtime = f.last_modified().and_then(zip_time);
        if let Some(m) = mode {
            let kind = m & 0o170000;
            if kind == 0o020000 || kind == 0o060000 || kind == 0o010000 || kind == 0o140000 {
                return Err(tree.special(&name, "device, FIFO or socket"));
            }
        }
        if f.is_symlink() {
            let mut target = Vec::new();
            f.read_to_end(&mut target)
                .map_err(|e| FetchError::BadArchive {
                    archive: label.to_string(),
                    reason: e.to_string(),
                })?;
            tree.symlink(&name, &target)?;
        } else if f.is_dir() {
            tree.dir(&name, mode.unwrap_or(0o755), mtime)?;
        } else {
            tree.file(&name, mode.unwrap_or(0o644), mtime, &mut f)?;
        }
    }
    Ok(())
}

/// A zip timestamp (no time zone; taken as UTC) as a system time.
fn zip_time(t: zip::DateTime) -> Option<SystemTime> {
    let dt = jiff::civil::DateTime::new(
        t.year() as i16,
        t.month() as i8,
        t.day() as i8,
        t.hour() as i8,
        t.minute() as i8,
        t.second() as i8,
        0,
    )
    .ok()?;
    let ts = dt.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    Some(SystemTime::from(ts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_names() {
        assert_eq!(
            ArchiveFormat::from_file_name("a-1.0.tar.gz"),
            Some(ArchiveFormat::TarGz)
        );
        assert_eq!(
            ArchiveFormat::from_file_name("a.TGZ"),
            Some(ArchiveFormat::TarGz)
        );
        assert_eq!(
            ArchiveFormat::from_file_name("a.tar.zst"),
            Some(ArchiveFormat::TarZst)
        );
        assert_eq!(
            ArchiveFormat::from_file_name("a.zip"),
            Some(ArchiveFormat::Zip)
        );
        assert_eq!(ArchiveFormat::from_file_name("tar"), None);
        assert_eq!(ArchiveFormat::from_file_name("cuda.run"), None);
        assert_eq!(extension_of("a-1.tar.bz2").as_deref(), Some("tar.bz2"));
        assert_eq!(extension_of("cuda_12.run").as_deref(), Some("run"));
        assert_eq!(extension_of("README").as_deref(), None);
        assert_eq!(extension_of("v1.2.3").as_deref(), None);
    }
}
