//! The image fingerprint: an explicit value of everything the steps after
//! the package builds read (views, modules, meta, hooks, audit, image), so
//! that a no-op rebuild is recognised and any change to those inputs re-runs
//! them (cargo's fingerprint idea).
//!
//! The value is a [`ImageInputs`] (serialised as JSON, then hashed): a field
//! per input. Adding an input to those steps means adding a field here.

use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::image::ImageOptions;
use crate::resolve::Plan;
use crate::stacks::Inputs;

/// Version of the fingerprint value; bump when its meaning changes.
const FORMAT: &str = "stack-image-fingerprint-v2";

/// Everything the image steps read, as one value.
#[derive(Debug, Serialize)]
pub struct ImageInputs {
    format: &'static str,
    /// The `stack` version (its views, modules and image writer).
    tool: &'static str,
    mount: PathBuf,
    /// Node hashes, sorted.
    nodes: Vec<String>,
    /// `(path, sha256)` of the stack recipe, every package recipe and patch
    /// file of the plan, the hooks and the cluster configuration (its
    /// `audit:` and `loader:` blocks are read by the audit).
    files: Vec<(PathBuf, String)>,
    /// `(relative path, sha256 or link target)` of every entry of `extra/`.
    extra: Vec<(PathBuf, String)>,
    /// The image writer's options (writer, compression, block size, epoch).
    image: String,
}

impl ImageInputs {
    /// Collect the inputs of a build's image steps.
    pub fn collect(
        plan: &Plan,
        inputs: &Inputs,
        image: &ImageOptions,
    ) -> std::io::Result<ImageInputs> {
        let mut nodes: Vec<String> = plan.graph.node_weights().map(|n| n.hash.clone()).collect();
        nodes.sort_unstable();
        let recipe = &inputs.recipe;
        // What meta/recipe/ holds (the stack recipe, the cluster
        // configuration, every package recipe the stack reaches, the patches,
        // hooks and `extra/`), plus the recipes of the plan's nodes.
        let mut copies = super::sources::recipe_files(plan, inputs);
        for n in plan.graph.node_weights() {
            copies.push(crate::view::CopyFile {
                from: n.recipe.file.clone(),
                to: PathBuf::new(),
            });
        }
        let mut files = Vec::with_capacity(copies.len());
        for c in copies {
            if fs_err::metadata(&c.from)?.is_dir() {
                for (rel, digest) in tree_digest(&c.from)? {
                    files.push((c.from.join(rel), digest));
                }
            } else {
                let digest = hex::encode(Sha256::digest(fs_err::read(&c.from)?));
                files.push((c.from, digest));
            }
        }
        files.sort();
        files.dedup();
        let extra = match &recipe.extra {
            Some(dir) => tree_digest(&dir.path)?,
            None => Vec::new(),
        };
        let epoch = image
            .source_date_epoch
            .map(|e| e.to_string())
            .or_else(crate::settings::source_date_epoch);
        Ok(ImageInputs {
            format: FORMAT,
            tool: env!("CARGO_PKG_VERSION"),
            mount: plan.mount.clone(),
            nodes,
            files,
            extra,
            image: format!(
                "{:?} {:?} {} {:?} epoch={epoch:?}",
                image.writer, image.compression, image.block_size, image.mksquashfs
            ),
        })
    }

    /// The fingerprint: sha256 of the value, hex.
    pub fn digest(&self) -> String {
        let json = serde_json::to_vec(self).expect("fingerprint inputs serialise");
        hex::encode(Sha256::digest(json))
    }
}

/// `(relative path, digest)` of every entry below `dir`, sorted: files by
/// their bytes, symlinks by their target, directories by their name.
fn tree_digest(dir: &Path) -> std::io::Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .to_path_buf();
        let ft = entry.file_type();
        let digest = if ft.is_symlink() {
            format!("-> {}", fs_err::read_link(entry.path())?.display())
        } else if ft.is_file() {
            hex::encode(Sha256::digest(fs_err::read(entry.path())?))
        } else {
            "dir".into()
        };
        out.push((rel, digest));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_tree_digest_sees_contents_and_links() {
        let d = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(d.path().join("sub")).unwrap();
        fs_err::write(d.path().join("sub/a"), "one").unwrap();
        std::os::unix::fs::symlink("sub/a", d.path().join("link")).unwrap();
        let before = tree_digest(d.path()).unwrap();
        assert_eq!(before.len(), 4, "{before:?}");
        fs_err::write(d.path().join("sub/a"), "two").unwrap();
        assert_ne!(before, tree_digest(d.path()).unwrap());
        let again = tree_digest(d.path()).unwrap();
        fs_err::remove_file(d.path().join("link")).unwrap();
        std::os::unix::fs::symlink("sub", d.path().join("link")).unwrap();
        assert_ne!(again, tree_digest(d.path()).unwrap());
    }
}
