//! The fingerprint of a compiler program (part of the identity node hashes
//! cover), and its cache: hashing `/usr/bin/gcc` (or a 100 MB `nvc`) on every
//! command costs more than the rest of a small resolve, so the digest is
//! kept under `<cache>/compiler-fingerprints/`, one file per program, valid
//! while the file's identity (inode, size, modification time) is unchanged.

use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use sha2::{Digest, Sha256};

/// The directory of the fingerprint cache under a cache base.
pub const CACHE_DIR: &str = "compiler-fingerprints";

/// The fingerprint of a compiler program: SHA-256 of the file it resolves
/// to (symlinks followed), 16 hex digits; `None` if it cannot be read.
/// Read from and written to the cache under `settings::cache_base()`.
pub fn compiler_fingerprint(path: &Path) -> Option<String> {
    let cache = Some(crate::settings::cache_base().join(CACHE_DIR));
    compiler_fingerprint_cached(path, cache.as_deref())
}

/// [`compiler_fingerprint`] with the cache in `cache` (`None`: computed
/// every time). A cache that cannot be read or written only costs the
/// hashing.
pub fn compiler_fingerprint_cached(path: &Path, cache: Option<&Path>) -> Option<String> {
    let meta = fs_err::metadata(path).ok()?;
    let Some(cache) = cache else {
        return hash(path);
    };
    let entry = cache.join(entry_name(path));
    let stamp = stamp(&meta);
    if let Ok(text) = fs_err::read_to_string(&entry) {
        if let Some(fp) = text
            .strip_prefix(&stamp)
            .and_then(|rest| rest.strip_prefix(' '))
            .map(str::trim)
            .filter(|fp| fp.len() == 16 && fp.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Some(fp.to_string());
        }
    }
    let fp = hash(path)?;
    // Written whole and renamed into place: a concurrent reader sees the
    // old entry or the new one.
    let write = || -> std::io::Result<()> {
        fs_err::create_dir_all(cache)?;
        let tmp = tempfile::NamedTempFile::new_in(cache)?;
        fs_err::write(tmp.path(), format!("{stamp} {fp}\n"))?;
        tmp.persist(&entry).map_err(|e| e.error)?;
        Ok(())
    };
    if let Err(e) = write() {
        tracing::debug!("compiler fingerprint cache {}: {e}", cache.display());
    }
    Some(fp)
}

fn hash(path: &Path) -> Option<String> {
    let bytes = fs_err::read(path).ok()?;
    Some(hex::encode(&Sha256::digest(&bytes)[..8]))
}

/// The cache file of `path`: a digest of the path as given (symlinks are
/// followed by the stamp, which describes the file the path resolves to).
fn entry_name(path: &Path) -> String {
    hex::encode(&Sha256::digest(path.as_os_str().as_encoded_bytes())[..16])
}

/// What identifies the file's content without reading it: device, inode,
/// size and modification time (nanoseconds).
pub(crate) fn stamp(meta: &Metadata) -> String {
    format!(
        "{}:{}:{}:{}.{:09}",
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_used_while_the_file_is_unchanged_and_refreshed_after() {
        let tmp = tempfile::tempdir().unwrap();
        let cc = tmp.path().join("gcc");
        let cache = tmp.path().join("cache");
        fs_err::write(&cc, "a compiler").unwrap();
        let fp = compiler_fingerprint_cached(&cc, Some(&cache)).unwrap();
        assert_eq!(Some(fp.clone()), compiler_fingerprint_cached(&cc, None));
        let entries: Vec<_> = fs_err::read_dir(&cache).unwrap().collect();
        assert_eq!(entries.len(), 1);
        let entry = entries[0].as_ref().unwrap().path();
        // An unchanged file is not hashed again: the cached value is taken
        // (rewritten here to tell it from a computed one).
        let text = fs_err::read_to_string(&entry).unwrap();
        fs_err::write(&entry, text.replace(&fp, "0123456789abcdef")).unwrap();
        assert_eq!(
            compiler_fingerprint_cached(&cc, Some(&cache)).as_deref(),
            Some("0123456789abcdef")
        );
        // A changed file (another size) is hashed again, and the entry
        // replaced.
        fs_err::write(&cc, "another compiler").unwrap();
        let new = compiler_fingerprint_cached(&cc, Some(&cache)).unwrap();
        assert_eq!(Some(new.clone()), compiler_fingerprint_cached(&cc, None));
        assert_ne!(new, fp);
        assert!(
            fs_err::read_to_string(&entry)
                .unwrap()
                .ends_with(&format!(" {new}\n"))
        );
        // A broken entry is recomputed.
        fs_err::write(&entry, "garbage").unwrap();
        assert_eq!(compiler_fingerprint_cached(&cc, Some(&cache)), Some(new));
        // A missing program has no fingerprint, and no entry.
        assert_eq!(
            compiler_fingerprint_cached(&tmp.path().join("nvc"), Some(&cache)),
            None
        );
        assert_eq!(fs_err::read_dir(&cache).unwrap().count(), 1);
    }
}
