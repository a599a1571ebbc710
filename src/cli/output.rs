//! Writing to standard output and standard error without ever panicking.
//!
//! `println!` and `eprintln!` panic when the stream is a closed pipe
//! (`stack check … 2>&1 | head -1`: Rust ignores SIGPIPE, so the write fails
//! with EPIPE and the panic exits 101). Every line the CLI prints goes
//! through [`outln!`] and [`errln!`] instead, which drop what cannot be
//! written: the command goes on and exits with its own status.
//!
//! This module is the only one in `src/cli/` that names the process's
//! standard streams (`cli::output::tests` scans the others): commands that
//! write large texts in pieces take [`stdout`] or [`stderr`] from here, and
//! ask [`stdout_is_terminal`] or [`stderr_is_terminal`] for colour and
//! progress bars.

use std::fmt;
use std::io::{IsTerminal, Write};

/// Writes to standard output, ignoring errors (a closed pipe).
pub fn out(args: fmt::Arguments<'_>) {
    let _ = std::io::stdout().lock().write_fmt(args);
}

/// Writes to standard error, ignoring errors (a closed pipe).
pub fn err(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// Standard output, locked, for a command writing a large text in pieces
/// (what it cannot write, a closed pipe, it drops).
pub fn stdout() -> std::io::StdoutLock<'static> {
    std::io::stdout().lock()
}

/// Standard error, locked (as [`stdout`]).
pub fn stderr() -> std::io::StderrLock<'static> {
    std::io::stderr().lock()
}

/// Standard error as the log subscriber's writer.
pub fn log_writer() -> std::io::Stderr {
    std::io::stderr()
}

/// Whether standard output is a terminal (colour).
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Whether standard error is a terminal (colour, progress bars, miette's
/// drawing).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// `bytes` on standard output, ignoring errors (a closed pipe).
pub fn out_bytes(bytes: &[u8]) {
    let mut out = stdout();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// `bytes` on standard error, ignoring errors (a closed pipe).
pub fn err_bytes(bytes: &[u8]) {
    let _ = stderr().write_all(bytes);
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

/// Every diagnostic on stderr (miette, with source snippets).
pub fn diagnostics(diags: &stack::diag::Diagnostics) {
    let mut err = stderr();
    for d in diags {
        let _ = writeln!(err, "{:?}", miette::Report::new(d.clone()));
    }
}

/// Print `value` as pretty JSON on stdout.
pub(super) fn print_json(value: &serde_json::Value) {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    out(format_args!("{text}\n"));
}

#[cfg(test)]
mod tests {
    /// What writes to the process's streams directly, outside this module.
    const DIRECT: &[&str] = &[
        "println!",
        "eprintln!",
        "print!(",
        "eprint!(",
        "dbg!(",
        "std::io::stdout",
        "std::io::stderr",
        "io::stdout()",
        "io::stderr()",
    ];

    /// Every file of `src/cli/` but this one writes through this module.
    #[test]
    fn output_goes_through_the_output_module_only() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
        let mut found = Vec::new();
        let mut files = vec![dir.clone()];
        while let Some(d) = files.pop() {
            for entry in fs_err::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    files.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") || path.ends_with("cli/output.rs") {
                    continue;
                }
                let text = fs_err::read_to_string(&path).unwrap();
                for (i, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or_default();
                    if let Some(what) = DIRECT.iter().find(|d| code.contains(*d)) {
                        found.push(format!("{}:{}: {what}", path.display(), i + 1));
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "write through src/cli/output.rs (outln!, errln!, output::stdout()):\n{}",
            found.join("\n")
        );
    }
}
