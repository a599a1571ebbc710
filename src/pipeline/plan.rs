//! The plan step of every command that resolves: the lock file rules in one
//! place, so that `stack resolve`, `stack fetch` and `stack build` read,
//! check, pin and write `stack.lock` the same way.
//!
//! - the lock file is `stack.lock` beside the recipe unless one is named;
//! - when it exists and belongs to the recipe, its git commits pin branches
//!   and tags (a lock of another recipe is ignored, with a warning);
//! - `--locked`: the lock must exist (else bad input) and belong to the
//!   recipe (else bad input), and the plan must equal it;
//! - `stack build` refuses recipes awaiting review before anything is
//!   pinned (no network needed to say so);
//! - branches and tags still unpinned are pinned by asking the repository
//!   (`pin_git`), the same call for every command;
//! - `--lock` writes the plan to the lock file, never over another recipe's.

use std::path::{Path, PathBuf};

use crate::fetch::{self, FetchOptions};
use crate::resolve::{self, Lock, Plan, ResolveOptions};
use crate::stacks::Inputs;

use super::{PipelineError, sources};

/// How a command uses the lock file.
#[derive(Clone, Debug, Default)]
pub struct LockRules {
    /// The lock file; `None`: `stack.lock` beside the recipe.
    pub file: Option<PathBuf>,
    /// Refuse to deviate from the lock file (`--locked`).
    pub locked: bool,
    /// Write the plan to the lock file (`stack resolve --lock`).
    pub write: bool,
    /// Pin git branches and tags the lock does not pin by asking their
    /// repositories (network or the source cache). `stack build` and `stack
    /// fetch` always do; `stack resolve` when it writes the lock.
    pub pin_git: bool,
    /// Overrides the recipe's mount point.
    pub mount: Option<PathBuf>,
    /// Refuse imported recipes whose untranslated build logic awaits
    /// review ([`super::check_reviewed`]) before any git branch is pinned,
    /// so that a refusal needs no network (`stack build`).
    pub review: bool,
}

/// A broken lock file rule.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("--locked: there is no lock file {}", crate::diag::display_path(.file))]
    Missing { file: PathBuf },
    #[error(
        "{}: the lock of recipe `{stack}` ({recipe}), not of {expected}",
        crate::diag::display_path(.file)
    )]
    Foreign {
        file: PathBuf,
        stack: String,
        recipe: String,
        expected: String,
    },
    #[error(
        "{} holds the lock of recipe `{stack}` ({recipe}); not overwriting it",
        crate::diag::display_path(.file)
    )]
    WouldOverwrite {
        file: PathBuf,
        stack: String,
        recipe: String,
    },
}

impl LockError {
    /// What to do about it.
    pub fn help(&self) -> &'static str {
        match self {
            LockError::Missing { .. } => "run `stack resolve RECIPE --lock` first",
            LockError::Foreign { .. } => "pass --lock-file, or drop --locked",
            LockError::WouldOverwrite { .. } => {
                "each recipe has its own lock (`<name>.lock` beside `<name>.yaml`); pass --lock-file to name another"
            }
        }
    }

    /// Bad input (exit 2) rather than a failed operation (exit 1).
    pub fn is_input_error(&self) -> bool {
        !matches!(self, LockError::WouldOverwrite { .. })
    }
}

/// The lock file `rules` name for `inputs`.
pub fn lock_file(inputs: &Inputs, rules: &LockRules) -> PathBuf {
    rules
        .file
        .clone()
        .unwrap_or_else(|| resolve::lock_path(&inputs.recipe.file))
}

/// Whether `lock` was written for this recipe.
fn belongs(lock: &Lock, inputs: &Inputs) -> bool {
    lock.recipe == recipe_name(inputs) && lock.stack == inputs.recipe.name.value
}

fn recipe_name(inputs: &Inputs) -> String {
    inputs
        .recipe
        .file
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The lock file, read and checked against the rules; `None` when there is
/// none to use.
fn read_lock(
    inputs: &Inputs,
    rules: &LockRules,
    file: &Path,
) -> Result<Option<Lock>, PipelineError> {
    if !file.exists() {
        if rules.locked {
            return Err(LockError::Missing {
                file: file.to_path_buf(),
            }
            .into());
        }
        return Ok(None);
    }
    let lock = Lock::read(file)?;
    if belongs(&lock, inputs) {
        return Ok(Some(lock));
    }
    if rules.locked {
        return Err(LockError::Foreign {
            file: file.to_path_buf(),
            stack: lock.stack,
            recipe: lock.recipe,
            expected: recipe_name(inputs),
        }
        .into());
    }
    if rules.write {
        return Err(LockError::WouldOverwrite {
            file: file.to_path_buf(),
            stack: lock.stack,
            recipe: lock.recipe,
        }
        .into());
    }
    tracing::warn!(
        "ignoring {}: it is the lock of recipe `{}` ({})",
        file.display(),
        lock.stack,
        lock.recipe
    );
    Ok(None)
}

/// Resolve the recipe under the lock file rules. `copy_to` receives a copy
/// of the resulting lock (the build directory's, which goes into `meta/`).
pub fn resolve_plan(
    inputs: &Inputs,
    rules: &LockRules,
    fetch_opts: &FetchOptions,
    copy_to: Option<&Path>,
) -> Result<Plan, PipelineError> {
    let file = lock_file(inputs, rules);
    let lock = read_lock(inputs, rules, &file)?;
    let mut opts = ResolveOptions {
        mount: rules.mount.clone(),
        ..ResolveOptions::default()
    };
    if let Some(lock) = lock {
        opts.git_pins = lock.git_pins();
        if rules.locked {
            opts.locked = Some(lock);
        }
    }
    let mut plan = resolve::resolve(&inputs.recipe, &inputs.cluster, &inputs.repo, &opts)?;
    if rules.review {
        // Pins change commits, never which recipes the plan uses.
        super::review::check_reviewed(&plan, inputs)?;
    }
    if rules.pin_git {
        plan = pin_git(plan, &opts, fetch_opts)?;
    }
    super::views::check_module_names(&inputs.recipe, &plan)?;
    let lock = Lock::from_plan(&plan);
    if rules.write {
        lock.write(&file)?;
    }
    if let Some(path) = copy_to {
        if rules.locked && file.is_file() {
            // The build followed the lock file: it is the record, byte for
            // byte (the plan's own would name this checkout's paths).
            fs_err::copy(&file, path)?;
        } else {
            lock.write(path)?;
        }
    }
    Ok(plan)
}

/// Ask the repositories for the commits of the plan's unpinned branches and
/// tags (each once) and give them to the plan: its nodes are hashed again,
/// not searched again. Under `--locked` the pinned plan must still equal
/// the lock.
fn pin_git(
    plan: Plan,
    opts: &ResolveOptions,
    fetch_opts: &FetchOptions,
) -> Result<Plan, PipelineError> {
    let mut pins = resolve::GitPins::new();
    for u in plan.unpinned_git_sources() {
        let key = (u.repo, u.reference);
        if pins.contains_key(&key) {
            continue;
        }
        let Some(req) = sources::source_request(plan.node(u.node)) else {
            continue;
        };
        if let fetch::Source::Git { url, reference, .. } = &req.source {
            let commit = fetch::resolve_git_ref(url, reference, fetch_opts)?;
            pins.insert(key, commit);
        }
    }
    if pins.is_empty() {
        return Ok(plan);
    }
    let plan = plan.with_git_pins(&pins);
    if let Some(lock) = &opts.locked {
        let changes = lock.compare(&plan);
        if !changes.is_empty() {
            return Err(resolve::ResolveError::LockMismatch {
                path: lock
                    .path
                    .clone()
                    .unwrap_or_else(|| resolve::lock_path(&plan.recipe_file)),
                changes,
            }
            .into());
        }
    }
    Ok(plan)
}
