//! The allow-list a build recorded with its audit (`meta/audit/audit.json`,
//! the report's `allow` field), so that `stack audit` of the build's store
//! or image judges it the way the build did.

use std::path::{Path, PathBuf};

use super::fs::Backend;
use super::squashfs::SquashImage;

/// Where the report of a build lives, relative to the tree's root.
pub const REPORT: &str = "meta/audit/audit.json";

/// The recorded allow-list of a directory tree: `<dir>/meta/audit/audit.json`
/// (inside the store), else `<dir>/../meta/audit/audit.json` (a build
/// directory's `meta/` beside its `store/`). Returns the patterns and where
/// they came from.
pub fn for_directory(dir: &Path) -> Option<(Vec<String>, String)> {
    let inside = dir.join(REPORT);
    let beside = dir.parent().map(|p| p.join(REPORT));
    [Some(inside), beside]
        .into_iter()
        .flatten()
        .find_map(|p| from_file(&p))
}

/// The recorded allow-list of an image: `meta/audit/audit.json` beside the
/// image, else the one inside it.
pub fn for_image(path: &Path, image: &SquashImage) -> Option<(Vec<String>, String)> {
    let beside = path.parent().unwrap_or(Path::new(".")).join(REPORT);
    if let Some(found) = from_file(&beside) {
        return Some(found);
    }
    let bytes = image.read_all(Path::new(REPORT)).ok()?;
    let patterns = parse(&bytes)?;
    Some((patterns, format!("{}:/{REPORT}", path.display())))
}

fn from_file(p: &PathBuf) -> Option<(Vec<String>, String)> {
    let bytes = std::fs::read(p).ok()?;
    match parse(&bytes) {
        Some(v) => Some((v, p.display().to_string())),
        None => {
            tracing::warn!("{}: no `allow` list of strings; ignored", p.display());
            None
        }
    }
}

/// The `allow` array of an audit report.
pub fn parse(bytes: &[u8]) -> Option<Vec<String>> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    v.get("allow")?
        .as_array()?
        .iter()
        .map(|p| p.as_str().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_allow_field() {
        assert_eq!(
            parse(br#"{"allow": ["libz.so.1", "/opt/*"], "summary": {}}"#),
            Some(vec!["libz.so.1".to_string(), "/opt/*".to_string()])
        );
        assert_eq!(parse(br#"{"allow": [1]}"#), None);
        assert_eq!(parse(b"{"), None);
    }

    #[test]
    fn a_build_directory_report_is_found_beside_the_store() {
        let t = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(t.path().join("store")).unwrap();
        fs_err::create_dir_all(t.path().join("meta/audit")).unwrap();
        fs_err::write(t.path().join(REPORT), br#"{"allow": ["libx.so"]}"#).unwrap();
        let (allow, from) = for_directory(&t.path().join("store")).unwrap();
        assert_eq!(allow, vec!["libx.so".to_string()]);
        assert!(from.ends_with("meta/audit/audit.json"));
    }
}
