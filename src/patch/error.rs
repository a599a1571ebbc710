//! Errors of the patch stage.

use std::path::PathBuf;

/// One part of a patch that `patch` refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The file the section patches (after stripping), as `patch` named it.
    pub file: String,
    /// 1-based hunk number within the file section (`None`: the whole section).
    pub hunk: Option<usize>,
    /// What `patch` said (`FAILED at 10`, `can't find file to patch`, …).
    pub reason: String,
    /// Line of the patch file where the hunk (or section) starts.
    pub patch_line: Option<usize>,
    /// The hunk as written in the patch (`@@ … @@` and body), when known.
    pub text: Option<String>,
}

/// An error while checking or applying patches.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("{package}: cannot read patch {}: {source}", .patch.display())]
    Read {
        package: String,
        patch: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("{package}: `{value}` is not a sha256 (64 hex digits) for patch {}", .patch.display())]
    InvalidChecksum {
        package: String,
        patch: PathBuf,
        value: String,
    },

    #[error(
        "{package}: sha256 mismatch for patch {}\n  expected: {expected}\n  actual:   {actual}\n\
         if the patch was changed on purpose, update its sha256 in the recipe",
        .patch.display()
    )]
    Checksum {
        package: String,
        patch: PathBuf,
        expected: String,
        actual: String,
    },

    #[error(
        "{package}: patch {} applies in `{dir}` (its `working_dir`), but {why}",
        .patch.display()
    )]
    WorkingDir {
        package: String,
        patch: PathBuf,
        dir: String,
        why: String,
    },

    #[error(
        "the `patch` program is not available ({source}); install GNU patch (apt-get install patch)"
    )]
    ProgramMissing {
        #[source]
        source: std::io::Error,
    },

    #[error(
        "{package}: patch {} (-p{level}) does not apply to {}:{}{}",
        .patch.display(), .stage.display(), list_rejections(rejections), hint(rejections)
    )]
    DoesNotApply {
        package: String,
        patch: PathBuf,
        level: u32,
        stage: PathBuf,
        rejections: Vec<Rejection>,
        /// Everything `patch` printed.
        output: String,
    },

    #[error(
        "{package}: `patch` failed on {} (-p{level}, exit status {status}):\n{}",
        .patch.display(), indent(output)
    )]
    Failed {
        package: String,
        patch: PathBuf,
        level: u32,
        status: i32,
        output: String,
    },

    #[error("{package}: {source}")]
    Io {
        package: String,
        #[source]
        source: std::io::Error,
    },
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn list_rejections(rs: &[Rejection]) -> String {
    let mut out = String::new();
    for r in rs {
        out.push_str("\n  ");
        out.push_str(&r.file);
        if let Some(h) = r.hunk {
            out.push_str(&format!(", hunk #{h}"));
        }
        if let Some(l) = r.patch_line {
            out.push_str(&format!(" (patch line {l})"));
        }
        out.push_str(&format!(": {}", r.reason));
        if let Some(t) = &r.text {
            out.push('\n');
            out.push_str(&indent(t));
        }
    }
    out
}

fn hint(rs: &[Rejection]) -> &'static str {
    if rs.iter().any(|r| r.reason.contains("can't find file")) {
        "\n  hint: check the patch's `level` (the -p strip count) and that it targets this version"
    } else if rs.iter().any(|r| r.reason.contains("previously applied")) {
        "\n  hint: the source already contains this change; drop the patch for this version \
         (narrow its `when:`)"
    } else if rs.is_empty() {
        ""
    } else {
        "\n  hint: the patch was written for different source; check that its `when:` matches \
         the versions it was made for"
    }
}
