//! Packages whose source could not be fetched, staged or patched. Without
//! `--fail-fast` they fail on their own: their dependents are skipped and
//! every independent package still builds (like a failed build step).

use std::collections::BTreeMap;

use petgraph::graph::NodeIndex;

use crate::build::{BuildSummary, JobId, PackageReport, PackageStatus, Phase, Timing};
use crate::resolve::Plan;

/// Why a node is left out of the build graph.
enum Why {
    /// Its source failed with this message.
    Failed(String),
    /// Its dependency (by name) failed or was skipped.
    Skipped(String),
}

/// The nodes whose sources failed, and what that means for the others.
#[derive(Default)]
pub(crate) struct SourceFailures {
    failed: BTreeMap<NodeIndex, String>,
    left_out: BTreeMap<NodeIndex, Why>,
}

impl SourceFailures {
    pub fn record(&mut self, idx: NodeIndex, message: String) {
        self.failed.entry(idx).or_insert(message);
    }

    /// Decides which of `buildable` (in topological order, dependencies
    /// first) are left out: the failed ones and everything that depends on
    /// them. Returns the nodes that still build.
    pub fn keep(&mut self, plan: &Plan, buildable: &[NodeIndex]) -> Vec<NodeIndex> {
        let mut kept = Vec::new();
        for &idx in buildable {
            if let Some(m) = self.failed.get(&idx) {
                self.left_out.insert(idx, Why::Failed(m.clone()));
                continue;
            }
            let cause = plan
                .deps(idx)
                .into_iter()
                .find(|(d, _)| self.left_out.contains_key(d))
                .map(|(d, _)| plan.node(d).name.clone());
            match cause {
                Some(name) => {
                    self.left_out.insert(idx, Why::Skipped(name));
                }
                None => kept.push(idx),
            }
        }
        kept
    }

    /// Adds a report per node left out to the build's summary.
    pub fn report(&self, plan: &Plan, summary: &mut BuildSummary) {
        for (idx, why) in &self.left_out {
            let node = plan.node(*idx);
            let status = match why {
                Why::Failed(message) => PackageStatus::Failed {
                    phase: Phase::Stage,
                    message: format!("its source could not be fetched or staged: {message}"),
                    log_tail: Vec::new(),
                },
                Why::Skipped(dep) => PackageStatus::Skipped {
                    because: format!("dependency `{dep}` failed"),
                },
            };
            summary.packages.push(PackageReport {
                id: JobId(summary.packages.len()),
                name: node.name.clone(),
                version: node.version.to_string(),
                hash: node.hash.clone(),
                prefix: node.prefix.clone(),
                status,
                log: None,
                timing: Timing::default(),
            });
        }
    }
}
