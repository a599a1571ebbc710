//! Reading `meta/` back out of an image (`stack rebuild`): the recipe, the
//! cluster configuration, the package recipes and the lock file an image
//! was built from.

use std::io::{BufReader, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use backhand::{FilesystemReader, InnerNode};

use super::ImageError;

fn bad(image: &Path, message: impl std::fmt::Display) -> ImageError {
    ImageError::BadImage {
        path: image.to_path_buf(),
        message: message.to_string(),
    }
}

/// Copy the directory `meta/` of the squashfs image `image` to
/// `<dest>/meta` (which must not exist): directories, regular files and
/// symlinks (written as links after everything else, so nothing is written
/// through one; a name met twice is refused). Returns `<dest>/meta`.
pub fn extract_meta(image: &Path, dest: &Path) -> Result<PathBuf, ImageError> {
    let file = fs_err::File::open(image)?;
    let fs = FilesystemReader::from_reader(BufReader::new(file.into_parts().0))
        .map_err(|e| bad(image, e))?;
    let out = dest.join("meta");
    if out.exists() {
        return Err(bad(
            image,
            format!("{} exists already; give an empty directory", out.display()),
        ));
    }
    let mut found = false;
    let mut links = Vec::new();
    for node in &fs.root.nodes {
        let rel = node.fullpath.strip_prefix("/").unwrap_or(&node.fullpath);
        if !rel.starts_with("meta") {
            continue;
        }
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(bad(image, format!("unsafe path {}", rel.display())));
        }
        found = true;
        let to = dest.join(rel);
        match &node.inner {
            InnerNode::Dir(_) => fs_err::create_dir_all(&to)?,
            InnerNode::File(f) => {
                let mut bytes = Vec::new();
                fs.file(f)
                    .reader()
                    .read_to_end(&mut bytes)
                    .map_err(|e| bad(image, format!("{}: {e}", rel.display())))?;
                // A name met twice (a crafted directory) is refused.
                let mut f = fs_err::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&to)?;
                std::io::Write::write_all(&mut f, &bytes)?;
                // Hooks keep their execute bits (a rebuild copies them on).
                let mode = u32::from(node.header.permissions) & 0o755;
                fs_err::set_permissions(&to, std::fs::Permissions::from_mode(mode))?;
            }
            // Links last: no file or directory is ever written through one.
            InnerNode::Symlink(l) => links.push((l.link.clone(), to)),
            _ => {
                return Err(bad(image, format!("{} is a special file", rel.display())));
            }
        }
    }
    for (target, at) in links {
        fs_err::os::unix::fs::symlink(target, at)?;
    }
    if !found {
        return Err(bad(
            image,
            "it holds no meta/ directory (not an image written by `stack build`)",
        ));
    }
    Ok(out)
}
