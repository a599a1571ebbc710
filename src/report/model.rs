//! The plan joined with what the run did: one [`Pkg`] per node of the lock
//! file, the typed edges, the environments, and the critical path.

use std::collections::HashMap;

use super::input::ReportInput;
use super::record::{PackageRun, RunStatus, Size};

/// What an edge means for the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// Linked against (and needed to build).
    Link,
    /// Needed only to build (a tool, headers).
    Build,
    /// Needed only at run time.
    Run,
}

impl EdgeKind {
    pub fn class(self) -> &'static str {
        match self {
            EdgeKind::Link => "link",
            EdgeKind::Build => "build",
            EdgeKind::Run => "run",
        }
    }
}

/// One package of the plan.
#[derive(Clone, Debug)]
pub struct Pkg {
    pub hash: String,
    pub name: String,
    pub version: String,
    /// `+shared greeting=Hello`.
    pub variants: String,
    pub external: bool,
    pub prefix: String,
    /// Indices into [`Model::envs`].
    pub envs: Vec<usize>,
    /// What the run did with it (`None` for externals, and without a run record).
    pub run: Option<PackageRun>,
    pub size: Option<Size>,
}

impl Pkg {
    pub fn label(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// The status class: the run's, `s-external`, or `s-plan` (no record).
    pub fn class(&self) -> &'static str {
        match (&self.run, self.external) {
            (_, true) => "s-external",
            (Some(r), false) => r.status.class(),
            (None, false) => "s-plan",
        }
    }

    pub fn status_text(&self) -> &'static str {
        match (&self.run, self.external) {
            (_, true) => "external",
            (Some(r), false) => r.status.as_str(),
            (None, false) => "in the plan",
        }
    }

    pub fn status(&self) -> Option<RunStatus> {
        self.run.as_ref().map(|r| r.status)
    }

    /// Seconds of its build in this run (built here or remotely).
    pub fn seconds(&self) -> Option<f64> {
        self.run.as_ref().and_then(|r| r.seconds)
    }
}

/// The report's model.
#[derive(Debug)]
pub struct Model<'a> {
    pub input: &'a ReportInput,
    /// In a stable order: by first environment, then name.
    pub pkgs: Vec<Pkg>,
    /// `(dependency, dependent, kind)`, indices into `pkgs`.
    pub edges: Vec<(usize, usize, EdgeKind)>,
    pub envs: Vec<String>,
    /// The longest chain of build times along the plan, dependencies first.
    pub critical: Vec<usize>,
    pub critical_seconds: f64,
}

impl<'a> Model<'a> {
    pub fn new(input: &'a ReportInput) -> Model<'a> {
        let lock = &input.lock;
        let envs: Vec<String> = lock.environments.iter().map(|e| e.name.clone()).collect();
        let mut env_of: HashMap<&str, Vec<usize>> = HashMap::new();
        for (k, e) in lock.environments.iter().enumerate() {
            for h in &e.packages {
                env_of.entry(h.as_str()).or_default().push(k);
            }
        }
        let runs: HashMap<&str, &PackageRun> = input
            .run
            .iter()
            .flat_map(|r| r.packages.iter())
            .map(|p| (p.hash.as_str(), p))
            .collect();
        let mut pkgs: Vec<Pkg> = lock
            .nodes
            .iter()
            .map(|n| Pkg {
                hash: n.hash.clone(),
                name: n.name.clone(),
                version: n.version.clone(),
                variants: variants_text(&n.variants),
                external: n.external,
                prefix: n.prefix.clone(),
                envs: env_of.get(n.hash.as_str()).cloned().unwrap_or_default(),
                run: runs.get(n.hash.as_str()).map(|r| (*r).clone()),
                size: input.sizes.get(&n.hash).copied(),
            })
            .collect();
        pkgs.sort_by(|a, b| {
            (a.envs.first(), &a.name, &a.hash).cmp(&(b.envs.first(), &b.name, &b.hash))
        });
        let index: HashMap<&str, usize> = pkgs
            .iter()
            .enumerate()
            .map(|(i, p)| (p.hash.as_str(), i))
            .collect();
        let mut edges = Vec::new();
        for n in &lock.nodes {
            let u = index[n.hash.as_str()];
            for d in &n.deps {
                let Some(&v) = index.get(d.hash.as_str()) else {
                    continue;
                };
                let has = |t: &str| d.types.iter().any(|x| x == t);
                let kind = if has("link") {
                    EdgeKind::Link
                } else if has("build") {
                    EdgeKind::Build
                } else {
                    EdgeKind::Run
                };
                edges.push((v, u, kind));
            }
        }
        edges.sort_by_key(|e| (e.0, e.1));
        edges.dedup_by_key(|e| (e.0, e.1));
        let (critical, critical_seconds) = critical_path(&pkgs, &edges);
        Model {
            input,
            pkgs,
            edges,
            envs,
            critical,
            critical_seconds,
        }
    }

    /// Whether package `i` is on the critical path.
    pub fn on_critical(&self, i: usize) -> bool {
        self.critical.contains(&i)
    }

    /// Packages that failed in this run.
    pub fn failed(&self) -> Vec<&Pkg> {
        self.pkgs
            .iter()
            .filter(|p| p.status() == Some(RunStatus::Failed))
            .collect()
    }
}

/// The longest chain of build seconds along the dependencies (packages
/// that were not built in this run count 0); empty when nothing was built.
fn critical_path(pkgs: &[Pkg], edges: &[(usize, usize, EdgeKind)]) -> (Vec<usize>, f64) {
    let n = pkgs.len();
    let mut deps = vec![Vec::new(); n];
    let mut dependents = vec![Vec::new(); n];
    for &(d, u, _) in edges {
        deps[u].push(d);
        dependents[d].push(u);
    }
    let cost: Vec<f64> = pkgs.iter().map(|p| p.seconds().unwrap_or(0.0)).collect();
    let mut missing: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut queue: Vec<usize> = (0..n).filter(|&i| missing[i] == 0).collect();
    let mut finish = vec![0.0f64; n];
    let mut via: Vec<Option<usize>> = vec![None; n];
    while let Some(i) = queue.pop() {
        let best = deps[i]
            .iter()
            .copied()
            .max_by(|a, b| finish[*a].total_cmp(&finish[*b]));
        let before = best.map_or(0.0, |b| finish[b]);
        if before > 0.0 {
            via[i] = best;
        }
        finish[i] = before + cost[i];
        for &u in &dependents[i] {
            missing[u] -= 1;
            if missing[u] == 0 {
                queue.push(u);
            }
        }
    }
    let Some(end) = (0..n)
        .filter(|&i| finish[i] > 0.0)
        .max_by(|a, b| finish[*a].total_cmp(&finish[*b]))
    else {
        return (Vec::new(), 0.0);
    };
    let mut path = vec![end];
    let mut at = end;
    while let Some(prev) = via[at] {
        path.push(prev);
        at = prev;
    }
    path.retain(|&i| cost[i] > 0.0);
    path.reverse();
    (path, finish[end])
}

/// Variants as in a spec: `+a ~b c=x d=y,z`.
pub fn variants_text(v: &std::collections::BTreeMap<String, serde_json::Value>) -> String {
    let mut out = Vec::new();
    for (name, value) in v {
        match value {
            serde_json::Value::Bool(true) => out.push(format!("+{name}")),
            serde_json::Value::Bool(false) => out.push(format!("~{name}")),
            serde_json::Value::String(s) => out.push(format!("{name}={s}")),
            serde_json::Value::Array(a) => {
                let vals: Vec<String> = a
                    .iter()
                    .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                    .collect();
                out.push(format!("{name}={}", vals.join(",")));
            }
            other => out.push(format!("{name}={other}")),
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_read_like_a_spec() {
        let v: std::collections::BTreeMap<String, serde_json::Value> = serde_json::from_str(
            r#"{"shared": true, "debug": false, "greeting": "Hello", "fabrics": ["tcp", "shm"]}"#,
        )
        .unwrap();
        assert_eq!(
            variants_text(&v),
            "~debug fabrics=tcp,shm greeting=Hello +shared"
        );
    }
}
