//! Resolver benchmark (`cargo bench --bench resolve`, harness = false).
//!
//! Three stacks, each timed (a) in-process: loading the inputs (YAML of the
//! recipe, cluster and every package recipe) plus resolving, and resolving
//! alone; (b) as a whole `stack resolve --format json` process, warm cache:
//! - `demo`: `stacks/demo.yaml` (7 packages);
//! - `alps-like`: `tests/fixtures/resolve/stacks/alps-like.yaml` on the
//!   `gh200` fixture cluster (~36 packages, virtual mpi, conditional deps);
//! - `alps-cxi`: the shipped `stacks/alps-cxi.yaml` on
//!   `cluster-configs/alps-gh200`, when the checkout has them;
//! - `synthetic-1000`: a generated repository of 1,000 packages with ~5
//!   dependencies each (a third of them conditional), variants, and one
//!   virtual with three providers; the stack's roots reach all of it.
//!
//! Goals (issue 3): < 20 ms for the first two, < 1 s for the third, whole
//! process. `RESOLVE_BENCH_KEEP=DIR` keeps the generated repository in DIR
//! (to time it with hyperfine); `RESOLVE_BENCH_RUNS=N` sets the repetitions.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use stack::recipe::{InputOptions, load_inputs};
use stack::resolve::{ResolveOptions, resolve};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

struct Case {
    name: &'static str,
    recipe: PathBuf,
    cluster: PathBuf,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Deterministic pseudo-random numbers (64-bit LCG).
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

/// Writes the synthetic repository, cluster and stack under `dir`.
fn synthetic(dir: &Path, packages: usize) -> Case {
    let recipes = dir.join("recipes");
    std::fs::create_dir_all(&recipes).unwrap();
    std::fs::create_dir_all(dir.join("cluster")).unwrap();
    let mut rng = Lcg(42);
    let providers = [packages - 3, packages - 2, packages - 1];
    for i in 0..packages {
        let mut y = format!("name: p{i:04}\ndescription: synthetic package {i}\nversions:\n");
        for v in ["2.0", "1.1", "1.0"] {
            y.push_str(&format!(
                "  - {{version: \"{v}\", url: https://example.org/p{i:04}-{v}.tar.gz, sha256: {:064x}}}\n",
                (i as u64) * 7 + v.len() as u64
            ));
        }
        y.push_str(&format!(
            "variants:\n  feat: {{default: {}}}\n  level: {{default: a, values: [a, b, c]}}\n",
            i % 3 == 0
        ));
        let mut deps: Vec<String> = Vec::new();
        if i + 1 < packages - 3 {
            let window = (packages - 3 - i - 1).min(60) as u64;
            let mut targets: Vec<usize> = Vec::new();
            for _ in 0..5 {
                let j = i + 1 + rng.below(window) as usize;
                if !targets.contains(&j) {
                    targets.push(j);
                }
            }
            for j in targets {
                let r = rng.below(10);
                deps.push(match r {
                    0..=2 => format!("  - {{spec: p{j:04}, when: \"+feat\"}}\n"),
                    3 => format!("  - {{spec: \"p{j:04}@1:\", type: link}}\n"),
                    4 => format!("  - {{spec: p{j:04}, type: build}}\n"),
                    _ => format!("  - p{j:04}\n"),
                });
            }
        }
        if i % 50 == 7 {
            deps.push("  - vapi\n".to_string());
        }
        if !deps.is_empty() {
            y.push_str("dependencies:\n");
            for d in deps {
                y.push_str(&d);
            }
        }
        if providers.contains(&i) {
            y.push_str("provides: [vapi]\n");
        }
        y.push_str("build:\n  system: autotools\n  configure_args: [\"--enable-x\", {when: \"+feat\", args: [\"--with-feat\"]}]\n");
        std::fs::write(recipes.join(format!("p{i:04}.yaml")), y).unwrap();
    }
    std::fs::write(
        dir.join("cluster/cluster.yaml"),
        "name: synthetic\ntarget: x86_64\ncompilers:\n  - {spec: gcc@12.2.0, cc: /usr/bin/gcc}\n",
    )
    .unwrap();
    let roots: Vec<String> = (0..10).map(|i| format!("p{i:04}")).collect();
    std::fs::write(
        dir.join("stack.yaml"),
        format!(
            "name: synthetic\nenvironments:\n  all:\n    specs: [{}, \"p0003 +feat\"]\n",
            roots.join(", ")
        ),
    )
    .unwrap();
    Case {
        name: "synthetic-1000",
        recipe: dir.join("stack.yaml"),
        cluster: dir.join("cluster"),
    }
}

fn in_process(case: &Case, runs: usize) -> (Duration, Duration, usize) {
    let mut total = Vec::new();
    let mut solve = Vec::new();
    let mut nodes = 0;
    for _ in 0..runs {
        let t0 = Instant::now();
        let inputs = load_inputs(&InputOptions {
            recipe: case.recipe.clone(),
            cluster: Some(case.cluster.clone()),
            no_builtin: true,
            ..InputOptions::default()
        })
        .unwrap_or_else(|d| panic!("{}: {d:?}", case.name));
        let t1 = Instant::now();
        let plan = resolve(
            &inputs.recipe,
            &inputs.cluster,
            &inputs.repo,
            &ResolveOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let t2 = Instant::now();
        nodes = plan.graph.node_count();
        total.push(t2 - t0);
        solve.push(t2 - t1);
    }
    (median(total), median(solve), nodes)
}

fn whole_process(case: &Case, runs: usize) -> Duration {
    let exe = env!("CARGO_BIN_EXE_stack");
    let mut times = Vec::new();
    for _ in 0..runs {
        let t0 = Instant::now();
        let out = Command::new(exe)
            .arg("resolve")
            .arg(&case.recipe)
            .arg("--cluster")
            .arg(&case.cluster)
            .args(["--format", "json"])
            .env_remove("STACK_REPOS")
            .output()
            .unwrap();
        times.push(t0.elapsed());
        assert!(
            out.status.success(),
            "{}: {}",
            case.name,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    median(times)
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: keep it quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs: usize = std::env::var("RESOLVE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 1 } else { 20 });
    let keep = std::env::var_os("RESOLVE_BENCH_KEEP").map(PathBuf::from);
    let tmp = tempfile::tempdir().unwrap();
    let synth_dir = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let root = Path::new(ROOT);
    let cases = vec![
        Case {
            name: "demo",
            recipe: root.join("stacks/demo.yaml"),
            cluster: root.join("cluster-configs/local"),
        },
        Case {
            name: "alps-like",
            recipe: root.join("tests/fixtures/resolve/stacks/alps-like.yaml"),
            cluster: root.join("tests/fixtures/resolve/cluster-configs/gh200"),
        },
        synthetic(&synth_dir, 1000),
    ];
    // The shipped Alps CXI stack (issue 8), when this checkout has it.
    let mut cases = cases;
    if root.join("stacks/alps-cxi.yaml").is_file()
        && root.join("cluster-configs/alps-gh200").is_dir()
    {
        cases.insert(
            2,
            Case {
                name: "alps-cxi",
                recipe: root.join("stacks/alps-cxi.yaml"),
                cluster: root.join("cluster-configs/alps-gh200"),
            },
        );
    }
    println!(
        "{:<16} {:>6} {:>14} {:>14} {:>16}   goal",
        "stack", "nodes", "load+resolve", "resolve only", "whole process"
    );
    for case in &cases {
        let (total, solve, nodes) = in_process(case, runs);
        let process = whole_process(case, runs.min(10));
        let goal = if case.name.starts_with("synthetic") {
            "< 1 s"
        } else {
            "< 20 ms"
        };
        println!(
            "{:<16} {:>6} {:>14} {:>14} {:>16}   {goal}",
            case.name,
            nodes,
            ms(total),
            ms(solve),
            ms(process)
        );
    }
    if let Some(k) = keep {
        println!("synthetic repository kept in {}", k.display());
    }
}
