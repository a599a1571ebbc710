//! One `environments.yaml` entry → one entry of our `environments:`.

use crate::diag::Code;
use crate::diag::yaml::{Cx, Node};
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
    mpi: &[(String, Vec<String>)],
) -> Option<Yaml> {
    let m = cx.map(node, &format!("environment `{name}`"), ENV_KEYS)?;
    let mut out: Vec<(String, Yaml)> = Vec::new();
    let specs: Vec<Yaml> = m
        .get("specs")
        .map(|n| cx.strings(n, "`specs`", false))
        .unwrap_or_default()
        .into_iter()
        .map(|s| Yaml::str(s.value))
        .collect();
    if m.get("specs").is_none() {
        cx.required(&m, "specs", &format!("environment `{name}`"));
    }
    out.push(("specs".into(), Yaml::Seq(specs)));
    if let Some(c) = m.get("compiler") {
        // One compiler: the stack's default already (as before).
        let names = toolchains(cx, c);
        if names.len() > 1 {
            out.push(("compiler".into(), Yaml::strs(&names)));
        }
    }
    let mut policies: Vec<(String, Yaml)> = Vec::new();
    if let Some(net) = network(cx, &m, mpi) {
        if let Some((mpi_name, spec)) = net.0 {
            policies.push((
                "mpi".into(),
                Yaml::map([("require", Some(Yaml::strs(&[mpi_name])))]),
            ));
            out.push((
                "network".into(),
                Yaml::map([
                    ("mpi", Some(Yaml::str(spec))),
                    ("specs", Some(Yaml::strs(&net.1))),
                ]),
            ));
        }
    }
    if let Some(v) = m.get("variants") {
        let vs: Vec<Yaml> = cx
            .strings(v, "`variants`", true)
            .into_iter()
            .map(|s| Yaml::str(s.value))
            .collect();
        out.push(("variants".into(), Yaml::Seq(vs)));
    }
    if let Some(u) = m.get("unify") {
        if let Some(s) = cx.string(u, "`unify`") {
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
    }
    if let Some(p) = m.get("prefer") {
        let prefs: Vec<Yaml> = cx
            .strings(p, "`prefer`", true)
            .into_iter()
            .map(|s| Yaml::str(s.value))
            .collect();
        policies.push((
            "all".into(),
            Yaml::map([("prefer", Some(Yaml::Seq(prefs)))]),
        ));
    }
    if let Some(d) = m.get("duplicates") {
        if let Some(strategy) = duplicates(cx, d) {
            out.push(("duplicates".into(), Yaml::str(strategy)));
        }
    }
    for key in ["deprecated", "packages"] {
        if let (Some(k), Some(_)) = (m.key_node(key), m.get(key)) {
            let loc = cx.scalar_loc(k);
            let help = match key {
                "packages" => {
                    "put externals in the recipe's packages.yaml (stackinator 7 ignores this too)"
                }
                _ => "stack has no equivalent setting",
            };
            cx.warn(
                Code::Unsupported,
                &loc,
                format!("`{key}` in environment `{name}` is not supported; ignored"),
                "ignored",
                Some(help.into()),
            );
        }
    }
    if !policies.is_empty() {
        out.push(("packages".into(), Yaml::Map(policies)));
    }
    if let Some(v) = m.get("views").and_then(|n| cx.open_map(n, "`views`")) {
        let mut views = Vec::new();
        for (k, n) in v.entries() {
            views.push((k.as_str().to_string(), super::view::view(cx, k.as_str(), n)));
        }
        out.push(("views".into(), Yaml::Map(views)));
    }
    Some(Yaml::Map(out))
}

/// The compilers of `compiler:`: v2 `[gcc, nvhpc]` (or one name), v1
/// `[{toolchain: gcc, spec: gcc@13}, {toolchain: llvm, spec: nvhpc}]`
/// (the `spec`s); the first is the environment's default.
fn toolchains(cx: &mut Cx, node: &Node) -> Vec<String> {
    let mut names = Vec::new();
    for item in cx.one_or_many(node) {
        let name = match item {
            Node::Mapping(_) => cx
                .open_map(item, "a `compiler` entry")
                .and_then(|m| m.get("spec"))
                .and_then(|n| cx.string(n, "`spec`"))
                .map(|s| s.value),
            _ => cx.string(item, "a compiler").map(|s| s.value),
        };
        names.extend(name);
    }
    names
}

/// The MPI spec and network specs: v2 `network: {mpi, specs}` (specs
/// default to the cluster template of that MPI), v1 `mpi: {spec, gpu}`.
#[allow(clippy::type_complexity)]
fn network(
    cx: &mut Cx,
    m: &crate::diag::yaml::Map,
    mpi: &[(String, Vec<String>)],
) -> Option<(Option<(String, String)>, Vec<String>)> {
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
        (
            mm.get("spec").and_then(|n| cx.string(n, "`mpi.spec`")),
            None,
        )
    } else {
        return None;
    };
    let spec = spec?;
    let mpi_name: String = spec
        .value
        .split(|c: char| c == '@' || c == '+' || c == '~' || c.is_whitespace())
        .next()
        .unwrap_or_default()
        .to_string();
    let template = mpi.iter().find(|(n, _)| *n == mpi_name);
    if template.is_none() && !mpi.is_empty() {
        let names: Vec<&str> = mpi.iter().map(|(n, _)| n.as_str()).collect();
        cx.error(
            Code::InvalidValue,
            &spec.loc,
            format!("MPI `{mpi_name}` is not offered by the cluster's network.yaml"),
            "no such MPI template",
            Some(format!("the cluster offers: {}", names.join(", "))),
        );
    }
    let specs = match own_specs {
        Some(s) => s.into_iter().map(|s| s.value).collect(),
        None => template.map(|(_, s)| s.clone()).unwrap_or_default(),
    };
    Some((Some((mpi_name, spec.value)), specs))
}

/// `duplicates: {strategy: …}` → our `duplicates:` (`minimal` or `none`);
/// `full` (Spack's experimental any-package duplicates) is resolved as
/// `minimal`, with a warning.
fn duplicates(cx: &mut Cx, n: &Node) -> Option<&'static str> {
    let m = cx.map(n, "`duplicates`", &["strategy"])?;
    let s = cx.string(m.get("strategy")?, "`duplicates: strategy`")?;
    match s.value.as_str() {
        "minimal" => Some("minimal"),
        "none" => Some("none"),
        "full" => {
            cx.warn(
                Code::Unsupported,
                &s.loc,
                "`duplicates: strategy: full`: stack builds only build tools twice",
                "resolved as `minimal`",
                Some("packages marked `build_tool` (Spack's `build-tools` and `compiler` tags) may be built twice; others never".into()),
            );
            Some("minimal")
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
