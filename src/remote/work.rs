//! The packages to build elsewhere, and the seam to whatever builds them.

use std::collections::{HashMap, HashSet};

use petgraph::graph::NodeIndex;

use crate::resolve::Plan;

use super::DistributedError;

/// One package for a remote job.
#[derive(Clone, Debug, PartialEq)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub hash: String,
    /// Indices (into [`Work::packages`]) of the packages it needs that are
    /// built by other jobs of the same work.
    pub deps: Vec<usize>,
    /// Seconds it took when last built, else an estimate from its build
    /// system kind (`build_kinds::BuildKind::estimated_seconds`).
    pub cost: f64,
}

/// What is left to build, dependencies first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Work {
    pub packages: Vec<Package>,
}

impl Work {
    /// `nodes` (a subset of the plan, any order) as work; dependencies on
    /// nodes outside the subset (installed or cached) are left out.
    pub fn from_plan(plan: &Plan, nodes: &[NodeIndex], costs: &HashMap<String, f64>) -> Work {
        let wanted: HashSet<NodeIndex> = nodes.iter().copied().collect();
        let order: Vec<NodeIndex> = plan
            .topo_order()
            .into_iter()
            .filter(|i| wanted.contains(i))
            .collect();
        let pos: HashMap<NodeIndex, usize> =
            order.iter().enumerate().map(|(k, i)| (*i, k)).collect();
        let packages = order
            .iter()
            .map(|i| {
                let n = plan.node(*i);
                let mut deps: Vec<usize> = plan
                    .deps(*i)
                    .into_iter()
                    .filter_map(|(d, _)| pos.get(&d).copied())
                    .collect();
                deps.sort_unstable();
                deps.dedup();
                Package {
                    name: n.name.clone(),
                    version: n.version.to_string(),
                    hash: n.hash.clone(),
                    deps,
                    cost: costs
                        .get(&n.name)
                        .copied()
                        .unwrap_or_else(|| n.recipe.build.system.kind.estimated_seconds()),
                }
            })
            .collect();
        Work { packages }
    }

    pub fn is_empty(&self) -> bool {
        self.packages.is_empty()
    }

    /// Waves: wave k holds the packages whose longest dependency chain
    /// within the work has k links.
    pub fn waves(&self) -> Vec<Vec<usize>> {
        let mut depth = vec![0usize; self.packages.len()];
        let mut out: Vec<Vec<usize>> = Vec::new();
        for (k, p) in self.packages.iter().enumerate() {
            depth[k] = p.deps.iter().map(|d| depth[*d] + 1).max().unwrap_or(0);
            if out.len() <= depth[k] {
                out.resize(depth[k] + 1, Vec::new());
            }
            out[depth[k]].push(k);
        }
        out
    }

    /// A job name per package: the package name, with the short hash when
    /// two packages share a name.
    pub fn job_names(&self) -> Vec<String> {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for p in &self.packages {
            *count.entry(&p.name).or_default() += 1;
        }
        self.packages
            .iter()
            .map(|p| match count[p.name.as_str()] {
                1 => p.name.clone(),
                _ => format!("{}-{}", p.name, &p.hash[..7.min(p.hash.len())]),
            })
            .collect()
    }
}

/// How a job calls `stack` to build its packages: the program and the
/// arguments that select the recipe, cluster, sources and binary cache
/// (`--build`, `--only` and `-j` are added per job).
#[derive(Clone, Debug, Default)]
pub struct JobCommand {
    pub program: String,
    pub args: Vec<String>,
}

impl JobCommand {
    /// The argv of the job that builds `packages` in `build_dir`: each
    /// selected by name and node hash (`--only NAME/HASH`), so that two
    /// nodes of one name are two jobs that each build their own.
    pub fn for_packages(&self, packages: &[&Package], build_dir: &str) -> Vec<String> {
        let mut v = vec![self.program.clone()];
        v.extend(self.args.iter().cloned());
        v.extend(["--build".into(), build_dir.into()]);
        for p in packages {
            v.extend(["--only".into(), format!("{}/{}", p.name, p.hash)]);
        }
        v
    }
}

/// Progress of a remote build.
pub trait RemoteReporter: Sync {
    /// `package`'s job changed state (`submitted 42`, `RUNNING`, `COMPLETED`).
    fn job(&self, package: &str, state: &str);
    /// A new line in a running job's log.
    fn log_line(&self, package: &str, line: &str);
}

/// Reports nothing.
pub struct NoopRemoteReporter;

impl RemoteReporter for NoopRemoteReporter {
    fn job(&self, _: &str, _: &str) {}
    fn log_line(&self, _: &str, _: &str) {}
}

/// Something that builds work elsewhere and returns when every package is
/// in the binary cache (or fails with the jobs that did not succeed).
pub trait RemoteBuilder: Send + Sync + std::fmt::Debug {
    /// A short name for progress (`slurm`).
    fn name(&self) -> &str;
    fn build(&self, work: &Work, reporter: &dyn RemoteReporter) -> Result<(), DistributedError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkg(name: &str, deps: &[usize]) -> Package {
        Package {
            name: name.into(),
            version: "1".into(),
            hash: format!("{name}0123456789"),
            deps: deps.to_vec(),
            cost: 1.0,
        }
    }

    #[test]
    fn waves_follow_the_longest_chain() {
        let w = Work {
            packages: vec![
                pkg("a", &[]),
                pkg("b", &[0]),
                pkg("c", &[]),
                pkg("d", &[1, 2]),
            ],
        };
        assert_eq!(w.waves(), vec![vec![0, 2], vec![1], vec![3]]);
    }

    #[test]
    fn job_names_are_unique() {
        let mut b = pkg("a", &[]);
        b.hash = "ffffffffff".into();
        let w = Work {
            packages: vec![pkg("a", &[]), b, pkg("c", &[])],
        };
        assert_eq!(w.job_names(), ["a-a012345", "a-fffffff", "c"]);
    }
}
