//! The cache of [`super::api_check`]'s collector: reading a package file
//! statically (a tree-sitter parse of each reachable `package.py`) was a
//! fifth of `stack resolve` for a stack of 261 packages, on every command.
//! Each file's calls are kept under `<cache>/api-check/`, one entry per
//! path, valid while the file's identity (device, inode, size,
//! modification time) and the collector (the importer's sources,
//! `STACK_TRANSLATOR_HASH`, and the layer's [`crate::build_logic::API_VERSION`])
//! are unchanged. A file that cannot be read or parsed is not cached.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::api_check::{Collector, UnsupportedCall};

/// The directory of the cache under a cache base.
pub const CACHE_DIR: &str = "api-check";

/// `collect(path)`, from the cache in `cache` when its entry is valid (and
/// written there otherwise); `None`: computed every time. A cache that
/// cannot be read or written only costs the collecting.
pub fn collect_cached(
    collect: Collector,
    path: &Path,
    cache: Option<&Path>,
) -> Result<Vec<UnsupportedCall>, String> {
    let (Some(cache), Ok(meta)) = (cache, fs_err::metadata(path)) else {
        return collect(path);
    };
    let stamp = format!(
        "{} {} {}",
        env!("STACK_TRANSLATOR_HASH"),
        crate::build_logic::API_VERSION,
        crate::cluster::fingerprint::stamp(&meta)
    );
    let entry = cache.join(hex::encode(
        &Sha256::digest(path.as_os_str().as_encoded_bytes())[..16],
    ));
    if let Ok(text) = fs_err::read_to_string(&entry) {
        if let Some(calls) = parse_entry(&text, &stamp) {
            return Ok(calls);
        }
    }
    let calls = collect(path)?;
    if calls.iter().any(|c| c.call.contains(['\t', '\n'])) {
        return Ok(calls);
    }
    let mut text = format!("{stamp}\n");
    for c in &calls {
        text.push_str(&format!("{}\t{}\n", c.line, c.call));
    }
    // Written whole and renamed into place: a concurrent reader sees the
    // old entry or the new one.
    let write = || -> std::io::Result<()> {
        fs_err::create_dir_all(cache)?;
        let tmp = tempfile::NamedTempFile::new_in(cache)?;
        fs_err::write(tmp.path(), &text)?;
        tmp.persist(&entry).map_err(|e| e.error)?;
        Ok(())
    };
    if let Err(e) = write() {
        tracing::debug!("package API check cache {}: {e}", cache.display());
    }
    Ok(calls)
}

/// The calls of an entry written for `stamp` (`None`: another stamp, or
/// not an entry).
fn parse_entry(text: &str, stamp: &str) -> Option<Vec<UnsupportedCall>> {
    let mut lines = text.lines();
    if lines.next()? != stamp {
        return None;
    }
    lines
        .map(|l| {
            let (line, call) = l.split_once('\t')?;
            Some(UnsupportedCall {
                line: line.parse().ok()?,
                call: call.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::api_check::tests::collect as count_calls;

    fn refuse(_: &Path) -> Result<Vec<UnsupportedCall>, String> {
        Err("not called while the entry is valid".into())
    }

    /// The entry answers while the file is unchanged; a changed file is
    /// read again; a file that cannot be read is an error, not an entry.
    #[test]
    fn the_entry_answers_while_the_file_is_unchanged() {
        let tmp = tempfile::tempdir().unwrap();
        let (file, cache) = (tmp.path().join("package.py"), tmp.path().join("cache"));
        fs_err::write(&file, "x = 1\nspec.tree()\n").unwrap();
        let first = collect_cached(count_calls, &file, Some(&cache)).unwrap();
        assert_eq!(first, count_calls(&file).unwrap());
        assert_eq!(first.len(), 1);
        assert_eq!(collect_cached(refuse, &file, Some(&cache)).unwrap(), first);
        fs_err::write(&file, "spec.tree()\nspec.tree()\nspec.tree()\n").unwrap();
        let t = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::open(&file)
            .unwrap()
            .set_times(std::fs::FileTimes::new().set_modified(t))
            .unwrap();
        let again = collect_cached(count_calls, &file, Some(&cache)).unwrap();
        assert_eq!(again.len(), 3);
        assert_eq!(collect_cached(refuse, &file, Some(&cache)).unwrap(), again);
        assert!(collect_cached(count_calls, &tmp.path().join("missing.py"), Some(&cache)).is_err());
        assert!(
            collect_cached(refuse, &file, None).is_err(),
            "no cache: collected"
        );
    }
}
