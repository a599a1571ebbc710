//! A recipe's `variants:`: each variant's values, default and conditions.

use super::*;

pub(super) fn variants(cx: &mut Cx, node: &Node) -> Vec<VariantDef> {
    let Some(m) = cx.open_map(node, "`variants`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, value) in m.entries() {
        let name = key.as_str().to_string();
        let loc = cx.scalar_loc(key);
        let valid = !name.is_empty()
            && name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            cx.error(
                Code::InvalidValue,
                &loc,
                format!("`{name}` is not a valid variant name"),
                "expected a letter or digit followed by letters, digits, `_` or `-`",
                None,
            );
            continue;
        }
        if crate::spec::reserved_variant(&name) {
            cx.error(
                Code::InvalidValue,
                &loc,
                format!("`{name}` is reserved by the spec syntax and cannot be a variant"),
                "reserved name",
                None,
            );
            continue;
        }
        // A list: one definition per condition (`when`), the first that
        // holds applies.
        if let Node::Sequence(items) = value {
            for item in items.as_slice() {
                out.extend(variant(cx, name.clone(), loc.clone(), item));
            }
            continue;
        }
        if let Some(def) = variant(cx, name, loc, value) {
            out.push(def);
        }
    }
    out
}

pub(super) fn variant(cx: &mut Cx, name: String, loc: Loc, node: &Node) -> Option<VariantDef> {
    let what = format!("variant `{name}`");
    let m = cx.map(
        node,
        &what,
        &["default", "values", "multi", "description", "when"],
    )?;
    let description = m
        .get("description")
        .and_then(|n| cx.string(n, "`description`"))
        .map(|s| s.value);
    let when = m.get("when").and_then(|n| read::when(cx, n));
    let multi = m.get("multi").and_then(|n| cx.bool(n, "`multi`"));
    let values = m.get("values").map(|n| variant_values(cx, n, &what));
    let default = cx.required(&m, "default", &what)?;
    let kind = match default {
        Node::Scalar(s) if s.as_bool().is_some() => {
            check_bool_variant(cx, &m, &what, default, s.as_str(), multi);
            VariantKind::Bool {
                default: s.as_bool().unwrap_or(false),
            }
        }
        Node::Sequence(_) => {
            if multi == Some(false) {
                let l = cx.loc(default);
                cx.error(
                    Code::InvalidValue,
                    &l,
                    format!("{what} has `multi: false` but a list default"),
                    "expected a single value",
                    None,
                );
            }
            let defaults = cx.strings(default, "`default`", false);
            check_defaults(cx, &what, &defaults, values.as_deref());
            VariantKind::Multi {
                default: defaults
                    .into_iter()
                    .map(|s| s.value)
                    .collect::<BTreeSet<_>>(),
                values: values.map(|v| v.into_iter().map(|s| s.value).collect()),
            }
        }
        _ => {
            let d = cx.string(default, "`default`")?;
            check_defaults(cx, &what, std::slice::from_ref(&d), values.as_deref());
            let values = values.map(|v| v.into_iter().map(|s| s.value).collect());
            if multi == Some(true) {
                VariantKind::Multi {
                    default: BTreeSet::from([d.value]),
                    values,
                }
            } else {
                VariantKind::Single {
                    default: d.value,
                    values,
                }
            }
        }
    };
    Some(VariantDef {
        name,
        loc,
        description,
        kind,
        when,
    })
}

/// `values:` of a variant, which must not be empty.
pub(super) fn variant_values(cx: &mut Cx, n: &Node, what: &str) -> Vec<Spanned<String>> {
    let vals = cx.strings(n, "`values`", false);
    if vals.is_empty() {
        let loc = cx.loc(n);
        cx.error(
            Code::InvalidValue,
            &loc,
            format!("{what} has an empty `values` list"),
            "expected at least one value",
            Some("remove `values` to accept any value".into()),
        );
    }
    vals
}

/// A bool variant (default `text`) has no `values:` and is not `multi`.
pub(super) fn check_bool_variant(
    cx: &mut Cx,
    m: &Map,
    what: &str,
    default: &Node,
    text: &str,
    multi: Option<bool>,
) {
    if let Some(v) = m.key_node("values") {
        let l = cx.scalar_loc(v);
        cx.error(
            Code::InvalidValue,
            &l,
            format!("{what} is a bool variant (default `{text}`) and cannot have `values`"),
            "bool variants are `+name` / `~name`",
            Some("quote the default (`\"false\"`) for a single-valued variant".into()),
        );
    }
    if multi == Some(true) {
        let l = cx.loc(default);
        cx.error(
            Code::InvalidValue,
            &l,
            format!("{what} has `multi: true` but a bool default"),
            "expected a list of values",
            None,
        );
    }
}

pub(super) fn check_defaults(
    cx: &mut Cx,
    what: &str,
    defaults: &[Spanned<String>],
    values: Option<&[Spanned<String>]>,
) {
    let Some(values) = values else {
        return;
    };
    let names: Vec<&str> = values.iter().map(|v| v.as_str()).collect();
    for d in defaults {
        if !names.contains(&d.as_str()) {
            cx.error(
                Code::UnknownVariantValue,
                &d.loc,
                format!(
                    "the default `{}` of {what} is not one of its `values`",
                    d.value
                ),
                format!("expected one of {}", names.join(", ")),
                crate::diag::did_you_mean(d, &names),
            );
        }
    }
}
