//! What is at a prefix: installed, a leftover, or nothing.

use std::path::Path;

use super::StoreError;
use super::record::{InstalledRecord, read_record};

/// State of a prefix on disk.
#[derive(Clone, Debug, PartialEq)]
pub enum PrefixState {
    /// Nothing there.
    Absent,
    /// A complete install with the expected hash.
    Installed(Box<InstalledRecord>),
    /// Something else: an interrupted build, a foreign or corrupt record, or
    /// a record with another hash. Must be wiped before building.
    Partial,
}

/// Inspect `host_prefix`, expecting a record with `hash`.
pub fn inspect(host_prefix: &Path, hash: &str) -> PrefixState {
    match std::fs::symlink_metadata(host_prefix) {
        Err(_) => return PrefixState::Absent,
        Ok(md) if !md.is_dir() => return PrefixState::Partial,
        Ok(_) => {}
    }
    match read_record(host_prefix) {
        Ok(Some(rec)) if rec.hash == hash => match super::quick_check::quick_diff(host_prefix) {
            None => PrefixState::Installed(Box::new(rec)),
            Some(diff) => {
                tracing::warn!("{}: {diff}; rebuilding", host_prefix.display());
                PrefixState::Partial
            }
        },
        Ok(_) => PrefixState::Partial,
        Err(e) => {
            tracing::warn!("{e}; rebuilding");
            PrefixState::Partial
        }
    }
}

/// Remove whatever is at `host_prefix` (a leftover of an interrupted build).
pub fn wipe(host_prefix: &Path) -> Result<(), StoreError> {
    match std::fs::symlink_metadata(host_prefix) {
        Err(_) => Ok(()),
        Ok(md) if md.is_dir() => {
            make_writable(host_prefix);
            Ok(fs_err::remove_dir_all(host_prefix)?)
        }
        Ok(_) => Ok(fs_err::remove_file(host_prefix)?),
    }
}

/// Give the owner write permission on every directory, so read-only dirs
/// left by an install (`chmod 555`) do not stop the removal.
fn make_writable(root: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for e in walkdir::WalkDir::new(root).into_iter().flatten() {
        if e.file_type().is_dir() {
            if let Ok(md) = e.metadata() {
                let mode = md.permissions().mode();
                if mode & 0o700 != 0o700 {
                    let _ = std::fs::set_permissions(
                        e.path(),
                        std::fs::Permissions::from_mode(mode | 0o700),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::record::register;
    use super::*;

    fn record(hash: &str) -> InstalledRecord {
        InstalledRecord {
            format: 0,
            name: "x".into(),
            version: "1".into(),
            hash: hash.into(),
            spec: "x@1".into(),
            prefix: "/m/x".into(),
            patches: Vec::new(),
            build_system: "generic".into(),
            deps: vec![],
            manifest_entries: 0,
            manifest_sha256: String::new(),
        }
    }

    #[test]
    fn states() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x");
        assert_eq!(inspect(&p, "abc"), PrefixState::Absent);
        fs_err::create_dir_all(p.join("lib")).unwrap();
        assert_eq!(inspect(&p, "abc"), PrefixState::Partial);
        let mut r = record("abc");
        register(&p, &mut r, &super::super::manifest(&p).unwrap()).unwrap();
        assert!(matches!(inspect(&p, "abc"), PrefixState::Installed(_)));
        assert_eq!(inspect(&p, "other"), PrefixState::Partial);
        fs_err::write(p.join(".stack/installed.json"), "{trunc").unwrap();
        assert_eq!(inspect(&p, "abc"), PrefixState::Partial);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p.join("lib"), std::fs::Permissions::from_mode(0o555)).unwrap();
        wipe(&p).unwrap();
        assert_eq!(inspect(&p, "abc"), PrefixState::Absent);
    }
}
