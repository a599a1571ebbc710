//! Which recipes depend on a package (`stack dependents`), directly or
//! through a virtual it provides.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::diag::Loc;

use super::PackageRepo;

/// One dependency entry that names the package (or a virtual it provides).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependent {
    /// The recipe with the dependency.
    pub package: String,
    /// The dependency as written (`libfabric@1.22: +cxi`, `mpi`).
    pub spec: String,
    /// Its `when:` condition, as written.
    pub when: Option<String>,
    /// Where the entry is.
    pub loc: Loc,
}

/// Every recipe entry depending on `name` or on a virtual `name` provides,
/// sorted by package (parses every recipe).
pub fn dependents(repo: &PackageRepo, name: &str) -> Vec<Dependent> {
    let mut targets: BTreeSet<String> = BTreeSet::from([name.to_string()]);
    targets.extend(
        repo.virtual_names()
            .filter(|v| repo.providers(v).iter().any(|p| p.package == name))
            .map(str::to_string),
    );
    let mut out = Vec::new();
    for pkg in repo.packages() {
        for d in &pkg.dependencies {
            if targets.contains(d.name()) {
                out.push(Dependent {
                    package: pkg.name.clone(),
                    spec: d.spec.text.clone(),
                    when: d.when.as_ref().map(|w| w.text.clone()),
                    loc: d.loc.clone(),
                });
            }
        }
    }
    out
}

/// Every package that depends on `name` through any chain of dependencies,
/// with its distance (1: direct), sorted by name.
pub fn dependents_transitive(repo: &PackageRepo, name: &str) -> BTreeMap<String, usize> {
    let mut dist = BTreeMap::new();
    let mut queue = VecDeque::from([(name.to_string(), 0usize)]);
    while let Some((n, d)) = queue.pop_front() {
        for dep in dependents(repo, &n) {
            if dep.package != name && !dist.contains_key(&dep.package) {
                dist.insert(dep.package.clone(), d + 1);
                queue.push_back((dep.package, d + 1));
            }
        }
    }
    dist
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::recipes::{RepoDir, RepoOrigin};

    fn write(dir: &Path, name: &str, extra: &str) {
        fs_err::write(
            dir.join(format!("{name}.yaml")),
            format!(
                "name: {name}\ndescription: d\nversions: [{{version: \"1\", git: \"https://x/y.git\", tag: v1}}]\nbuild: {{system: generic}}\n{extra}"
            ),
        )
        .unwrap();
    }

    #[test]
    fn direct_and_through_a_virtual_and_transitive() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        write(d, "mpich", "provides: [mpi]\ndependencies: [fabric]\n");
        write(d, "fabric", "");
        write(
            d,
            "app",
            "dependencies: [{spec: mpi, when: +mpi}, \"fabric@1:\"]\nvariants: {mpi: {default: true}}\n",
        );
        write(d, "top", "dependencies: [app]\n");
        let repo = PackageRepo::load(vec![RepoDir {
            path: d.to_path_buf(),
            origin: RepoOrigin::Flag,
        }]);
        let direct: Vec<_> = dependents(&repo, "fabric")
            .into_iter()
            .map(|d| (d.package, d.spec))
            .collect();
        assert_eq!(
            direct,
            [
                ("app".into(), "fabric@1:".into()),
                ("mpich".into(), "fabric".into())
            ]
        );
        let via_virtual = dependents(&repo, "mpich");
        assert_eq!(via_virtual.len(), 1);
        assert_eq!(
            (via_virtual[0].spec.as_str(), via_virtual[0].when.as_deref()),
            ("mpi", Some("+mpi"))
        );
        let all = dependents_transitive(&repo, "fabric");
        assert_eq!(
            all.into_iter().collect::<Vec<_>>(),
            [("app".into(), 1), ("mpich".into(), 1), ("top".into(), 2)]
        );
    }
}
