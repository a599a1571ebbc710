//! `installed.json`: the record that makes a prefix count as installed.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::atomic::write_atomic;
use super::manifest::ManifestEntry;
use super::{INSTALLED_FILE, MANIFEST_FILE, META_DIR, StoreError};

/// Version of the record format.
pub const RECORD_FORMAT: u32 = 2;

/// A dependency as recorded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordDep {
    pub name: String,
    pub hash: String,
    pub kind: String,
    pub prefix: PathBuf,
}

/// A patch applied to the sources of a prefix, as recorded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordPatch {
    /// The patch as the recipe names it (a file below the repository's
    /// `patches/`, or a URL).
    pub patch: String,
    pub sha256: String,
    /// Strip level (`patch -p<level>`).
    pub level: u32,
}

/// Contents of `<prefix>/.stack/installed.json`.
///
/// Only facts that follow from the inputs go here (no times, no host paths),
/// so that the prefix, and the image made of it, are the same for every
/// build of one lockfile. When and how long a build ran is a [`BuildFacts`]
/// record in the build directory.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InstalledRecord {
    pub format: u32,
    pub name: String,
    pub version: String,
    pub hash: String,
    pub spec: String,
    /// The prefix as builds and users see it (under the mount point).
    pub prefix: PathBuf,
    pub build_system: String,
    pub deps: Vec<RecordDep>,
    /// Number of manifest entries and the sha256 of `manifest.json`.
    pub manifest_entries: usize,
    pub manifest_sha256: String,
    /// The patches applied to the sources, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patches: Vec<RecordPatch>,
}

/// When and how a prefix was built: `<build>/logs/<slug>.json`, beside the
/// build log. Written before `installed.json`; kept out of the prefix because
/// it differs from build to build.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BuildFacts {
    pub name: String,
    pub hash: String,
    /// RFC 3339 UTC time the install finished.
    pub built_at: String,
    /// Wall time of the build in seconds (a cost hint for the next build).
    pub build_seconds: f64,
    /// The build log (host path).
    pub log: PathBuf,
}

/// Write a [`BuildFacts`] record atomically to `path`.
pub fn write_facts(path: &Path, facts: &BuildFacts) -> Result<(), StoreError> {
    if let Some(dir) = path.parent() {
        fs_err::create_dir_all(dir)?;
    }
    let bytes = serde_json::to_vec_pretty(facts).map_err(std::io::Error::other)?;
    write_atomic(path, &bytes)?;
    Ok(())
}

/// Write `manifest.json`, then `installed.json` (last, atomically).
/// `host_prefix` is where the prefix is on the host; `record.prefix` is the
/// logical one. The manifest fields of `record` are filled in here.
pub fn register(
    host_prefix: &Path,
    record: &mut InstalledRecord,
    manifest: &[ManifestEntry],
) -> Result<(), StoreError> {
    // Never through a link the build left at `.stack` (or at the prefix).
    let meta = super::Beneath::open(host_prefix)?.ensure_real_dir(Path::new(META_DIR))?;
    let bytes = serde_json::to_vec_pretty(manifest).map_err(std::io::Error::other)?;
    write_atomic(&meta.join(MANIFEST_FILE), &bytes)?;
    record.format = RECORD_FORMAT;
    record.manifest_entries = manifest.len();
    record.manifest_sha256 = hex::encode(Sha256::digest(&bytes));
    let bytes = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    write_atomic(&meta.join(INSTALLED_FILE), &bytes)?;
    Ok(())
}

/// Read `installed.json` of a prefix; `Ok(None)` when absent.
pub fn read_record(host_prefix: &Path) -> Result<Option<InstalledRecord>, StoreError> {
    let path = host_prefix.join(META_DIR).join(INSTALLED_FILE);
    let bytes = match fs_err::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let rec: InstalledRecord =
        serde_json::from_slice(&bytes).map_err(|e| StoreError::BadRecord {
            path: path.clone(),
            message: e.to_string(),
        })?;
    if rec.format != RECORD_FORMAT {
        return Err(StoreError::BadRecord {
            path,
            message: format!("format {} (this stack writes {RECORD_FORMAT})", rec.format),
        });
    }
    Ok(Some(rec))
}

/// Read the manifest of an installed prefix.
pub fn read_manifest(host_prefix: &Path) -> Result<Vec<ManifestEntry>, StoreError> {
    let path = host_prefix.join(META_DIR).join(MANIFEST_FILE);
    let bytes = fs_err::read(&path)?;
    serde_json::from_slice(&bytes).map_err(|e| StoreError::BadRecord {
        path,
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13, item 1: a build that replaced `<prefix>/.stack` by a link
    /// made the host write manifest.json and installed.json where it pointed.
    #[test]
    fn register_never_writes_through_a_link() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("pkg");
        let victim = d.path().join("victim");
        fs_err::create_dir_all(&p).unwrap();
        fs_err::create_dir_all(&victim).unwrap();
        std::os::unix::fs::symlink(&victim, p.join(META_DIR)).unwrap();
        let mut r = InstalledRecord {
            format: 0,
            patches: vec![],
            name: "pkg".into(),
            version: "1".into(),
            hash: "abc".into(),
            spec: "pkg@1".into(),
            prefix: "/m/pkg".into(),
            build_system: "generic".into(),
            deps: vec![],
            manifest_entries: 0,
            manifest_sha256: String::new(),
        };
        register(&p, &mut r, &[]).unwrap();
        assert_eq!(fs_err::read_dir(&victim).unwrap().count(), 0);
        assert!(p.join(META_DIR).join(INSTALLED_FILE).is_file());
        assert!(
            !fs_err::symlink_metadata(p.join(META_DIR))
                .unwrap()
                .is_symlink()
        );
    }
}
