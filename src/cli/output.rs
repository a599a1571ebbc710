//! Writing to standard output and standard error without ever panicking.
//!
//! `println!` and `eprintln!` panic when the stream is a closed pipe
//! (`stack check … 2>&1 | head -1`: Rust ignores SIGPIPE, so the write fails
//! with EPIPE and the panic exits 101). Every line the CLI prints goes
//! through [`outln!`] and [`errln!`] instead, which drop what cannot be
//! written: the command goes on and exits with its own status.

use std::fmt;
use std::io::Write;

/// Writes to standard output, ignoring errors (a closed pipe).
pub fn out(args: fmt::Arguments<'_>) {
    let _ = std::io::stdout().lock().write_fmt(args);
}

/// Writes to standard error, ignoring errors (a closed pipe).
pub fn err(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// `println!` that never panics.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that never panics.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::output::err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics.
macro_rules! errout {
    ($($arg:tt)*) => {
        $crate::cli::output::err(format_args!($($arg)*))
    };
}

pub(crate) use {errln, errout, outln};

/// `--format` of the commands that print either text or JSON (`check`,
/// `list`, `info`, `images`, `ldd`); commands with more formats (`audit`,
/// `resolve`) have their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people (the command's own layout).
    Text,
    /// One JSON value on standard output.
    Json,
}

/// Print `value` as pretty JSON on stdout.
pub(super) fn print_json(value: &serde_json::Value) {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    out(format_args!("{text}\n"));
}
