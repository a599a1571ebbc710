//! The `report` stage: a self-contained HTML page of a build
//! (`<build>/report.html`), after the audit.
//!
//! Input: files other stages wrote — the plan (`stack.lock`), the run record
//! (`run.json`, [`RunRecord`]: what each package did, when, in which job
//! slot or remote job, from which source route, its size, its failure),
//! the installed sizes (`meta/sizes.json`) and the audit (`audit.json`) —
//! read from a build directory or an image's `meta/` ([`load`]). Output:
//! one HTML string ([`render`]) with inline SVG, CSS and script written
//! here, no third-party code, loading nothing:
//!
//! ```text
//! header        outcome, cluster, times, counts
//! failures      first, when any: the error, each failed package with its log's tail
//! plan          every package one node, laid out in layers (layout), edges by type,
//!               the critical path drawn over it; an environment switch lays out one alone
//! timeline      one row per job slot or Slurm/CI job, one bar per package that ran
//! packages      one row per package: version, variants, source route, time, size, log
//! audit         findings by kind with file and library chain; "clean" only when clean
//! steps         the run's steps and their times
//! ```
//!
//! The pipeline writes the records and the page at the end of every
//! `stack build`; `stack report DIR` makes the page again ([`write()`]).

mod audit_view;
mod error;
mod graph;
mod input;
pub mod layout;
mod model;
mod page;
mod record;
mod sections;
mod text;
mod timeline;

use std::path::{Path, PathBuf};

pub use audit_view::{AuditFinding, AuditState, AuditView};
pub use error::ReportError;
pub use input::{Origin, ReportInput, load};
pub use record::{
    Failure, Outcome, PackageRun, PhaseTime, REPORT_FILE, RUN_FORMAT, RUN_RECORD, Route, RunRecord,
    RunStatus, SIZES_FILE, Size, Sizes, SourceRoute, StageTime,
};

/// The page for `input`, to be written into the directory `report_dir`.
pub fn render(input: &ReportInput, report_dir: &Path) -> String {
    page::render(input, report_dir)
}

/// Make the report of `dir` (a build directory or an image's `meta/`) and
/// write it to `out` (default: `report.html` in `dir`); returns the path.
pub fn write(dir: &Path, out: Option<&Path>) -> Result<PathBuf, ReportError> {
    let input = load(dir)?;
    let out = match out {
        Some(o) => std::path::absolute(o)?,
        None => input.origin.path().join(REPORT_FILE),
    };
    let report_dir = out.parent().unwrap_or(Path::new("/")).to_path_buf();
    let html = render(&input, &report_dir);
    write_atomic(&out, html.as_bytes())?;
    Ok(out)
}

/// Write through a temporary sibling and a rename: a reader never sees half a page.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs_err::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".report")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
