//! A recipe's `provides:`: the virtuals it provides, with their versions.

use super::*;

pub(super) fn provides(cx: &mut Cx, node: &Node) -> Vec<Provide> {
    let Some(items) = cx.seq(node, "`provides`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let (virt, when, loc) = if let Node::Mapping(_) = item {
            let Some(m) = cx.map(item, "a `provides` entry", &["virtual", "when"]) else {
                continue;
            };
            let virt = cx
                .required(&m, "virtual", "a `provides` entry")
                .and_then(|n| provided_virtual(cx, n));
            let when = m.get("when").and_then(|n| read::when(cx, n));
            (virt, when, m.loc.clone())
        } else {
            let virt = provided_virtual(cx, item);
            let loc = cx.loc(item);
            (virt, None, loc)
        };
        if let Some((name, versions)) = virt {
            out.push(Provide {
                name,
                versions,
                when,
                loc,
            });
        }
    }
    out
}

/// A provided virtual: its name and, optionally, versions (`mpi`, `mpi@:3`).
pub(super) fn provided_virtual(
    cx: &mut Cx,
    node: &Node,
) -> Option<(String, crate::spec::VersionConstraint)> {
    let spec = read::spec(cx, node, "a provided virtual", Named::Required)?;
    let s = &spec.spec;
    let only_versions = s.variants.is_empty()
        && s.compiler.is_none()
        && s.target.is_none()
        && s.platform.is_none()
        && s.os.is_none()
        && s.deps.is_empty();
    if !only_versions {
        cx.error(
            Code::BadSpec,
            &spec.loc,
            format!(
                "`{}`: a provided virtual has a name and versions only",
                spec.text
            ),
            "expected `name` or `name@versions`",
            Some("for example `mpi` or `mpi@:3`; conditions go into `when:`".into()),
        );
        return None;
    }
    Some((
        spec.name().unwrap_or_default().to_string(),
        s.versions.clone(),
    ))
}
