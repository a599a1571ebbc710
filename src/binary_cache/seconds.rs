//! Build times in the binary cache: every pushed prefix's manifest carries
//! the seconds its build took (`dev.stack.build_seconds`), so that a
//! package built elsewhere (another build directory, a Slurm or CI job)
//! has a measured cost here. Manifests pushed before this annotation have
//! none: their packages keep the estimate by build system.
//!
//! A package still to build is not in the cache under its own hash; the
//! cost is taken from an earlier build of the same package (another hash:
//! another version, variant or dependency) under the same repository,
//! preferring one of the same version.

use std::collections::{BTreeMap, HashMap};

use petgraph::graph::NodeIndex;

use crate::oci::DistributeError;
use crate::resolve::Plan;

use super::BinaryCache;

/// The manifest annotation with the build's wall time in seconds.
pub const BUILD_SECONDS: &str = "dev.stack.build_seconds";

/// How many of a repository's manifests are read looking for a time.
const MANIFESTS_READ: usize = 3;

/// The annotation's value as text (two decimals).
pub fn format_seconds(secs: f64) -> String {
    format!("{secs:.2}")
}

/// The build seconds recorded in a manifest's annotations: `None` when
/// absent (an older push) or not a finite, non-negative number.
pub fn recorded_seconds(annotations: &BTreeMap<String, String>) -> Option<f64> {
    let secs: f64 = annotations.get(BUILD_SECONDS)?.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some(secs)
}

impl BinaryCache {
    /// The build seconds of an earlier build of `name` in the cache: of
    /// version `version` when one of the first few manifests read is,
    /// else of any; `None` when no manifest read records one.
    pub fn build_seconds(&self, name: &str, version: &str) -> Result<Option<f64>, DistributeError> {
        let tags = self.registry.tags(&self.repository(name))?;
        let mut any = None;
        for tag in tags.into_iter().take(MANIFESTS_READ) {
            let r = self.tagged(name, tag);
            let what = r.to_string();
            let Ok(m) = self.registry.get_manifest(&r)?.manifest(&what) else {
                continue;
            };
            let Some(secs) = recorded_seconds(&m.annotations) else {
                continue;
            };
            if m.annotations.get("dev.stack.version").map(String::as_str) == Some(version) {
                return Ok(Some(secs));
            }
            any.get_or_insert(secs);
        }
        Ok(any)
    }
}

/// Add to `costs` (package name → seconds) the cache's build seconds of
/// each of `nodes` of `plan` that has no cost yet. Costs are hints: the
/// first registry error stops the lookups (logged), it never fails the
/// caller.
pub fn add_cached_costs(
    cache: &BinaryCache,
    plan: &Plan,
    nodes: &[NodeIndex],
    costs: &mut HashMap<String, f64>,
) {
    for idx in nodes {
        let (name, version) = (&plan.node(*idx).name, plan.node(*idx).version.to_string());
        if costs.contains_key(name) {
            continue;
        }
        match cache.build_seconds(name, &version) {
            Ok(Some(secs)) => {
                tracing::debug!("{name}: {secs} s from the binary cache");
                costs.insert(name.clone(), secs.max(0.01));
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!("binary cache {}: no build times: {e}", cache.url());
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_annotation_round_trips() {
        let a = ann(&[(BUILD_SECONDS, &format_seconds(16.0432))]);
        assert_eq!(recorded_seconds(&a), Some(16.04));
    }

    #[test]
    fn older_pushes_and_bad_values_have_no_time() {
        // A manifest pushed before build times were recorded.
        let old = ann(&[
            ("dev.stack.name", "zlib"),
            ("dev.stack.version", "1.3"),
            ("dev.stack.hash", "0123"),
            ("dev.stack.prefix", "/user-environment/zlib"),
        ]);
        assert_eq!(recorded_seconds(&old), None);
        for bad in ["", "soon", "-1", "NaN", "inf"] {
            assert_eq!(
                recorded_seconds(&ann(&[(BUILD_SECONDS, bad)])),
                None,
                "{bad}"
            );
        }
        assert_eq!(recorded_seconds(&ann(&[(BUILD_SECONDS, " 0 ")])), Some(0.0));
    }
}
