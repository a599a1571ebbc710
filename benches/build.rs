//! Build-engine benchmarks (`cargo bench --bench build`).
//!
//! 1. Scheduler: a synthetic DAG of 40 `generic` packages whose builds sleep
//!    known durations; makespan vs the lower bound
//!    max(critical path, total work / jobs). Goal: within 1.1x.
//! 2. Tool overhead per package: wall time minus time in child processes,
//!    for the synthetic packages and for real fixture builds. Goal: < 20 ms.
//! 3. Compiler wrapper overhead per call: `stack` as `cc` in front of
//!    `/bin/true` (pure wrapper cost) and of `gcc` (relative cost).
//! 4. A no-op `run_plan` over already installed packages.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use stack::build::*;

const STACK: &str = env!("CARGO_BIN_EXE_stack");
const STACK_WRAP: &str = env!("CARGO_BIN_EXE_stack-wrap");

/// The fixture jobs of the build tests.
#[path = "../tests/it/harness/build.rs"]
#[allow(dead_code)]
mod support;

fn options(root: &Path, jobs: usize) -> BuildOptions {
    let mut o = support::options(&root.join("build"), &root.join("ue"), MountMode::Direct);
    o.jobs = jobs;
    o.wrapper_log = false;
    o
}

/// Deterministic pseudo-random numbers (no extra dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Dag {
    durations: Vec<f64>,
    deps: Vec<Vec<usize>>,
}

fn synthetic_dag(seed: u64, n: usize) -> Dag {
    let mut r = Lcg(seed);
    let mut durations = Vec::new();
    let mut deps = Vec::new();
    for i in 0..n {
        durations.push(0.05 + r.below(10) as f64 * 0.05); // 0.05 .. 0.50 s
        let mut d = Vec::new();
        if i > 0 {
            for _ in 0..r.below(4) {
                let k = r.below(i as u64) as usize;
                if !d.contains(&k) {
                    d.push(k);
                }
            }
        }
        deps.push(d);
    }
    Dag { durations, deps }
}

fn lower_bound(dag: &Dag, jobs: usize) -> (f64, f64) {
    let n = dag.durations.len();
    let mut finish = vec![0.0f64; n];
    for i in 0..n {
        // deps point to earlier nodes only
        let before = dag.deps[i].iter().map(|&d| finish[d]).fold(0.0, f64::max);
        finish[i] = before + dag.durations[i];
    }
    let cp = finish.iter().copied().fold(0.0, f64::max);
    let total: f64 = dag.durations.iter().sum();
    (cp, total / jobs as f64)
}

/// Makespan of the same critical-path-first list schedule with zero
/// overhead (simulated with the library's `Schedule`): what the DAG allows.
fn simulated(dag: &Dag, jobs: usize, hints: bool) -> f64 {
    let n = dag.durations.len();
    let cost: Vec<f64> = if hints {
        dag.durations.clone()
    } else {
        vec![1.0; n]
    };
    let mut s = Schedule::new(&dag.deps, &cost, &vec![false; n]);
    let mut now = 0.0f64;
    let mut running: Vec<(f64, usize)> = Vec::new();
    loop {
        while running.len() < jobs {
            let Some(i) = s.pop() else { break };
            running.push((now + dag.durations[i], i));
        }
        if running.is_empty() {
            return now;
        }
        running.sort_by(|a, b| b.0.total_cmp(&a.0));
        let (t, i) = running.pop().unwrap();
        now = t;
        s.finish(i);
    }
}

fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mean = v.iter().map(|d| ms(*d)).sum::<f64>() / v.len() as f64;
    format!(
        "median {:.2} ms, mean {:.2} ms, p90 {:.2} ms, max {:.2} ms (n={})",
        ms(v[v.len() / 2]),
        mean,
        ms(v[v.len() * 9 / 10]),
        ms(v[v.len() - 1]),
        v.len()
    )
}

fn bench_makespan(jobs: usize, hints: bool, seed: u64) -> Vec<Timing> {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs_err::create_dir_all(&src).unwrap();
    fs_err::write(src.join("README"), "synthetic package\n").unwrap();
    let dag = synthetic_dag(seed, 40);
    let opts = options(tmp.path(), jobs);
    let mut g = BuildGraph::new();
    let mut ids = Vec::new();
    for (i, d) in dag.durations.iter().enumerate() {
        let mut j = support::job(
            &opts.mount,
            &format!("p{i:02}"),
            src.clone(),
            BuildSystem::new("generic"),
        );
        j.steps.pre_build = vec![vec!["sleep".into(), format!("{d:.3}")]];
        if hints {
            j.cost = Some(*d);
        }
        ids.push(g.add(j));
    }
    for (i, ds) in dag.deps.iter().enumerate() {
        for &d in ds {
            g.depends_on(ids[i], ids[d]);
        }
    }
    let summary = run_plan(&g, &opts, &NoopReporter).unwrap();
    assert!(summary.success());
    let (cp, work) = lower_bound(&dag, jobs);
    let lb = cp.max(work);
    let makespan = summary.wall.as_secs_f64();
    let sim = simulated(&dag, jobs, hints);
    println!(
        "  seed {seed:>2} -j{jobs} {:<13} makespan {makespan:.3} s, critical path {cp:.3} s, work/jobs {work:.3} s → ratio {:.3} (zero-overhead list schedule {sim:.3} s = {:.3}x bound)",
        if hints { "cost hints" } else { "default costs" },
        makespan / lb,
        sim / lb
    );
    summary.packages.iter().map(|p| p.timing.clone()).collect()
}

/// Median time per phase (phases without child processes are pure overhead).
fn phase_medians(timings: &[Timing]) -> String {
    let mut all: std::collections::BTreeMap<Phase, Vec<Duration>> = Default::default();
    for t in timings {
        for (p, d) in &t.phases {
            all.entry(*p).or_default().push(*d);
        }
    }
    all.iter_mut()
        .map(|(p, v)| {
            v.sort();
            format!("{p} {:.2} ms", v[v.len() / 2].as_secs_f64() * 1e3)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn bench_real_overhead() -> (Vec<(String, Timing)>, Duration) {
    let tmp = tempfile::tempdir().unwrap();
    let opts = options(tmp.path(), 2);
    let mount = opts.mount.clone();
    let calc = support::makefile_calc(&mount);
    let greet = support::cmake_greet(&mount, &calc);
    let mk = support::makefile_mktool(&mount, &calc);
    let headers = support::generic_headers(&mount);
    let mut g = BuildGraph::new();
    let c = g.add(calc);
    let gr = g.add(greet);
    let m = g.add(mk);
    g.add(headers);
    g.depends_on(gr, c);
    g.depends_on(m, c);
    let summary = run_plan(&g, &opts, &NoopReporter).unwrap();
    assert!(summary.success(), "{:#?}", summary.packages);
    let rows = summary
        .packages
        .iter()
        .map(|p| (p.name.clone(), p.timing.clone()))
        .collect();
    let mut noop = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let s = run_plan(&g, &opts, &NoopReporter).unwrap();
        noop.push(t.elapsed());
        assert_eq!(s.reused().count(), 4);
    }
    noop.sort();
    (rows, noop[noop.len() / 2])
}

/// CPU time (user + system) of all waited-for children so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage fills the struct.
    let mut ru: nix::libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { nix::libc::getrusage(nix::libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: nix::libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Mean wall time and mean CPU time per call.
fn time_calls(n: usize, mut make: impl FnMut() -> Command) -> (Duration, Duration) {
    let cpu0 = children_cpu();
    let t = Instant::now();
    for _ in 0..n {
        let st = make().status().unwrap();
        assert!(st.success());
    }
    (t.elapsed() / n as u32, (children_cpu() - cpu0) / n as u32)
}

fn bench_wrapper(program: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let wrap = tmp.path().join("wrap");
    stack::build::wrapper::install_links(&wrap, Path::new(program)).unwrap();
    let src = tmp.path().join("x.c");
    fs_err::write(&src, "int f(int a) { return a + 1; }\n").unwrap();
    let dirs = |sub: &str| {
        (0..3)
            .map(|i| format!("/user-environment/dep{i}/{sub}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    let configure = |cmd: &mut Command, real: &str| {
        cmd.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("STACK_WRAP_REAL_CC", real)
            .env("STACK_WRAP_INCLUDES", dirs("include"))
            .env("STACK_WRAP_LIBDIRS", dirs("lib"))
            .env("STACK_WRAP_RPATHS", dirs("lib"));
    };
    let out = tmp.path().join("x.o");
    let args = |cmd: &mut Command| {
        cmd.arg("-c").arg(&src).arg("-o").arg(&out);
    };
    let one = |through_wrapper: bool, real: &str| {
        let mut c = Command::new(if through_wrapper {
            wrap.join("cc")
        } else {
            real.into()
        });
        configure(&mut c, real);
        args(&mut c);
        c
    };
    // Interleave direct and wrapped calls in small rounds, so load changes
    // on a shared machine hit both sides alike.
    let pair = |n: usize, real: &str| {
        let (mut d, mut w) = (
            (Duration::ZERO, Duration::ZERO),
            (Duration::ZERO, Duration::ZERO),
        );
        for _ in 0..n / 10 {
            let a = time_calls(10, || one(false, real));
            let b = time_calls(10, || one(true, real));
            d = (d.0 + a.0 * 10, d.1 + a.1 * 10);
            w = (w.0 + b.0 * 10, w.1 + b.1 * 10);
        }
        let k = (n / 10 * 10) as u32;
        ((d.0 / k, d.1 / k), (w.0 / k, w.1 / k))
    };
    let (direct_true, wrapped_true) = pair(400, "/bin/true");
    let (direct_gcc, wrapped_gcc) = pair(60, "/usr/bin/gcc");
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let name = Path::new(program).file_name().unwrap().to_string_lossy();
    println!(
        "  {name} as cc → /bin/true: wall {:.0} µs vs {:.0} µs direct → +{:.0} µs per call; CPU {:.0} µs vs {:.0} µs → +{:.0} µs per call",
        us(wrapped_true.0),
        us(direct_true.0),
        us(wrapped_true.0.saturating_sub(direct_true.0)),
        us(wrapped_true.1),
        us(direct_true.1),
        us(wrapped_true.1.saturating_sub(direct_true.1))
    );
    println!(
        "  {name} as cc → gcc -c (tiny file): wall {:.2} ms vs {:.2} ms direct ({:+.1} %); CPU {:.2} ms vs {:.2} ms ({:+.1} %)",
        us(wrapped_gcc.0) / 1e3,
        us(direct_gcc.0) / 1e3,
        (us(wrapped_gcc.0) / us(direct_gcc.0) - 1.0) * 100.0,
        us(wrapped_gcc.1) / 1e3,
        us(direct_gcc.1) / 1e3,
        (us(wrapped_gcc.1) / us(direct_gcc.1) - 1.0) * 100.0
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects sections.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let want = |s: &str| filter.is_empty() || filter.iter().any(|f| s.contains(f.as_str()));

    if want("scheduler") {
        println!("scheduler: 40 generic packages sleeping 0.05-0.50 s, random DAG");
        let mut timings = Vec::new();
        for seed in [1, 2, 3] {
            for jobs in [4, 8] {
                timings.extend(bench_makespan(jobs, true, seed));
                timings.extend(bench_makespan(jobs, false, seed));
            }
        }
        let overhead = timings.iter().map(Timing::overhead).collect();
        println!(
            "overhead per synthetic package (wall - children): {}",
            stats(overhead)
        );
        let cpu = timings.iter().map(|t| t.cpu).collect();
        println!("  own CPU time per synthetic package: {}", stats(cpu));
        println!("  median per phase: {}", phase_medians(&timings));
    }
    if want("real") {
        println!("real fixture builds (-j2):");
        let (rows, noop) = bench_real_overhead();
        for (name, t) in rows {
            println!(
                "  {name:<8} wall {:>8.1} ms, tool overhead {:>6.2} ms (own CPU {:.2} ms; {})",
                t.wall.as_secs_f64() * 1e3,
                t.overhead().as_secs_f64() * 1e3,
                t.cpu.as_secs_f64() * 1e3,
                phase_medians(std::slice::from_ref(&t))
            );
        }
        println!(
            "no-op run_plan over the 4 installed packages: {:.2} ms (median of 20)",
            noop.as_secs_f64() * 1e3
        );
    }
    if want("wrapper") {
        println!("compiler wrapper (3 dependencies):");
        bench_wrapper(STACK_WRAP);
        bench_wrapper(STACK);
    }
}
