//! The `stack` command line: argument parsing, progress and error rendering.
//! All work happens in the `stack` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
