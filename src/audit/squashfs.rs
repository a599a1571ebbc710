//! Reading a squashfs image in place (no mount, no extraction) with
//! backhand, as a [`Backend`] of the virtual file system; and finding the
//! image's mount point in `meta/env.json`.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use backhand::{FilesystemReader, InnerNode};

use super::elf::ELF_MAGIC;
use super::error::AuditError;
use super::fs::{Backend, HEAD, Loaded, NodeKind};
use super::source::Contents;

/// The squashfs magic (`hsqs`, little-endian).
pub const MAGIC: &[u8; 4] = b"hsqs";

/// Whether the file at `path` starts with the squashfs magic.
pub fn is_image(path: &Path) -> bool {
    let mut m = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut m))
        .is_ok()
        && &m == MAGIC
}

/// An opened image.
pub struct SquashImage {
    path: PathBuf,
    fs: FilesystemReader<'static>,
    /// Node index by path relative to the image root (`""` = root).
    nodes: HashMap<PathBuf, usize>,
    children: HashMap<PathBuf, Vec<(OsString, NodeKind)>>,
}

fn not_found() -> io::Error {
    io::Error::from(io::ErrorKind::NotFound)
}

impl SquashImage {
    pub fn open(path: &Path) -> Result<SquashImage, AuditError> {
        let file = std::fs::File::open(path).map_err(|source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let fs = FilesystemReader::from_reader(BufReader::new(file)).map_err(|e| {
            AuditError::Squashfs {
                path: path.to_path_buf(),
                message: e.to_string(),
            }
        })?;
        let mut nodes = HashMap::new();
        let mut children: HashMap<PathBuf, Vec<(OsString, NodeKind)>> = HashMap::new();
        for (i, node) in fs.root.nodes.iter().enumerate() {
            let rel = node
                .fullpath
                .strip_prefix("/")
                .unwrap_or(&node.fullpath)
                .to_path_buf();
            let kind = match &node.inner {
                InnerNode::File(_) => NodeKind::File,
                InnerNode::Dir(_) => NodeKind::Dir,
                InnerNode::Symlink(_) => NodeKind::Symlink,
                _ => NodeKind::Other,
            };
            if kind == NodeKind::Dir {
                children.entry(rel.clone()).or_default();
            }
            if let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) {
                children
                    .entry(parent.to_path_buf())
                    .or_default()
                    .push((name.to_os_string(), kind));
            }
            nodes.insert(rel, i);
        }
        Ok(SquashImage {
            path: path.to_path_buf(),
            fs,
            nodes,
            children,
        })
    }

    fn node(&self, rel: &Path) -> io::Result<&backhand::Node<backhand::SquashfsFileReader>> {
        let i = self.nodes.get(rel).ok_or_else(not_found)?;
        Ok(&self.fs.root.nodes[*i])
    }

    fn reader(&self, rel: &Path) -> io::Result<(impl Read + '_, u64, u32)> {
        let node = self.node(rel)?;
        match &node.inner {
            InnerNode::File(f) => Ok((
                self.fs.file(f).reader(),
                f.file_len() as u64,
                u32::from(node.header.permissions),
            )),
            InnerNode::Dir(_) => Err(io::Error::from_raw_os_error(21)),
            _ => Err(not_found()),
        }
    }

    /// The `mount` field of the image's own `meta/env.json`, if any.
    pub fn embedded_mount(&self) -> Option<Result<String, String>> {
        let bytes = self.read_all(Path::new("meta/env.json")).ok()?;
        Some(mount_from_json(&bytes))
    }
}

impl Backend for SquashImage {
    fn list(&self, rel: &Path) -> io::Result<Vec<(OsString, NodeKind)>> {
        self.children.get(rel).cloned().ok_or_else(not_found)
    }

    fn read_link(&self, rel: &Path) -> io::Result<PathBuf> {
        match &self.node(rel)?.inner {
            InnerNode::Symlink(s) => Ok(s.link.clone()),
            _ => Err(io::Error::from(io::ErrorKind::InvalidInput)),
        }
    }

    fn load(&self, rel: &Path) -> io::Result<Loaded> {
        let (mut r, len, perm) = self.reader(rel)?;
        let mut head = vec![0u8; HEAD.min(len as usize)];
        r.read_exact(&mut head)?;
        let mode = 0o100000 | perm;
        if head.len() >= 16 && &head[..4] == ELF_MAGIC && len > HEAD as u64 {
            let mut all = Vec::with_capacity(len as usize);
            all.extend_from_slice(&head);
            r.read_to_end(&mut all)?;
            return Ok(Loaded {
                data: Contents::Bytes(all),
                len,
                mode,
                id: None,
            });
        }
        Ok(Loaded {
            data: Contents::Bytes(head),
            len,
            mode,
            id: None,
        })
    }

    fn read_all(&self, rel: &Path) -> io::Result<Vec<u8>> {
        let (mut r, len, _) = self.reader(rel)?;
        let mut all = Vec::with_capacity(len as usize);
        r.read_to_end(&mut all)?;
        Ok(all)
    }

    fn describe(&self, rel: &Path) -> String {
        format!("{}:/{}", self.path.display(), rel.display())
    }
}

/// The `mount` field of an env.json document.
pub fn mount_from_json(bytes: &[u8]) -> Result<String, String> {
    let v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("invalid JSON: {e}"))?;
    match v.get("mount") {
        Some(serde_json::Value::String(m)) if m.starts_with('/') => Ok(m.clone()),
        Some(serde_json::Value::String(m)) => {
            Err(format!("`mount` is \"{m}\", expected an absolute path"))
        }
        Some(_) => Err("`mount` must be a string".into()),
        None => Err("no `mount` field".into()),
    }
}

/// The mount point of an image: `meta/env.json` beside the image, else the
/// one inside it. `Ok(None)` when neither exists.
pub fn image_mount(
    image_path: &Path,
    image: &SquashImage,
) -> Result<Option<(String, String)>, AuditError> {
    let beside = image_path
        .parent()
        .unwrap_or(Path::new("."))
        .join("meta/env.json");
    if let Ok(bytes) = std::fs::read(&beside) {
        return mount_from_json(&bytes)
            .map(|m| Some((m, beside.display().to_string())))
            .map_err(|message| AuditError::EnvJson {
                path: beside,
                message,
            });
    }
    match image.embedded_mount() {
        Some(Ok(m)) => Ok(Some((
            m,
            format!("{}:/meta/env.json", image_path.display()),
        ))),
        Some(Err(message)) => Err(AuditError::EnvJson {
            path: PathBuf::from(format!("{}:/meta/env.json", image_path.display())),
            message,
        }),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_json_mount() {
        assert_eq!(
            mount_from_json(br#"{"mount": "/user-environment"}"#).unwrap(),
            "/user-environment"
        );
        assert!(mount_from_json(br#"{"mount": "rel"}"#).is_err());
        assert!(mount_from_json(br#"{"name": "x"}"#).is_err());
        assert!(mount_from_json(b"{").is_err());
    }
}
