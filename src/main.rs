//! The `stack` command line: argument parsing, progress and error rendering.
//! All work happens in the `stack` library.
//!
//! Called as `cc`, `gcc`, `c++`, `g++`, `gfortran`, `f77`, `f95` or `ld`
//! (symlinks in a build's wrapper directory), the binary is the compiler
//! wrapper instead: see `stack::build::wrapper`.

#![deny(clippy::disallowed_methods, clippy::too_many_lines)]

mod cli;

/// mimalloc instead of glibc's malloc: recipe parsing and the linkage audit
/// allocate many small objects on several threads (glibc's per-thread
/// arenas cost `mprotect`/`munmap` calls and contended frees).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    if let Some(err) = stack::build::wrapper::dispatch() {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "stack: {err}");
        return std::process::ExitCode::from(err.exit_code());
    }
    cli::main()
}
