//! Spack `packages.yaml` bodies (cluster `packages.yaml`, `network.yaml:
//! packages`, the recipe's `packages.yaml`) → our `packages:` policies.
//!
//! Stackinator merges the three shallowly, per package key, the right side
//! winning ([`merge`]). What has no equivalent here is a warning at its
//! position, never dropped without a word.

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Spanned};
use crate::import::yaml_out::Yaml;

/// Policies in file order: package (or virtual, or `all`) → policy.
pub type PolicyList = Vec<(String, Yaml)>;

/// A system compiler found in a `gcc:` entry's externals.
#[derive(Clone, Debug)]
pub struct SystemCompiler {
    /// `gcc@12.3.0`.
    pub spec: String,
    pub cc: String,
    pub cxx: Option<String>,
    pub fc: Option<String>,
}

impl SystemCompiler {
    pub fn to_yaml(&self) -> Yaml {
        Yaml::map([
            ("spec", Some(Yaml::str(&self.spec))),
            ("cc", Some(Yaml::str(&self.cc))),
            ("cxx", self.cxx.as_ref().map(Yaml::str)),
            ("fc", self.fc.as_ref().map(Yaml::str)),
        ])
    }
}

/// What one `packages:` body holds.
#[derive(Clone, Debug, Default)]
pub struct PackagesBody {
    pub policies: PolicyList,
    /// From `gcc:` externals with `extra_attributes.compilers`.
    pub compilers: Vec<SystemCompiler>,
    /// Whether a `gcc:` entry was present.
    pub has_gcc: bool,
}

/// `over` merged into `base`: a package in `over` replaces the whole entry.
pub fn merge(base: &mut PolicyList, over: PolicyList) {
    for (name, pol) in over {
        match base.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = pol,
            None => base.push((name, pol)),
        }
    }
}

const KEYS: &[&str] = &[
    "buildable",
    "providers",
    "externals",
    "require",
    "prefer",
    "version",
    "variants",
];

/// Read a `packages:` mapping (the value under the `packages` key).
pub fn read_body(cx: &mut Cx, node: &Node) -> PackagesBody {
    let mut out = PackagesBody::default();
    let Some(m) = cx.open_map(node, "`packages`") else {
        return out;
    };
    for (key, value) in m.entries() {
        let name = key.as_str().to_string();
        if name == "gcc" {
            out.has_gcc = true;
            out.compilers.extend(gcc_externals(cx, value));
            continue;
        }
        if let Some(p) = policy(cx, &name, value) {
            out.policies.push((name, p));
        }
    }
    out
}

fn policy(cx: &mut Cx, name: &str, node: &Node) -> Option<Yaml> {
    let m = cx.open_map(node, &format!("the policy for `{name}`"))?;
    let mut entries: Vec<(String, Yaml)> = Vec::new();
    let mut prefer: Vec<Yaml> = Vec::new();
    for (k, v) in m.entries() {
        let key = k.as_str();
        if is_null(v) {
            continue;
        }
        match key {
            "buildable" => {
                if let Some(b) = cx.bool(v, "`buildable`") {
                    entries.push(("buildable".into(), Yaml::Bool(b)));
                }
            }
            "externals" => {
                let ext = externals(cx, v);
                entries.push(("externals".into(), Yaml::Seq(ext)));
            }
            "require" => {
                let req = requirements(cx, v);
                if !req.is_empty() {
                    entries.push(("require".into(), Yaml::Seq(req)));
                }
            }
            "prefer" => prefer.extend(preferences(cx, v)),
            "providers" if name == "all" => {
                if let Some(p) = providers(cx, v) {
                    entries.push(("providers".into(), p));
                }
            }
            // A Spack `variants:` entry is a preference (ignored by Spack
            // when the variant does not exist).
            "variants" => {
                for s in cx.one_or_many(v).to_vec() {
                    if let Some(s) = cx.string(&s, "a `variants` entry") {
                        prefer.push(Yaml::str(s.value));
                    }
                }
            }
            "version" => {
                let vs: Vec<Yaml> = cx
                    .strings(v, "`version`", true)
                    .into_iter()
                    .map(|s| Yaml::str(version(&s)))
                    .collect();
                entries.push(("version".into(), Yaml::Seq(vs)));
            }
            other => {
                let loc = cx.scalar_loc(k);
                cx.warn(
                    Code::Unsupported,
                    &loc,
                    format!("`packages:{name}:{other}` is not supported by stack; ignored"),
                    "not translated",
                    crate::diag::did_you_mean(other, KEYS)
                        .or_else(|| Some(format!("supported here: {}", KEYS.join(", ")))),
                );
            }
        }
    }
    if !prefer.is_empty() {
        entries.push(("prefer".into(), Yaml::Seq(prefer)));
    }
    Some(Yaml::Map(entries))
}

pub(super) fn is_null(n: &Node) -> bool {
    matches!(n, Node::Scalar(s) if crate::diag::yaml::is_null(s))
}

/// `git.release/shs-13.0.0=13.0.0` → `13.0.0`: the version the git ref
/// stands for (our recipes name SHS releases by that version).
fn version(s: &Spanned<String>) -> String {
    match s.value.split_once('=') {
        Some((_, v)) if s.value.starts_with("git.") => v.to_string(),
        _ => s.value.clone(),
    }
}

fn requirements(cx: &mut Cx, node: &Node) -> Vec<Yaml> {
    let mut out = Vec::new();
    for item in cx.one_or_many(node).to_vec() {
        if let Node::Mapping(_) = item {
            let Some(m) = cx.open_map(&item, "a `require` entry") else {
                continue;
            };
            for (k, v) in m.entries() {
                let loc = cx.scalar_loc(k);
                match k.as_str() {
                    "spec" if !m.has("when") => {
                        if let Some(s) = cx.string(v, "`spec`") {
                            out.push(Yaml::str(s.value));
                        }
                    }
                    "one_of" | "any_of" => {
                        let opts = cx.strings(v, "the alternatives", true);
                        if let Some(first) = opts.first() {
                            cx.warn(
                                Code::Unsupported,
                                &loc,
                                format!(
                                    "`{}` is not supported: the first alternative `{}` is required",
                                    k.as_str(),
                                    first.value
                                ),
                                "first alternative taken",
                                Some("write one `require` spec to choose another".into()),
                            );
                            out.push(Yaml::str(first.value.clone()));
                        }
                    }
                    "message" => {}
                    other => cx.warn(
                        Code::Unsupported,
                        &loc,
                        format!(
                            "`{other}` in a `require` entry is not supported; the entry is ignored"
                        ),
                        "not translated",
                        Some("conditional requirements (`when:`) have no equivalent yet".into()),
                    ),
                }
            }
            continue;
        }
        if let Some(s) = cx.string(&item, "a `require` entry") {
            out.push(Yaml::str(s.value));
        }
    }
    out
}

/// `all: providers: {mpi: [openmpi, mpich]}` → the same mapping, kept on
/// the `all` entry until [`expand_providers`] (after the merge, so that
/// the recipe's `all:` replaces the cluster's as in stackinator).
fn providers(cx: &mut Cx, node: &Node) -> Option<Yaml> {
    let m = cx.open_map(node, "`providers`")?;
    let mut out = Vec::new();
    for (k, v) in m.entries() {
        let names: Vec<Yaml> = cx
            .strings(v, "the providers", true)
            .into_iter()
            .map(|s| Yaml::str(s.value))
            .collect();
        if !names.is_empty() {
            out.push((k.as_str().to_string(), Yaml::Seq(names)));
        }
    }
    Some(Yaml::Map(out))
}

/// Spack's `all: providers:` as our policies say it: each virtual gets
/// `prefer: [its providers]` unless its own entry has `prefer` or
/// `require` (which win in Spack too). The `providers` key leaves `all`.
pub fn expand_providers(policies: &mut PolicyList) {
    let mut listed: Vec<(String, Yaml)> = Vec::new();
    for (name, pol) in policies.iter_mut() {
        if name != "all" {
            continue;
        }
        if let Yaml::Map(entries) = pol {
            if let Some(i) = entries.iter().position(|(k, _)| k == "providers") {
                if let (_, Yaml::Map(m)) = entries.remove(i) {
                    listed = m;
                }
            }
        }
    }
    policies.retain(|(n, p)| n != "all" || !matches!(p, Yaml::Map(e) if e.is_empty()));
    for (virt, names) in listed {
        let prefer = ("prefer".to_string(), names);
        match policies.iter_mut().find(|(n, _)| *n == virt) {
            Some((_, Yaml::Map(entries))) => {
                if !entries.iter().any(|(k, _)| k == "prefer" || k == "require") {
                    entries.push(prefer);
                }
            }
            Some(_) => {}
            None => policies.push((virt, Yaml::Map(vec![prefer]))),
        }
    }
}

fn preferences(cx: &mut Cx, node: &Node) -> Vec<Yaml> {
    let mut out = Vec::new();
    for item in cx.one_or_many(node).to_vec() {
        if let Node::Mapping(_) = item {
            let loc = cx.loc(&item);
            cx.warn(
                Code::Unsupported,
                &loc,
                "conditional `prefer` entries (`spec:`/`when:`) are not supported; ignored",
                "not translated",
                None,
            );
            continue;
        }
        if let Some(s) = cx.string(&item, "a `prefer` entry") {
            out.push(Yaml::str(s.value));
        }
    }
    out
}

fn externals(cx: &mut Cx, node: &Node) -> Vec<Yaml> {
    let Some(items) = cx.seq(node, "`externals`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.open_map(item, "an external") else {
            continue;
        };
        for (k, _) in m.entries() {
            if !["spec", "prefix", "extra_attributes"].contains(&k.as_str()) {
                let loc = cx.scalar_loc(k);
                cx.warn(
                    Code::Unsupported,
                    &loc,
                    format!(
                        "`{}` in an external is not supported; the external is skipped",
                        k.as_str()
                    ),
                    "not translated",
                    Some("externals need `spec` and `prefix`".into()),
                );
            }
        }
        let spec = m.get("spec").and_then(|n| cx.string(n, "`spec`"));
        let prefix = m.get("prefix").and_then(|n| cx.string(n, "`prefix`"));
        if let (Some(spec), Some(prefix)) = (spec, prefix) {
            out.push(Yaml::map([
                ("spec", Some(Yaml::str(spec.value))),
                ("prefix", Some(Yaml::str(prefix.value))),
            ]));
        }
    }
    out
}

/// `gcc: externals: [{spec: gcc@12.3.0 languages=…, prefix, extra_attributes:
/// {compilers: {c, cxx, fortran}}}]` → system compilers.
fn gcc_externals(cx: &mut Cx, node: &Node) -> Vec<SystemCompiler> {
    let Some(m) = cx.open_map(node, "the policy for `gcc`") else {
        return Vec::new();
    };
    let Some(ext) = m.get("externals") else {
        return Vec::new();
    };
    let Some(items) = cx.seq(ext, "`externals`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Some(e) = cx.open_map(item, "an external") else {
            continue;
        };
        let Some(spec) = e.get("spec").and_then(|n| cx.string(n, "`spec`")) else {
            continue;
        };
        let name_version = spec
            .value
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string();
        let prefix = e
            .get("prefix")
            .and_then(|n| cx.string(n, "`prefix`"))
            .map(|p| p.value)
            .unwrap_or_else(|| "/usr".into());
        let paths = e
            .get("extra_attributes")
            .and_then(|n| cx.open_map(n, "`extra_attributes`"))
            .and_then(|a| a.get("compilers"))
            .and_then(|n| cx.open_map(n, "`compilers`"));
        let get = |cx: &mut Cx, key: &str| {
            paths
                .as_ref()
                .and_then(|p| p.get(key))
                .and_then(|n| cx.string(n, key))
                .map(|s| s.value)
        };
        let cc = get(cx, "c");
        let Some(cc) = cc else {
            cx.warn(
                Code::MissingField,
                &spec.loc,
                format!("external `{}` has no `extra_attributes.compilers.c`; {prefix}/bin/gcc is assumed", spec.value),
                "no compiler paths",
                None,
            );
            out.push(SystemCompiler {
                spec: name_version,
                cc: format!("{prefix}/bin/gcc"),
                cxx: Some(format!("{prefix}/bin/g++")),
                fc: Some(format!("{prefix}/bin/gfortran")),
            });
            continue;
        };
        let cxx = get(cx, "cxx");
        let fc = get(cx, "fortran");
        out.push(SystemCompiler {
            spec: name_version,
            cc,
            cxx,
            fc,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, SourceFile};

    fn read(text: &str) -> (PackagesBody, Diagnostics) {
        let src = SourceFile::new("/x/packages.yaml", text);
        let mut diags = Diagnostics::new();
        let root = crate::diag::yaml::parse(&src).unwrap();
        let mut cx = Cx::new(&src, &mut diags);
        let m = cx.open_map(&root, "x").unwrap();
        let body = read_body(&mut cx, m.get("packages").unwrap());
        (body, diags)
    }

    #[test]
    fn versions_requirements_and_variants_translate() {
        let (b, d) = read(
            "packages:\n  libcxi: {version: [\"git.release/shs-13.0.0=13.0.0\"]}\n  patchelf: {require: \"@:0.17\"}\n  hdf5:\n    require:\n    - one_of: [\"+mpi\", \"~mpi\"]\n    variants: +fortran\n",
        );
        let doc = Yaml::Map(b.policies).to_document();
        assert_eq!(
            doc,
            "libcxi: {version: [\"13.0.0\"]}\npatchelf: {require: [\"@:0.17\"]}\nhdf5: {require: [\"+mpi\"], prefer: [\"+fortran\"]}\n"
        );
        assert_eq!(d.warning_count(), 1, "{d:?}");
        assert!(d.to_string().contains("one_of"), "{d}");
    }

    #[test]
    fn gcc_externals_become_compilers_and_merge_replaces_whole_entries() {
        let (b, _) = read(
            "packages:\n  gcc:\n    externals:\n    - spec: gcc@12.3.0 languages='c,c++,fortran'\n      prefix: /usr\n      extra_attributes:\n        compilers: {c: /usr/bin/gcc-12, cxx: /usr/bin/g++-12, fortran: /usr/bin/gfortran-12}\n  zlib: {buildable: false, version: ['1.3']}\n",
        );
        assert!(b.has_gcc);
        assert_eq!(b.compilers[0].spec, "gcc@12.3.0");
        assert_eq!(b.compilers[0].fc.as_deref(), Some("/usr/bin/gfortran-12"));
        let mut base = b.policies;
        merge(
            &mut base,
            vec![(
                "zlib".into(),
                Yaml::map([("prefer", Some(Yaml::strs(&["@1.2"])))]),
            )],
        );
        assert_eq!(
            Yaml::Map(base).to_document(),
            "zlib: {prefer: [\"@1.2\"]}\n"
        );
    }

    #[test]
    fn all_providers_become_virtual_preferences_below_their_own_entries() {
        let (b, d) = read(
            "packages:\n  all:\n    providers:\n      iconv: [libiconv]\n      mpi: [openmpi, mpich]\n      blas: openblas\n  mpi: {require: cray-mpich}\n  blas: {buildable: false}\n",
        );
        assert_eq!(d.warning_count(), 0, "{d:?}");
        let mut policies = b.policies;
        expand_providers(&mut policies);
        assert_eq!(
            Yaml::Map(policies).to_document(),
            "mpi: {require: [cray-mpich]}\nblas: {buildable: false, prefer: [openblas]}\niconv: {prefer: [libiconv]}\n"
        );
    }
}
