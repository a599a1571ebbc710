//! `stack ci generate`: the plan's packages that the binary cache lacks, as
//! a GitLab child pipeline (see [`crate::remote::gitlab`]).

use std::path::PathBuf;

use crate::binary_cache::{CacheEntry, add_cached_costs};
use crate::pipeline::{self, LockRules, PipelineError, SourceSettings};
use crate::remote::gitlab::{self, PipelineOptions};
use crate::remote::{DistributedError, JobCommand, Work};
use crate::settings::Settings;
use crate::stacks::Inputs;

use super::{OpError, RegistryAccess};

/// What to generate.
pub struct CiRequest {
    pub inputs: Inputs,
    pub sources: SourceSettings,
    /// The lock file [default: stack.lock beside the recipe]; required, so
    /// that every job builds the same plan (`--locked`).
    pub lock_file: Option<PathBuf>,
    /// The command's settings: the binary cache and its trust, the
    /// grouping threshold ([`Settings::group_seconds`]: `--group-seconds`,
    /// else the cluster's `ci: {group_seconds}`).
    pub settings: Settings,
    /// How to reach the binary cache's registry.
    pub access: RegistryAccess,
    /// The arguments of `stack build RECIPE --cluster C …` as the jobs run
    /// it (the program is the cluster's `ci: {stack}`, else `stack`).
    pub job_args: Vec<String>,
    /// Push the assembled image here.
    pub image_label: Option<String>,
    /// Options of that `stack push` (registry, TLS, signing key).
    pub push_args: Vec<String>,
}

/// The pipeline and what went into it.
pub struct CiOutcome {
    pub pipeline: serde_json::Value,
    /// The pipeline as YAML.
    pub yaml: String,
    /// Build jobs (besides `assemble`).
    pub jobs: usize,
    /// Packages of the plan that are built (externals aside).
    pub buildable: usize,
    /// Of those, already in the binary cache (no job).
    pub cached: usize,
}

/// Resolve under the lock, ask the cache what it has, write the pipeline.
pub fn ci_generate(req: &CiRequest) -> Result<CiOutcome, OpError> {
    let binary_cache = super::open_binary_cache(&req.settings, &req.access)?;
    let rules = LockRules {
        file: req.lock_file.clone(),
        locked: true,
        ..LockRules::default()
    };
    let plan = super::resolve_plan(&req.inputs, &rules, &req.sources)?;
    let Some(cache) = &binary_cache else {
        return Err(PipelineError::from(DistributedError::NoCache {
            what: "stack ci generate".into(),
        })
        .into());
    };
    let buildable: Vec<_> = plan
        .topo_order()
        .into_iter()
        .filter(|i| !plan.node(*i).is_external())
        .collect();
    let mut missing = Vec::new();
    for idx in &buildable {
        let n = plan.node(*idx);
        let e = CacheEntry {
            name: n.name.clone(),
            version: n.version.to_string(),
            hash: n.hash.clone(),
            prefix: n.prefix.clone(),
            host_prefix: PathBuf::new(),
            build_seconds: None,
        };
        let has = cache.contains(&e).map_err(|err| {
            PipelineError::from(DistributedError::Command {
                command: format!("binary cache {}", cache.url()),
                message: err.to_string(),
            })
        })?;
        if !has {
            missing.push(*idx);
        }
    }
    let mut costs = std::collections::HashMap::new();
    add_cached_costs(cache, &plan, &missing, &mut costs);
    let work = Work::from_plan(&plan, &missing, &costs);
    let ci = req.inputs.cluster.ci.clone().unwrap_or_default();
    let program = ci.stack.clone().unwrap_or_else(|| "stack".into());
    let opts = PipelineOptions {
        command: JobCommand {
            program,
            args: req.job_args.clone(),
        },
        image_label: req.image_label.clone(),
        push_args: req.push_args.clone(),
        group_seconds: req.settings.group_seconds,
        ci,
        stack_name: req.inputs.recipe.name.value.clone(),
    };
    let pipeline = gitlab::pipeline(&work, &opts);
    let jobs = pipeline
        .as_object()
        .map_or(0, |m| m.keys().filter(|k| k.starts_with("build:")).count());
    Ok(CiOutcome {
        yaml: crate::remote::to_yaml(&pipeline),
        jobs,
        pipeline,
        buildable: buildable.len(),
        cached: buildable.len() - missing.len(),
    })
}

/// The lock file `stack ci generate` reads.
pub fn ci_lock_file(req: &CiRequest) -> PathBuf {
    pipeline::lock_file(
        &req.inputs,
        &LockRules {
            file: req.lock_file.clone(),
            ..LockRules::default()
        },
    )
}
