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
//! | `stack build` | [`build`] (`stack build IMAGE.squashfs`: [`rebuild_inputs`] first; `--executor slurm`: [`slurm_executor`]) |
//! | `stack stackinator convert` | [`stackinator_convert`] |

pub mod api_check;
mod api_check_cache;
mod ci;
mod error;
mod rebuild;
mod remote;
mod sources;
mod stackinator;

use crate::diag::Diagnostics;
use crate::pipeline::{self, BuildOutcome, BuildRequest, LockRules, PipelineReporter};
use crate::resolve::Plan;
use crate::stacks::{InputOptions, Inputs};

pub use ci::{CiOutcome, CiRequest, ci_generate, ci_lock_file};
pub use error::OpError;
pub use rebuild::{RebuildInputs, rebuild_inputs};
pub use remote::{RemoteExecutor, SlurmRequest, slurm_executor};
pub use sources::{FetchOutcome, FetchPlan, fetch, fetch_plan, mirror};
pub use stackinator::{Converted, convert as stackinator_convert, is_stackinator};

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

/// Resolve a loaded stack under the lock file rules (`stack resolve`).
pub fn resolve(
    inputs: &Inputs,
    rules: &LockRules,
    sources: &pipeline::SourceSettings,
) -> Result<Plan, OpError> {
    let opts = pipeline::fetch_options(inputs, sources);
    Ok(pipeline::resolve_plan(inputs, rules, &opts, None)?)
}

/// Build a stack: every step of [`pipeline::build_stack`] (`stack build`).
pub fn build(req: &BuildRequest, reporter: &dyn PipelineReporter) -> Result<BuildOutcome, OpError> {
    Ok(pipeline::build_stack(req, reporter)?)
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
