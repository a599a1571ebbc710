//! `stack-wrap`: the compiler wrapper as a small program of its own.
//!
//! `stack build` links `cc`, `gcc`, `c++`, `g++`, `gfortran`, `f77`, `f95`
//! and `ld` in its wrapper directory to this program when it is installed
//! next to `stack` (otherwise to `stack` itself, which dispatches on
//! `argv[0]` the same way). Being small — no TLS or compression libraries
//! to load and relocate — it starts several times faster than `stack`,
//! and it starts once per compiler call. See `stack::build::wrapper`.

#![deny(clippy::disallowed_methods, clippy::too_many_lines)]

use std::process::ExitCode;

fn main() -> ExitCode {
    match stack::build::wrapper::dispatch() {
        Some(err) => {
            eprintln!("stack: {err}");
            ExitCode::from(err.exit_code())
        }
        None => {
            eprintln!(
                "stack-wrap is the compiler wrapper of `stack build`; it runs as cc, gcc, c++, g++, gfortran, f77, f95 or ld"
            );
            ExitCode::from(2)
        }
    }
}
