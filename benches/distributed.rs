//! Makespan of a several-hundred-package stack on 1, 4, 16 and 64 nodes,
//! from the model in `stack::remote::simulate` (the real scheduler)
//! with per-package build times and prefix sizes measured in a real build
//! directory.
//!
//!   STACK_SIM_BUILD=build/cxi-mini cargo bench --bench distributed
//!
//! Knobs (environment): STACK_SIM_BUILD (a build directory with logs/ and
//! store/), STACK_SIM_PACKAGES (400), STACK_SIM_OVERHEAD (seconds per job,
//! default 10), STACK_SIM_BANDWIDTH (bytes/s per job, default 100e6),
//! STACK_SIM_SCALE (build times multiplied, default 1), STACK_SIM_SIZE (bytes
//! of a prefix when the build directory has no store/, default 20e6),
//! STACK_SIM_GROUP (the executors' `--group-seconds` for the grouped
//! columns, default 60).
//! `cargo test --bench distributed` runs it without a release build.

use std::path::{Path, PathBuf};

use stack::remote::simulate::{ClusterModel, simulate, simulate_grouped, synthetic_stack};

fn env_f64(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn dir_size(p: &Path) -> f64 {
    walkdir::WalkDir::new(p)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len() as f64)
        .sum()
}

/// (seconds, bytes) of every package built in `build`.
fn measured(build: &Path) -> Vec<(f64, f64)> {
    let costs = stack::build::recorded_costs(build);
    let mut out = Vec::new();
    let mut names: Vec<_> = costs.keys().cloned().collect();
    names.sort();
    for name in names {
        let prefix = walkdir::WalkDir::new(build.join("store"))
            .max_depth(3)
            .into_iter()
            .flatten()
            .find(|e| {
                e.file_type().is_dir()
                    && e.file_name()
                        .to_string_lossy()
                        .starts_with(&format!("{name}-"))
            });
        let size = prefix
            .map(|p| dir_size(p.path()))
            .unwrap_or_else(|| env_f64("STACK_SIM_SIZE", 20e6));
        println!(
            "measured {name:<24} {:>8.2} s {:>12.0} bytes",
            costs[&name], size
        );
        out.push((costs[&name], size));
    }
    out
}

fn main() {
    let build =
        PathBuf::from(std::env::var("STACK_SIM_BUILD").unwrap_or_else(|_| "build/cxi-mini".into()));
    let scale = env_f64("STACK_SIM_SCALE", 1.0);
    let m: Vec<(f64, f64)> = measured(&build)
        .into_iter()
        .map(|(s, b)| (s * scale, b))
        .collect();
    if m.is_empty() {
        println!(
            "no measured builds in {} (set STACK_SIM_BUILD to a build directory)",
            build.display()
        );
        return;
    }
    let n = env_f64("STACK_SIM_PACKAGES", 400.0) as usize;
    let overhead = env_f64("STACK_SIM_OVERHEAD", 10.0);
    let bandwidth = env_f64("STACK_SIM_BANDWIDTH", 100e6);
    let pkgs = synthetic_stack(n, &m, 42);
    let edges: usize = pkgs.iter().map(|p| p.deps.len()).sum();
    let build_sum: f64 = pkgs.iter().map(|p| p.build).sum();
    println!(
        "\n{n} packages, {edges} dependency edges, build times x{scale} (sum {build_sum:.0} s), job overhead {overhead} s, {:.0} MB/s per job",
        bandwidth / 1e6
    );
    let group = env_f64("STACK_SIM_GROUP", 60.0);
    let model = |nodes| ClusterModel {
        nodes,
        job_overhead: overhead,
        bandwidth,
    };
    println!("one job per package vs grouped (--group-seconds {group})");
    println!(
        "{:>6} {:>6} {:>11} {:>8} {:>9} | {:>6} {:>11} {:>8} {:>9} | {:>8}",
        "nodes",
        "jobs",
        "makespan s",
        "CP s",
        "speed-up",
        "jobs",
        "makespan s",
        "CP s",
        "speed-up",
        "grouped/1"
    );
    let one = simulate(&pkgs, &model(1)).makespan;
    for nodes in [1, 4, 16, 64] {
        let a = simulate(&pkgs, &model(nodes));
        let b = simulate_grouped(&pkgs, &model(nodes), group);
        println!(
            "{nodes:>6} {:>6} {:>11.0} {:>8.0} {:>9.2} | {:>6} {:>11.0} {:>8.0} {:>9.2} | {:>8.2}",
            a.jobs,
            a.makespan,
            a.critical_path,
            one / a.makespan,
            b.jobs,
            b.makespan,
            b.critical_path,
            one / b.makespan,
            b.makespan / a.makespan
        );
    }
}
