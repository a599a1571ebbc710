//! What the audit could not examine: directories of the stack that could not
//! be listed and files that could not be read (permissions, paths longer
//! than `PATH_MAX`, corrupt squashfs blocks). Each is an error finding, so
//! an audit never says "clean" about files it did not look at.

use std::io;
use std::path::PathBuf;

use super::classify::Stack;
use super::fs::Vfs;
use super::report::{Finding, FindingKind, Severity};
use super::session::Session;

/// The files below the stack's mount points, and the directories there that
/// could not be listed.
#[derive(Debug, Default)]
pub struct Walked {
    /// Regular files, sorted.
    pub files: Vec<PathBuf>,
    /// Directories that could not be listed, with the reason.
    pub unlisted: Vec<(PathBuf, io::Error)>,
}

/// One finding per directory that could not be listed and per file that
/// could not be read (after every file was read through `session`).
pub fn findings(walked: &Walked, session: &Session, stack: &Stack) -> Vec<Finding> {
    let mut out = Vec::new();
    for (dir, e) in &walked.unlisted {
        out.push(finding(
            &session.vfs,
            stack,
            dir,
            "directory",
            &e.to_string(),
            "nothing below it was examined",
        ));
    }
    for f in &walked.files {
        let obj = session.object(f);
        if let Some(e) = &obj.error {
            out.push(finding(
                &session.vfs,
                stack,
                f,
                "file",
                e,
                "it was not examined",
            ));
        }
    }
    out
}

fn finding(
    vfs: &Vfs,
    stack: &Stack,
    path: &std::path::Path,
    what: &str,
    error: &str,
    consequence: &str,
) -> Finding {
    let file = path.to_string_lossy().into_owned();
    Finding {
        severity: Severity::Error,
        kind: FindingKind::Unreadable,
        group: stack.group(path),
        target: None,
        path: Some(vfs.describe(path)),
        message: format!(
            "cannot read {what} {file} ({}): {error}; {consequence}",
            vfs.describe(path)
        ),
        file,
        chain: Vec::new(),
        contexts: 1,
        hint: Some(
            "make it readable by the user running the audit (or repair the image), then audit again"
                .into(),
        ),
    }
}
