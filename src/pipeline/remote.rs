//! The session's two distributed modes (see [`crate::remote`]):
//! `--only PKG` (a job: build PKG from cache-pulled dependencies and push
//! it) and a remote executor (submit what the cache lacks, wait, pull it).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use petgraph::graph::NodeIndex;

use crate::binary_cache::{BinaryCache, CachePrefixes};
use crate::remote::{DistributedError, RemoteBuilder, RemoteReporter, Work};
use crate::resolve::Plan;

use super::{PipelineError, cache};

/// One `--only` selector: `NAME` (every node of that name) or
/// `NAME/HASH` and `/HASH` (the node whose hash starts with HASH: what
/// distributed jobs give, so that two nodes of one name get a job each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Only<'a> {
    name: &'a str,
    hash: Option<&'a str>,
}

impl<'a> Only<'a> {
    fn parse(text: &'a str) -> Only<'a> {
        match text.split_once('/') {
            Some((name, hash)) => Only {
                name,
                hash: Some(hash),
            },
            None => Only {
                name: text,
                hash: None,
            },
        }
    }

    fn matches(&self, node: &crate::resolve::Node) -> bool {
        (self.name.is_empty() || node.name == self.name)
            && self
                .hash
                .is_none_or(|h| !h.is_empty() && node.hash.starts_with(h))
    }
}

/// Whether one of the `--only` selectors names `node`.
fn selected(only: &[String], node: &crate::resolve::Node) -> bool {
    only.iter().any(|o| Only::parse(o).matches(node))
}

/// The nodes `--only SELECTORS` needs: the selected ones and everything they
/// depend on, transitively. `None` without `--only`.
pub(super) fn only_closure(
    plan: &Plan,
    buildable: &[NodeIndex],
    only: &[String],
) -> Result<Option<HashSet<NodeIndex>>, PipelineError> {
    if only.is_empty() {
        return Ok(None);
    }
    let mut todo = Vec::new();
    for text in only {
        let sel = Only::parse(text);
        let hits: Vec<NodeIndex> = buildable
            .iter()
            .copied()
            .filter(|i| sel.matches(plan.node(*i)))
            .collect();
        let ambiguous = sel.hash.is_some() && hits.len() > 1;
        if hits.is_empty() || ambiguous {
            let known = buildable
                .iter()
                .map(|i| {
                    let n = plan.node(*i);
                    match sel.hash {
                        Some(_) => format!("{}/{}", n.name, &n.hash[..n.hash.len().min(12)]),
                        None => n.name.clone(),
                    }
                })
                .collect();
            return Err(DistributedError::UnknownPackage {
                name: text.clone(),
                known,
            }
            .into());
        }
        todo.extend(hits);
    }
    let mut seen = HashSet::new();
    while let Some(i) = todo.pop() {
        if seen.insert(i) {
            todo.extend(plan.deps(i).into_iter().map(|(d, _)| d));
        }
    }
    Ok(Some(seen))
}

/// `--only`: a dependency of the selected packages that is still missing
/// after the cache was asked is an error (its job has not pushed it).
pub(super) fn check_only_deps(
    plan: &Plan,
    missing: &[NodeIndex],
    only: &[String],
) -> Result<(), PipelineError> {
    if let Some(dep) = missing.iter().find(|i| !selected(only, plan.node(**i))) {
        let n = plan.node(*dep);
        let package = only.join(", ");
        return Err(DistributedError::MissingDependency {
            package,
            dep: format!("{}@{}", n.name, n.version),
            hash: n.hash.clone(),
        }
        .into());
    }
    Ok(())
}

/// The cache that `what` hands packages over through.
pub(super) fn pushing_cache<'c>(
    cache: Option<&'c std::sync::Arc<BinaryCache>>,
    what: &str,
) -> Result<&'c BinaryCache, PipelineError> {
    match cache {
        Some(c) if c.pushes() => Ok(c),
        _ => Err(DistributedError::NoCache {
            what: what.to_string(),
        }
        .into()),
    }
}

/// How the jobs' prefixes reach the submitter's store.
pub(super) enum Handover {
    /// Pushed by the jobs, installed from the binary cache.
    Cache(Option<std::sync::Arc<CachePrefixes>>),
    /// Built by the jobs straight into the (shared) store.
    Store,
}

/// Build `missing` with `remote`, then install it all from the cache (or
/// find it in the shared store).
pub(super) fn build_remotely(
    remote: &dyn RemoteBuilder,
    reporter: &dyn RemoteReporter,
    handover: &Handover,
    plan: &Plan,
    store_dir: &Path,
    missing: Vec<NodeIndex>,
    costs: &HashMap<String, f64>,
) -> Result<Vec<NodeIndex>, PipelineError> {
    let work = Work::from_plan(plan, &missing, costs);
    remote.build(&work, reporter)?;
    let still = match handover {
        Handover::Cache(Some(cache)) => {
            cache.ask_again();
            cache::fill_from_cache(cache, plan, store_dir, missing)?
        }
        Handover::Cache(None) => missing,
        Handover::Store => missing
            .into_iter()
            .filter(|i| {
                let n = plan.node(*i);
                let host = super::prune::host_path(plan, store_dir, &n.prefix);
                !matches!(
                    crate::store::inspect(&host, &n.hash),
                    crate::store::PrefixState::Installed(_)
                )
            })
            .collect(),
    };
    if let Some(i) = still.first() {
        let name = plan.node(*i).name.clone();
        return Err(match handover {
            Handover::Store => DistributedError::NotInStore(name),
            Handover::Cache(_) => DistributedError::NotPushed(name),
        }
        .into());
    }
    Ok(still)
}
