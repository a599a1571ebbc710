//! A cheap check of an installed prefix against its manifest, before reuse.
//!
//! Reusing a prefix trusts that it still is what was recorded. Hashing
//! every file of every reused prefix on each rerun would cost as much as
//! packing, so reuse compares only what `lstat` and `readlink` tell —
//! every recorded path present with its kind, mode, size and link target,
//! and nothing unrecorded — and a prefix that fails is rebuilt. Content
//! changes that keep the size are caught by the full check before packing
//! ([`crate::verify`]).

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::manifest::{EntryKind, ManifestEntry, walk_prefix};
use super::{MANIFEST_FILE, META_DIR};

/// The first difference between `prefix` and its recorded manifest, if any
/// (an unreadable or invalid manifest is a difference too).
pub fn quick_diff(prefix: &Path) -> Option<String> {
    let file = prefix.join(META_DIR).join(MANIFEST_FILE);
    let recorded: Vec<ManifestEntry> = match fs_err::read(&file)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => return Some(format!("manifest: {e}")),
    };
    let mut rec: BTreeMap<&str, &ManifestEntry> =
        recorded.iter().map(|e| (e.path.as_str(), e)).collect();
    for entry in walk_prefix(prefix) {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => return Some(e.to_string()),
        };
        let rel = entry
            .path()
            .strip_prefix(prefix)
            .expect("walk stays below its root")
            .to_string_lossy()
            .into_owned();
        let Some(r) = rec.remove(rel.as_str()) else {
            return Some(format!("{rel}: not in the manifest"));
        };
        let md = match entry.path().symlink_metadata() {
            Ok(md) => md,
            Err(e) => return Some(format!("{rel}: {e}")),
        };
        let ft = md.file_type();
        let kind = if ft.is_symlink() {
            EntryKind::Symlink
        } else if ft.is_dir() {
            EntryKind::Dir
        } else if ft.is_file() {
            EntryKind::File
        } else {
            return Some(format!("{rel}: a special file"));
        };
        let mode = (kind != EntryKind::Symlink).then(|| md.permissions().mode() & 0o7777);
        let size = (kind == EntryKind::File).then_some(md.len());
        let target = match kind {
            EntryKind::Symlink => std::fs::read_link(entry.path())
                .ok()
                .map(|t| t.to_string_lossy().into_owned()),
            _ => None,
        };
        if r.kind != kind || r.mode != mode || r.size != size || r.target != target {
            return Some(format!("{rel}: changed since it was installed"));
        }
    }
    rec.keys()
        .next()
        .map(|p| format!("{p}: missing since it was installed"))
}

#[cfg(test)]
mod tests {
    use super::super::record::register;
    use super::super::{InstalledRecord, PrefixState, inspect, manifest};
    use super::*;

    /// Issue 13, item 6: a prefix rewritten after it was installed (by a
    /// later package, in direct mode) was reused as it was.
    #[test]
    fn a_changed_prefix_is_not_reused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("dep");
        fs_err::create_dir_all(p.join("lib")).unwrap();
        fs_err::write(p.join("lib/libdep.so"), "good").unwrap();
        let mut r = InstalledRecord {
            format: 0,
            patches: vec![],
            name: "dep".into(),
            version: "1".into(),
            hash: "abc".into(),
            spec: "dep@1".into(),
            prefix: "/m/dep".into(),
            build_system: "generic".into(),
            deps: vec![],
            manifest_entries: 0,
            manifest_sha256: String::new(),
        };
        register(&p, &mut r, &manifest(&p).unwrap()).unwrap();
        assert_eq!(quick_diff(&p), None);
        assert!(matches!(inspect(&p, "abc"), PrefixState::Installed(_)));

        fs_err::write(p.join("lib/libdep.so"), "tampered").unwrap();
        assert!(quick_diff(&p).unwrap().contains("lib/libdep.so"));
        assert_eq!(inspect(&p, "abc"), PrefixState::Partial);
        fs_err::write(p.join("lib/libdep.so"), "good").unwrap();
        fs_err::write(p.join("lib/extra"), "x").unwrap();
        assert_eq!(inspect(&p, "abc"), PrefixState::Partial);
        fs_err::remove_file(p.join("lib/extra")).unwrap();
        fs_err::remove_file(p.join("lib/libdep.so")).unwrap();
        assert!(quick_diff(&p).unwrap().contains("missing"));
    }
}
