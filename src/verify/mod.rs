//! `stack verify`: do installed prefixes still hold what their manifests
//! say? Like `spack verify` or `nix-store --verify --check-contents`.
//!
//! Every prefix records `.stack/manifest.json` when it is installed (path,
//! kind, mode, size, sha256 of every file, link targets; see
//! [`crate::store::manifest()`]). Verifying walks the prefix again — in a
//! store directory or inside a squashfs image, read in place — and compares:
//!
//! - **missing**: recorded, not there;
//! - **extra**: there, not recorded;
//! - **modified**: another kind, mode, size, content (sha256) or link target.
//!
//! Outside the prefixes, only `env/`, `modules/` and `meta/` (generated)
//! and what the post-install hook added (recorded in
//! `meta/store-manifest.json`, see [`record_outside`]) may be there; a
//! prefix's `.stack/` holds only its records ([`crate::store::META_FILES`]);
//! extended attributes are recorded nowhere, so a file carrying one is a
//! finding. Anything else is **extra**.
//!
//! The pipeline verifies the whole store before packing an image, so an
//! image never ships a prefix whose files differ from its own manifest.

mod image;
mod outside;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::store::{self, EntryKind, ManifestEntry, StoreError};

pub use image::verify_image;
pub use outside::{STORE_MANIFEST, record_outside};

/// What differs at one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Missing,
    Extra,
    /// What differs: "content", "size", "mode 0644 -> 0755", "kind", "target".
    Modified(String),
}

/// One difference, at a path relative to the verified root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub path: String,
    pub change: Change,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Paths are escaped: a newline in a file name cannot forge a line.
        let path = self.path.escape_debug();
        match &self.change {
            Change::Missing => write!(f, "missing   {path}"),
            Change::Extra => write!(f, "extra     {path}"),
            Change::Modified(what) => write!(f, "modified  {path} ({what})"),
        }
    }
}

/// The result of verifying a store or an image.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Prefixes verified (relative to the root).
    pub prefixes: Vec<String>,
    /// Manifest entries compared.
    pub entries: usize,
    pub findings: Vec<Finding>,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Errors of verification (bad input, unreadable records); differences are
/// findings, not errors.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(
        "{}: no installed prefix found (no <prefix>/.stack/manifest.json)\n  hint: give a build directory, a store directory or a squashfs image made by `stack`",
        path.display()
    )]
    NoPrefixes { path: PathBuf },

    #[error("{}: cannot read the image: {message}", path.display())]
    Image { path: PathBuf, message: String },

    #[error("{}: invalid manifest: {message}", path.display())]
    BadManifest { path: PathBuf, message: String },

    #[error(
        "the store {} does not match its manifests; refusing to pack it:\n{}\n  hint: rebuild the named packages (remove their prefixes), or see `stack verify`",
        store.display(),
        findings.iter().take(20).map(|f| format!("  {f}")).collect::<Vec<_>>().join("\n")
    )]
    Modified {
        store: PathBuf,
        findings: Vec<Finding>,
    },

    #[error(transparent)]
    Store(#[from] Box<StoreError>),

    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<StoreError> for VerifyError {
    fn from(e: StoreError) -> Self {
        VerifyError::Store(Box::new(e))
    }
}

/// Compare a recorded manifest with what is there now; paths in findings
/// get `prefix/` in front.
pub fn compare(prefix: &str, recorded: &[ManifestEntry], actual: &[ManifestEntry]) -> Vec<Finding> {
    let rec: BTreeMap<&str, &ManifestEntry> =
        recorded.iter().map(|e| (e.path.as_str(), e)).collect();
    let now: BTreeMap<&str, &ManifestEntry> = actual.iter().map(|e| (e.path.as_str(), e)).collect();
    let at = |p: &str| format!("{prefix}/{p}");
    let mut out = Vec::new();
    for (path, r) in &rec {
        let Some(n) = now.get(path) else {
            out.push(Finding {
                path: at(path),
                change: Change::Missing,
            });
            continue;
        };
        let what = if r.kind != n.kind {
            Some(format!("was a {}, now a {}", kind(r.kind), kind(n.kind)))
        } else if r.sha256 != n.sha256 {
            Some("content".to_string())
        } else if r.size != n.size {
            Some("size".to_string())
        } else if r.target != n.target {
            Some(format!(
                "link target {} -> {}",
                r.target.as_deref().unwrap_or(""),
                n.target.as_deref().unwrap_or("")
            ))
        } else if r.mode != n.mode {
            Some(format!(
                "mode {:04o} -> {:04o}",
                r.mode.unwrap_or(0),
                n.mode.unwrap_or(0)
            ))
        } else {
            None
        };
        if let Some(what) = what {
            out.push(Finding {
                path: at(path),
                change: Change::Modified(what),
            });
        }
    }
    for path in now.keys().filter(|p| !rec.contains_key(*p)) {
        out.push(Finding {
            path: at(path),
            change: Change::Extra,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn kind(k: EntryKind) -> &'static str {
    match k {
        EntryKind::File => "file",
        EntryKind::Dir => "directory",
        EntryKind::Symlink => "symlink",
    }
}

fn parse_manifest(path: &Path, bytes: &[u8]) -> Result<Vec<ManifestEntry>, VerifyError> {
    serde_json::from_slice(bytes).map_err(|e| VerifyError::BadManifest {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The prefixes below a store directory: directories holding
/// `.stack/manifest.json`, at most four levels down, views, modules and
/// `meta/` skipped, links never followed.
pub fn find_prefixes(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(root)
        .min_depth(1)
        .max_depth(4)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            !(e.depth() == 1
                && crate::view::RESERVED_DIRS
                    .iter()
                    .any(|r| e.file_name() == *r))
        });
    for e in walk {
        let e = e.map_err(|e| std::io::Error::other(e.to_string()))?;
        if e.file_type().is_dir()
            && e.file_name() == store::META_DIR
            && e.path().join(store::MANIFEST_FILE).is_file()
            && let Some(p) = e.path().parent()
        {
            out.push(p.to_path_buf());
        }
    }
    Ok(out)
}

/// Verify every prefix below the store directory `root`.
pub fn verify_dir(root: &Path) -> Result<VerifyReport, VerifyError> {
    let prefixes = find_prefixes(root)?;
    if prefixes.is_empty() {
        return Err(VerifyError::NoPrefixes {
            path: root.to_path_buf(),
        });
    }
    let mut report = VerifyReport::default();
    for prefix in prefixes {
        let rel = prefix
            .strip_prefix(root)
            .unwrap_or(&prefix)
            .to_string_lossy()
            .into_owned();
        let file = prefix.join(store::META_DIR).join(store::MANIFEST_FILE);
        let recorded = parse_manifest(&file, &fs_err::read(&file)?)?;
        report.entries += recorded.len();
        match store::manifest(&prefix) {
            Ok(actual) => report.findings.extend(compare(&rel, &recorded, &actual)),
            Err(e) => report.findings.push(outside::unrecordable(root, e)?),
        }
        report.findings.extend(outside::check_meta_dir(root, &rel)?);
        report.prefixes.push(rel);
    }
    // What no prefix's manifest records.
    let rel: Vec<PathBuf> = report.prefixes.iter().map(PathBuf::from).collect();
    report.findings.extend(outside::check_dir(root, &rel)?);
    report.findings.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// Verify a store before it is packed: an error listing the differences
/// if any prefix does not match its manifest.
pub fn check_store(store_dir: &Path) -> Result<VerifyReport, VerifyError> {
    let report = match verify_dir(store_dir) {
        Err(VerifyError::NoPrefixes { .. }) => return Ok(VerifyReport::default()),
        r => r?,
    };
    if report.ok() {
        Ok(report)
    } else {
        Err(VerifyError::Modified {
            store: store_dir.to_path_buf(),
            findings: report.findings,
        })
    }
}

/// What cannot be verified as given (no prefixes, an unreadable image or
/// manifest) is the input's fault; a store that does not match its
/// manifests, or I/O, is a failure.
impl crate::diag::Classify for VerifyError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::input_if(!matches!(
            self,
            VerifyError::Io(_) | VerifyError::Store(_) | VerifyError::Modified { .. }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(root: &Path) -> PathBuf {
        let p = root.join("x86_64/pkg-1.0-abcdef12");
        fs_err::create_dir_all(p.join("lib")).unwrap();
        fs_err::create_dir_all(p.join(".stack")).unwrap();
        fs_err::write(p.join("lib/libpkg.so"), "good").unwrap();
        fs_err::write(p.join("README"), "read me").unwrap();
        std::os::unix::fs::symlink("libpkg.so", p.join("lib/libpkg.so.1")).unwrap();
        let m = store::manifest(&p).unwrap();
        fs_err::write(
            p.join(".stack/manifest.json"),
            serde_json::to_vec(&m).unwrap(),
        )
        .unwrap();
        p
    }

    /// Issue 13, item 6: a prefix changed after it was recorded is found.
    #[test]
    fn finds_modified_missing_and_extra_files() {
        let d = tempfile::tempdir().unwrap();
        let p = prefix(d.path());
        let r = verify_dir(d.path()).unwrap();
        assert!(r.ok(), "{:?}", r.findings);
        assert_eq!(r.prefixes, vec!["x86_64/pkg-1.0-abcdef12"]);
        assert_eq!(r.entries, 4);

        fs_err::write(p.join("lib/libpkg.so"), "evil").unwrap();
        fs_err::remove_file(p.join("README")).unwrap();
        fs_err::write(p.join("lib/new\nmodified  fake"), "x").unwrap();
        fs_err::remove_file(p.join("lib/libpkg.so.1")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", p.join("lib/libpkg.so.1")).unwrap();
        let r = verify_dir(d.path()).unwrap();
        let lines: Vec<String> = r.findings.iter().map(|f| f.to_string()).collect();
        assert_eq!(
            lines,
            vec![
                "missing   x86_64/pkg-1.0-abcdef12/README",
                "modified  x86_64/pkg-1.0-abcdef12/lib/libpkg.so (content)",
                "modified  x86_64/pkg-1.0-abcdef12/lib/libpkg.so.1 (link target libpkg.so -> /etc/passwd)",
                "extra     x86_64/pkg-1.0-abcdef12/lib/new\\nmodified  fake",
            ]
        );
        let err = check_store(d.path()).unwrap_err().to_string();
        assert!(
            err.contains("refusing to pack") && err.contains("libpkg.so (content)"),
            "{err}"
        );
    }

    /// Issue 40, item 8: a file at the store root, beside a prefix or in a
    /// prefix's `.stack/` is extra; generated directories are not looked
    /// into; what was recorded outside prefixes is accepted, then compared.
    #[test]
    fn files_no_manifest_records_are_extra() {
        let d = tempfile::tempdir().unwrap();
        let p = prefix(d.path());
        fs_err::write(d.path().join("evil"), "x").unwrap();
        fs_err::write(d.path().join("x86_64/evil2"), "x").unwrap();
        fs_err::write(p.join(".stack/evil3"), "x").unwrap();
        fs_err::create_dir_all(d.path().join("env/v")).unwrap();
        fs_err::write(d.path().join("env/v/x"), "view").unwrap();
        let lines = |r: &VerifyReport| -> Vec<String> {
            r.findings.iter().map(|f| f.to_string()).collect()
        };
        let r = verify_dir(d.path()).unwrap();
        assert_eq!(
            lines(&r),
            [
                "extra     evil",
                "extra     x86_64/evil2",
                "extra     x86_64/pkg-1.0-abcdef12/.stack/evil3",
            ]
        );
        assert!(check_store(d.path()).is_err());
        // Recorded (as after a post-install hook): accepted, then compared.
        fs_err::remove_file(p.join(".stack/evil3")).unwrap();
        assert_eq!(record_outside(d.path()).unwrap(), 2);
        assert!(verify_dir(d.path()).unwrap().ok());
        fs_err::write(d.path().join("evil"), "y").unwrap();
        fs_err::remove_file(d.path().join("x86_64/evil2")).unwrap();
        assert_eq!(
            lines(&verify_dir(d.path()).unwrap()),
            ["modified  evil (content)", "missing   x86_64/evil2"]
        );
    }

    #[test]
    fn nothing_to_verify_is_bad_input() {
        let d = tempfile::tempdir().unwrap();
        let err = verify_dir(d.path()).unwrap_err();
        assert!(matches!(err, VerifyError::NoPrefixes { .. }), "{err}");
        assert!(check_store(d.path()).unwrap().ok());
    }
}
