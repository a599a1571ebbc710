//! Grouping packages into jobs by estimated cost, so that small packages do
//! not each pay a job's start-up (Slurm scheduling, `stack` resolving,
//! pulling its dependencies).
//!
//! Packages are taken wave by wave ([`Work::waves`]: a package's wave is
//! the length of its longest dependency chain). A package estimated at the
//! threshold or more gets a job of its own; a smaller one joins the first
//! job *of its own wave* whose estimated total stays within the threshold
//! (else it opens a new job). Packages of one wave never depend on each
//! other, so a job's packages are independent (the local scheduler builds
//! them side by side) and a job only waits for jobs of earlier waves: job
//! `i` depends only on jobs before it, and grouping never lengthens the
//! critical path by more than the threshold per wave. (Letting a package
//! join any later job chained the groups: on many nodes the makespan grew
//! sevenfold in the simulation, `simulate.rs`.) A threshold of 0 gives one
//! job per package.

use std::fmt::Write as _;

use super::Work;

/// The default threshold in seconds (`--group-seconds`, the cluster's
/// `ci: {group_seconds: …}`).
pub const DEFAULT_GROUP_SECONDS: f64 = crate::settings::DEFAULT_GROUP_SECONDS;

/// One remote job: packages of the work built together.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The job's name: its first package's job name, `+N` for N more.
    pub name: String,
    /// Indices into [`Work::packages`], dependencies first.
    pub packages: Vec<usize>,
    /// Indices of the groups it waits for (all before it).
    pub deps: Vec<usize>,
    /// Estimated seconds of its builds.
    pub cost: f64,
}

impl Work {
    /// The packages grouped into jobs of at most `threshold` estimated
    /// seconds each (a package over it alone); `threshold <= 0`: one job
    /// per package.
    pub fn groups(&self, threshold: f64) -> Vec<Group> {
        let names = self.job_names();
        let mut groups: Vec<Group> = Vec::new();
        let mut group_of = vec![0usize; self.packages.len()];
        for wave in self.waves() {
            let first = groups.len();
            for k in wave {
                let p = &self.packages[k];
                let small = threshold > 0.0 && p.cost < threshold;
                let joined = match small {
                    true => (first..groups.len()).find(|g| groups[*g].cost + p.cost <= threshold),
                    false => None,
                };
                let g = joined.unwrap_or_else(|| {
                    groups.push(Group {
                        name: names[k].clone(),
                        packages: Vec::new(),
                        deps: Vec::new(),
                        cost: 0.0,
                    });
                    groups.len() - 1
                });
                group_of[k] = g;
                let group = &mut groups[g];
                group.packages.push(k);
                group.cost += p.cost;
                group.deps.extend(p.deps.iter().map(|d| group_of[*d]));
            }
        }
        for g in &mut groups {
            g.deps.sort_unstable();
            g.deps.dedup();
            if g.packages.len() > 1 {
                g.name = format!("{}+{}", names[g.packages[0]], g.packages.len() - 1);
            }
        }
        groups
    }

    /// The names of a group's packages, comma-separated (for messages).
    pub fn package_names(&self, group: &Group) -> String {
        let names: Vec<&str> = group
            .packages
            .iter()
            .map(|k| self.packages[*k].name.as_str())
            .collect();
        names.join(", ")
    }

    /// The job graph as text, one job a line:
    /// `NAME (COST s): PACKAGES  after: JOBS` (logs and snapshots).
    pub fn describe(&self, groups: &[Group]) -> String {
        let mut s = String::new();
        for g in groups {
            let _ = write!(s, "{} ({:.0} s): {}", g.name, g.cost, self.package_names(g));
            if !g.deps.is_empty() {
                let after: Vec<&str> = g.deps.iter().map(|d| groups[*d].name.as_str()).collect();
                let _ = write!(s, "  after: {}", after.join(", "));
            }
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::super::Package;
    use super::*;

    fn pkg(name: &str, cost: f64, deps: &[usize]) -> Package {
        Package {
            name: name.into(),
            version: "1".into(),
            hash: format!("{name}0123456789"),
            deps: deps.to_vec(),
            cost,
        }
    }

    /// A stack shaped like a real one: small leaves, a chain of small
    /// libraries, two big packages, something on top of everything.
    fn stack() -> Work {
        Work {
            packages: vec![
                pkg("zlib", 5.0, &[]),               // 0
                pkg("xz", 8.0, &[]),                 // 1
                pkg("cassini-headers", 1.0, &[]),    // 2
                pkg("libxml2", 20.0, &[0, 1]),       // 3
                pkg("hwloc", 40.0, &[3]),            // 4
                pkg("gcc", 3000.0, &[0]),            // 5
                pkg("libcxi", 25.0, &[2]),           // 6
                pkg("curl", 30.0, &[0]),             // 7
                pkg("libfabric", 120.0, &[2, 6, 7]), // 8
                pkg("mpich", 200.0, &[4, 5, 8]),     // 9
                pkg("osu", 15.0, &[9]),              // 10
            ],
        }
    }

    /// Every package once; a group's deps are before it and cover every
    /// dependency of its packages held elsewhere.
    fn check(work: &Work, groups: &[Group]) {
        let mut seen = vec![usize::MAX; work.packages.len()];
        for (g, group) in groups.iter().enumerate() {
            for k in &group.packages {
                assert_eq!(seen[*k], usize::MAX, "{k} twice");
                seen[*k] = g;
                for d in &work.packages[*k].deps {
                    assert!(seen[*d] == g || group.deps.contains(&seen[*d]));
                }
            }
            assert!(group.deps.iter().all(|d| *d < g));
        }
        assert!(seen.iter().all(|g| *g != usize::MAX));
    }

    #[test]
    fn zero_is_one_job_per_package() {
        let w = stack();
        let g = w.groups(0.0);
        check(&w, &g);
        assert_eq!(g.len(), w.packages.len());
        assert!(g.iter().all(|g| g.packages.len() == 1));
    }

    #[test]
    fn small_packages_share_jobs_within_the_threshold() {
        let w = stack();
        let g = w.groups(60.0);
        check(&w, &g);
        assert!(g.iter().all(|g| g.packages.len() == 1 || g.cost <= 60.0));
        insta::assert_snapshot!(w.describe(&g), @r"
        zlib+2 (14 s): zlib, xz, cassini-headers
        libxml2+1 (45 s): libxml2, libcxi  after: zlib+2
        gcc (3000 s): gcc  after: zlib+2
        curl (30 s): curl  after: zlib+2
        hwloc (40 s): hwloc  after: libxml2+1
        libfabric (120 s): libfabric  after: zlib+2, libxml2+1, curl
        mpich (200 s): mpich  after: gcc, hwloc, libfabric
        osu (15 s): osu  after: mpich
        ");
    }

    #[test]
    fn a_large_threshold_is_one_job_per_wave() {
        let w = stack();
        let g = w.groups(1e9);
        check(&w, &g);
        // one job per wave: packages of one wave never wait for each other
        insta::assert_snapshot!(w.describe(&g), @r"
        zlib+2 (14 s): zlib, xz, cassini-headers
        libxml2+3 (3075 s): libxml2, gcc, libcxi, curl  after: zlib+2
        hwloc+1 (160 s): hwloc, libfabric  after: zlib+2, libxml2+3
        mpich (200 s): mpich  after: libxml2+3, hwloc+1
        osu (15 s): osu  after: mpich
        ");
    }
}
