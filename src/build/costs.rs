//! Scheduling cost hints from earlier builds: the wall time each package
//! took the last time it was built in this build directory (or in one of
//! its Slurm jobs' directories, `slurm/*/logs/`), read back from the
//! [`BuildFacts`] records beside the logs.
//! Packages never built here cost the default (1 second's worth).

use std::collections::HashMap;
use std::path::Path;

use crate::store::BuildFacts;

/// Seconds of the most recent recorded build of each package (by name) in
/// `build_dir`. Unreadable records are skipped: they are only hints.
pub fn recorded_costs(build_dir: &Path) -> HashMap<String, f64> {
    let mut latest: HashMap<String, (String, f64)> = HashMap::new();
    read_facts(&build_dir.join("logs"), &mut latest);
    if let Ok(jobs) = fs_err::read_dir(build_dir.join("slurm")) {
        for job in jobs.flatten() {
            read_facts(&job.path().join("logs"), &mut latest);
        }
    }
    latest
        .into_iter()
        .map(|(name, (_, secs))| (name, secs.max(0.01)))
        .collect()
}

/// Add the records of `logs` to `latest` (name → (built at, seconds)),
/// keeping the most recent of each package.
fn read_facts(logs: &Path, latest: &mut HashMap<String, (String, f64)>) {
    let Ok(entries) = fs_err::read_dir(logs) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(facts) = fs_err::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<BuildFacts>(&b).ok())
        else {
            continue;
        };
        let newer = latest
            .get(&facts.name)
            .is_none_or(|(at, _)| facts.built_at > *at);
        if newer && facts.build_seconds.is_finite() {
            latest.insert(facts.name, (facts.built_at, facts.build_seconds));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write_facts;

    fn facts(name: &str, hash: &str, at: &str, secs: f64) -> BuildFacts {
        BuildFacts {
            name: name.into(),
            hash: hash.into(),
            built_at: at.into(),
            build_seconds: secs,
            log: "x.log".into(),
        }
    }

    #[test]
    fn the_latest_recorded_time_of_each_package_is_its_cost() {
        let d = tempfile::tempdir().unwrap();
        let logs = d.path().join("logs");
        let f = |slug: &str, f: BuildFacts| write_facts(&logs.join(format!("{slug}.json")), &f);
        f(
            "a-1-00000000",
            facts("a", "00", "2026-01-01T00:00:00Z", 40.0),
        )
        .unwrap();
        f(
            "a-1-11111111",
            facts("a", "11", "2026-02-01T00:00:00Z", 30.0),
        )
        .unwrap();
        f(
            "b-1-22222222",
            facts("b", "22", "2026-01-01T00:00:00Z", 0.0),
        )
        .unwrap();
        fs_err::write(logs.join("c-1-33333333.json"), "not json").unwrap();
        fs_err::write(logs.join("a-1-00000000.log"), "a log").unwrap();
        let costs = recorded_costs(d.path());
        assert_eq!(costs.len(), 2, "{costs:?}");
        assert_eq!(costs["a"], 30.0);
        assert!(costs["b"] > 0.0);
        assert!(recorded_costs(&d.path().join("nowhere")).is_empty());
    }
}
