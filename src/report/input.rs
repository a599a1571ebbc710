//! Reading what a report is made from: a build directory (`stack.lock`,
//! `run.json`, the audit this run wrote) or an image's `meta/` (`env.json`
//! beside `stack.lock`, `audit/audit.json`, `sizes.json`, and `run.json`
//! when it is the copy beside the image).

use std::path::{Path, PathBuf};

use crate::resolve::{LOCK_FILE, Lock};

use super::ReportError;
use super::audit_view::{AuditState, AuditView};
use super::record::{RUN_RECORD, RunRecord, SIZES_FILE, Sizes};

/// What was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A build directory (`--build` of `stack build`).
    BuildDir(PathBuf),
    /// An image's `meta/` (beside the image, or inside it).
    Meta(PathBuf),
}

impl Origin {
    pub fn path(&self) -> &Path {
        match self {
            Origin::BuildDir(p) | Origin::Meta(p) => p,
        }
    }
}

/// Everything a report shows.
#[derive(Clone, Debug)]
pub struct ReportInput {
    /// The plan.
    pub lock: Lock,
    /// What the run did (`None`: an image's `meta/` carries no wall-clock
    /// data inside the image).
    pub run: Option<RunRecord>,
    /// Installed sizes by node hash (from the run record, else `sizes.json`).
    pub sizes: Sizes,
    pub audit: AuditState,
    pub origin: Origin,
}

/// Read the report's inputs from a build directory or an image's `meta/`.
pub fn load(dir: &Path) -> Result<ReportInput, ReportError> {
    let dir = std::path::absolute(dir)?;
    if dir.join("env.json").is_file() {
        load_meta(&dir)
    } else if dir.join(LOCK_FILE).is_file() {
        load_build_dir(&dir)
    } else {
        Err(ReportError::NotABuild { path: dir })
    }
}

fn load_meta(meta: &Path) -> Result<ReportInput, ReportError> {
    let lock = Lock::read(&meta.join(LOCK_FILE))?;
    let run = read_optional::<RunRecord>(&meta.join(RUN_RECORD))?;
    let mut sizes = read_optional::<Sizes>(&meta.join(SIZES_FILE))?.unwrap_or_default();
    if let Some(r) = &run {
        add_run_sizes(r, &mut sizes);
    }
    let audit = read_audit(&meta.join("audit").join("audit.json"));
    Ok(ReportInput {
        lock,
        run,
        sizes,
        audit,
        origin: Origin::Meta(meta.to_path_buf()),
    })
}

fn load_build_dir(dir: &Path) -> Result<ReportInput, ReportError> {
    let lock = Lock::read(&dir.join(LOCK_FILE))?;
    let run = read_optional::<RunRecord>(&dir.join(RUN_RECORD))?;
    let mut sizes = Sizes::new();
    let audit = match &run {
        Some(r) => {
            add_run_sizes(r, &mut sizes);
            match &r.audit {
                Some(rel) => read_audit(&dir.join(rel)),
                None => AuditState::NotRun,
            }
        }
        // A build directory of an older stack: whatever audit it has.
        None => match dir.join("audit.json") {
            p if p.is_file() => read_audit(&p),
            _ => AuditState::NotRun,
        },
    };
    Ok(ReportInput {
        lock,
        run,
        sizes,
        audit,
        origin: Origin::BuildDir(dir.to_path_buf()),
    })
}

fn add_run_sizes(run: &RunRecord, sizes: &mut Sizes) {
    for p in &run.packages {
        if let Some(s) = p.size {
            sizes.insert(p.hash.clone(), s);
        }
    }
}

fn read_audit(path: &Path) -> AuditState {
    match fs_err::read(path) {
        Ok(bytes) => match serde_json::from_slice::<AuditView>(&bytes) {
            Ok(a) => AuditState::Ran(a),
            Err(e) => AuditState::Unreadable(format!("{}: {e}", path.display())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => AuditState::NotRun,
        Err(e) => AuditState::Unreadable(e.to_string()),
    }
}

/// A JSON file that may be absent; present but unreadable is an error.
fn read_optional<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, ReportError> {
    let bytes = match fs_err::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ReportError::Record {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
}
