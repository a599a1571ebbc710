//! Errors at the edge: a miette report plus the exit code it maps to.
//!
//! The one mapping: every library error says its class
//! ([`stack::diag::Classify`]), and `From` turns it into a report and an
//! exit status here; commands only pick `CliError::input` or
//! `CliError::failure` for what they check themselves (flags, paths they
//! were given).

use super::output::errln;
use std::process::ExitCode;

use stack::diag::{Classify, Diagnostics, ErrorClass};

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
            code: exit_code(ErrorClass::Input),
            report: report.into(),
            plain: false,
            diagnostics: None,
        }
    }

    /// The operation failed (build, fetch, I/O): exit 1.
    pub fn failure(report: impl Into<miette::Report>) -> Self {
        CliError {
            code: exit_code(ErrorClass::Failure),
            report: report.into(),
            plain: false,
            diagnostics: None,
        }
    }

    /// `e`, a path or value the command was given, is wrong: exit 2 (an
    /// I/O error on a file named on the command line).
    pub fn bad_input(e: impl std::fmt::Display) -> Self {
        CliError::input(miette::miette!("{e}"))
    }

    pub fn render(self) -> ExitCode {
        if let Some(d) = &self.diagnostics {
            super::output::diagnostics(d);
        }
        if self.plain {
            errln!("error: {}", self.report);
        } else {
            errln!("{:?}", self.report);
        }
        ExitCode::from(self.code)
    }
}

/// Every library error at the edge: the exit status from its class, its
/// hint, located problems as diagnostics with source snippets (like `stack
/// check`), the resolver's explanations printed as they lay themselves out.
impl<E: Classify> From<E> for CliError {
    fn from(e: E) -> Self {
        let report = match e.hint() {
            Some(help) => miette::miette!(help = help, "{e}"),
            None => miette::miette!("{e}"),
        };
        CliError {
            code: exit_code(e.class()),
            report,
            plain: e.lays_itself_out(),
            diagnostics: e.diagnostics(),
        }
    }
}

/// The one mapping of error classes to exit statuses (docs/cli.md, "Exit
/// status").
fn exit_code(class: ErrorClass) -> u8 {
    match class {
        ErrorClass::Input => 2,
        ErrorClass::Failure => 1,
    }
}
