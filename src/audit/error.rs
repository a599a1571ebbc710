//! Why an audit could not run (bad input). Findings are not errors: they are
//! the audit's result, in [`super::AuditReport`].

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("{}: no such file or directory", path.display())]
    NotFound { path: PathBuf },

    #[error("{}: not a directory or a squashfs image (expected a tree to audit or an image starting with the `hsqs` magic)", path.display())]
    NotTreeOrImage { path: PathBuf },

    #[error("{}: cannot read the squashfs image: {message}", path.display())]
    Squashfs { path: PathBuf, message: String },

    #[error("{}: {message}", path.display())]
    EnvJson { path: PathBuf, message: String },

    #[error("invalid allow pattern `{glob}`: {message}")]
    InvalidGlob { glob: String, message: String },

    #[error("a mount point applies to one tree; {count} paths were given")]
    MountWithManyRoots { count: usize },

    #[error("squashfs images are audited one at a time; {} is an image among {count} paths", path.display())]
    ImageAmongMany { path: PathBuf, count: usize },

    #[error("mount point `{}` must be an absolute path", path.display())]
    RelativeMount { path: PathBuf },

    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl AuditError {
    /// A hint for the user, where one helps.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            AuditError::NotTreeOrImage { .. } => {
                Some("pass the store directory of a build, or its store.squashfs")
            }
            AuditError::EnvJson { .. } => {
                Some("fix meta/env.json, or give the mount point with --mount")
            }
            AuditError::InvalidGlob { .. } => {
                Some("globs use `*`, `?`, `[abc]` and `{a,b}`; quote them in the shell")
            }
            AuditError::RelativeMount { .. } => Some("e.g. --mount /user-environment"),
            _ => None,
        }
    }
}

/// Every error of `stack audit` is about what it was given.
impl crate::diag::Classify for AuditError {
    fn class(&self) -> crate::diag::ErrorClass {
        crate::diag::ErrorClass::Input
    }

    fn hint(&self) -> Option<String> {
        AuditError::hint(self).map(String::from)
    }
}
