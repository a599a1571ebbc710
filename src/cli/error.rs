//! Errors at the edge: a miette report plus the exit code it maps to.

use super::output::errln;
use std::process::ExitCode;

/// An error as the CLI shows it: rendered with miette, mapped to an exit code
/// (1 operation failed, 2 bad input or usage).
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub report: miette::Report,
}

impl CliError {
    /// The input was wrong (recipe, flags, unknown package): exit 2.
    #[allow(dead_code)] // used by the subcommands as they land
    pub fn input(report: impl Into<miette::Report>) -> Self {
        CliError {
            code: 2,
            report: report.into(),
        }
    }

    /// The operation failed (build, fetch, I/O): exit 1.
    pub fn failure(report: impl Into<miette::Report>) -> Self {
        CliError {
            code: 1,
            report: report.into(),
        }
    }

    pub fn render(self) -> ExitCode {
        errln!("{:?}", self.report);
        ExitCode::from(self.code)
    }
}

impl From<anyhow::Error> for CliError {
    fn from(e: anyhow::Error) -> Self {
        CliError::failure(miette::miette!("{e:#}"))
    }
}
