//! One `environments.yaml` entry → one entry of our `environments:`.

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Spanned};
use crate::import::yaml_out::Yaml;

use super::packages::is_null;

const ENV_KEYS: &[&str] = &[
    "compiler",
    "specs",
    "network",
    "mpi",
    "unify",
    "duplicates",
    "deprecated",
    "variants",
    "prefer",
    "packages",
    "views",
];

/// The environment `name`; `mpi` are the cluster's MPI templates.
pub fn environment(
    cx: &mut Cx,
    name: &str,
    node: &Node,
    mpi: &[(String, Vec<Spanned<String>>)],
) -> Option<Yaml> {
    let m = cx.map(node, &format!("environment `{name}`"), ENV_KEYS)?;
    let mut out: Vec<(String, Yaml)> = Vec::new();
    let specs: Vec<Yaml> = m
        .get("specs")
        .map(|n| cx.strings(n, "`specs`", false))
        .unwrap_or_default()
        .iter()
        .map(spanned)
        .collect();
    if !m.has("specs") {
        cx.required(&m, "specs", &format!("environment `{name}`"));
    }
    out.push(("specs".into(), Yaml::Seq(specs)));
    if let Some(c) = m.get("compiler") {
        // One compiler: the stack's default already (as before).
        let names = toolchains(cx, c);
        if names.len() > 1 {
            let at = cx.loc(c);
            out.push((
                "compiler".into(),
                Yaml::at(Yaml::Seq(names.iter().map(spanned).collect()), &at),
            ));
        }
    }
    let mut policies: Vec<(String, Yaml)> = Vec::new();
    if let Some(choice) = network(cx, &m, mpi) {
        let (policy, network) = network_yaml(choice);
        policies.push(("mpi".into(), policy));
        out.push(("network".into(), network));
    }
    if let Some(v) = m.get("variants") {
        let vs: Vec<Yaml> = cx
            .strings(v, "`variants`", true)
            .iter()
            .map(spanned)
            .collect();
        out.push(("variants".into(), Yaml::Seq(vs)));
    }
    if let Some(u) = m.get("unify") {
        check_unify(cx, u);
    }
    if let Some(p) = m.get("prefer") {
        let at = cx.loc(p);
        let prefs: Vec<Yaml> = cx
            .strings(p, "`prefer`", true)
            .iter()
            .map(spanned)
            .collect();
        policies.push((
            "all".into(),
            Yaml::at(Yaml::map([("prefer", Some(Yaml::Seq(prefs)))]), &at),
        ));
    }
    if let Some(d) = m.get("duplicates") {
        if let Some((strategy, at)) = duplicates(cx, d) {
            out.push(("duplicates".into(), Yaml::at(Yaml::str(strategy), &at)));
        }
    }
    ignored_settings(cx, &m, name);
    if !policies.is_empty() {
        out.push(("packages".into(), Yaml::Map(policies)));
    }
    if let Some(v) = m.get("views").and_then(|n| cx.open_map(n, "`views`")) {
        let mut views = Vec::new();
        for (k, n) in v.entries() {
            let at = cx.scalar_loc(k);
            views.push((
                k.as_str().to_string(),
                Yaml::at(super::view::view(cx, k.as_str(), n), &at),
            ));
        }
        out.push(("views".into(), Yaml::Map(views)));
    }
    Some(Yaml::Map(out))
}

/// The network choice as the `mpi` policy (requiring the MPI) and the
/// environment's `network:`.
fn network_yaml(choice: NetworkChoice) -> (Yaml, Yaml) {
    let NetworkChoice {
        mpi_name,
        spec,
        specs,
    } = choice;
    let at = spec.loc.clone();
    let policy = Yaml::at(
        Yaml::map([("require", Some(Yaml::Seq(vec![spanned(&mpi_name)])))]),
        &at,
    );
    let network = Yaml::at(
        Yaml::map([
            ("mpi", Some(spanned(&spec))),
            (
                "specs",
                Some(Yaml::Seq(specs.iter().map(spanned).collect())),
            ),
        ]),
        &at,
    );
    (policy, network)
}

/// `unify:` other than `true` is warned about: stack always unifies.
fn check_unify(cx: &mut Cx, u: &Node) {
    let Some(s) = cx.string(u, "`unify`") else {
        return;
    };
    if s.value != "true" {
        cx.warn(
            Code::Unsupported,
            &s.loc,
            format!(
                "`unify: {}`: stack always unifies (one node per package)",
                s.value
            ),
            "resolved as `unify: true`",
            None,
        );
    }
}

/// `deprecated` and `packages`: warnings at their position.
fn ignored_settings(cx: &mut Cx, m: &crate::diag::yaml::Map, name: &str) {
    for key in ["deprecated", "packages"] {
        if let (Some(k), Some(v)) = (m.key_node(key), m.get(key)) {
            let loc = cx.scalar_loc(k);
            let (what, help) = match key {
                "packages" => (
                    format!("`packages` in environment `{name}` is not supported; ignored"),
                    "stack never looks for packages on the build host: put externals into the recipe's packages.yaml (stackinator 7 ignores this too)",
                ),
                _ if matches!(v, Node::Scalar(s) if s.as_str() == "false") => continue,
                _ => (
                    format!("`deprecated` in environment `{name}` is not supported; ignored"),
                    "stack chooses among every version a recipe lists; a deprecated version is chosen when a spec asks for it",
                ),
            };
            cx.warn(Code::Unsupported, &loc, what, "ignored", Some(help.into()));
        }
    }
}

/// A string read from the user's file, with its origin.
fn spanned(s: &Spanned<String>) -> Yaml {
    super::packages::spanned(s)
}

/// The compilers of `compiler:`: v2 `[gcc, nvhpc]` (or one name), v1
/// `[{toolchain: gcc, spec: gcc@13}, {toolchain: llvm, spec: nvhpc}]`
/// (the `spec`s); the first is the environment's default.
fn toolchains(cx: &mut Cx, node: &Node) -> Vec<Spanned<String>> {
    let mut names = Vec::new();
    for item in cx.one_or_many(node) {
        let name = match item {
            Node::Mapping(_) => {
                let m = cx.map(item, "a `compiler` entry", &["toolchain", "spec"]);
                let m = match m {
                    Some(m) => m,
                    None => continue,
                };
                // The toolchain (bootstrap, gcc, llvm) is the stackinator 5
                // group the compiler was built in; the spec names it.
                if let Some(t) = m.get("toolchain") {
                    let _ = cx.choice(t, "`toolchain`", &["bootstrap", "gcc", "llvm"]);
                }
                m.get("spec").and_then(|n| cx.string(n, "`spec`"))
            }
            _ => cx.string(item, "a compiler"),
        };
        names.extend(name);
    }
    names
}

/// The MPI name, spec and network specs: v2 `network: {mpi, specs}` (specs
/// default to the cluster template of that MPI), v1 `mpi: {spec, gpu}`
/// (`gpu: cuda` adds `+cuda` to the spec, as stackinator 5 does).
fn network(
    cx: &mut Cx,
    m: &crate::diag::yaml::Map,
    mpi: &[(String, Vec<Spanned<String>>)],
) -> Option<NetworkChoice> {
    let (spec, own_specs) = if let Some(n) = m.get("network") {
        let nm = cx.map(n, "`network`", &["mpi", "specs"])?;
        let spec = nm.get("mpi").and_then(|n| cx.string(n, "`network.mpi`"));
        let specs = nm
            .get("specs")
            .map(|n| cx.strings(n, "`network.specs`", false));
        (spec, specs)
    } else if let Some(n) = m.get("mpi") {
        if is_null(n) || matches!(n, Node::Scalar(s) if s.as_str() == "false") {
            return None;
        }
        let mm = cx.map(n, "`mpi`", &["spec", "gpu"])?;
        let mut spec = mm.get("spec").and_then(|n| cx.string(n, "`mpi.spec`"));
        if let Some(g) = mm.get("gpu") {
            let off = matches!(g, Node::Scalar(s) if s.as_str() == "false");
            if !off {
                if let (Some(gpu), Some(s)) =
                    (cx.choice(g, "`mpi.gpu`", &["cuda", "rocm"]), &mut spec)
                {
                    s.value = format!("{} +{}", s.value, gpu.value);
                }
            }
        }
        (spec, None)
    } else {
        return None;
    };
    let spec = spec?;
    let name: String = spec
        .value
        .split(|c: char| c == '@' || c == '+' || c == '~' || c.is_whitespace())
        .next()
        .unwrap_or_default()
        .to_string();
    let mpi_name = Spanned::new(
        name.clone(),
        cx.sub_loc(&spec.loc, &spec.value, 0, name.len()),
    );
    let template = mpi.iter().find(|(n, _)| *n == name);
    if template.is_none() && !mpi.is_empty() {
        let names: Vec<&str> = mpi.iter().map(|(n, _)| n.as_str()).collect();
        cx.error(
            Code::InvalidValue,
            &spec.loc,
            format!("MPI `{name}` is not offered by the cluster's network.yaml"),
            "no such MPI template",
            Some(format!("the cluster offers: {}", names.join(", "))),
        );
    }
    let specs = match own_specs {
        Some(s) => s,
        None => template.map(|(_, s)| s.clone()).unwrap_or_default(),
    };
    Some(NetworkChoice {
        mpi_name,
        spec,
        specs,
    })
}

/// An environment's MPI (its package name and its spec) and network specs.
struct NetworkChoice {
    mpi_name: Spanned<String>,
    spec: Spanned<String>,
    specs: Vec<Spanned<String>>,
}

/// `duplicates: {strategy: …}` → our `duplicates:` (`minimal` or `none`);
/// `full` (Spack's experimental any-package duplicates) is resolved as
/// `minimal`, with a warning.
fn duplicates(cx: &mut Cx, n: &Node) -> Option<(&'static str, crate::diag::Loc)> {
    let m = cx.map(n, "`duplicates`", &["strategy"])?;
    let s = cx.string(m.get("strategy")?, "`duplicates: strategy`")?;
    match s.value.as_str() {
        "minimal" => Some(("minimal", s.loc)),
        "none" => Some(("none", s.loc)),
        "full" => {
            cx.warn(
                Code::Unsupported,
                &s.loc,
                "`duplicates: strategy: full`: stack builds only build tools twice",
                "resolved as `minimal`",
                Some("packages marked `build_tool` (Spack's `build-tools` and `compiler` tags) may be built twice; others never".into()),
            );
            Some(("minimal", s.loc))
        }
        other => {
            cx.error(
                Code::InvalidValue,
                &s.loc,
                format!("`duplicates: strategy: {other}` is not a strategy"),
                "`minimal`, `full` or `none`",
                None,
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, SourceFile};

    fn translate(text: &str) -> (String, Diagnostics) {
        let src = SourceFile::new("/x/environments.yaml", text);
        let mut diags = Diagnostics::new();
        let root = crate::diag::yaml::parse(&src).unwrap();
        let mut cx = Cx::new(&src, &mut diags);
        let y = environment(&mut cx, "vasp", &root, &[]).map(|y| y.to_document());
        (y.unwrap_or_default(), diags)
    }

    /// `compiler: [gcc, nvhpc]` (v2) and the v1 toolchain list keep their
    /// compilers, the first the default; one compiler is left to the stack.
    #[test]
    fn compiler_lists_translate_v2_and_v1() {
        let (y, d) = translate("compiler: [gcc, nvhpc]\nspecs: [\"vasp %c,cxx,fortran=nvhpc\"]\n");
        assert!(y.contains("compiler: [gcc, nvhpc]"), "{y}");
        assert!(d.is_empty(), "{d}");
        let (y, _) = translate(
            "compiler:\n- {toolchain: gcc, spec: gcc}\n- {toolchain: llvm, spec: nvhpc}\nspecs: [hdf5]\n",
        );
        assert!(y.contains("compiler: [gcc, nvhpc]"), "{y}");
        let (y, _) = translate("compiler: [gcc]\nspecs: [hdf5]\n");
        assert!(!y.contains("compiler"), "{y}");
    }
}
