//! Errors at the edge: a miette report plus the exit code it maps to.

use super::output::errln;
use std::process::ExitCode;

use stack::pipeline::{ErrorClass, PipelineError};
use stack::resolve::ResolveError;

/// An error as the CLI shows it: rendered with miette, mapped to an exit code
/// (1 operation failed, 2 bad input or usage).
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub report: miette::Report,
    /// Print as `error: TEXT` (the error lays itself out, like the
    /// resolver's explanations), not as a miette report.
    plain: bool,
}

impl CliError {
    /// The input was wrong (recipe, flags, unknown package): exit 2.
    pub fn input(report: impl Into<miette::Report>) -> Self {
        CliError {
            code: 2,
            report: report.into(),
            plain: false,
        }
    }

    /// The operation failed (build, fetch, I/O): exit 1.
    pub fn failure(report: impl Into<miette::Report>) -> Self {
        CliError {
            code: 1,
            report: report.into(),
            plain: false,
        }
    }

    pub fn render(self) -> ExitCode {
        if self.plain {
            errln!("error: {}", self.report);
        } else {
            errln!("{:?}", self.report);
        }
        ExitCode::from(self.code)
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::failure(miette::miette!("{e:#}"))
    }
}

/// Every stage error at the edge: the exit status from the library's one
/// classification ([`PipelineError::class`]), the resolver's explanations
/// (conflicts, lock differences) printed as they lay themselves out.
pub fn stage_error(e: PipelineError) -> CliError {
    let code = match e.class() {
        ErrorClass::Input => 2,
        ErrorClass::Failure => 1,
    };
    let plain = matches!(
        &e,
        PipelineError::Resolve(r)
            if matches!(**r, ResolveError::Unsatisfiable(_) | ResolveError::LockMismatch { .. })
    );
    let report = match e.help() {
        Some(help) => miette::miette!(help = help, "{e}"),
        None => miette::miette!("{e}"),
    };
    CliError {
        code,
        report,
        plain,
    }
}
