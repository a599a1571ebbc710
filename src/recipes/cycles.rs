//! Dependency cycles among package recipes, found without resolving: a
//! cycle through unconditional dependencies on packages (not virtuals) is
//! certain, so `stack check` reports it as `stack resolve` would.

use std::collections::{HashMap, VecDeque};

use super::PackageRepo;

/// The shortest chain of unconditional dependencies from `start` back to
/// itself (`[start, b, …, start]`), if there is one.
pub(crate) fn cycle_through(repo: &PackageRepo, start: &str) -> Option<Vec<String>> {
    let deps = |name: &str| -> Vec<String> {
        repo.get(name)
            .map(|r| {
                r.dependencies
                    .iter()
                    .filter(|d| d.when.is_none() && !repo.is_virtual(d.name()))
                    .map(|d| d.name().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    // Breadth first: the shortest cycle reads best.
    let mut parent: HashMap<String, String> = HashMap::new();
    let mut queue: VecDeque<String> = VecDeque::new();
    for d in deps(start) {
        if d == start {
            continue; // self-dependency: reported on its own
        }
        if !parent.contains_key(&d) {
            parent.insert(d.clone(), start.to_string());
            queue.push_back(d);
        }
    }
    while let Some(n) = queue.pop_front() {
        for d in deps(&n) {
            if d == start {
                let mut chain = vec![start.to_string(), n.clone()];
                let mut cur = n.clone();
                while let Some(p) = parent.get(&cur) {
                    if p == start {
                        break;
                    }
                    chain.insert(1, p.clone());
                    cur = p.clone();
                }
                chain.push(start.to_string());
                return Some(chain);
            }
            if !parent.contains_key(&d) {
                parent.insert(d.clone(), n.clone());
                queue.push_back(d);
            }
        }
    }
    None
}
