//! `stack build RECIPE`: the whole pipeline.

use std::path::PathBuf;
use std::process::ExitCode;

use stack::build::{MountMode, PackageStatus};
use stack::ops::ImageOptions;
use stack::ops::{BuildOptions, BuildOutcome};

pub mod cache;
pub mod remote;

use super::image_args::ImageArgs;
use super::inputs::{InputArgs, SourceArgs};
use super::output::{errln, errout, outln};
use super::progress::Progress;
use super::{CliError, Global};

/// Build a stack: resolve, fetch, patch, build, views, modules, image.
///
/// Every package is built into its final prefix under the mount point; the
/// store lives in BUILD/store and is bind-mounted at the mount point in a
/// sandbox while building (no capabilities, private /tmp, processes end
/// with their command), so a package writes only its stage and its own
/// prefix, also as root (docs/security.md).
/// The result is BUILD/store.squashfs with BUILD/meta/ (env.json, recipe,
/// lockfile, provenance) beside it. RECIPE may also be an image built by
/// `stack build`: it is rebuilt from its own meta/recipe/ and lock.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack build stacks/demo.yaml
  stack build stacks/alps-cxi.yaml --cluster cluster-configs/alps-gh200 -j 64
  stack build stacks/alps-cxi.yaml --mirror file:///srv/mirror --locked
  stack build stacks/demo.yaml --build /dev/shm/demo --keep-stage
  stack build stacks/demo.yaml --mount /user-tools --build build/demo-tools
  stack build stacks/cxi-mini.yaml --binary-cache oci://reg:5000/cache --executor slurm --slurm-args \"--partition=build --time=01:00:00\"
  stack build stacks/cxi-mini.yaml --binary-cache oci://reg:5000/cache --locked --only libfabric
  stack build build/demo/store.squashfs --build build/demo-again

Given a squashfs image instead of a recipe, rebuilds it from its own
metadata (meta/recipe/: recipe, cluster configuration, package recipes,
patches, hooks; meta/stack.lock, as with --locked) into BUILD [default:
build/<image name>-rebuild]: same sources, same image, byte for byte.

Packages with `build: {system: spack}` run their own package.py methods
at build time, in the sandbox, with the Python that STACK_PYTHON names, else
the cluster's `python` external, else python3 on PATH (3.9 or newer,
checked before anything is fetched). Their log shows the Python traceback
with package.py lines; --keep-stage keeps the request
(BUILD/stage/<pkg>/.stack-build-logic/request.json) on success too.

A rerun rebuilds only what changed; a no-op rerun returns at once.
With --partial, failed packages and their dependents are left out of an
image of the rest (listed in its meta/left-out.json).
Exit status: 0 built, 1 a package or stage failed, 2 bad input (also no
suitable Python for build logic).")]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Build directory [default: build/<recipe name> in the current directory].
    #[arg(long = "build", value_name = "DIR")]
    pub build_dir: Option<PathBuf>,
    /// Parallel jobs in total (packages and their make/ninja children), 1 to
    /// 4096 [default: cores].
    #[arg(short, long, value_name = "N", value_parser = super::inputs::count_in(1, MAX_JOBS))]
    pub jobs: Option<usize>,
    /// Refuse to deviate from the recipe's lock file (`<name>.lock` beside `<name>.yaml`).
    #[arg(long)]
    pub locked: bool,
    /// Stop starting packages after the first failure.
    #[arg(long)]
    pub fail_fast: bool,
    /// When packages fail, make the image anyway, of the packages that built:
    /// the failed ones and their dependents are left out and listed, with
    /// why, in the image's meta/left-out.json. The exit status stays 1.
    #[arg(long, conflicts_with = "fail_fast")]
    pub partial: bool,
    /// Keep the stage directories of successful builds (BUILD/stage).
    #[arg(long)]
    pub keep_stage: bool,
    #[command(flatten)]
    pub sources: SourceArgs,
    /// How builds reach the mount point: `namespace` (a sandbox of user,
    /// mount and PID namespaces without capabilities; host, build directory
    /// and other prefixes read-only), `direct` (install into the mount
    /// point itself, no sandbox), `auto` (direct when writable).
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
    /// The lock file to read instead of the recipe's own.
    #[arg(long, value_name = "FILE")]
    pub lock_file: Option<PathBuf>,
    #[command(flatten)]
    pub cache: Box<cache::CacheArgs>,
    #[command(flatten)]
    pub remote: remote::RemoteArgs,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Mode {
    Namespace,
    Direct,
    Auto,
}

/// Most jobs `-j` accepts: each is a byte in the jobserver pipe, whose
/// buffer holds 64 KiB, and no machine runs more compilers at once usefully.
const MAX_JOBS: usize = 4096;

impl Args {
    /// The flags the command's settings come from.
    pub fn flags(&self) -> stack::settings::Flags {
        let mut flags = self.sources.flags();
        self.cache.add_flags(&mut flags);
        self.remote.add_flags(&mut flags);
        flags
    }
}

pub fn run(args: Args, global: &Global) -> Result<ExitCode, CliError> {
    let opts = options(&args)?;
    let progress = Progress::new(false);
    let _ = global;
    let outcome = stack::ops::build(opts, &progress);
    progress.finish();
    Ok(render_outcome(&outcome?))
}

/// The arguments, the inputs they name and the settings, as the
/// operation's options.
fn options(args: &Args) -> Result<BuildOptions, CliError> {
    let from_image = is_image(&args.input.recipe);
    let (inputs, build_dir) = if from_image {
        let build_dir = args.build_dir.clone().unwrap_or_else(|| {
            let stem = args.input.recipe.file_stem().unwrap_or_default();
            PathBuf::from("build").join(format!("{}-rebuild", stem.to_string_lossy()))
        });
        if args.input.cluster.is_some() || !args.input.repos.is_empty() {
            return Err(CliError::input(miette::miette!(
                help = "the image holds its cluster configuration and package recipes",
                "--cluster and --repo do not apply when rebuilding an image"
            )));
        }
        let work = stack::ops::rebuild_inputs(&args.input.recipe, &build_dir.join("rebuild"))?;
        (super::inputs::load_options(&work.options)?, Some(build_dir))
    } else {
        (args.input.load()?, args.build_dir.clone())
    };
    let settings = super::settings::resolve(&args.flags(), Some(&inputs.cluster));
    let sources = args.sources.sources(&settings)?;
    let mut image = ImageOptions::default();
    args.image.apply(&mut image);
    if args.embedded_squashfs {
        image.writer = stack::ops::Writer::Embedded;
    }
    Ok(BuildOptions {
        inputs,
        settings,
        from_image,
        build_dir,
        mount: args.mount.clone(),
        jobs: args.jobs,
        fail_fast: args.fail_fast,
        partial: args.partial,
        keep_stage: args.keep_stage,
        locked: args.locked,
        lock_file: args.lock_file.clone(),
        sources,
        mount_mode: match args.mount_mode {
            Mode::Namespace => MountMode::Namespace,
            Mode::Direct => MountMode::Direct,
            Mode::Auto => MountMode::Auto,
        },
        image,
        only: args.remote.only.clone(),
        access: args.cache.registry.access(),
        slurm: args.remote.slurm(args.cache.registry.password_stdin)?,
        args: std::env::args().collect(),
    })
}

/// Whether `path` is a squashfs image (its magic), not a recipe.
fn is_image(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    fs_err::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"hsqs"
}

/// Failures with their log tails, the summary, the audit and the image.
fn render_outcome(outcome: &BuildOutcome) -> ExitCode {
    let s = &outcome.summary;
    let failed: Vec<_> = s.failed().collect();
    for p in &failed {
        if let PackageStatus::Failed {
            phase,
            message,
            log_tail,
        } = &p.status
        {
            errln!(
                "\nerror: {}@{} failed in {phase}: {message}",
                p.name,
                p.version
            );
            if let Some(log) = &p.log {
                errln!("  log: {}", log.display());
            }
            if !log_tail.is_empty() {
                errln!("  last {} lines:", log_tail.len());
            }
            for l in log_tail {
                errln!("  | {l}");
            }
        }
    }
    // Which patches went into what was built (also in each prefix's
    // .stack/installed.json and in the log).
    for p in s.built() {
        let node = outcome.plan.graph.node_weights().find(|n| n.hash == p.hash);
        for patch in node.map(|n| n.patches.as_slice()).unwrap_or_default() {
            let what = match &patch.source {
                stack::recipes::PatchSource::File(f) => f.text.as_str(),
                stack::recipes::PatchSource::Url(u) => u.value.as_str(),
            };
            errln!(
                "patched {}@{} with {what} (sha256 {}, -p{})",
                p.name,
                p.version,
                patch.sha256,
                patch.level
            );
        }
    }
    let c = &outcome.cache;
    if c.enabled {
        errln!(
            "binary cache: {} installed, {} rejected, {} pushed, {} push failures",
            c.fetched.len(),
            c.rejected.len(),
            c.pushes.pushed.len(),
            c.pushes.failed.len()
        );
        for r in c.rejected.iter().chain(&c.pushes.failed) {
            errln!("  warning: {r}");
        }
    }
    let built = s.built().count();
    let reused = s.reused().count();
    let skipped = s.skipped().count();
    errln!(
        "\n{} built, {} reused, {} failed, {} skipped in {:.2}s (critical path {:.2}s, -j {})",
        built,
        reused,
        failed.len(),
        skipped,
        s.wall.as_secs_f64(),
        s.critical_path.as_secs_f64(),
        s.jobs
    );
    if let Some(page) = &outcome.report {
        errln!("report: {}", page.display());
    }
    if !failed.is_empty() || skipped > 0 {
        if !outcome.left_out.is_empty() {
            if outcome.image.is_some() || outcome.up_to_date {
                errln!(
                    "partial image: {} package(s) left out, listed in meta/{}",
                    outcome.left_out.len(),
                    stack::ops::LEFT_OUT_FILE
                );
            }
            // The audit's verdict too: a failed audit is why no partial
            // image was made.
            render_result(outcome);
        }
        return ExitCode::from(1);
    }
    render_result(outcome)
}

/// The audit verdict and the image (or "up to date").
fn render_result(outcome: &BuildOutcome) -> ExitCode {
    if let Some(report) = &outcome.audit {
        if report.has_errors() {
            errout!("{}", report.to_text());
            errln!(
                "\nerror: the linkage audit found problems (report: {}); fix the recipes or allow them with `audit: {{allow: [GLOB]}}` in the stack recipe or cluster configuration",
                outcome.audit_path.display()
            );
            return ExitCode::from(1);
        }
        errln!(
            "{} ({})",
            report.summary_line(),
            outcome.audit_path.display()
        );
    }
    if outcome.up_to_date {
        outln!("up to date: {}", outcome.image_path.display());
    } else if let Some(img) = &outcome.image {
        outln!(
            "image: {} ({} bytes, sha256 {})\nmeta:  {}",
            img.path.display(),
            img.size,
            img.sha256,
            outcome.meta_dir.display()
        );
    }
    ExitCode::SUCCESS
}
