//! Errors at the edge: a miette report plus the exit code it maps to.

use super::output::errln;
use std::process::ExitCode;

use stack::diag::Diagnostics;
use stack::ops::OpError;
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
    /// Shown first, with source snippets (problems located in YAML files).
    diagnostics: Option<Diagnostics>,
}

impl CliError {
    /// The input was wrong (recipe, flags, unknown package): exit 2.
    pub fn input(report: impl Into<miette::Report>) -> Self {
        CliError {
            code: 2,
            report: report.into(),
            plain: false,
            diagnostics: None,
        }
    }

    /// The operation failed (build, fetch, I/O): exit 1.
    pub fn failure(report: impl Into<miette::Report>) -> Self {
        CliError {
            code: 1,
            report: report.into(),
            plain: false,
            diagnostics: None,
        }
    }

    pub fn render(self) -> ExitCode {
        if let Some(d) = &self.diagnostics {
            super::check::render(d);
        }
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
    let code = exit_code(e.class());
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
        diagnostics: None,
    }
}

fn exit_code(class: ErrorClass) -> u8 {
    match class {
        ErrorClass::Input => 2,
        ErrorClass::Failure => 1,
    }
}

/// An operation's error at the edge: located problems as diagnostics with
/// source snippets (like `stack check`), then the summary line; the exit
/// status from the one classification.
impl From<OpError> for CliError {
    fn from(e: OpError) -> Self {
        if let Some(diagnostics) = e.diagnostics() {
            return CliError {
                code: exit_code(e.class()),
                report: miette::miette!("{e}"),
                plain: false,
                diagnostics: Some(diagnostics),
            };
        }
        match e {
            OpError::Stage(e) => stage_error(e),
            e => CliError {
                code: exit_code(e.class()),
                report: miette::miette!("{e}"),
                plain: false,
                diagnostics: None,
            },
        }
    }
}
