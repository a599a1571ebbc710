//! The `meta/` directory: `env.json`, the recipe and lockfile, provenance,
//! the recipe's `extra/` files and the audit report.
//!
//! Layout (all optional except env.json):
//!
//! | path | what |
//! |------|------|
//! | `env.json` | uenv metadata ([`super::env_json::EnvJson`]) |
//! | `recipe/…` | copies of the recipe files ([`super::MetaInfo::recipe_files`]) |
//! | `stack.lock` | the lockfile |
//! | `provenance.json` | [`super::Provenance`] |
//! | `extra/…` | the recipe's `extra/` directory |
//! | `audit/<file>` | the audit report |

use std::path::{Component, Path, PathBuf};

use walkdir::WalkDir;

use super::env_json::EnvJson;
use super::error::ViewError;
use super::input::MetaInfo;

/// Entries of `meta/` this stage owns; they are replaced on every run.
const OWNED: &[&str] = &[
    "env.json",
    "recipe",
    "stack.lock",
    "provenance.json",
    "extra",
    "audit",
];

pub(crate) fn write_meta(
    meta_dir: &Path,
    info: &MetaInfo,
    env_json: &EnvJson,
) -> Result<PathBuf, ViewError> {
    fs_err::create_dir_all(meta_dir)?;
    for name in OWNED {
        remove_any(&meta_dir.join(name))?;
    }
    let env_path = meta_dir.join("env.json");
    let text = env_json
        .to_json_string()
        .map_err(|source| ViewError::Json {
            what: "env.json".into(),
            source,
        })?;
    fs_err::write(&env_path, text)?;

    for f in &info.recipe_files {
        let to = safe_relative(&f.to)?;
        let dest = meta_dir.join("recipe").join(to);
        fs_err::create_dir_all(dest.parent().expect("joined path has a parent"))?;
        if fs_err::metadata(&f.from)?.is_dir() {
            copy_tree(&f.from, &dest)?;
        } else {
            fs_err::copy(&f.from, &dest)?;
        }
    }
    if let Some(lock) = &info.lockfile {
        fs_err::copy(lock, meta_dir.join("stack.lock"))?;
    }
    if let Some(p) = &info.provenance {
        let mut text = serde_json::to_string_pretty(p).map_err(|source| ViewError::Json {
            what: "provenance.json".into(),
            source,
        })?;
        text.push('\n');
        fs_err::write(meta_dir.join("provenance.json"), text)?;
    }
    let extra = meta_dir.join("extra");
    match &info.extra_dir {
        Some(dir) => copy_tree(dir, &extra)?,
        // stackinator always has meta/extra (possibly empty); keep the layout.
        None => fs_err::create_dir_all(&extra)?,
    }
    if let Some(report) = &info.audit_report {
        let name = report.file_name().ok_or_else(|| ViewError::MetaPath {
            path: report.clone(),
            message: "the audit report must be a file".into(),
        })?;
        fs_err::create_dir_all(meta_dir.join("audit"))?;
        fs_err::copy(report, meta_dir.join("audit").join(name))?;
    }
    Ok(env_path)
}

/// Copy the directory tree `from` to `to` (created; must not exist as a
/// file). Symlinks are copied as symlinks, not followed.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), ViewError> {
    if !fs_err::metadata(from)?.is_dir() {
        return Err(ViewError::MetaPath {
            path: from.to_path_buf(),
            message: "expected a directory".into(),
        });
    }
    for entry in WalkDir::new(from).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let io = e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("filesystem loop"));
            ViewError::Io(std::io::Error::new(
                io.kind(),
                format!("{io} (copying {})", from.display()),
            ))
        })?;
        let rel = entry
            .path()
            .strip_prefix(from)
            .expect("walk stays below its root");
        let dest = to.join(rel);
        let ft = entry.file_type();
        if ft.is_dir() {
            fs_err::create_dir_all(&dest)?;
        } else if ft.is_symlink() {
            let target = fs_err::read_link(entry.path())?;
            fs_err::os::unix::fs::symlink(target, &dest)?;
        } else {
            fs_err::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

/// Remove a file, symlink or directory tree if it exists.
pub(crate) fn remove_any(path: &Path) -> Result<(), ViewError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs_err::remove_dir_all(path)?,
        Ok(_) => fs_err::remove_file(path)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(ViewError::Io(std::io::Error::new(
                e.kind(),
                format!("{e} (reading {})", path.display()),
            )));
        }
    }
    Ok(())
}

fn safe_relative(p: &Path) -> Result<&Path, ViewError> {
    let ok = !p.as_os_str().is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
    if ok {
        Ok(p)
    } else {
        Err(ViewError::MetaPath {
            path: p.to_path_buf(),
            message: "a copied recipe file needs a relative destination without `..`".into(),
        })
    }
}
