//! One operation per command (cargo's commands → ops): each `src/cli/*.rs`
//! turns its arguments into the options of one operation here, calls it and
//! renders the outcome. The operations own the rules commands must share —
//! loading and checking the inputs, the lock file rules (read, check, pin,
//! write: [`LockRules`]) — and return one error
//! type, [`OpError`], classified once ([`OpError::class`]) into bad input
//! (exit 2) and failed operations (exit 1).
//!
//! | command | operation |
//! |---------|-----------|
//! | `stack check` | [`check`] |
//! | `stack resolve` | [`resolve`] |
//! | `stack fetch` | [`fetch`] (`--dry-run`: [`fetch_plan`]) |
//! | `stack mirror create` | [`mirror`] |
//! | `stack ci generate` | [`ci_generate`] |
//! | `stack gc` | [`gc`] |
//! | `stack build` | [`build()`] (`stack build IMAGE.squashfs`: [`rebuild_inputs`] first; the binary cache: [`open_binary_cache`]; `--executor slurm`: [`slurm_executor`]) |
//! | `stack stackinator convert` | [`stackinator_convert`] |
//! | `stack import spack` | [`import_spack`] |
//! | `stack report` | [`report`] |
//! | `stack info`, `list`, `checksum`, `edit`, `dependents` | [`package_repo`] |
//! | `stack build-env` | [`run_in_build_env`] |
//! | `stack audit`, `stack ldd` | [`audit()`], [`ldd()`] |
//! | `stack image` | [`pack_image`] |
//! | `stack verify` | [`verify`] |
//! | `stack run`, `stack shell` | [`run_in_image`] |
//! | `stack push`, `stack pull`, `stack images` | [`push`], [`pull`], [`list_images`] |
//! | `stack key generate` | [`generate_key`] |
//! | `stack checksum`, `stack create` | [`checksum()`], [`create_recipe`] |
//! | `stack find`, `stack diff` | [`find`], [`diff()`] |
//! | `stack compiler find`, `stack external find` | [`find_compilers`], [`find_externals`] |

pub mod api_check;
mod api_check_cache;
mod audit;
mod build;
mod build_env;
mod ci;
mod error;
mod image;
mod installed;
mod lookup;
mod rebuild;
mod registry_access;
mod remote;
mod settings;
mod sources;
mod spack_import;
mod stackinator;
mod transfer;

use crate::diag::Diagnostics;
use crate::pipeline;
use crate::resolve::Plan;
use crate::settings::Settings;

pub use crate::audit::{AuditOptions, LoaderModel};
pub use crate::fetch::checksum::{ChecksumError, ChecksumLine, Recorded};
pub use crate::image::{Compression, ImageOptions, Writer};
pub use crate::import::{ImportOptions, ImportSummary};
pub use crate::pipeline::partial::LEFT_OUT_FILE;
pub use crate::pipeline::{BuildOutcome, LockRules, PipelineReporter, SourceSettings, Stage};
pub use crate::registry::{RegistryError, TransferReporter};
pub use crate::stacks::{InputOptions, Inputs};
pub use audit::{LddFile, LddRequest, audit, ldd};
pub use build::{BuildOptions, SlurmOptions, build};
pub use build_env::run_in_build_env;
pub use ci::{CiOutcome, CiRequest, ci_generate, ci_lock_file};
pub use error::OpError;
pub use image::{MetaCopy, Packed, pack_image, run_in_image, verify};
pub use installed::{diff, find, find_compilers, find_externals};
pub use lookup::{Dependent, dependents, dependents_transitive, package_repo};
pub use rebuild::{RebuildInputs, rebuild_inputs};
pub use registry_access::{
    RegistryAccess, generate_key, open_binary_cache, public_key, secret_key, signing_key,
};
pub use remote::{RemoteExecutor, SlurmRequest, slurm_executor};
pub use settings::command_settings;
pub use sources::{FetchOutcome, FetchPlan, checksum, create_recipe, fetch, fetch_plan, mirror};
pub use spack_import::{ImportRequest, import_spack};
pub use stackinator::{Converted, convert as stackinator_convert, is_stackinator};
pub use transfer::{PullRequest, Pulled, PushRequest, Pushed, list_images, pull, push};

/// Load and check a stack recipe, its cluster configuration and every
/// package recipe it can reach (`stack check`, and the first step of every
/// other operation). All problems come back at once. A stackinator recipe
/// directory (config.yaml + environments.yaml) with a stackinator cluster
/// directory is translated first ([`crate::stackinator`]).
pub fn check(opts: &InputOptions) -> Result<Inputs, OpError> {
    let mut inputs = if is_stackinator(&opts.recipe) {
        stackinator::check_stackinator(opts)?
    } else {
        crate::stacks::load_inputs(opts).map_err(OpError::Inputs)?
    };
    // Calls in package files that the package API lacks (`system: spack`).
    if let Some(collect) = api_check::COLLECTOR {
        for w in api_check::warnings(&inputs, collect) {
            inputs.warnings.push(w);
        }
    }
    Ok(inputs)
}

/// A resolved stack and the lock file its rules name.
pub struct Resolved {
    pub plan: Plan,
    /// The lock file read (and with [`LockRules::write`] written).
    pub lock_file: std::path::PathBuf,
}

impl Resolved {
    /// Indented trees per environment (`stack resolve`'s default output).
    pub fn tree(&self) -> String {
        crate::resolve::render::render_tree(&self.plan)
    }

    /// The plan as JSON (`--format json`).
    pub fn json(&self) -> String {
        crate::resolve::render::render_json(&self.plan)
    }

    /// The plan as a graphviz digraph (`--format dot`).
    pub fn dot(&self) -> String {
        crate::resolve::render::render_dot(&self.plan)
    }

    /// Each choice the resolver made and why (`--explain`).
    pub fn choices(&self) -> String {
        crate::resolve::render::render_choices(&self.plan)
    }
}

/// Resolve a loaded stack under the lock file rules (`stack resolve`): git
/// branches and tags are pinned through the command's source cache and CA
/// files (no mirrors: a branch is asked of its repository).
pub fn resolve(
    inputs: &Inputs,
    rules: &LockRules,
    settings: &Settings,
) -> Result<Resolved, OpError> {
    let sources = source_settings(settings, SourceFlags::default());
    Ok(Resolved {
        plan: resolve_plan(inputs, rules, &sources)?,
        lock_file: pipeline::lock_file(inputs, rules),
    })
}

/// Where sources come from, as a command's flags say (`--mirror`,
/// `--fetch-jobs`, `--allow-unverified`; the source cache and `--ca-file`
/// are settings).
#[derive(Clone, Debug)]
pub struct SourceFlags {
    pub mirrors: Vec<String>,
    pub fetch_jobs: usize,
    pub allow_unverified: bool,
}

impl Default for SourceFlags {
    fn default() -> Self {
        SourceFlags {
            mirrors: Vec::new(),
            fetch_jobs: DEFAULT_FETCH_JOBS,
            allow_unverified: false,
        }
    }
}

/// Sources downloaded at once unless `--fetch-jobs` says otherwise.
pub const DEFAULT_FETCH_JOBS: usize = crate::fetch::DEFAULT_JOBS;

/// The source settings of a command: its source cache and CA files
/// ([`Settings::source_cache`], [`Settings::registry`]) and its flags.
pub fn source_settings(settings: &Settings, flags: SourceFlags) -> SourceSettings {
    SourceSettings {
        cache: crate::fetch::SourceCache::new(settings.source_cache.clone()),
        mirrors: flags.mirrors,
        fetch_jobs: flags.fetch_jobs,
        allow_unverified: flags.allow_unverified,
        ca_files: settings.registry.ca_files.clone(),
    }
}

/// Resolve under the lock file rules with these source settings.
fn resolve_plan(
    inputs: &Inputs,
    rules: &LockRules,
    sources: &SourceSettings,
) -> Result<Plan, OpError> {
    let opts = pipeline::fetch_options(inputs, sources);
    Ok(pipeline::resolve_plan(inputs, rules, &opts, None)?)
}

/// Remove the source trees and stages `BUILD/stack.lock` does not use
/// (`stack gc`).
pub fn gc(build_dir: &std::path::Path, dry_run: bool) -> Result<pipeline::GcReport, OpError> {
    Ok(pipeline::gc(build_dir, dry_run)?)
}

/// The warnings of a successful load, for the caller to show.
pub fn warnings(inputs: &Inputs) -> &Diagnostics {
    &inputs.warnings
}

/// Write the HTML report of a build directory or an image's `meta/` again
/// (`stack report`); the page's path.
pub fn report(
    dir: &std::path::Path,
    out: Option<&std::path::Path>,
) -> Result<std::path::PathBuf, OpError> {
    Ok(crate::report::write(dir, out)?)
}
