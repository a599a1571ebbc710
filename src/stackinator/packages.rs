//! Spack `packages.yaml` bodies (cluster `packages.yaml`, `network.yaml:
//! packages`, the recipe's `packages.yaml`) → our `packages:` policies.
//!
//! Stackinator merges the three shallowly, per package key, the right side
//! winning ([`merge`]). What has no equivalent here is a warning at its
//! position, never dropped without a word.

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Loc, Spanned};
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
    /// Where it is described.
    pub loc: Loc,
    /// The OS its description names (`operating_system`, `os=`).
    pub os: Option<String>,
}

impl SystemCompiler {
    /// The `compilers:` entry of our cluster.yaml: the compiler is of the
    /// target system, so its fingerprint is not read on the machine that
    /// resolves (`fingerprint: none`; docs/stackinator.md).
    pub fn to_yaml(&self) -> Yaml {
        Yaml::at(
            Yaml::map([
                ("spec", Some(Yaml::str(&self.spec))),
                ("cc", Some(Yaml::str(&self.cc))),
                ("cxx", self.cxx.as_ref().map(Yaml::str)),
                ("fc", self.fc.as_ref().map(Yaml::str)),
                ("fingerprint", Some(Yaml::str("none"))),
            ]),
            &self.loc,
        )
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

/// `over` merged into `base`: a package in `over` replaces the whole entry
/// (and takes its place, with its origin).
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
            let at = cx.scalar_loc(key);
            out.policies.push((name, Yaml::at(p, &at)));
        }
    }
    out
}

/// A string read from the user's file, as a value with its origin.
pub(super) fn spanned(s: &Spanned<String>) -> Yaml {
    Yaml::at(Yaml::str(&s.value), &s.loc)
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
        let at = cx.scalar_loc(k);
        match key {
            "buildable" => {
                if let Some(b) = cx.bool(v, "`buildable`") {
                    entries.push(("buildable".into(), Yaml::at(Yaml::Bool(b), &at)));
                }
            }
            "externals" => {
                let ext = externals(cx, v);
                entries.push(("externals".into(), Yaml::at(Yaml::Seq(ext), &at)));
            }
            "require" => {
                let req = requirements(cx, v);
                if !req.is_empty() {
                    entries.push(("require".into(), Yaml::at(Yaml::Seq(req), &at)));
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
                        prefer.push(spanned(&s));
                    }
                }
            }
            "version" => {
                let vs: Vec<Yaml> = cx
                    .strings(v, "`version`", true)
                    .into_iter()
                    .map(|s| Yaml::at(Yaml::str(version(&s)), &s.loc))
                    .collect();
                entries.push(("version".into(), Yaml::at(Yaml::Seq(vs), &at)));
            }
            other => {
                let help = match other {
                    "providers" => Some(format!(
                        "`providers` is read under `all:` only (here: `packages:all:providers:{name}`)"
                    )),
                    "target" | "compiler" => Some(
                        "the cluster's target and the stack's compilers apply to every package"
                            .to_string(),
                    ),
                    _ => crate::diag::did_you_mean(other, KEYS)
                        .or_else(|| Some(format!("supported here: {}", KEYS.join(", ")))),
                };
                cx.warn(
                    Code::Unsupported,
                    &at,
                    format!("`packages:{name}:{other}` is not supported by stack; ignored"),
                    "not translated",
                    help,
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
            let conditional = m.has("when");
            for (k, v) in m.entries() {
                let loc = cx.scalar_loc(k);
                match k.as_str() {
                    "spec" if !conditional => {
                        if let Some(s) = cx.string(v, "`spec`") {
                            out.push(spanned(&s));
                        }
                    }
                    "one_of" | "any_of" if !conditional => {
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
                            out.push(spanned(first));
                        }
                    }
                    // The message Spack shows when the requirement fails.
                    "message" => {}
                    "when" => cx.warn(
                        Code::Unsupported,
                        &loc,
                        "conditional requirements (`when:`) are not supported; the entry is ignored",
                        "not translated",
                        Some("write the requirement into the specs that need it".into()),
                    ),
                    // Ignored with the `when:` warning above.
                    "spec" | "one_of" | "any_of" => {}
                    other => cx.warn(
                        Code::Unsupported,
                        &loc,
                        format!(
                            "`{other}` in a `require` entry is not supported; the entry is ignored"
                        ),
                        "not translated",
                        Some("a `require` entry is a spec, or `spec:`/`one_of:`/`any_of:`".into()),
                    ),
                }
            }
            continue;
        }
        if let Some(s) = cx.string(&item, "a `require` entry") {
            out.push(spanned(&s));
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
            .map(|s| spanned(&s))
            .collect();
        if !names.is_empty() {
            let at = cx.scalar_loc(k);
            out.push((k.as_str().to_string(), Yaml::at(Yaml::Seq(names), &at)));
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
        if let Some(Yaml::Map(entries)) = plain_mut(pol) {
            if let Some(i) = entries.iter().position(|(k, _)| k == "providers") {
                if let (_, Yaml::Map(m)) = entries.remove(i) {
                    listed = m;
                }
            }
        }
    }
    policies.retain(|(n, p)| n != "all" || !matches!(p.plain(), Yaml::Map(e) if e.is_empty()));
    for (virt, names) in listed {
        let prefer = ("prefer".to_string(), names);
        match policies.iter_mut().find(|(n, _)| *n == virt) {
            Some((_, pol)) => {
                if let Some(Yaml::Map(entries)) = plain_mut(pol) {
                    if !entries.iter().any(|(k, _)| k == "prefer" || k == "require") {
                        entries.push(prefer);
                    }
                }
            }
            None => policies.push((virt, Yaml::Map(vec![prefer]))),
        }
    }
}

/// The value inside [`Yaml::At`] wrappers, to change it in place.
pub(super) fn plain_mut(y: &mut Yaml) -> Option<&mut Yaml> {
    match y {
        Yaml::At(v, _) => plain_mut(v),
        v => Some(v),
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
            out.push(spanned(&s));
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
        let spec = m.get("spec").and_then(|n| cx.string(n, "`spec`"));
        let prefix = m.get("prefix").and_then(|n| cx.string(n, "`prefix`"));
        for (k, _) in m.entries() {
            let loc = cx.scalar_loc(k);
            let (what, help) = match k.as_str() {
                "spec" | "prefix" => continue,
                "extra_attributes" => (
                    "`extra_attributes` of an external is not translated",
                    "stack reads `extra_attributes.compilers` of the `gcc` entry (the cluster's compilers) only",
                ),
                "modules" if prefix.is_none() => (
                    "an external loaded by `modules` is not supported; the external is skipped",
                    "stack needs the external's `prefix`",
                ),
                "modules" => (
                    "`modules` of an external is not translated; its `prefix` is used",
                    "stack uses an external by its prefix; no module is loaded",
                ),
                _ => (
                    "this key of an external is not supported; ignored",
                    "externals are `spec` and `prefix`",
                ),
            };
            cx.warn(
                Code::Unsupported,
                &loc,
                what,
                "not translated",
                Some(help.into()),
            );
        }
        if let (Some(spec), Some(prefix)) = (spec, prefix) {
            let at = cx.loc(item);
            out.push(Yaml::at(
                Yaml::map([
                    ("spec", Some(spanned(&spec))),
                    ("prefix", Some(spanned(&prefix))),
                ]),
                &at,
            ));
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
    for (k, v) in m.entries() {
        if k.as_str() != "externals" && !is_null(v) {
            let loc = cx.scalar_loc(k);
            cx.warn(
                Code::Unsupported,
                &loc,
                format!(
                    "`packages:gcc:{}` is not translated: the system gcc is read as the cluster's compiler",
                    k.as_str()
                ),
                "not translated",
                Some("the stack builds its own gcc when compilers.yaml asks for one".into()),
            );
        }
    }
    let Some(ext) = m.get("externals") else {
        return Vec::new();
    };
    let Some(items) = cx.seq(ext, "`externals`") else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| gcc_external(cx, item))
        .collect()
}

/// One entry of `packages:gcc:externals`: the system compiler it names
/// (its paths from `extra_attributes.compilers`, else under its prefix).
fn gcc_external(cx: &mut Cx, item: &Node) -> Option<SystemCompiler> {
    let e = cx.open_map(item, "a gcc external")?;
    for (k, _) in e.entries() {
        if ["spec", "prefix", "extra_attributes"].contains(&k.as_str()) {
            continue;
        }
        let loc = cx.scalar_loc(k);
        cx.warn(
            Code::Unsupported,
            &loc,
            format!("`{}` of the system gcc is not translated", k.as_str()),
            "not translated",
            Some("the compiler is used by its paths (`extra_attributes.compilers`)".into()),
        );
    }
    let spec = e.get("spec").and_then(|n| cx.string(n, "`spec`"))?;
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
    let attrs = e
        .get("extra_attributes")
        .and_then(|n| cx.open_map(n, "`extra_attributes`"));
    let mut paths = None;
    if let Some(a) = &attrs {
        for (k, v) in a.entries() {
            if k.as_str() == "compilers" {
                paths = cx.map(v, "`compilers`", &["c", "cxx", "fortran"]);
            } else {
                let loc = cx.scalar_loc(k);
                cx.warn(
                    Code::Unsupported,
                    &loc,
                    format!("`extra_attributes:{}` is not translated", k.as_str()),
                    "not translated",
                    Some("stack reads the compiler paths (`compilers: {c, cxx, fortran}`)".into()),
                );
            }
        }
    }
    let get = |cx: &mut Cx, key: &str| {
        paths
            .as_ref()
            .and_then(|p| p.get(key))
            .and_then(|n| cx.string(n, key))
    };
    let loc = spec.loc.clone();
    let cc = get(cx, "c");
    let Some(cc) = cc else {
        cx.warn(
            Code::MissingField,
            &spec.loc,
            format!(
                "external `{}` has no `extra_attributes.compilers.c`; {prefix}/bin/gcc is assumed",
                spec.value
            ),
            "no compiler paths",
            None,
        );
        return Some(SystemCompiler {
            spec: name_version,
            cc: format!("{prefix}/bin/gcc"),
            cxx: Some(format!("{prefix}/bin/g++")),
            fc: Some(format!("{prefix}/bin/gfortran")),
            loc,
            os: os_of(&spec.value),
        });
    };
    let cxx = get(cx, "cxx").map(|s| s.value);
    let fc = get(cx, "fortran").map(|s| s.value);
    Some(SystemCompiler {
        spec: name_version,
        cc: cc.value,
        cxx,
        fc,
        loc,
        os: os_of(&spec.value),
    })
}

/// The OS a Spack spec names: `os=sles15`, or the middle of
/// `arch=linux-sles15-zen2`.
pub(super) fn os_of(spec: &str) -> Option<String> {
    spec.split_whitespace().find_map(|w| {
        if let Some(os) = w.strip_prefix("os=") {
            return Some(os.to_string());
        }
        let arch = w.strip_prefix("arch=")?;
        let mut parts = arch.split('-');
        let (_, os) = (parts.next()?, parts.next()?);
        (!os.is_empty()).then(|| os.to_string())
    })
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
