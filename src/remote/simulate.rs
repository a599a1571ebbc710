//! A model of a distributed build, run with the real scheduler
//! ([`crate::build::Schedule`], critical path first): N nodes, each running
//! one job at a time; the jobs are the groups the executors submit
//! ([`Work::groups`] with a threshold, 0 for one job per package). A job
//! costs a fixed start-up (submission, queueing, `stack` starting), pulling
//! the prefixes its packages need from other jobs, building its packages
//! one after another (an upper bound: the local scheduler may run
//! independent ones side by side), and pushing them. The registry's
//! bandwidth is per job (the registry is assumed not to saturate). Used by
//! `benches/distributed.rs`.

use crate::build::Schedule;

use super::{Package, Work};

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
    /// Number of jobs.
    pub jobs: usize,
}

/// The job graph the executors submit for `pkgs`: [`Work::groups`] with
/// `threshold` (0: one job per package), each package's cost its build
/// time. Per job: the indices of the jobs it waits for, and its seconds on
/// a node (overhead, pulling the prefixes its packages need from other
/// jobs, building its packages one after another, pushing them).
pub fn jobs(pkgs: &[SimPackage], m: &ClusterModel, threshold: f64) -> (Vec<Vec<usize>>, Vec<f64>) {
    let work = Work {
        packages: pkgs
            .iter()
            .enumerate()
            .map(|(i, p)| Package {
                name: format!("p{i}"),
                version: "1".into(),
                hash: format!("{i:016x}"),
                deps: p.deps.clone(),
                cost: p.build,
            })
            .collect(),
    };
    let groups = work.groups(threshold);
    let cost = groups
        .iter()
        .map(|g| {
            let mut pulled: Vec<usize> = g
                .packages
                .iter()
                .flat_map(|k| pkgs[*k].deps.iter().copied())
                .filter(|d| !g.packages.contains(d))
                .collect();
            pulled.sort_unstable();
            pulled.dedup();
            let pulled: f64 = pulled.iter().map(|d| pkgs[*d].size).sum();
            let own: f64 = g.packages.iter().map(|k| pkgs[*k].size).sum();
            let build: f64 = g.packages.iter().map(|k| pkgs[*k].build).sum();
            m.job_overhead + (pulled + own) / m.bandwidth + build
        })
        .collect();
    (groups.into_iter().map(|g| g.deps).collect(), cost)
}

/// Simulate `pkgs` (dependencies before dependents) on `m`, one job per
/// package.
pub fn simulate(pkgs: &[SimPackage], m: &ClusterModel) -> SimResult {
    simulate_grouped(pkgs, m, 0.0)
}

/// Simulate `pkgs` on `m` with the packages grouped into jobs as the
/// executors group them ([`jobs`], `--group-seconds threshold`).
pub fn simulate_grouped(pkgs: &[SimPackage], m: &ClusterModel, threshold: f64) -> SimResult {
    let (deps, cost) = jobs(pkgs, m, threshold);
    run(&deps, &cost, m.nodes)
}

/// Run jobs (`deps[i]` before `i`, `cost[i]` seconds) on `nodes` nodes in
/// the real scheduler's order.
fn run(deps: &[Vec<usize>], cost: &[f64], nodes: usize) -> SimResult {
    let n = cost.len();
    let mut finish_at = vec![0.0f64; n];
    for i in 0..n {
        let ready = deps[i].iter().map(|d| finish_at[*d]).fold(0.0, f64::max);
        finish_at[i] = ready + cost[i];
    }
    let critical_path = finish_at.iter().copied().fold(0.0, f64::max);
    let total = cost.iter().sum();
    let mut sched = Schedule::new(deps, cost, &vec![false; n]);
    // Running jobs: (end time, job); free nodes; the clock.
    let mut running: Vec<(f64, usize)> = Vec::new();
    let mut now = 0.0f64;
    let mut done = 0;
    while done < n {
        while running.len() < nodes.max(1) {
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
        jobs: n,
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

    /// Many small packages, a few layers: the shape where a job's
    /// start-up is most of its time.
    fn small_stack(build: f64) -> Vec<SimPackage> {
        synthetic_stack(200, &[(build, 1e6), (build * 2.0, 1e6)], 3)
    }

    fn with_overhead(nodes: usize, job_overhead: f64) -> ClusterModel {
        ClusterModel {
            nodes,
            job_overhead,
            bandwidth: 1e9,
        }
    }

    #[test]
    fn grouping_cuts_the_makespan_when_the_job_overhead_dominates() {
        // Builds of 0.5-4 s, 30 s to start a job, threshold 60 s: on few
        // nodes the makespan is the jobs' total, and grouping pays the
        // start-up 7 times instead of 200.
        let pkgs = small_stack(1.0);
        for nodes in [1, 4] {
            let m = with_overhead(nodes, 30.0);
            let single = simulate(&pkgs, &m);
            let grouped = simulate_grouped(&pkgs, &m, 60.0);
            assert_eq!(single.jobs, pkgs.len());
            assert!(grouped.jobs < pkgs.len() / 4, "{grouped:?}");
            assert!(
                grouped.makespan < 0.5 * single.makespan,
                "{nodes} nodes: grouped {grouped:?} vs {single:?}"
            );
        }
    }

    #[test]
    fn on_many_nodes_a_groups_serial_builds_lengthen_the_critical_path() {
        // The trade-off of the threshold: with nodes to spare, the
        // makespan is the critical path, and a group's dependents wait
        // for all of it (the model builds a group's packages one after
        // another, though a wave's packages are independent).
        let pkgs = small_stack(1.0);
        let m = with_overhead(64, 30.0);
        let single = simulate(&pkgs, &m);
        let grouped = simulate_grouped(&pkgs, &m, 60.0);
        assert_eq!(single.makespan, single.critical_path);
        assert!(grouped.critical_path > single.critical_path);
        // A threshold about the overhead keeps more jobs side by side.
        let small = simulate_grouped(&pkgs, &m, 10.0);
        assert!(small.makespan < grouped.makespan, "{small:?}");
    }

    #[test]
    fn grouping_changes_nothing_when_builds_dominate() {
        // Builds of 150-1200 s, 1 s to start a job: every package is over
        // the threshold, so every job is one package as without grouping.
        let pkgs = small_stack(300.0);
        for nodes in [1, 4, 16, 64] {
            let m = with_overhead(nodes, 1.0);
            let single = simulate(&pkgs, &m);
            let grouped = simulate_grouped(&pkgs, &m, 60.0);
            assert_eq!(grouped, single);
        }
    }

    #[test]
    fn a_group_pays_one_overhead_and_pulls_only_from_other_jobs() {
        // a and b independent (both small, one job), c big on b (its own job).
        let p = |deps: Vec<usize>, build: f64| SimPackage {
            deps,
            build,
            size: 1e9,
        };
        let pkgs = vec![p(vec![], 5.0), p(vec![], 5.0), p(vec![1], 100.0)];
        let (deps, cost) = jobs(&pkgs, &with_overhead(1, 10.0), 60.0);
        assert_eq!(deps, vec![vec![], vec![0]]);
        // Job 0: 10 s + push 2 GB (2 s) + 10 s; job 1: 10 + pull 1 + push 1 + 100.
        assert_eq!(cost, vec![22.0, 112.0]);
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
