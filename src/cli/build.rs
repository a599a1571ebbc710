//! `stack build RECIPE`: the whole pipeline.

use std::path::PathBuf;
use std::process::ExitCode;

use stack::build::{MountMode, PackageStatus};
use stack::image::ImageOptions;
use stack::pipeline::{BuildRequest, build_stack};

use super::image_args::ImageArgs;
use super::inputs::{InputArgs, SourceArgs, pipeline_error};
use super::progress::Progress;
use super::{CliError, Global};

/// Build a stack: resolve, fetch, patch, build, views, modules, image.
///
/// Every package is built into its final prefix under the mount point; the
/// store lives in BUILD/store and is bind-mounted at the mount point in a
/// private namespace while building, so nothing outside BUILD is written.
/// The result is BUILD/store.squashfs with BUILD/meta/ (env.json, recipe,
/// lockfile, provenance) beside it.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack build stacks/demo.yaml
  stack build stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200 -j 64
  stack build stacks/alps-cxi.yaml --mirror file:///srv/mirror --locked
  stack build stacks/demo.yaml --build /dev/shm/demo --keep-stage
  stack build stacks/demo.yaml --mount /user-tools --build build/demo-tools

A rerun rebuilds only what changed; a no-op rerun returns at once.
Exit status: 0 built, 1 a package or stage failed, 2 bad input.")]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Build directory [default: build/<recipe name> in the current directory].
    #[arg(long = "build", value_name = "DIR")]
    pub build_dir: Option<PathBuf>,
    /// Parallel jobs in total (packages and their make/ninja children) [default: cores].
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Refuse to deviate from stack.lock beside the recipe.
    #[arg(long)]
    pub locked: bool,
    /// Stop starting packages after the first failure.
    #[arg(long)]
    pub fail_fast: bool,
    /// Keep the stage directories of successful builds (BUILD/stage).
    #[arg(long)]
    pub keep_stage: bool,
    #[command(flatten)]
    pub sources: SourceArgs,
    /// How builds reach the mount point: `namespace` (private user+mount
    /// namespace, host untouched), `direct` (install into the mount point
    /// itself), `auto` (direct when writable).
    #[arg(long, value_enum, default_value_t = Mode::Namespace)]
    pub mount_mode: Mode,

    /// Mount point to build for, instead of the recipe's `mount:` (an
    /// absolute path; part of every prefix, so it changes every hash).
    #[arg(long, value_name = "PATH")]
    pub mount: Option<PathBuf>,
    #[command(flatten)]
    pub image: ImageArgs,
    /// Same as `--writer embedded` (kept for old scripts).
    #[arg(long, hide = true)]
    pub embedded_squashfs: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Mode {
    Namespace,
    Direct,
    Auto,
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let mut inputs = args.input.load()?;
    if let Some(mount) = &args.mount {
        if !mount.is_absolute() || mount == std::path::Path::new("/") {
            return Err(CliError::input(miette::miette!(
                help = "for example --mount /user-environment",
                "--mount: expected an absolute path below /, found `{}`",
                mount.display()
            )));
        }
        inputs.recipe.mount = mount.clone();
    }
    let build_dir = args
        .build_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("build").join(&inputs.recipe.name.value));
    let sources = args.sources.settings()?;
    let mut image = ImageOptions::default();
    args.image.apply(&mut image);
    if args.embedded_squashfs {
        image.writer = stack::image::Writer::Embedded;
    }
    let req = BuildRequest {
        inputs,
        build_dir: build_dir.clone(),
        jobs: args.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        }),
        fail_fast: args.fail_fast,
        keep_stage: args.keep_stage,
        locked: args.locked,
        sources,
        mount_mode: match args.mount_mode {
            Mode::Namespace => MountMode::Namespace,
            Mode::Direct => MountMode::Direct,
            Mode::Auto => MountMode::Auto,
        },
        image,
        args: std::env::args().collect(),
    };
    let progress = Progress::new(false);
    let _ = global;
    let outcome = build_stack(&req, &progress).map_err(pipeline_error);
    progress.finish();
    let outcome = outcome?;
    let s = &outcome.summary;
    let failed: Vec<_> = s.failed().collect();
    for p in &failed {
        if let PackageStatus::Failed {
            phase,
            message,
            log_tail,
        } = &p.status
        {
            eprintln!(
                "\nerror: {}@{} failed in {phase}: {message}",
                p.name, p.version
            );
            if let Some(log) = &p.log {
                eprintln!("  log: {}", log.display());
            }
            eprintln!("  last {} lines:", log_tail.len());
            for l in log_tail {
                eprintln!("  | {l}");
            }
        }
    }
    let built = s.built().count();
    let reused = s.reused().count();
    let skipped = s.skipped().count();
    eprintln!(
        "\n{} built, {} reused, {} failed, {} skipped in {:.2}s (critical path {:.2}s, -j {})",
        built,
        reused,
        failed.len(),
        skipped,
        s.wall.as_secs_f64(),
        s.critical_path.as_secs_f64(),
        s.jobs
    );
    if !failed.is_empty() || skipped > 0 {
        return Ok(ExitCode::from(1));
    }
    if let Some(report) = &outcome.audit {
        if report.has_errors() {
            eprint!("{}", report.to_text());
            eprintln!(
                "\nerror: the linkage audit found problems (report: {}); fix the recipes or allow them with `audit: {{allow: [GLOB]}}` in the stack recipe or cluster configuration",
                outcome.audit_path.display()
            );
            return Ok(ExitCode::from(1));
        }
        eprintln!("audit: clean ({})", outcome.audit_path.display());
    }
    if outcome.up_to_date {
        println!("up to date: {}", outcome.image_path.display());
    } else if let Some(img) = &outcome.image {
        println!(
            "image: {} ({} bytes, sha256 {})\nmeta:  {}",
            img.path.display(),
            img.size,
            img.sha256,
            outcome.meta_dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
