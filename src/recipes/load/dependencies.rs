//! A recipe's `dependencies:` (with their types) and `conflicts:`.

use super::*;

pub(super) fn dependencies(cx: &mut Cx, node: &Node) -> Vec<Dependency> {
    let Some(items) = cx.seq(node, "`dependencies`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        if let Node::Mapping(mm) = item {
            // `- libgreet@1: +shared` is a one-entry mapping to YAML.
            if mm.len() == 1
                && mm.get_node("spec").is_none()
                && mm.get_node("type").is_none()
                && mm.get_node("when").is_none()
                && mm.get_node("elsewhere").is_none()
            {
                let (k, v) = mm.iter().next().expect("one entry");
                let loc = cx.scalar_loc(k);
                let text = match v {
                    Node::Scalar(s) => format!("{}: {}", k.as_str(), s.as_str()),
                    _ => k.as_str().to_string(),
                };
                cx.error(
                    Code::WrongType,
                    &loc,
                    format!("the dependency `{text}` reads as a mapping because of `: `"),
                    "YAML splits this at `: `",
                    Some(format!(
                        "quote the spec: `- \"{text}\"`, or write `{{spec: …, when: …}}`"
                    )),
                );
                continue;
            }
            let Some(m) = cx.map(item, "a dependency", &["spec", "type", "when", "elsewhere"])
            else {
                continue;
            };
            let spec = cx
                .required(&m, "spec", "a dependency")
                .and_then(|n| read::spec(cx, n, "a dependency", Named::Required));
            let types = m.get("type").map(|n| dep_types(cx, n)).unwrap_or_default();
            let when = m.get("when").and_then(|n| read::when(cx, n));
            let elsewhere = m
                .get("elsewhere")
                .and_then(|n| cx.bool(n, "`elsewhere`"))
                .unwrap_or(false);
            if elsewhere && when.is_none() {
                let loc = m
                    .key_node("elsewhere")
                    .map(|k| cx.scalar_loc(k))
                    .unwrap_or_else(|| m.loc.clone());
                cx.error(
                    Code::InvalidValue,
                    &loc,
                    "`elsewhere: true` on a dependency without `when:`",
                    "every build needs this package",
                    Some(
                        "`elsewhere` lets a conditional dependency name a package the searched repositories may lack; give its condition, or drop `elsewhere`".into(),
                    ),
                );
            }
            if let Some(spec) = spec {
                out.push(Dependency {
                    spec,
                    types,
                    when,
                    elsewhere,
                    loc: m.loc.clone(),
                });
            }
        } else if let Some(spec) = read::spec(cx, item, "a dependency", Named::Required) {
            let loc = spec.loc.clone();
            out.push(Dependency {
                spec,
                types: DepTypes::DEFAULT,
                when: None,
                elsewhere: false,
                loc,
            });
        }
    }
    out
}

pub(super) fn dep_types(cx: &mut Cx, node: &Node) -> DepTypes {
    let mut t = DepTypes::NONE;
    for s in cx.strings(node, "`type`", true) {
        match s.as_str() {
            "build" => t.build = true,
            "link" => t.link = true,
            "run" => t.run = true,
            "test" => t.test = true,
            other => {
                cx.error(
                    Code::InvalidValue,
                    &s.loc,
                    format!("unknown dependency type `{other}`"),
                    "expected `build`, `link`, `run` or `test`",
                    crate::diag::did_you_mean(other, &["build", "link", "run", "test"]),
                );
            }
        }
    }
    if t == DepTypes::NONE {
        DepTypes::DEFAULT
    } else {
        t
    }
}

pub(super) fn conflicts(cx: &mut Cx, node: &Node) -> Vec<Conflict> {
    let Some(items) = cx.seq(node, "`conflicts`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "a conflict", &["when", "message"]) else {
            continue;
        };
        let when = cx
            .required(&m, "when", "a conflict")
            .and_then(|n| read::when(cx, n));
        let message = m
            .get("message")
            .and_then(|n| cx.string(n, "`message`"))
            .map(|s| s.value);
        if let Some(when) = when {
            out.push(Conflict {
                when,
                message,
                loc: m.loc.clone(),
            });
        }
    }
    out
}
