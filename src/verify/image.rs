//! Verifying the prefixes inside a squashfs image, read in place.

use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use backhand::{FilesystemReader, InnerNode};
use sha2::{Digest, Sha256};

use super::outside::{STORE_MANIFEST, compare_outside, generated, holds_prefix, recorded};
use super::{Change, Finding, VerifyError, VerifyReport, compare, parse_manifest};
use crate::store::{self, EntryKind, ManifestEntry};

type Nodes<'a> = BTreeMap<PathBuf, &'a backhand::Node<backhand::SquashfsFileReader>>;

fn image_error(path: &Path, e: impl std::fmt::Display) -> VerifyError {
    VerifyError::Image {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Verify every prefix inside the squashfs image at `path`.
pub fn verify_image(path: &Path) -> Result<VerifyReport, VerifyError> {
    let file = fs_err::File::open(path)?;
    let fs = FilesystemReader::from_reader(BufReader::new(file.into_parts().0))
        .map_err(|e| image_error(path, e))?;
    let nodes: Nodes<'_> = fs
        .root
        .nodes
        .iter()
        .map(|n| {
            let rel = n.fullpath.strip_prefix("/").unwrap_or(&n.fullpath);
            (rel.to_path_buf(), n)
        })
        .collect();
    let manifest_tail = Path::new(store::META_DIR).join(store::MANIFEST_FILE);
    let prefixes: Vec<PathBuf> = nodes
        .keys()
        .filter(|p| p.ends_with(&manifest_tail))
        .filter_map(|p| p.parent()?.parent().map(Path::to_path_buf))
        .collect();
    if prefixes.is_empty() {
        return Err(VerifyError::NoPrefixes {
            path: path.to_path_buf(),
        });
    }
    let mut report = VerifyReport::default();
    for prefix in &prefixes {
        let rel = prefix.to_string_lossy().into_owned();
        let mpath = prefix.join(&manifest_tail);
        let recorded = parse_manifest(&path.join(&mpath), &read_file(&fs, nodes[&mpath], path)?)?;
        report.entries += recorded.len();
        let (actual, special) = entries(&fs, &nodes, prefix, path)?;
        report.findings.extend(compare(&rel, &recorded, &actual));
        report.findings.extend(special.into_iter().map(|p| Finding {
            path: format!("{rel}/{p}"),
            change: Change::Modified("a special file, cannot be installed".into()),
        }));
        report.findings.extend(meta_extras(&nodes, prefix));
        report.prefixes.push(rel);
    }
    report
        .findings
        .extend(outside(&fs, &nodes, &prefixes, path)?);
    if has_xattrs(path)? {
        report.findings.push(Finding {
            path: "/".into(),
            change: Change::Modified(
                "the image carries extended attributes, recorded by no manifest".into(),
            ),
        });
    }
    report.findings.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// Whether the squashfs superblock announces an extended attribute table
/// (`xattr_id_table_start`, bytes 56..64, is not "unset").
fn has_xattrs(image: &Path) -> Result<bool, VerifyError> {
    let mut sb = [0u8; 64];
    fs_err::File::open(image)?
        .read_exact(&mut sb)
        .map_err(|e| image_error(image, e))?;
    let table = u64::from_le_bytes(sb[56..64].try_into().expect("8 bytes"));
    Ok(table != u64::MAX)
}

/// Anything in a prefix's `.stack/` but its records.
fn meta_extras(nodes: &Nodes<'_>, prefix: &Path) -> Vec<Finding> {
    let meta = prefix.join(store::META_DIR);
    let mut out = Vec::new();
    for (p, node) in nodes.range(meta.clone()..) {
        let Ok(rel) = p.strip_prefix(&meta) else {
            break;
        };
        if rel.as_os_str().is_empty() {
            continue;
        }
        let known = rel.to_str().is_some_and(|n| store::META_FILES.contains(&n))
            && matches!(node.inner, InnerNode::File(_));
        if !known {
            out.push(Finding {
                path: p.to_string_lossy().into_owned(),
                change: Change::Extra,
            });
        }
    }
    out
}

/// Findings outside the prefixes and generated directories: compared with
/// `meta/store-manifest.json` of the image.
fn outside(
    fs: &FilesystemReader<'_>,
    nodes: &Nodes<'_>,
    prefixes: &[PathBuf],
    image: &Path,
) -> Result<Vec<Finding>, VerifyError> {
    let record = Path::new("meta").join(STORE_MANIFEST);
    let bytes = match nodes.get(&record) {
        Some(n) => Some(read_file(fs, n, image)?),
        None => None,
    };
    // Packing gives everything `a+rX` (as `chmod`): so do the records.
    let rec: Vec<ManifestEntry> = recorded(&image.join(&record), bytes.as_deref())?
        .into_iter()
        .map(|mut e| {
            e.mode = e.mode.map(|m| {
                let x = e.kind == EntryKind::Dir || m & 0o111 != 0;
                m | 0o444 | if x { 0o111 } else { 0 }
            });
            e
        })
        .collect();
    let mut actual = Vec::new();
    let mut special = Vec::new();
    for (p, node) in nodes {
        let in_prefix = prefixes.iter().any(|pre| p.starts_with(pre));
        if p.as_os_str().is_empty() || generated(p) || in_prefix {
            continue;
        }
        if matches!(node.inner, InnerNode::Dir(_)) && holds_prefix(p, prefixes) {
            continue;
        }
        match node_entry(fs, node, p, image)? {
            Some(e) => actual.push(e),
            None => special.push(p.to_string_lossy().into_owned()),
        }
    }
    let mut out = compare_outside(&rec, &actual);
    out.extend(special.into_iter().map(|p| Finding {
        path: p,
        change: Change::Modified("a special file, cannot be installed".into()),
    }));
    Ok(out)
}

fn read_file(
    fs: &FilesystemReader<'_>,
    node: &backhand::Node<backhand::SquashfsFileReader>,
    image: &Path,
) -> Result<Vec<u8>, VerifyError> {
    let InnerNode::File(f) = &node.inner else {
        return Err(image_error(
            image,
            format!("{} is not a file", node.fullpath.display()),
        ));
    };
    let mut out = Vec::new();
    fs.file(f)
        .reader()
        .read_to_end(&mut out)
        .map_err(|e| image_error(image, format!("{}: {e}", node.fullpath.display())))?;
    Ok(out)
}

/// The entries below `prefix` in the image, as a manifest would list
/// them, and the special files found there.
fn entries(
    fs: &FilesystemReader<'_>,
    nodes: &Nodes<'_>,
    prefix: &Path,
    image: &Path,
) -> Result<(Vec<ManifestEntry>, Vec<String>), VerifyError> {
    let meta = prefix.join(store::META_DIR);
    let mut out = Vec::new();
    let mut special = Vec::new();
    for (p, node) in nodes.range(prefix.to_path_buf()..) {
        let Ok(rel) = p.strip_prefix(prefix) else {
            break;
        };
        if rel.as_os_str().is_empty() || p.starts_with(&meta) {
            continue;
        }
        match node_entry(fs, node, rel, image)? {
            Some(e) => out.push(e),
            None => special.push(rel.to_string_lossy().into_owned()),
        }
    }
    Ok((out, special))
}

/// The manifest entry of `node` at `rel`; `None` for a special file.
fn node_entry(
    fs: &FilesystemReader<'_>,
    node: &backhand::Node<backhand::SquashfsFileReader>,
    rel: &Path,
    image: &Path,
) -> Result<Option<ManifestEntry>, VerifyError> {
    let path_bytes = non_utf8_hex(rel.as_os_str());
    let rel = rel.to_string_lossy().into_owned();
    let mode = Some(u32::from(node.header.permissions) & 0o7777);
    Ok(Some(match &node.inner {
        InnerNode::Dir(_) => ManifestEntry {
            path: rel,
            kind: EntryKind::Dir,
            mode,
            size: None,
            sha256: None,
            target: None,
            path_bytes,
            target_bytes: None,
        },
        InnerNode::Symlink(s) => ManifestEntry {
            path: rel,
            kind: EntryKind::Symlink,
            mode: None,
            size: None,
            sha256: None,
            target: Some(s.link.to_string_lossy().into_owned()),
            path_bytes,
            target_bytes: non_utf8_hex(s.link.as_os_str()),
        },
        InnerNode::File(_) => {
            let bytes = read_file(fs, node, image)?;
            ManifestEntry {
                path: rel,
                kind: EntryKind::File,
                mode,
                size: Some(bytes.len() as u64),
                sha256: Some(hex::encode(Sha256::digest(&bytes))),
                target: None,
                path_bytes,
                target_bytes: None,
            }
        }
        _ => return Ok(None),
    }))
}

/// A name's bytes in hex when it is not UTF-8 (as manifests record them).
fn non_utf8_hex(name: &std::ffi::OsStr) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    name.to_str()
        .is_none()
        .then(|| hex::encode(name.as_bytes()))
}
