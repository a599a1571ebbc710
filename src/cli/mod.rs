//! Thin command-line layer: one file per subcommand, each with an `Args`
//! struct (clap derive) and a `run` function that calls the library.
//!
//! Exit codes (documented in `docs/cli.md`):
//! - 0: success, nothing to report
//! - 1: the operation failed, or found problems (audit findings, build failure)
//! - 2: bad input or usage (invalid recipe, unknown package, bad flags)

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod audit;
mod build;
mod build_env;
mod check;
mod checksum;
mod ci;
mod compiler;
mod completions;
mod create;
mod dependents;
mod diff;
mod edit;
mod error;
mod external;
mod fetch;
mod find;
mod gc;
mod image;
mod image_args;
mod images;
mod import;
mod info;
mod inputs;
mod key;
mod ldd;
mod list;
mod loader_args;
mod lookup;
mod mirror;
mod nss;
mod output;
mod progress;
mod pull;
mod push;
mod registry_args;
mod report;
mod resolve;
mod run;
mod settings;
mod stackinator;
mod transfer;
mod verify;

pub use error::CliError;

#[cfg(test)]
mod layout_tests;

/// Build self-contained HPC software stacks and ship them as uenv images.
#[derive(Debug, Parser)]
#[command(name = "stack", version, about, long_about = None, propagate_version = true)]
#[command(
    after_help = "Exit status: 0 success, 1 failure or findings, 2 bad input or usage.\n\
Documentation: docs/ in the source tree (getting-started.md, recipes.md, cli.md, audit.md).\n\
Static binary (docs/install.md): host names come from /etc/hosts and DNS only;\n\
STACK_NSSWITCH=system uses every service of /etc/nsswitch.conf."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options shared by every subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct Global {
    /// More log output (-v info, -vv debug, -vvv trace). RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = "Global options")]
    pub verbose: u8,
    /// When to use colour. NO_COLOR in the environment means `never` for `auto`.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto, help_heading = "Global options")]
    pub color: Color,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Check(check::Args),
    List(list::Args),
    Info(info::Args),
    Resolve(resolve::Args),
    Fetch(fetch::Args),
    Mirror(mirror::Args),
    Build(build::Args),
    /// Distributed builds in CI: `stack ci generate`.
    Ci(ci::Args),
    Image(image::Args),
    Push(push::Args),
    Pull(pull::Args),
    Images(images::Args),
    Key(key::Args),
    Import(import::Args),
    Stackinator(stackinator::Args),
    Audit(audit::Args),
    Ldd(ldd::Args),
    Verify(verify::Args),
    Gc(gc::Args),
    Report(report::Args),
    Completions(completions::Args),
    Checksum(checksum::Args),
    Edit(edit::Args),
    Dependents(dependents::Args),
    Diff(diff::Args),
    Compiler(compiler::Args),
    External(external::Args),
    Find(find::Args),
    Create(create::Args),
    Run(run::Args),
    Shell(run::ShellArgs),
    BuildEnv(build_env::Args),
}

impl Global {
    /// Whether to colour output on a stream that is (or is not) a terminal.
    pub fn use_color(&self, is_tty: bool) -> bool {
        match self.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => is_tty && !stack::settings::no_color(),
        }
    }
}

fn init_logging(global: &Global) {
    let level = match global.verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("stack={level}")));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(output::log_writer)
        .with_ansi(global.use_color(output::stderr_is_terminal()))
        .with_target(false)
        .without_time()
        .try_init();
}

/// Install miette's report handler. With colour: unicode drawing at the
/// terminal's width. Without colour (`--color never`, NO_COLOR, or stderr not
/// a terminal): plain ASCII at a fixed width of 80 columns, so the output is
/// stable in logs and snapshot tests.
fn init_miette(global: &Global) {
    let is_tty = output::stderr_is_terminal();
    let color = global.use_color(is_tty);
    let _ = miette::set_hook(Box::new(move |_| {
        let mut opts = miette::MietteHandlerOpts::new()
            .color(color)
            .unicode(color)
            .terminal_links(false)
            .force_graphical(true);
        if !color || !is_tty {
            opts = opts.width(80);
        }
        Box::new(opts.build())
    }));
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    init_logging(&cli.global);
    nss::pin_builtin_services();
    init_miette(&cli.global);
    let result = match cli.command {
        Command::Check(a) => check::run(a, &cli.global),
        Command::List(a) => list::run(a, &cli.global),
        Command::Info(a) => info::run(a, &cli.global),
        Command::Resolve(a) => resolve::run(a, &cli.global),
        Command::Fetch(a) => fetch::run(a, &cli.global),
        Command::Mirror(a) => mirror::run(a, &cli.global),
        Command::Build(a) => build::run(a, &cli.global),
        Command::Ci(a) => ci::run(a, &cli.global),
        Command::Image(a) => image::run(a, &cli.global),
        Command::Push(a) => push::run(a, &cli.global),
        Command::Pull(a) => pull::run(a, &cli.global),
        Command::Images(a) => images::run(a, &cli.global),
        Command::Key(a) => key::run(a, &cli.global),
        Command::Import(a) => import::run(a, &cli.global),
        Command::Stackinator(a) => stackinator::run(a, &cli.global),
        Command::Audit(a) => audit::run(a, &cli.global),
        Command::Ldd(a) => ldd::run(a, &cli.global),
        Command::Verify(a) => verify::run(a, &cli.global),
        Command::Gc(a) => gc::run(a, &cli.global),
        Command::Report(a) => report::run(a, &cli.global),
        Command::Completions(a) => completions::run(a, &cli.global),
        Command::Checksum(a) => checksum::run(a, &cli.global),
        Command::Edit(a) => edit::run(a, &cli.global),
        Command::Dependents(a) => dependents::run(a, &cli.global),
        Command::Diff(a) => diff::run(a, &cli.global),
        Command::Compiler(a) => compiler::run(a, &cli.global),
        Command::External(a) => external::run(a, &cli.global),
        Command::Find(a) => find::run(a, &cli.global),
        Command::Create(a) => create::run(a, &cli.global),
        Command::Run(a) => run::run(a, &cli.global),
        Command::Shell(a) => run::shell(a, &cli.global),
        Command::BuildEnv(a) => build_env::run(a, &cli.global),
    };
    match result {
        Ok(code) => code,
        Err(err) => err.render(),
    }
}
