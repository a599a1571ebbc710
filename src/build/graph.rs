//! The DAG of jobs handed to [`run_plan`](super::run_plan).

use std::collections::HashMap;

use super::error::BuildError;
use super::job::BuildJob;

/// Index of a job in a [`BuildGraph`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub usize);

/// Jobs plus "depends on" edges. A job starts only after all its
/// dependencies are installed (built or reused).
#[derive(Clone, Debug, Default)]
pub struct BuildGraph {
    jobs: Vec<BuildJob>,
    deps: Vec<Vec<JobId>>,
}

impl BuildGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a job; returns its id.
    pub fn add(&mut self, job: BuildJob) -> JobId {
        self.jobs.push(job);
        self.deps.push(Vec::new());
        JobId(self.jobs.len() - 1)
    }

    /// `dependent` needs `dependency` installed first.
    pub fn depends_on(&mut self, dependent: JobId, dependency: JobId) {
        let list = &mut self.deps[dependent.0];
        if !list.contains(&dependency) {
            list.push(dependency);
        }
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    pub fn job(&self, id: JobId) -> &BuildJob {
        &self.jobs[id.0]
    }

    pub fn jobs(&self) -> impl Iterator<Item = (JobId, &BuildJob)> {
        self.jobs.iter().enumerate().map(|(i, j)| (JobId(i), j))
    }

    /// Direct dependencies of `id`.
    pub fn dependencies(&self, id: JobId) -> &[JobId] {
        &self.deps[id.0]
    }

    pub(crate) fn dep_indices(&self) -> Vec<Vec<usize>> {
        self.deps
            .iter()
            .map(|d| d.iter().map(|j| j.0).collect())
            .collect()
    }

    /// Reject cycles, self-edges, out-of-range edges and two jobs with one prefix.
    pub fn validate(&self) -> Result<(), BuildError> {
        let mut seen: HashMap<&std::path::Path, usize> = HashMap::new();
        for (i, job) in self.jobs.iter().enumerate() {
            if let Some(&other) = seen.get(job.prefix.as_path()) {
                return Err(BuildError::DuplicatePrefix {
                    prefix: job.prefix.clone(),
                    first: self.jobs[other].name.clone(),
                    second: job.name.clone(),
                });
            }
            seen.insert(&job.prefix, i);
            for d in &self.deps[i] {
                if d.0 >= self.jobs.len() {
                    return Err(BuildError::BadEdge {
                        job: job.name.clone(),
                        index: d.0,
                    });
                }
            }
        }
        if let Some(cycle) = find_cycle(&self.dep_indices()) {
            let names = cycle
                .iter()
                .map(|&i| self.jobs[i].name.clone())
                .collect::<Vec<_>>();
            return Err(BuildError::Cycle { names });
        }
        Ok(())
    }
}

/// A cycle as a list of node indices (first == last), if any.
pub(crate) fn find_cycle(deps: &[Vec<usize>]) -> Option<Vec<usize>> {
    // 0 = unvisited, 1 = on stack, 2 = done. Iterative DFS.
    let n = deps.len();
    let mut state = vec![0u8; n];
    let mut parent = vec![usize::MAX; n];
    for start in 0..n {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if *next < deps[node].len() {
                let d = deps[node][*next];
                *next += 1;
                match state[d] {
                    0 => {
                        state[d] = 1;
                        parent[d] = node;
                        stack.push((d, 0));
                    }
                    1 => {
                        let mut cycle = vec![d];
                        let mut cur = node;
                        while cur != d {
                            cycle.push(cur);
                            cur = parent[cur];
                        }
                        cycle.push(d);
                        cycle.reverse();
                        return Some(cycle);
                    }
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cycles() {
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![]]), None);
        let c = find_cycle(&[vec![1], vec![2], vec![0]]).unwrap();
        assert_eq!(c.first(), c.last());
        assert_eq!(c.len(), 4);
        assert!(find_cycle(&[vec![0]]).is_some());
        assert_eq!(find_cycle(&[vec![1, 2], vec![2], vec![]]), None);
    }
}
