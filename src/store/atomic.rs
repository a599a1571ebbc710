//! Atomic file writes: a temporary sibling, then one rename.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` so that readers see either the old file (or none)
/// or the complete new one, also when the process is killed midway.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data()?;
    tmp.persist(path).map_err(|e| {
        std::io::Error::new(e.error.kind(), format!("{}: {}", path.display(), e.error))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_leaves_no_temp() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs_err::read_to_string(&p).unwrap(), "two");
        assert_eq!(fs_err::read_dir(d.path()).unwrap().count(), 1);
    }
}
