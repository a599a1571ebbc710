//! The operations on a build's store and its image (`stack image`, `stack
//! verify`, `stack run`, `stack shell`).

use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use crate::image::run::{RunError, command, locate, views};
use crate::image::{self, ImageError, ImageInfo, ImageOptions};
use crate::verify::{VerifyReport, verify_dir, verify_image};

use super::OpError;

/// What `stack image` packed, and what became of `store/meta`.
pub struct Packed {
    pub image: ImageInfo,
    pub meta: MetaCopy,
}

/// `store/meta` copied beside the image (`BUILD/meta`), or why not.
pub enum MetaCopy {
    /// `--no-meta`.
    Skipped,
    /// Copied to this directory.
    Copied(PathBuf),
    /// The store has no `meta/env.json` (this path): nothing copied.
    Missing(PathBuf),
    /// Copying failed (after the image was packed).
    Failed(OpError),
}

/// Pack `BUILD/store` into `output` (`stack image`), after checking every
/// prefix against its manifest (a prefix whose files differ is never
/// packed); with `copy_meta`, copy `store/meta` to `BUILD/meta`.
pub fn pack_image(
    build_dir: &Path,
    output: &Path,
    opts: &ImageOptions,
    copy_meta: bool,
) -> Result<Packed, OpError> {
    let store = build_dir.join("store");
    if store.is_dir() {
        crate::verify::check_store(&store)?;
    }
    let image = image::pack(&store, output, opts)?;
    let meta = match copy_meta {
        false => MetaCopy::Skipped,
        true => match image::export_meta(&store, build_dir) {
            Ok(meta) => MetaCopy::Copied(meta),
            Err(ImageError::MetaMissing { path }) => MetaCopy::Missing(path),
            Err(e) => MetaCopy::Failed(e.into()),
        },
    };
    Ok(Packed { image, meta })
}

/// Check the installed prefixes of a build directory (its `store/`), a
/// store directory or a squashfs image against their manifests (`stack
/// verify`).
pub fn verify(path: &Path) -> Result<VerifyReport, OpError> {
    let md = fs_err::metadata(path).map_err(|e| OpError::BadValue(e.to_string()))?;
    Ok(if md.is_dir() {
        let store = path.join("store");
        verify_dir(if store.is_dir() { &store } else { path })?
    } else {
        verify_image(path)?
    })
}

/// Run `argv` with the image or build's store `target` mounted at its mount
/// point, without root, after activating `view` (`stack run`, `stack
/// shell`); the command's exit status.
pub fn run_in_image(
    target: &Path,
    view: Option<&str>,
    argv: &[String],
) -> Result<ExitStatus, OpError> {
    let t = locate(target)?;
    if let Some(v) = view {
        let known = views(target);
        if !known.is_empty() && !known.iter().any(|k| k == v) {
            return Err(RunError::UnknownView {
                view: v.to_string(),
                known: known.join(", "),
            }
            .into());
        }
    }
    command(&t, view, argv)?
        .status()
        .map_err(|e| OpError::Spawn {
            message: format!("cannot start unshare: {e}"),
            help: "install util-linux (unshare)".into(),
        })
}
