//! Which packages a view links, and in which order.
//!
//! View order: the environment's roots in store order, then their
//! dependencies breadth-first. The first package in this order wins a file
//! conflict; environment operations are applied in the reverse order, so a
//! root's `prepend_path` ends up in front of its dependencies'.

use std::collections::{HashMap, HashSet, VecDeque};

use super::error::{ViewError, ViewWarning};
use super::input::{InstalledPackage, LinkType, StoreContents, ViewSpec};

/// Index of packages by hash.
pub(crate) struct PackageIndex<'a> {
    pub by_hash: HashMap<&'a str, &'a InstalledPackage>,
}

impl<'a> PackageIndex<'a> {
    pub fn new(store: &'a StoreContents) -> Result<Self, ViewError> {
        let by_hash: HashMap<&str, &InstalledPackage> = store
            .packages
            .iter()
            .map(|p| (p.hash.as_str(), p))
            .collect();
        for p in &store.packages {
            for h in p.deps.iter().chain(&p.build_deps) {
                if !by_hash.contains_key(h.as_str()) {
                    return Err(ViewError::UnknownDependency {
                        package: p.label(),
                        hash: h.clone(),
                    });
                }
            }
        }
        Ok(PackageIndex { by_hash })
    }

    /// Roots of `env` followed by the dependencies reachable from them
    /// (link/run deps, plus build deps when `with_build`), breadth-first.
    pub fn closure(
        &self,
        store: &'a StoreContents,
        env: &str,
        with_build: bool,
    ) -> Vec<&'a InstalledPackage> {
        let mut out: Vec<&InstalledPackage> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut queue: VecDeque<&InstalledPackage> = VecDeque::new();
        for p in store.packages.iter().filter(|p| p.is_root_in(env)) {
            if seen.insert(&p.hash) {
                queue.push_back(p);
            }
        }
        while let Some(p) = queue.pop_front() {
            out.push(p);
            let deps = p
                .deps
                .iter()
                .chain(if with_build { &p.build_deps[..] } else { &[] });
            for h in deps {
                let d = self.by_hash[h.as_str()];
                if seen.insert(&d.hash) {
                    queue.push_back(d);
                }
            }
        }
        out
    }
}

/// The packages `spec` links, in view order. Externals are never linked.
pub(crate) fn view_packages<'a>(
    store: &'a StoreContents,
    index: &PackageIndex<'a>,
    spec: &ViewSpec,
    warnings: &mut Vec<ViewWarning>,
) -> Result<Vec<&'a InstalledPackage>, ViewError> {
    let env_members = index.closure(store, &spec.env_name, true);
    let mut linked: Vec<&InstalledPackage> = match spec.link {
        LinkType::Roots => env_members
            .iter()
            .copied()
            .filter(|p| p.is_root_in(&spec.env_name))
            .collect(),
        LinkType::Run => index.closure(store, &spec.env_name, false),
        LinkType::All => env_members.clone(),
    };
    for hash in &spec.also {
        if let Some(p) = store.packages.iter().find(|p| &p.hash == hash)
            && !linked.iter().any(|l| l.hash == p.hash)
        {
            linked.push(p);
        }
    }
    for name in &spec.select {
        if !linked.iter().any(|p| &p.name == name) {
            let mut available: Vec<String> = linked.iter().map(|p| p.name.clone()).collect();
            available.dedup();
            return Err(ViewError::UnknownSelect {
                view: spec.name.clone(),
                name: name.clone(),
                link: match spec.link {
                    LinkType::Roots => "roots",
                    LinkType::Run => "run",
                    LinkType::All => "all",
                },
                available,
            });
        }
    }
    for name in &spec.exclude {
        if !env_members.iter().any(|p| &p.name == name) {
            warnings.push(ViewWarning::ExcludeUnknown {
                view: spec.name.clone(),
                name: name.clone(),
            });
        }
    }
    Ok(linked
        .into_iter()
        .filter(|p| !p.external)
        .filter(|p| spec.select.is_empty() || spec.select.contains(&p.name))
        .filter(|p| !spec.exclude.contains(&p.name))
        .collect())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn pkg(name: &str, deps: &[&str], build: &[&str], roots: &[&str]) -> InstalledPackage {
        InstalledPackage {
            name: name.into(),
            version: "1".into(),
            hash: format!("h-{name}"),
            description: String::new(),
            prefix: PathBuf::from(format!("/m/{name}")),
            deps: deps.iter().map(|d| format!("h-{d}")).collect(),
            build_deps: build.iter().map(|d| format!("h-{d}")).collect(),
            root_in: roots.iter().map(|s| s.to_string()).collect(),
            external: false,
            env: vec![],
        }
    }

    fn store() -> StoreContents {
        let mut ext = pkg("zlib", &[], &[], &[]);
        ext.external = true;
        StoreContents {
            mount: "/m".into(),
            store_dir: "/s".into(),
            packages: vec![
                pkg("app", &["greet"], &["cmake"], &["e"]),
                pkg("tool", &["zlib"], &[], &["e"]),
                pkg("greet", &["calc"], &[], &[]),
                pkg("calc", &[], &[], &[]),
                pkg("cmake", &[], &[], &[]),
                ext,
            ],
        }
    }

    fn names(spec: &ViewSpec) -> Result<Vec<String>, ViewError> {
        let s = store();
        let idx = PackageIndex::new(&s)?;
        let mut w = vec![];
        Ok(view_packages(&s, &idx, spec, &mut w)?
            .into_iter()
            .map(|p| p.name.clone())
            .collect())
    }

    fn spec(link: LinkType) -> ViewSpec {
        ViewSpec {
            env_name: "e".into(),
            name: "v".into(),
            link,
            ..ViewSpec::default()
        }
    }

    #[test]
    fn link_types() {
        assert_eq!(names(&spec(LinkType::Roots)).unwrap(), ["app", "tool"]);
        assert_eq!(
            names(&spec(LinkType::Run)).unwrap(),
            ["app", "tool", "greet", "calc"]
        );
        assert_eq!(
            names(&spec(LinkType::All)).unwrap(),
            ["app", "tool", "greet", "cmake", "calc"]
        );
    }

    #[test]
    fn select_and_exclude() {
        let mut s = spec(LinkType::Run);
        s.select = vec!["calc".into(), "app".into()];
        assert_eq!(names(&s).unwrap(), ["app", "calc"]);
        let mut s = spec(LinkType::All);
        s.exclude = vec!["cmake".into()];
        assert_eq!(names(&s).unwrap(), ["app", "tool", "greet", "calc"]);
        let mut s = spec(LinkType::Roots);
        s.select = vec!["calc".into()];
        let e = names(&s).unwrap_err().to_string();
        assert!(e.contains("select names `calc`"), "{e}");
        assert!(e.contains("use `link: run`"), "{e}");
    }

    #[test]
    fn unknown_dependency_is_an_error() {
        let mut s = store();
        s.packages[0].deps.push("nope".into());
        let e = PackageIndex::new(&s).err().unwrap().to_string();
        assert_eq!(
            e,
            "package app@1 depends on hash nope, which is not in the store contents"
        );
    }
}
