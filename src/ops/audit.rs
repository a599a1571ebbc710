//! `stack audit`: the linkage audit of trees or an image, with what a
//! cluster configuration allows; `stack ldd`: one file's libraries.

use std::path::{Path, PathBuf};

use crate::audit::fs::{HostDir, Vfs, clean};
use crate::audit::ldd::LddResult;
use crate::audit::session::{Env, Session};
use crate::audit::{AuditOptions, AuditReport, LoaderModel, audit_paths};

use super::OpError;

/// Audit `paths` (directories, or one squashfs image) with `options`; with
/// `cluster`, also allow what that cluster configuration allows (its
/// `audit.allow` globs and its externals' libraries).
pub fn audit(
    paths: &[PathBuf],
    cluster: Option<&Path>,
    mut options: AuditOptions,
) -> Result<AuditReport, OpError> {
    if let Some(dir) = cluster {
        let cluster = match crate::cluster::load_cluster(dir) {
            Ok((cluster, _warnings)) => cluster,
            Err(problems) => {
                return Err(OpError::Cluster {
                    dir: dir.to_path_buf(),
                    problems,
                });
            }
        };
        options.allow.extend(cluster.audit_allow());
    }
    Ok(audit_paths(paths, &options)?)
}

/// What `stack ldd` looks at, and how.
pub struct LddRequest<'a> {
    /// The files, as given.
    pub files: &'a [PathBuf],
    /// `--mount DIR:MOUNT`: DIR on this machine (relative to the working
    /// directory) is MOUNT at run time.
    pub mounts: &'a [(PathBuf, PathBuf)],
    /// The target system's root (`--sysroot`; default `/`).
    pub sysroot: Option<PathBuf>,
    pub loader: LoaderModel,
    pub ld_library_path: Option<String>,
    /// Say why each library was found where it was.
    pub why: bool,
}

/// `ldd` of one file.
pub struct LddFile<'a> {
    /// As given.
    pub file: &'a Path,
    /// Where it is looked at (inside a mount, where it runs).
    pub path: PathBuf,
    pub result: LddResult,
}

/// What `ldd` would print for each file, loaded as glibc's loader would
/// load it, without running anything (`stack ldd`).
pub fn ldd<'a>(req: &LddRequest<'a>) -> Result<Vec<LddFile<'a>>, OpError> {
    let cwd = std::env::current_dir().map_err(|e| {
        OpError::Io(std::io::Error::new(
            e.kind(),
            format!("working directory: {e}"),
        ))
    })?;
    let mounts: Vec<(PathBuf, &PathBuf)> = req
        .mounts
        .iter()
        .map(|(dir, at)| (clean(&cwd.join(dir)), at))
        .collect();
    let root = req.sysroot.clone().unwrap_or_else(|| PathBuf::from("/"));
    let mut vfs = Vfs::new(Box::new(HostDir::new(root)));
    for (dir, at) in &mounts {
        if !dir.is_dir() {
            return Err(OpError::BadValue(format!(
                "--mount {}:{}: {} is not a directory",
                dir.display(),
                at.display(),
                dir.display()
            )));
        }
        vfs = vfs.mount(at, Box::new(HostDir::new(dir.clone())));
    }
    let env = Env {
        ld_library_path: req.ld_library_path.clone(),
        cwd: Some(cwd.clone()),
    };
    let session = Session::new(vfs, req.loader.clone(), env);
    let mut out = Vec::new();
    for f in req.files {
        let host = clean(&if f.is_absolute() {
            f.clone()
        } else {
            cwd.join(f)
        });
        // A file inside a mounted DIR is looked at where it runs.
        let path = mounts
            .iter()
            .find_map(|(dir, at)| host.strip_prefix(dir).ok().map(|rest| at.join(rest)))
            .unwrap_or(host);
        let result = crate::audit::ldd::ldd(&session, &path, &f.to_string_lossy(), req.why);
        out.push(LddFile {
            file: f,
            path,
            result,
        });
    }
    Ok(out)
}
