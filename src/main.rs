//! The `stack` command line: argument parsing, progress and error rendering.
//! All work happens in the `stack` library.
//!
//! Called as `cc`, `gcc`, `c++`, `g++`, `gfortran`, `f77`, `f95` or `ld`
//! (symlinks in a build's wrapper directory), the binary is the compiler
//! wrapper instead: see `stack::build::wrapper`.

mod cli;

fn main() -> std::process::ExitCode {
    if let Some(err) = stack::build::wrapper::dispatch() {
        eprintln!("stack: {err}");
        return std::process::ExitCode::from(127);
    }
    cli::main()
}
