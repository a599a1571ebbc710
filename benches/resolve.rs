//! Resolver benchmark on divan (`cargo bench --bench resolve`): loading
//! the inputs (YAML of the recipe, cluster and every package recipe) plus
//! resolving, and resolving alone, in-process, for
//! - `demo`: `stacks/demo.yaml` (7 packages);
//! - `alps-like`: `tests/fixtures/resolve/stacks/alps-like.yaml` on the
//!   `gh200` fixture cluster (~36 packages, virtual mpi, conditional deps);
//! - `alps-cxi`: the shipped `stacks/alps-cxi.yaml` on
//!   `cluster-configs/alps-gh200`;
//! - `synthetic-1000`: a generated repository of 1,000 packages with ~5
//!   dependencies each (a third of them conditional), variants, and one
//!   virtual with three providers; the stack's roots reach all of it.
//!
//! Goals (issue 3): < 20 ms for the first ones, < 1 s for the synthetic
//! one, whole process: that is timed by `scripts/bench-resolve.sh`, which
//! has this binary write the synthetic repository
//! (`RESOLVE_BENCH_KEEP=DIR`: write it to DIR and exit).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use stack::resolve::{ResolveOptions, resolve};
use stack::stacks::{InputOptions, Inputs, load_inputs};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

struct Case {
    name: &'static str,
    recipe: PathBuf,
    cluster: PathBuf,
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

/// The synthetic case, written once to a directory kept for the run.
fn synthetic_case() -> &'static Case {
    static CASE: OnceLock<(tempfile::TempDir, Case)> = OnceLock::new();
    &CASE
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let case = synthetic(dir.path(), 1000);
            (dir, case)
        })
        .1
}

/// The case called `name`.
fn case(name: &str) -> Case {
    let root = Path::new(ROOT);
    let (recipe, cluster) = match name {
        "demo" => ("stacks/demo.yaml", "cluster-configs/local"),
        "alps-like" => (
            "tests/fixtures/resolve/stacks/alps-like.yaml",
            "tests/fixtures/resolve/cluster-configs/gh200",
        ),
        "alps-cxi" => ("stacks/alps-cxi.yaml", "cluster-configs/alps-gh200"),
        "synthetic-1000" => {
            let c = synthetic_case();
            return Case {
                name: c.name,
                recipe: c.recipe.clone(),
                cluster: c.cluster.clone(),
            };
        }
        other => panic!("no case {other}"),
    };
    Case {
        name: CASES.iter().find(|c| **c == name).expect("a case"),
        recipe: root.join(recipe),
        cluster: root.join(cluster),
    }
}

const CASES: &[&str] = &["demo", "alps-like", "alps-cxi", "synthetic-1000"];

fn load(case: &Case) -> Inputs {
    load_inputs(&InputOptions {
        recipe: case.recipe.clone(),
        cluster: Some(case.cluster.clone()),
        no_builtin: true,
        ..InputOptions::default()
    })
    .unwrap_or_else(|d| panic!("{}: {d:?}", case.name))
}

/// Loading every input file and resolving: what `stack resolve` does
/// in-process.
#[divan::bench(args = CASES, sample_count = 20)]
fn load_and_resolve(bencher: divan::Bencher, name: &str) {
    let case = case(name);
    bencher.bench(|| {
        let inputs = load(&case);
        resolve(
            &inputs.recipe,
            &inputs.cluster,
            &inputs.repo,
            &ResolveOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", case.name))
        .graph
        .node_count()
    });
}

/// Resolving alone, the inputs loaded once.
#[divan::bench(args = CASES, sample_count = 20)]
fn resolve_only(bencher: divan::Bencher, name: &str) {
    let case = case(name);
    let inputs = load(&case);
    bencher.bench(|| {
        resolve(
            &inputs.recipe,
            &inputs.cluster,
            &inputs.repo,
            &ResolveOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", case.name))
        .graph
        .node_count()
    });
}

fn main() {
    if let Some(dir) = std::env::var_os("RESOLVE_BENCH_KEEP") {
        let case = synthetic(Path::new(&dir), 1000);
        println!("{} written to {}", case.name, dir.to_string_lossy());
        return;
    }
    divan::main();
}
