//! `modules.yaml` (Spack's modules syntax, as stackinator restricts it) →
//! our `modules:` (flavour, projections, hide_implicits).

use crate::diag::Code;
use crate::diag::yaml::{Cx, Node};
use crate::import::yaml_out::Yaml;

/// Keys of a module set (`tcl:` / `lmod:`) that are translated; others warn.
const SET_KEYS: &[&str] = &[
    "projections",
    "exclude_implicits",
    "hide_implicits",
    "hash_length",
    "all",
    "exclude",
];

pub fn modules(cx: &mut Cx, root: &Node) -> Option<Yaml> {
    let top = cx.map(root, "modules.yaml", &["modules"])?;
    let m = cx.required(&top, "modules", "modules.yaml")?;
    let m = cx.open_map(m, "`modules`")?;
    for (k, _) in m.entries() {
        if !["default", "prefix_inspections"].contains(&k.as_str()) {
            let loc = cx.scalar_loc(k);
            cx.warn(
                Code::Unsupported,
                &loc,
                format!("module set `{}`: only `default` is generated", k.as_str()),
                "ignored",
                None,
            );
        }
    }
    let d = m
        .get("default")
        .and_then(|n| cx.open_map(n, "`modules.default`"))?;
    if let Some(af) = d
        .get("arch_folder")
        .and_then(|n| cx.bool(n, "`arch_folder`"))
    {
        if af {
            let loc = cx.scalar_loc(d.key_node("arch_folder")?);
            cx.error(
                Code::InvalidValue,
                &loc,
                "`arch_folder: true` is not allowed (stackinator requires false)",
                "expected false",
                None,
            );
        }
    }
    // The flavour: `roots` keys, else `enable`, else tcl.
    let mut flavour = None;
    if let Some(r) = d.get("roots").and_then(|n| cx.open_map(n, "`roots`")) {
        flavour = r.entries().next().map(|(k, _)| k.as_str().to_string());
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
    let mut out: Vec<(String, Yaml)> = vec![("flavour".into(), Yaml::str(&flavour))];
    let hide = module_set(cx, &flavour, &d, &mut out);
    out.push(("hide_implicits".into(), Yaml::Bool(hide)));
    Some(Yaml::Map(out))
}

/// A module set (`tcl:` / `lmod:`): projections into `out`; returns
/// whether implicit packages are hidden.
fn module_set(
    cx: &mut Cx,
    flavour: &str,
    d: &crate::diag::yaml::Map,
    out: &mut Vec<(String, Yaml)>,
) -> bool {
    let mut hide = true;
    if let Some(set) = d
        .get(flavour)
        .and_then(|n| cx.open_map(n, &format!("`{flavour}`")))
    {
        for (k, v) in set.entries() {
            let loc = cx.scalar_loc(k);
            match k.as_str() {
                "projections" => {
                    if let Some(p) = cx.open_map(v, "`projections`") {
                        let mut ps = Vec::new();
                        for (pk, pv) in p.entries() {
                            if let Some(s) = cx.string(pv, "a projection") {
                                ps.push((pk.as_str().to_string(), Yaml::str(s.value)));
                            }
                        }
                        out.push(("projections".into(), Yaml::Map(ps)));
                    }
                }
                "exclude_implicits" | "hide_implicits" => {
                    hide = cx.bool(v, k.as_str()).unwrap_or(true);
                }
                "hash_length" => {
                    if cx.u32(v, "`hash_length`").is_some_and(|n| n != 0) {
                        cx.warn(
                            Code::Unsupported,
                            &loc,
                            "`hash_length` other than 0: module names carry no hash here",
                            "ignored",
                            None,
                        );
                    }
                }
                "exclude" if matches!(v, Node::Sequence(s) if s.is_empty()) => {}
                "all" => {
                    // `all: {autoload: none}` is what stack does; others warn.
                    if let Some(a) = cx.open_map(v, "`all`") {
                        for (ak, av) in a.entries() {
                            let ok = ak.as_str() == "autoload"
                                && matches!(av, Node::Scalar(s) if s.as_str() == "none");
                            if !ok {
                                let l = cx.scalar_loc(ak);
                                cx.warn(
                                    Code::Unsupported,
                                    &l,
                                    format!(
                                        "`{flavour}:all:{}` is not supported; ignored",
                                        ak.as_str()
                                    ),
                                    "ignored",
                                    None,
                                );
                            }
                        }
                    }
                }
                other => {
                    cx.warn(
                        Code::Unsupported,
                        &loc,
                        format!("`{flavour}:{other}` is not supported; ignored"),
                        "ignored",
                        Some(format!("supported: {}", SET_KEYS.join(", "))),
                    );
                }
            }
        }
    }
    hide
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
            "flavour: lmod\nprojections: {all: \"{name}/{version}\"}\nhide_implicits: false\n"
        );
        assert!(d.is_empty(), "{d}");
    }

    #[test]
    fn arch_folder_is_an_error_and_unknown_keys_warn_with_their_line() {
        let (_, d) = read(
            "modules:\n  default:\n    arch_folder: true\n    tcl:\n      hash_length: 7\n      hierarchy: [mpi]\n",
        );
        assert_eq!(d.error_count(), 1, "{d}");
        assert_eq!(d.warning_count(), 2, "{d}");
        let lines: Vec<usize> = d.iter().filter_map(|x| x.loc().map(|l| l.line)).collect();
        assert_eq!(lines, vec![3, 5, 6]);
    }
}
