//! Module projections: `{name}/{version}`, `{name}/{version}-{hash:7}`.
//!
//! Tokens: `{name}`, `{version}`, `{hash}` (full) and `{hash:N}` (first N
//! characters). The result is the module name: `/`-separated, each part
//! non-empty and made of letters, digits and `._+-`.

use std::collections::BTreeMap;

use super::error::ViewError;
use super::input::InstalledPackage;

/// The projection that applies to `pkg`: its own key, else `all`, else
/// `{name}/{version}`.
pub(crate) fn projection_for<'a>(
    projections: &'a BTreeMap<String, String>,
    pkg: &InstalledPackage,
) -> &'a str {
    projections
        .get(&pkg.name)
        .or_else(|| projections.get("all"))
        .map(String::as_str)
        .unwrap_or("{name}/{version}")
}

/// Expand `projection` for `pkg`.
pub(crate) fn project(projection: &str, pkg: &InstalledPackage) -> Result<String, ViewError> {
    let bad = |message: String| ViewError::BadProjection {
        projection: projection.to_string(),
        message,
    };
    let mut out = String::new();
    let mut rest = projection;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| bad("unclosed `{`".to_string()))?;
        let token = &after[..close];
        match token.split_once(':') {
            None if token == "name" => out.push_str(&pkg.name),
            None if token == "version" => out.push_str(&pkg.version),
            None if token == "hash" => out.push_str(&pkg.hash),
            Some(("hash", n)) => {
                let n: usize = n
                    .parse()
                    .map_err(|_| bad(format!("`{{hash:{n}}}` needs a number of characters")))?;
                out.push_str(&pkg.hash[..n.min(pkg.hash.len())]);
            }
            _ => {
                return Err(bad(format!(
                    "unknown token `{{{token}}}`; known: {{name}}, {{version}}, {{hash}}, {{hash:N}}"
                )));
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    if out.is_empty()
        || out
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err(bad(format!(
            "gives `{out}` for {}; every `/`-separated part must be non-empty",
            pkg.label()
        )));
    }
    if let Some(c) = out
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "._+-/".contains(*c)))
    {
        return Err(bad(format!(
            "gives `{out}` for {}; the character `{c}` is not allowed in module names",
            pkg.label()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn pkg() -> InstalledPackage {
        InstalledPackage {
            name: "libfabric".into(),
            version: "2.2.0".into(),
            hash: "abcdef0123456789".into(),
            description: String::new(),
            prefix: PathBuf::from("/m/x"),
            deps: vec![],
            build_deps: vec![],
            root_in: vec![],
            external: false,
            env: vec![],
        }
    }

    #[test]
    fn tokens() {
        assert_eq!(
            project("{name}/{version}", &pkg()).unwrap(),
            "libfabric/2.2.0"
        );
        assert_eq!(
            project("net/{name}/{version}-{hash:7}", &pkg()).unwrap(),
            "net/libfabric/2.2.0-abcdef0"
        );
        assert_eq!(project("{name}", &pkg()).unwrap(), "libfabric");
    }

    #[test]
    fn errors() {
        let e = project("{name}/{ver}", &pkg()).unwrap_err().to_string();
        assert!(e.contains("unknown token `{ver}`"), "{e}");
        let e = project("{name}//x", &pkg()).unwrap_err().to_string();
        assert!(e.contains("must be non-empty"), "{e}");
        let e = project("{name} {version}", &pkg()).unwrap_err().to_string();
        assert!(e.contains("character ` `"), "{e}");
        let e = project("{hash:x}", &pkg()).unwrap_err().to_string();
        assert!(e.contains("needs a number"), "{e}");
    }

    #[test]
    fn own_key_wins_over_all() {
        let mut p = BTreeMap::new();
        p.insert("all".to_string(), "{name}".to_string());
        assert_eq!(projection_for(&p, &pkg()), "{name}");
        p.insert("libfabric".to_string(), "net/{name}".to_string());
        assert_eq!(projection_for(&p, &pkg()), "net/{name}");
        assert_eq!(projection_for(&BTreeMap::new(), &pkg()), "{name}/{version}");
    }
}
