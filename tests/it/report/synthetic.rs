//! A synthetic build of a 400-package stack, written as the files a report
//! is made from (stack.lock, run.json, audit.json): 8 layers, each package
//! with 1 to 6 dependencies (70 % from the layer below, 30 % from the first
//! layer, as docs/distributed.md's simulation), some build-only, a few
//! externals, 4 environments; times from a list schedule on 16 job slots.

use std::path::Path;

use serde_json::{Value, json};

/// Seeded pseudo-random numbers (a 64-bit LCG).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub struct Synthetic {
    /// Packages, externals included.
    pub packages: usize,
    /// Packages the run built (one timeline bar each).
    pub built: usize,
}

/// Write the build directory of a synthetic `n`-package build into `dir`.
pub fn write(dir: &Path, n: usize) -> Synthetic {
    let layers = 8;
    let mut rng = Rng(42);
    let hash = |i: usize| format!("{:064x}", i * 7919 + 1);
    let name = |i: usize| {
        const STEMS: [&str; 10] = [
            "py-", "lib", "r-", "perl-", "", "cuda-", "hdf5-", "mpi-", "boost-", "xz-",
        ];
        format!("{}pkg{:03}", STEMS[i % STEMS.len()], i)
    };
    let per = n / layers;
    let layer_of = |i: usize| (i / per).min(layers - 1);
    let external = |i: usize| layer_of(i) == 0 && i.is_multiple_of(9);
    // deps[i]: (dependency, types)
    let mut deps: Vec<Vec<(usize, Vec<&str>)>> = vec![Vec::new(); n];
    for (i, mine) in deps.iter_mut().enumerate().skip(per) {
        let l = layer_of(i);
        let k = 1 + rng.below(6);
        for _ in 0..k {
            let from_first = rng.below(10) < 3;
            let lo = if from_first { 0 } else { (l - 1) * per };
            let d = lo + rng.below(per);
            if mine.iter().any(|(x, _)| *x == d) {
                continue;
            }
            let types = if rng.below(5) == 0 {
                vec!["build"]
            } else {
                vec!["build", "link"]
            };
            mine.push((d, types));
        }
    }
    let envs = ["compilers", "mpi", "python", "tools"];
    let env_members = |e: usize| -> Vec<String> {
        (0..n)
            .filter(|i| i % envs.len() == e || layer_of(*i) <= 1)
            .map(hash)
            .collect()
    };
    let nodes: Vec<Value> = (0..n)
        .map(|i| {
            let ext = external(i);
            json!({
                "name": name(i),
                "version": format!("{}.{}", 1 + i % 4, i % 10),
                "hash": hash(i),
                "prefix": if ext { "/usr".to_string() } else {
                    format!("/user-environment/x86_64/{}-1.0-{}", name(i), &hash(i)[..8])
                },
                "external": ext,
                "variants": if i % 3 == 0 { json!({"shared": true, "mpi": i % 2 == 0}) } else { json!({}) },
                "patches": [],
                "source": null,
                "deps": deps[i].iter().map(|(d, t)| json!({"name": name(*d), "hash": hash(*d), "type": t})).collect::<Vec<_>>(),
                "compiler": null,
            })
        })
        .collect();
    let lock = json!({
        "lock_version": 3, "stack": "synthetic-400", "recipe": "synthetic.yaml", "cluster": "alps-gh200",
        "mount": "/user-environment", "target": "x86_64", "os": "sles15", "libc": "glibc@2.31",
        "compiler": "gcc@12.3.0", "compilers": [],
        "environments": envs.iter().enumerate().map(|(e, name)| json!({
            "name": name, "compiler": {"spec": "gcc@12.3.0", "origin": "cluster", "identity": "gcc"},
            "roots": [], "packages": env_members(e)})).collect::<Vec<_>>(),
        "nodes": nodes,
    });
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::write(
        dir.join("stack.lock"),
        serde_json::to_string_pretty(&lock).unwrap(),
    )
    .unwrap();

    // A list schedule on 16 slots, in layer order.
    let slots = 16;
    let mut free = vec![0.0f64; slots];
    let mut finish = vec![0.0f64; n];
    let mut packages = Vec::new();
    let mut built = 0;
    for i in 0..n {
        if external(i) {
            continue;
        }
        let ready = deps[i].iter().map(|(d, _)| finish[*d]).fold(0.0, f64::max);
        let cost = 5.0 + (rng.below(600) as f64) * if i % 17 == 0 { 6.0 } else { 1.0 };
        let cached = i % 23 == 5;
        if cached {
            finish[i] = ready;
            packages.push(
                json!({"hash": hash(i), "name": name(i), "version": "1.0", "status": "cache",
                "size": {"bytes": 1_000_000 + i * 4099, "files": 10 + i}}),
            );
            continue;
        }
        let (slot, at) = free
            .iter()
            .copied()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        let start = at.max(ready);
        free[slot] = start + cost;
        finish[i] = start + cost;
        built += 1;
        let route = ["upstream", "mirror", "cache"][i % 3];
        packages.push(json!({
            "hash": hash(i), "name": name(i), "version": "1.0", "status": "built",
            "source": {"route": route, "from": format!("https://example.org/{}.tar.gz", name(i))},
            "lane": format!("slot {}", slot + 1), "ready": ready, "start": start, "seconds": cost,
            "phases": [{"phase": "configure", "seconds": cost * 0.3}, {"phase": "build", "seconds": cost * 0.6}],
            "size": {"bytes": 1_000_000 + i * 4099, "files": 10 + i},
            "log": dir.join("logs").join(format!("{}.log", name(i))).display().to_string(),
        }));
    }
    let end = finish.iter().copied().fold(0.0, f64::max);
    let run = json!({
        "format": 1, "stack_version": "0.1.0", "started_at": "2026-11-28T08:00:00Z",
        "wall_seconds": end + 120.0, "outcome": "audit-failed", "executor": "local", "jobs": slots,
        "stages": [{"stage": "resolve", "seconds": 2.1}, {"stage": "fetch", "seconds": 95.0},
                   {"stage": "build", "seconds": end}, {"stage": "audit", "seconds": 14.0}],
        "audit": "audit.json", "packages": packages,
    });
    std::fs::write(
        dir.join("run.json"),
        serde_json::to_string_pretty(&run).unwrap(),
    )
    .unwrap();
    let finding = |sev: &str, kind: &str, i: usize, target: &str, path: Value| {
        let file = format!(
            "/user-environment/x86_64/{}-1.0-{}/lib/lib{}.so",
            name(i),
            &hash(i)[..8],
            name(i)
        );
        json!({"severity": sev, "kind": kind, "file": file, "group": name(i), "target": target, "path": path,
               "message": format!("{file} needs {target}"), "chain": [format!("/user-environment/bin/tool{i}"), file],
               "contexts": 2, "hint": "add the library's directory to the RUNPATH"})
    };
    let audit = json!({
        "summary": {"files": 31234, "elf_files": 2210, "errors": 2, "warnings": 3},
        "findings": [
            finding("error", "leak", 120, "libcrypto.so.3", json!("/usr/lib64/libcrypto.so.3")),
            finding("error", "unresolved", 333, "libfoo.so.1", Value::Null),
            finding("warning", "dlopen-name", 57, "libcuda.so.1", Value::Null),
            finding("warning", "dlopen-name", 58, "libnvidia-ml.so.1", Value::Null),
            finding("warning", "search-path-outside", 301, "/opt/cray/lib64", Value::Null),
        ],
        "files": [],
    });
    std::fs::write(
        dir.join("audit.json"),
        serde_json::to_string_pretty(&audit).unwrap(),
    )
    .unwrap();
    Synthetic { packages: n, built }
}
