//! Dependency cycles among the decided packages: a conflict like any other.
//! Once everything is decided, a cycle (`gettext → iconv from glibc →
//! texinfo → gettext`) sends the search back to the most recent decision on
//! it (a package's version, or the provider chosen for a virtual on the
//! way), so that another choice is tried; only when none is left is the
//! cycle the failure reported.

use std::collections::BTreeSet;

use super::super::error::Explanation;
use super::{Decision, Solver};

impl Solver<'_> {
    /// The package slots on a dependency cycle, in edge order (the first
    /// depends on the second, …, the last on the first); `None` when the
    /// decided packages form a DAG.
    pub(super) fn find_cycle(&self) -> Option<Vec<usize>> {
        // 0 unvisited, 1 on the current path, 2 done.
        let mut state = vec![0u8; self.slots.len()];
        for start in 0..self.slots.len() {
            if state[start] != 0 || !matches!(self.decided[start], Some(Decision::Node(_))) {
                continue;
            }
            // Iterative DFS: (slot, index of the next dependency).
            let mut path: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (s, ref mut next)) = path.last_mut() {
                let deps = match &self.decided[s] {
                    Some(Decision::Node(c)) => c.deps.as_slice(),
                    _ => &[],
                };
                let Some(&(t, _)) = deps.get(*next) else {
                    state[s] = 2;
                    path.pop();
                    continue;
                };
                *next += 1;
                let r = self.resolved(t);
                if !matches!(self.decided[r], Some(Decision::Node(_))) {
                    continue;
                }
                match state[r] {
                    0 => {
                        state[r] = 1;
                        path.push((r, 0));
                    }
                    1 => {
                        let at = path.iter().position(|(x, _)| *x == r).expect("on path");
                        return Some(path[at..].iter().map(|(x, _)| *x).collect());
                    }
                    _ => {}
                }
            }
        }
        None
    }

    /// A cycle among the decided packages, explained, with its conflict set:
    /// the decisions of the packages on it and of the virtuals whose
    /// provider choice makes one of its edges.
    pub(super) fn check_cycles(&self) -> Option<(Explanation, BTreeSet<usize>)> {
        let cycle = self.find_cycle()?;
        let mut cs: BTreeSet<usize> = BTreeSet::new();
        for (i, &s) in cycle.iter().enumerate() {
            cs.extend(self.level_of[s]);
            let next = cycle[(i + 1) % cycle.len()];
            let Some(Decision::Node(c)) = &self.decided[s] else {
                continue;
            };
            for &(t, _) in &c.deps {
                let mut v = t;
                // Every virtual on the way from `s` to `next`.
                while let Some(Decision::Provider { slot: p }) = &self.decided[v] {
                    if self.resolved(*p) == next {
                        cs.extend(self.level_of[v]);
                    }
                    v = *p;
                }
            }
        }
        Some((self.explain_cycle(&cycle), cs))
    }
}
