//! Critical-path-first ready queue over the job DAG.
//!
//! Shaped like cargo's `DependencyQueue`: nodes become ready when all their
//! dependencies are finished; [`Schedule::pop`] hands out the ready node with
//! the highest priority. The priority of a node is
//!
//! 1. its *bottom level*: its own cost plus the longest chain of costs of
//!    nodes that (transitively) depend on it — the length of the critical
//!    path through it to the end of the build — and then
//! 2. its own cost plus the cost of *everything* that depends on it
//!    (cargo's measure), to break ties between equally long chains,
//! 3. and finally the lower index, so the order is deterministic.
//!
//! Costs default to 1 (so the bottom level counts the packages on the longest
//! chain) or come from a hint (the last build's duration).
//!
//! A failed node takes all its transitive dependents with it
//! ([`Schedule::fail`]); independent nodes stay schedulable.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// State of one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Waiting for dependencies.
    Waiting,
    /// All dependencies done; in the ready queue.
    Ready,
    /// Handed out by [`Schedule::pop`].
    Running,
    /// Finished successfully (or already installed).
    Done,
    /// Failed itself.
    Failed,
    /// Not run because a dependency failed.
    Skipped,
}

#[derive(Debug)]
struct Entry {
    bottom: f64,
    total: f64,
    id: usize,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bottom
            .total_cmp(&other.bottom)
            .then(self.total.total_cmp(&other.total))
            .then(other.id.cmp(&self.id))
    }
}

/// The ready queue.
#[derive(Debug)]
pub struct Schedule {
    dependents: Vec<Vec<usize>>,
    remaining: Vec<usize>,
    state: Vec<NodeState>,
    bottom: Vec<f64>,
    total: Vec<f64>,
    ready: BinaryHeap<Entry>,
}

impl Schedule {
    /// `deps[i]` are the dependencies of node `i`; `cost[i]` its cost;
    /// `done[i]` marks nodes that need no work (already installed). The graph
    /// must be acyclic.
    pub fn new(deps: &[Vec<usize>], cost: &[f64], done: &[bool]) -> Self {
        let n = deps.len();
        let mut dependents = vec![Vec::new(); n];
        for (i, ds) in deps.iter().enumerate() {
            for &d in ds {
                dependents[d].push(i);
            }
        }
        let cost: Vec<f64> = (0..n)
            .map(|i| if done[i] { 0.0 } else { cost[i].max(0.0) })
            .collect();
        let order = topo_order(deps);
        // Bottom level: walk from sinks (reverse topological order).
        let mut bottom = vec![0.0f64; n];
        for &i in order.iter().rev() {
            let best = dependents[i]
                .iter()
                .map(|&d| bottom[d])
                .fold(0.0f64, f64::max);
            bottom[i] = cost[i] + best;
        }
        // Total cost of all transitive dependents (as a set), via bitsets.
        let words = n.div_ceil(64);
        let mut reach = vec![vec![0u64; words]; n];
        for &i in order.iter().rev() {
            let mut acc = vec![0u64; words];
            for &d in &dependents[i] {
                acc[d / 64] |= 1 << (d % 64);
                for (a, r) in acc.iter_mut().zip(&reach[d]) {
                    *a |= *r;
                }
            }
            reach[i] = acc;
        }
        let total: Vec<f64> = (0..n)
            .map(|i| {
                let mut t = cost[i];
                for (w, bits) in reach[i].iter().enumerate() {
                    let mut b = *bits;
                    while b != 0 {
                        let k = b.trailing_zeros() as usize;
                        t += cost[w * 64 + k];
                        b &= b - 1;
                    }
                }
                t
            })
            .collect();
        let mut remaining = vec![0; n];
        let mut state = vec![NodeState::Waiting; n];
        for i in 0..n {
            if done[i] {
                state[i] = NodeState::Done;
            }
            remaining[i] = deps[i].iter().filter(|&&d| !done[d]).count();
        }
        let mut s = Schedule {
            dependents,
            remaining,
            state,
            bottom,
            total,
            ready: BinaryHeap::new(),
        };
        for i in 0..n {
            if s.state[i] == NodeState::Waiting && s.remaining[i] == 0 {
                s.make_ready(i);
            }
        }
        s
    }

    fn make_ready(&mut self, i: usize) {
        self.state[i] = NodeState::Ready;
        self.ready.push(Entry {
            bottom: self.bottom[i],
            total: self.total[i],
            id: i,
        });
    }

    /// Number of ready nodes.
    pub fn ready_len(&self) -> usize {
        self.ready.len()
    }

    /// The highest-priority ready node, now marked running.
    pub fn pop(&mut self) -> Option<usize> {
        let e = self.ready.pop()?;
        self.state[e.id] = NodeState::Running;
        Some(e.id)
    }

    /// Mark `i` finished; dependents whose dependencies are all done become
    /// ready (returned, so the caller can note when they did).
    pub fn finish(&mut self, i: usize) -> Vec<usize> {
        self.state[i] = NodeState::Done;
        let mut now_ready = Vec::new();
        for k in 0..self.dependents[i].len() {
            let d = self.dependents[i][k];
            self.remaining[d] -= 1;
            if self.remaining[d] == 0 && self.state[d] == NodeState::Waiting {
                self.make_ready(d);
                now_ready.push(d);
            }
        }
        now_ready
    }

    /// Mark `i` failed; returns the transitive dependents now skipped.
    pub fn fail(&mut self, i: usize) -> Vec<usize> {
        self.state[i] = NodeState::Failed;
        let mut skipped = Vec::new();
        let mut stack = self.dependents[i].clone();
        while let Some(d) = stack.pop() {
            if matches!(self.state[d], NodeState::Waiting | NodeState::Ready) {
                self.state[d] = NodeState::Skipped;
                skipped.push(d);
                stack.extend(self.dependents[d].iter().copied());
            }
        }
        if !skipped.is_empty() {
            let state = &self.state;
            self.ready.retain(|e| state[e.id] == NodeState::Ready);
        }
        skipped.sort_unstable();
        skipped
    }

    /// Remove every ready node (fail-fast); returns them, marked skipped.
    pub fn drain_ready(&mut self) -> Vec<usize> {
        let mut out: Vec<usize> = self.ready.drain().map(|e| e.id).collect();
        for &i in &out {
            self.state[i] = NodeState::Skipped;
        }
        out.sort_unstable();
        out
    }

    pub fn state(&self, i: usize) -> NodeState {
        self.state[i]
    }

    /// Bottom level (critical-path length from `i` to the end) in cost units.
    pub fn bottom_level(&self, i: usize) -> f64 {
        self.bottom[i]
    }
}

/// Dependencies before dependents (Kahn). Assumes no cycle.
pub(crate) fn topo_order(deps: &[Vec<usize>]) -> Vec<usize> {
    let n = deps.len();
    let mut indeg: Vec<usize> = deps.iter().map(|d| d.len()).collect();
    let mut dependents = vec![Vec::new(); n];
    for (i, ds) in deps.iter().enumerate() {
        for &d in ds {
            dependents[d].push(i);
        }
    }
    let mut queue: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(i) = queue.pop() {
        out.push(i);
        for &d in &dependents[i] {
            indeg[d] -= 1;
            if indeg[d] == 0 {
                queue.push(d);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_all(s: &mut Schedule) -> Vec<usize> {
        let mut order = Vec::new();
        while let Some(i) = s.pop() {
            order.push(i);
            s.finish(i);
        }
        order
    }

    #[test]
    fn respects_dependencies() {
        // 0 <- 1 <- 2, 0 <- 3
        let deps = vec![vec![], vec![0], vec![1], vec![0]];
        let mut s = Schedule::new(&deps, &[1.0; 4], &[false; 4]);
        let order = run_all(&mut s);
        let pos = |x| order.iter().position(|&y| y == x).unwrap();
        assert!(pos(0) < pos(1) && pos(1) < pos(2) && pos(0) < pos(3));
    }

    #[test]
    fn critical_path_first() {
        // Two roots: 0 heads a chain of 3, 4 is alone but costs 2.
        let deps = vec![vec![], vec![0], vec![1], vec![], vec![]];
        let cost = [1.0, 1.0, 1.0, 2.0, 0.5];
        let mut s = Schedule::new(&deps, &cost, &[false; 5]);
        assert_eq!(s.bottom_level(0), 3.0);
        assert_eq!(s.pop(), Some(0));
        assert_eq!(s.pop(), Some(3));
        assert_eq!(s.pop(), Some(4));
    }

    #[test]
    fn done_nodes_release_dependents() {
        let deps = vec![vec![], vec![0]];
        let mut s = Schedule::new(&deps, &[1.0, 1.0], &[true, false]);
        assert_eq!(s.state(0), NodeState::Done);
        assert_eq!(s.pop(), Some(1));
        assert_eq!(s.pop(), None);
    }

    #[test]
    fn failure_skips_dependents_only() {
        // 0 <- 1 <- 2 ; 3 independent ; 4 depends on 1 and 3
        let deps = vec![vec![], vec![0], vec![1], vec![], vec![1, 3]];
        let mut s = Schedule::new(&deps, &[1.0; 5], &[false; 5]);
        let first = s.pop().unwrap();
        assert_eq!(first, 0);
        s.finish(0);
        let mut got = vec![];
        while let Some(i) = s.pop() {
            got.push(i);
        }
        assert!(got.contains(&1) && got.contains(&3));
        s.finish(3);
        assert_eq!(s.fail(1), vec![2, 4]);
        assert_eq!(s.state(4), NodeState::Skipped);
        assert_eq!(s.pop(), None);
    }

    #[test]
    fn tie_break_by_total_dependent_cost() {
        // 0 and 1 both have bottom level 2, but 1 has two dependents.
        let deps = vec![vec![], vec![], vec![0], vec![1], vec![1]];
        let mut s = Schedule::new(&deps, &[1.0; 5], &[false; 5]);
        assert_eq!(s.pop(), Some(1));
    }

    #[test]
    fn topo_order_is_complete() {
        let deps = vec![vec![1, 2], vec![2], vec![]];
        assert_eq!(topo_order(&deps), vec![2, 1, 0]);
    }
}
