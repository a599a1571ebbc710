//! `stack import spack`: package.py files → stack package recipes, and the
//! coverage report written where the command asks.

use std::path::PathBuf;

use crate::import::{ImportOptions, ImportSummary};

use super::OpError;

/// What to import and where the coverage report goes.
pub struct ImportRequest {
    pub options: ImportOptions,
    /// Write the coverage report (Markdown) here and its JSON summary
    /// beside it (the same name, `.json`).
    pub report: Option<PathBuf>,
}

/// Import the packages, then write the coverage report when asked.
pub fn import_spack(req: &ImportRequest) -> Result<ImportSummary, OpError> {
    let summary = crate::import::import_spack(&req.options)?;
    if let Some(path) = &req.report {
        let r = &summary.report;
        let json = path.with_extension("json");
        fs_err::write(path, r.to_markdown())
            .and_then(|()| fs_err::write(&json, r.to_json()))
            .map_err(|source| OpError::Write {
                path: path.clone(),
                source,
            })?;
    }
    Ok(summary)
}
