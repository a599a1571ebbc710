//! Verifying the prefixes inside a squashfs image, read in place.

use std::collections::BTreeMap;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use backhand::{FilesystemReader, InnerNode};
use sha2::{Digest, Sha256};

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
    for prefix in prefixes {
        let rel = prefix.to_string_lossy().into_owned();
        let mpath = prefix.join(&manifest_tail);
        let recorded = parse_manifest(&path.join(&mpath), &read_file(&fs, nodes[&mpath], path)?)?;
        report.entries += recorded.len();
        let (actual, special) = entries(&fs, &nodes, &prefix, path)?;
        report.findings.extend(compare(&rel, &recorded, &actual));
        report.findings.extend(special.into_iter().map(|p| Finding {
            path: format!("{rel}/{p}"),
            change: Change::Modified("a special file, cannot be installed".into()),
        }));
        report.prefixes.push(rel);
    }
    report.findings.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
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
        let path_bytes = non_utf8_hex(rel.as_os_str());
        let rel = rel.to_string_lossy().into_owned();
        let mode = Some(u32::from(node.header.permissions) & 0o7777);
        let entry = match &node.inner {
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
            _ => {
                special.push(rel);
                continue;
            }
        };
        out.push(entry);
    }
    Ok((out, special))
}

/// A name's bytes in hex when it is not UTF-8 (as manifests record them).
fn non_utf8_hex(name: &std::ffi::OsStr) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    name.to_str()
        .is_none()
        .then(|| hex::encode(name.as_bytes()))
}
