//! The class of an error — bad input or a failed operation — decided once,
//! in the library, by the error's own type ([`Classify`]). The binary maps
//! the class to an exit status in one place (`src/cli/error.rs`); no
//! command classifies an error by its text or variant.

use super::Diagnostics;

/// What kind of error this is, for the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// The inputs are wrong (recipe, flags, lock file): fix them (exit 2).
    Input,
    /// The operation failed (download, build, I/O): retry or investigate (exit 1).
    Failure,
}

/// An error that knows its class and what the edge shows beside its text.
pub trait Classify: std::error::Error {
    /// Bad input or a failed operation.
    fn class(&self) -> ErrorClass;

    /// A hint shown below the error, where there is one.
    fn hint(&self) -> Option<String> {
        None
    }

    /// Problems located in files, shown with source snippets before the
    /// error (as `stack check` shows them).
    fn diagnostics(&self) -> Option<Diagnostics> {
        None
    }

    /// The text lays itself out (the resolver's explanations): shown as
    /// `error: TEXT`, not drawn as a report.
    fn lays_itself_out(&self) -> bool {
        false
    }
}

/// `Input` when `input`, else `Failure`.
pub fn input_if(input: bool) -> ErrorClass {
    if input {
        ErrorClass::Input
    } else {
        ErrorClass::Failure
    }
}

/// Reading or writing a file the command was not given failed.
impl Classify for std::io::Error {
    fn class(&self) -> ErrorClass {
        ErrorClass::Failure
    }
}
