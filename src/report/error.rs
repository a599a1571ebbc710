//! Errors of the report stage.

use std::path::PathBuf;

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(
        "{path} is neither a build directory (no stack.lock) nor an image's meta/ (no env.json)"
    )]
    NotABuild { path: PathBuf },
    #[error(transparent)]
    Lock(#[from] crate::resolve::ResolveError),
    #[error("{path}: not a valid record: {message}")]
    Record { path: PathBuf, message: String },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl ReportError {
    /// Bad input (exit 2): the directory is not one a report is made from.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            ReportError::NotABuild { .. } | ReportError::Lock(_) | ReportError::Record { .. }
        )
    }
}

impl crate::diag::Classify for ReportError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::input_if(self.is_input())
    }
}
