//! `modules.yaml` (Spack's modules syntax, as stackinator restricts it) →
//! our `modules:` (flavour, projections, hidden implicit packages,
//! autoload, prefix inspections, exclude/include, per-package environment).

use crate::diag::Code;
use crate::diag::yaml::{Cx, Map, Node};
use crate::import::yaml_out::Yaml;

use super::packages::spanned;

/// Keys of a module set (`tcl:` / `lmod:`) that are translated.
const SET_KEYS: &[&str] = &[
    "projections",
    "exclude_implicits",
    "hide_implicits",
    "hash_length",
    "all",
    "exclude",
    "include",
];

pub fn modules(cx: &mut Cx, root: &Node) -> Option<Yaml> {
    let top = cx.map(root, "modules.yaml", &["modules"])?;
    let m = cx.required(&top, "modules", "modules.yaml")?;
    let m = cx.open_map(m, "`modules`")?;
    let mut inspections = None;
    for (k, v) in m.entries() {
        match k.as_str() {
            "default" => {}
            "prefix_inspections" => inspections = prefix_inspections(cx, v),
            other => {
                let loc = cx.scalar_loc(k);
                cx.warn(
                    Code::Unsupported,
                    &loc,
                    format!("module set `{other}`: only `default` is generated"),
                    "ignored",
                    None,
                );
            }
        }
    }
    let d = m
        .get("default")
        .and_then(|n| cx.open_map(n, "`modules.default`"))?;
    let at = d.loc.clone();
    let flavour = flavour(cx, &d)?;
    let mut out: Vec<(String, Yaml)> = vec![("flavour".into(), Yaml::str(&flavour))];
    let (hide, exclude) = module_set(cx, &flavour, &d, &mut out);
    // Spack's defaults: implicit packages get modules, shown.
    out.push(("hide_implicits".into(), Yaml::Bool(hide)));
    out.push(("exclude_implicits".into(), Yaml::Bool(exclude)));
    if let Some(i) = inspections {
        out.push(("prefix_inspections".into(), i));
    }
    Some(Yaml::at(Yaml::Map(out), &at))
}

/// The flavour: `roots` keys, else `enable`, else tcl (stackinator's
/// rule; the roots' paths are always `<mount>/modules`). Other keys of
/// `default` warn.
fn flavour(cx: &mut Cx, d: &Map) -> Option<String> {
    let mut flavour = None;
    for (k, v) in d.entries() {
        let loc = cx.scalar_loc(k);
        match k.as_str() {
            "arch_folder" => {
                if cx.bool(v, "`arch_folder`") == Some(true) {
                    cx.error(
                        Code::InvalidValue,
                        &loc,
                        "`arch_folder: true` is not allowed (stackinator requires false)",
                        "expected false",
                        None,
                    );
                }
            }
            "roots" => {
                if let Some(r) = cx.open_map(v, "`roots`") {
                    flavour = r.entries().next().map(|(k, _)| k.as_str().to_string());
                }
            }
            "enable" => {}
            "tcl" | "lmod" => {}
            other => cx.warn(
                Code::Unsupported,
                &loc,
                format!("`modules:default:{other}` is not supported; ignored"),
                "ignored",
                None,
            ),
        }
    }
    if flavour.is_none() {
        if let Some(e) = d.get("enable") {
            flavour = cx
                .strings(e, "`enable`", true)
                .first()
                .map(|s| s.value.clone());
        }
    }
    let flavour = flavour.unwrap_or_else(|| "tcl".into());
    if flavour != "tcl" && flavour != "lmod" {
        cx.error(
            Code::InvalidValue,
            &d.loc,
            format!("module type `{flavour}`: only tcl and lmod are valid"),
            "expected tcl or lmod",
            None,
        );
        return None;
    }
    Some(flavour)
}

/// `prefix_inspections: {bin: [PATH], lib: [LD_LIBRARY_PATH], ./lib64: …}`:
/// each directory of a package's prefix that exists is prepended to the
/// variables listed (besides stack's own inspections).
fn prefix_inspections(cx: &mut Cx, node: &Node) -> Option<Yaml> {
    let m = cx.open_map(node, "`prefix_inspections`")?;
    let mut out = Vec::new();
    for (k, v) in m.entries() {
        let dir = k.as_str().trim_start_matches("./").trim_end_matches('/');
        let vars: Vec<Yaml> = cx
            .strings(v, "the variables of a prefix inspection", true)
            .iter()
            .map(spanned)
            .collect();
        let at = cx.scalar_loc(k);
        out.push((dir.to_string(), Yaml::at(Yaml::Seq(vars), &at)));
    }
    let at = cx.loc(node);
    Some(Yaml::at(Yaml::Map(out), &at))
}

/// A module set (`tcl:` / `lmod:`) into `out`; returns whether implicit
/// packages are hidden (`hide_implicits`) and whether they get no module
/// (`exclude_implicits`).
fn module_set(cx: &mut Cx, flavour: &str, d: &Map, out: &mut Vec<(String, Yaml)>) -> (bool, bool) {
    let (mut hide, mut exclude) = (false, false);
    let other = if flavour == "tcl" { "lmod" } else { "tcl" };
    if let Some(k) = d.key_node(other) {
        let loc = cx.scalar_loc(k);
        cx.warn(
            Code::Unsupported,
            &loc,
            format!("`{other}:` settings are not used: the modules are {flavour} modules"),
            "ignored",
            None,
        );
    }
    let Some(set) = d
        .get(flavour)
        .and_then(|n| cx.open_map(n, &format!("`{flavour}`")))
    else {
        return (hide, exclude);
    };
    let mut environment = Vec::new();
    for (k, v) in set.entries() {
        let loc = cx.scalar_loc(k);
        match k.as_str() {
            "projections" => {
                if let Some(p) = projections(cx, v) {
                    out.push(("projections".into(), p));
                }
            }
            "hide_implicits" => hide = cx.bool(v, "`hide_implicits`").unwrap_or(false),
            "exclude_implicits" => {
                exclude = cx.bool(v, "`exclude_implicits`").unwrap_or(false);
            }
            "hash_length" => {
                if cx.u32(v, "`hash_length`").is_some_and(|n| n != 0) {
                    cx.warn(
                        Code::Unsupported,
                        &loc,
                        "`hash_length` other than 0: module names carry no hash here",
                        "ignored",
                        Some("write `{hash:7}` into the projection to name modules by hash".into()),
                    );
                }
            }
            "exclude" | "include" => {
                let specs: Vec<Yaml> = cx
                    .strings(v, k.as_str(), true)
                    .iter()
                    .map(spanned)
                    .collect();
                if !specs.is_empty() {
                    out.push((k.as_str().into(), Yaml::at(Yaml::Seq(specs), &loc)));
                }
            }
            "all" => {
                if let Some(a) = cx.open_map(v, "`all`") {
                    all(cx, flavour, &a, out, &mut environment);
                }
            }
            // Spack's settings of a module set that stack has not.
            other @ ("hierarchy"
            | "core_compilers"
            | "core_specs"
            | "filter_hierarchy_specs"
            | "naming_scheme"
            | "defaults"
            | "verbose"
            | "exclude_env_vars") => {
                cx.warn(
                    Code::Unsupported,
                    &loc,
                    format!("`{flavour}:{other}` is not supported; ignored"),
                    "ignored",
                    Some(format!(
                        "translated: {}, autoload, environment",
                        SET_KEYS.join(", ")
                    )),
                );
            }
            // Any other key is a spec: settings of the packages it matches.
            spec => {
                if let Some(p) = cx.open_map(v, &format!("`{flavour}:{spec}`")) {
                    package_settings(cx, flavour, spec, &loc, &p, &mut environment);
                }
            }
        }
    }
    if !environment.is_empty() {
        out.push(("environment".into(), Yaml::Map(environment)));
    }
    (hide, exclude)
}

/// `projections: {all: '{name}/{version}', gromacs+plumed: '{name}-plumed/{version}'}`:
/// the keys are `all` and specs, the first spec a package satisfies wins.
/// Spack's tokens beyond `{name}`, `{version}` and `{hash}` do not translate.
fn projections(cx: &mut Cx, v: &Node) -> Option<Yaml> {
    let p = cx.open_map(v, "`projections`")?;
    let mut ps = Vec::new();
    for (pk, pv) in p.entries() {
        let Some(s) = cx.string(pv, "a projection") else {
            continue;
        };
        let mut ok = true;
        let mut rest = s.value.as_str();
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
            let token = &rest[open + 1..close];
            if !["name", "version", "hash"].contains(&token) && !token.starts_with("hash:") {
                let l = cx.sub_loc(
                    &s.loc,
                    &s.value,
                    s.value.len() - rest.len() + open,
                    close - open + 1,
                );
                cx.warn(
                    Code::Unsupported,
                    &l,
                    format!(
                        "projection token `{{{token}}}` is not supported; the projection is ignored"
                    ),
                    "not translated",
                    Some("stack's projections use {name}, {version}, {hash} and {hash:N}".into()),
                );
                ok = false;
            }
            rest = &rest[(close + 1).min(rest.len())..];
        }
        if ok {
            let at = cx.scalar_loc(pk);
            ps.push((pk.as_str().to_string(), Yaml::at(spanned(&s), &at)));
        }
    }
    Some(Yaml::Map(ps))
}

/// `all:` of a module set: `autoload`, and settings for every package.
fn all(
    cx: &mut Cx,
    flavour: &str,
    a: &Map,
    out: &mut Vec<(String, Yaml)>,
    environment: &mut Vec<(String, Yaml)>,
) {
    for (ak, av) in a.entries() {
        let l = cx.scalar_loc(ak);
        match ak.as_str() {
            "autoload" => {
                if let Some(s) = cx.choice(av, "`autoload`", &["none", "direct", "run", "all"]) {
                    let value = if s.value == "none" { "none" } else { "direct" };
                    if s.value == "all" {
                        cx.warn(
                            Code::Unsupported,
                            &s.loc,
                            "`autoload: all`: modules load their direct dependencies' modules, which load theirs",
                            "read as `direct`",
                            None,
                        );
                    }
                    out.push(("autoload".into(), Yaml::at(Yaml::str(value), &s.loc)));
                }
            }
            "environment" => {
                if let Some(e) = environment_ops(cx, av) {
                    environment.push(("all".into(), Yaml::at(e, &l)));
                }
            }
            other => cx.warn(
                Code::Unsupported,
                &l,
                format!("`{flavour}:all:{other}` is not supported; ignored"),
                "ignored",
                Some("translated here: autoload, environment".into()),
            ),
        }
    }
}

/// `<spec>: {environment: {set: {VAR: value}, …}}` of a module set.
fn package_settings(
    cx: &mut Cx,
    flavour: &str,
    spec: &str,
    loc: &crate::diag::Loc,
    p: &Map,
    environment: &mut Vec<(String, Yaml)>,
) {
    for (k, v) in p.entries() {
        match k.as_str() {
            "environment" => {
                if let Some(e) = environment_ops(cx, v) {
                    environment.push((spec.to_string(), Yaml::at(e, loc)));
                }
            }
            other => {
                let l = cx.scalar_loc(k);
                cx.warn(
                    Code::Unsupported,
                    &l,
                    format!("`{flavour}:{spec}:{other}` is not supported; ignored"),
                    "ignored",
                    Some(format!(
                        "translated here: environment; other keys of a module set: {}",
                        SET_KEYS.join(", ")
                    )),
                );
            }
        }
    }
}

/// Spack's module `environment:` (`set: {VAR: v}`, `unset: [VAR]`,
/// `prepend_path: {VAR: p}`, `append_path: {VAR: p}`) as our `env_vars:`.
fn environment_ops(cx: &mut Cx, node: &Node) -> Option<Yaml> {
    let m = cx.map(
        node,
        "`environment`",
        &["set", "unset", "prepend_path", "append_path"],
    )?;
    let mut out = Vec::new();
    for key in ["set", "prepend_path", "append_path"] {
        let Some(vars) = m.get(key).and_then(|n| cx.open_map(n, key)) else {
            continue;
        };
        let mut ops = Vec::new();
        for (k, v) in vars.entries() {
            if let Some(s) = cx.string(v, "a value") {
                let at = cx.scalar_loc(k);
                ops.push(Yaml::at(
                    Yaml::Map(vec![(k.as_str().to_string(), spanned(&s))]),
                    &at,
                ));
            }
        }
        out.push((key.to_string(), Yaml::Seq(ops)));
    }
    if let Some(n) = m.get("unset") {
        let vars: Vec<Yaml> = cx.strings(n, "`unset`", true).iter().map(spanned).collect();
        out.push(("unset".into(), Yaml::Seq(vars)));
    }
    Some(Yaml::Map(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Diagnostics, SourceFile};

    fn read(text: &str) -> (Option<String>, Diagnostics) {
        let src = SourceFile::new("/x/modules.yaml", text);
        let mut diags = Diagnostics::new();
        let root = crate::diag::yaml::parse(&src).unwrap();
        let mut cx = Cx::new(&src, &mut diags);
        let y = modules(&mut cx, &root).map(|y| y.to_document());
        (y, diags)
    }

    #[test]
    fn lmod_roots_projections_and_implicits_translate() {
        let (y, d) = read(
            "modules:\n  default:\n    arch_folder: false\n    roots:\n      lmod: /user-environment/modules\n    lmod:\n      hash_length: 0\n      exclude_implicits: false\n      projections:\n        all: '{name}/{version}'\n",
        );
        assert_eq!(
            y.unwrap(),
            "flavour: lmod\nprojections: {all: \"{name}/{version}\"}\nhide_implicits: false\nexclude_implicits: false\n"
        );
        assert!(d.is_empty(), "{d}");
    }

    /// alps-uenv's modules.yaml shape: prefix inspections, autoload none,
    /// exclude/include specs and a package's module environment.
    #[test]
    fn inspections_autoload_exclude_include_and_environment_translate() {
        let (y, d) = read(
            "modules:\n  prefix_inspections:\n    bin: [PATH]\n    lib: [LD_LIBRARY_PATH]\n    ./lib64: [LD_LIBRARY_PATH]\n  default:\n    roots: {tcl: /user-environment/modules}\n    tcl:\n      all: {autoload: none}\n      exclude: ['%gcc@7.5.0']\n      include: [cmake]\n      aws-ofi-nccl:\n        environment:\n          set: {NCCL_NET: AWS Libfabric}\n",
        );
        assert!(d.is_empty(), "{d}");
        assert_eq!(
            y.unwrap(),
            "flavour: tcl\nautoload: none\nexclude: [\"%gcc@7.5.0\"]\ninclude: [cmake]\n\
             environment:\n  aws-ofi-nccl:\n    set: [{NCCL_NET: \"AWS Libfabric\"}]\nhide_implicits: false\nexclude_implicits: false\n\
             prefix_inspections: {bin: [PATH], lib: [LD_LIBRARY_PATH], lib64: [LD_LIBRARY_PATH]}\n"
        );
    }

    #[test]
    fn arch_folder_is_an_error_and_unknown_keys_warn_with_their_line() {
        let (_, d) = read(
            "modules:\n  default:\n    arch_folder: true\n    tcl:\n      hash_length: 7\n      all: {naming_scheme: x}\n",
        );
        assert_eq!(d.error_count(), 1, "{d}");
        assert_eq!(d.warning_count(), 2, "{d}");
        let lines: Vec<usize> = d.iter().filter_map(|x| x.loc().map(|l| l.line)).collect();
        assert_eq!(lines, vec![3, 5, 6]);
    }
}
