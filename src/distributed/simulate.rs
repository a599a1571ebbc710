//! A model of a distributed build, run with the real scheduler
//! ([`crate::build::Schedule`], critical path first): N nodes, each running
//! one package job at a time; a job costs a fixed start-up (submission,
//! queueing, `stack` starting), pulling its dependencies from the registry,
//! building, and pushing its prefix. The registry's bandwidth is per job
//! (the registry is assumed not to saturate). Used by `benches/distributed.rs`.

use crate::build::Schedule;

/// The cluster and the registry.
#[derive(Clone, Copy, Debug)]
pub struct ClusterModel {
    pub nodes: usize,
    /// Seconds from submission to the job's `stack` running (and exiting).
    pub job_overhead: f64,
    /// Bytes per second between a node and the registry.
    pub bandwidth: f64,
}

/// One package of the modelled stack.
#[derive(Clone, Debug)]
pub struct SimPackage {
    /// Indices of its dependencies (earlier packages).
    pub deps: Vec<usize>,
    /// Seconds to build it.
    pub build: f64,
    /// Bytes of its cached prefix.
    pub size: f64,
}

/// What the model gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimResult {
    /// Seconds until the last job ends.
    pub makespan: f64,
    /// The longest chain of jobs (overhead, pulls, build, push), unlimited nodes.
    pub critical_path: f64,
    /// All jobs' seconds added up (one node's makespan).
    pub total: f64,
}

/// Seconds one job of `p` takes on a node.
fn job_seconds(pkgs: &[SimPackage], i: usize, m: &ClusterModel) -> f64 {
    let p = &pkgs[i];
    let pulled: f64 = p.deps.iter().map(|d| pkgs[*d].size).sum();
    m.job_overhead + (pulled + p.size) / m.bandwidth + p.build
}

/// Simulate `pkgs` (dependencies before dependents) on `m`.
pub fn simulate(pkgs: &[SimPackage], m: &ClusterModel) -> SimResult {
    let n = pkgs.len();
    let cost: Vec<f64> = (0..n).map(|i| job_seconds(pkgs, i, m)).collect();
    let deps: Vec<Vec<usize>> = pkgs.iter().map(|p| p.deps.clone()).collect();
    let mut finish_at = vec![0.0f64; n];
    for i in 0..n {
        let ready = deps[i].iter().map(|d| finish_at[*d]).fold(0.0, f64::max);
        finish_at[i] = ready + cost[i];
    }
    let critical_path = finish_at.iter().copied().fold(0.0, f64::max);
    let total = cost.iter().sum();
    let mut sched = Schedule::new(&deps, &cost, &vec![false; n]);
    // Running jobs: (end time, package); free nodes; the clock.
    let mut running: Vec<(f64, usize)> = Vec::new();
    let mut now = 0.0f64;
    let mut done = 0;
    while done < n {
        while running.len() < m.nodes.max(1) {
            let Some(i) = sched.pop() else { break };
            running.push((now + cost[i], i));
        }
        let Some(k) = (0..running.len()).min_by(|a, b| running[*a].0.total_cmp(&running[*b].0))
        else {
            break;
        };
        let (end, i) = running.swap_remove(k);
        now = end;
        sched.finish(i);
        done += 1;
    }
    SimResult {
        makespan: now,
        critical_path,
        total,
    }
}

/// A layered random DAG of `n` packages shaped like a software stack (a
/// few foundation libraries many things need, then layers with 1 to 6
/// dependencies each, favouring the layer below), with build times and
/// sizes drawn in turn from the `measured` (seconds, bytes) pairs scaled
/// by a seeded factor in [0.5, 2). Deterministic for a seed.
pub fn synthetic_stack(n: usize, measured: &[(f64, f64)], seed: u64) -> Vec<SimPackage> {
    let mut x = seed | 1;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let layers = 8usize;
    let per = n.div_ceil(layers).max(1);
    let mut out: Vec<SimPackage> = Vec::with_capacity(n);
    for i in 0..n {
        let layer = i / per;
        let mut deps = Vec::new();
        if layer > 0 {
            let k = 1 + (rnd() * 6.0) as usize;
            for _ in 0..k {
                // Mostly the layer just below, sometimes the foundation.
                let from = if rnd() < 0.7 { (layer - 1) * per } else { 0 };
                let span = (layer * per).min(i) - from;
                let d = from + ((rnd() * span as f64) as usize).min(span.saturating_sub(1));
                if !deps.contains(&d) {
                    deps.push(d);
                }
            }
            deps.sort_unstable();
        }
        let (secs, bytes) = measured[i % measured.len().max(1)];
        let f = 0.5 + 1.5 * rnd();
        out.push(SimPackage {
            deps,
            build: secs * f,
            size: bytes * f,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(nodes: usize) -> ClusterModel {
        ClusterModel {
            nodes,
            job_overhead: 2.0,
            bandwidth: 1e9,
        }
    }

    #[test]
    fn one_node_is_the_sum_and_many_nodes_the_critical_path() {
        let pkgs = synthetic_stack(300, &[(30.0, 1e7), (300.0, 1e8), (5.0, 1e6)], 7);
        assert!(
            pkgs.iter()
                .enumerate()
                .all(|(i, p)| p.deps.iter().all(|d| *d < i))
        );
        let one = simulate(&pkgs, &model(1));
        assert!((one.makespan - one.total).abs() < 1e-6);
        let many = simulate(&pkgs, &model(1000));
        assert!((many.makespan - many.critical_path).abs() < 1e-6);
        let four = simulate(&pkgs, &model(4)).makespan;
        let sixteen = simulate(&pkgs, &model(16)).makespan;
        assert!(four < one.makespan && sixteen < four && sixteen >= many.critical_path);
        // Never better than the work spread evenly.
        assert!(four >= one.total / 4.0 - 1e-6);
    }

    #[test]
    fn a_chain_does_not_parallelise() {
        let pkgs: Vec<SimPackage> = (0..5)
            .map(|i| SimPackage {
                deps: if i == 0 { vec![] } else { vec![i - 1] },
                build: 10.0,
                size: 0.0,
            })
            .collect();
        let r = simulate(&pkgs, &model(8));
        assert_eq!(r.makespan, 60.0);
        assert_eq!(r.critical_path, 60.0);
    }
}
