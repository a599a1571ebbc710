//! `stack build`: the command's options and settings become one
//! [`BuildRequest`] here — the build directory, the mount point, the
//! binary cache opened with its trust, the Slurm executor — and the
//! pipeline runs it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::build::MountMode;
use crate::image::ImageOptions;
use crate::pipeline::{self, BuildOutcome, BuildRequest, PipelineReporter, SourceSettings};
use crate::settings::Settings;
use crate::stacks::Inputs;

use super::{OpError, RegistryAccess, SlurmRequest};

/// What `stack build` was asked for, with its inputs loaded and its
/// settings resolved.
pub struct BuildOptions {
    pub inputs: Inputs,
    pub settings: Settings,
    /// The inputs are an image's own (`stack build IMAGE.squashfs`): it is
    /// rebuilt from its own lock, exactly.
    pub from_image: bool,
    /// `--build` (default: `build/<recipe name>`).
    pub build_dir: Option<PathBuf>,
    /// `--mount`: instead of the recipe's `mount:`.
    pub mount: Option<PathBuf>,
    /// `-j` [default: the cores].
    pub jobs: Option<usize>,
    pub fail_fast: bool,
    pub partial: bool,
    pub keep_stage: bool,
    pub locked: bool,
    pub lock_file: Option<PathBuf>,
    pub sources: SourceSettings,
    pub mount_mode: MountMode,
    pub image: ImageOptions,
    /// `--only PKG`.
    pub only: Vec<String>,
    /// How to reach the binary cache's registry.
    pub access: RegistryAccess,
    /// `--executor slurm`.
    pub slurm: Option<SlurmOptions>,
    /// The command line, for provenance.
    pub args: Vec<String>,
}

/// `--executor slurm`'s options (the build directory, the shared store and
/// the grouping come from the build and its settings).
pub struct SlurmOptions {
    /// The `stack` program the jobs run.
    pub program: String,
    /// The submitter's arguments (without the program).
    pub argv: Vec<String>,
    pub sbatch_args: Vec<String>,
    pub poll: Duration,
}

/// Build a stack: the request from `opts`, then every step of
/// [`pipeline::build_stack`] (`stack build`).
pub fn build(opts: BuildOptions, reporter: &dyn PipelineReporter) -> Result<BuildOutcome, OpError> {
    let req = request(opts)?;
    Ok(pipeline::build_stack(&req, reporter)?)
}

/// The library request of `opts`.
fn request(opts: BuildOptions) -> Result<BuildRequest, OpError> {
    let mut inputs = opts.inputs;
    if let Some(mount) = &opts.mount {
        if !mount.is_absolute() || mount == Path::new("/") {
            return Err(OpError::Refused {
                message: format!(
                    "--mount: expected an absolute path below /, found `{}`",
                    mount.display()
                ),
                help: "for example --mount /user-environment".into(),
            });
        }
        inputs.recipe.mount = mount.clone();
    }
    let build_dir = opts
        .build_dir
        .unwrap_or_else(|| PathBuf::from("build").join(&inputs.recipe.name.value));
    check_mount_and_build(&inputs.recipe.mount, &build_dir)?;
    let settings = opts.settings;
    let binary_cache = super::open_binary_cache(&settings, &opts.access)?;
    let remote = match opts.slurm {
        Some(s) => Some(super::slurm_executor(SlurmRequest {
            build_dir: std::path::absolute(&build_dir).map_err(pipeline::PipelineError::Io)?,
            program: s.program,
            argv: s.argv,
            sbatch_args: s.sbatch_args,
            poll: s.poll,
            group_seconds: settings.group_seconds,
            shared_store: settings.shared_store,
        })),
        None => None,
    };
    Ok(BuildRequest {
        only: opts.only,
        shared_store: settings.shared_store,
        remote,
        lock_file: opts.lock_file,
        binary_cache,
        inputs,
        build_dir,
        jobs: opts.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        }),
        fail_fast: opts.fail_fast,
        partial: opts.partial,
        keep_stage: opts.keep_stage,
        locked: opts.locked || opts.from_image,
        sources: opts.sources,
        mount_mode: opts.mount_mode,
        image: opts.image,
        args: opts.args,
    })
}

/// The build directory must not be the mount point or below it: the store
/// lives in the build directory and is mounted at the mount point (this
/// used to fail late, inside a package's configure).
fn check_mount_and_build(mount: &Path, build_dir: &Path) -> Result<(), OpError> {
    let build = std::path::absolute(build_dir).unwrap_or_else(|_| build_dir.to_path_buf());
    let build = crate::audit::fs::clean(&build);
    let mount = crate::audit::fs::clean(mount);
    if build.starts_with(&mount) {
        return Err(OpError::Refused {
            message: format!(
                "the build directory {} is the mount point {} or below it: the store is built in the one and mounted at the other",
                build.display(),
                mount.display()
            ),
            help: "build somewhere else (--build DIR) or choose another mount point (--mount PATH)"
                .into(),
        });
    }
    Ok(())
}
