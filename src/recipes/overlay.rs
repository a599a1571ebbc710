//! Overlay recipes: a `<name>.yaml` with `overlay: true` in a repository
//! searched earlier adds versions to (or changes variant defaults of) the
//! same-named recipe of a repository searched later, without copying it.
//!
//! ```yaml
//! name: zlib
//! overlay: true
//! versions:
//!   - {version: "1.3.2", url: "https://…/zlib-1.3.2.tar.gz", sha256: "…"}
//! variants:
//!   shared: {default: false}
//! ```
//!
//! A version the base already lists is replaced; every other key of the
//! base recipe (build, dependencies, patches…) is kept as it is.

use std::collections::BTreeSet;

use crate::diag::yaml::{self, Cx, Node};
use crate::diag::{Code, Diagnostics, SourceFile, did_you_mean, display_path};

use super::package::{PackageRecipe, VariantKind};

const OVERLAY_KEYS: &[&str] = &["name", "overlay", "versions", "variants"];

/// Whether `src` is an overlay recipe (`overlay: true` at the top level).
pub fn is_overlay(src: &SourceFile) -> bool {
    if !src.text().contains("overlay") {
        return false;
    }
    match yaml::parse(src) {
        Ok(Node::Mapping(m)) => matches!(
            m.get_node("overlay"),
            Some(Node::Scalar(s)) if s.as_bool() == Some(true)
        ),
        _ => false,
    }
}

/// `base` with the overlay `src` applied; problems go to `diags`.
pub fn apply_overlay(
    src: &SourceFile,
    base: &PackageRecipe,
    diags: &mut Diagnostics,
) -> PackageRecipe {
    let mut out = base.clone();
    let Some(root) = yaml::parse_into(src, diags) else {
        return out;
    };
    let mut cx = Cx::new(src, diags);
    let Some(m) = cx.map(&root, "an overlay recipe", OVERLAY_KEYS) else {
        return out;
    };
    if let Some(name) = m.get("name").and_then(|n| cx.string(n, "`name`")) {
        if name.value != base.name {
            cx.error(
                Code::NameMismatch,
                &name.loc,
                format!("overlay `{}` is for package `{}`", name.value, base.name),
                format!("expected `{}`", base.name),
                None,
            );
        }
    }
    if let Some(n) = m.get("versions") {
        for v in super::load::versions(&mut cx, n, false) {
            match out.versions.iter_mut().find(|b| b.version == v.version) {
                Some(b) => *b = v,
                None => out.versions.push(v),
            }
        }
    }
    if let Some(vm) = m.get("variants").and_then(|n| cx.open_map(n, "`variants`")) {
        for (k, node) in vm.entries() {
            let name = k.as_str();
            let loc = cx.scalar_loc(k);
            if !out.variants.iter().any(|v| v.name == name) {
                let names = base.variants.iter().map(|v| v.name.as_str());
                let help = did_you_mean(name, names).unwrap_or_else(|| {
                    "an overlay can only change the default of a variant".into()
                });
                cx.error(
                    Code::UnknownVariant,
                    &loc,
                    format!(
                        "`{}` ({}) has no variant `{name}`",
                        base.name,
                        display_path(&base.file)
                    ),
                    "unknown variant",
                    Some(help),
                );
                continue;
            }
            let what = format!("variant `{name}`");
            let Some(vmap) = cx.map(node, &what, &["default"]) else {
                continue;
            };
            let Some(d) = cx.required(&vmap, "default", &what) else {
                continue;
            };
            // every definition of a variant defined several times (per `when`)
            for def in out.variants.iter_mut().filter(|v| v.name == name) {
                set_default(&mut cx, &mut def.kind, d, &what);
            }
        }
    }
    out
}

/// Replace the default of a variant, keeping its type and allowed values.
fn set_default(cx: &mut Cx, kind: &mut VariantKind, node: &Node, what: &str) {
    let allowed = |cx: &mut Cx, values: &Option<Vec<String>>, v: &crate::diag::Spanned<String>| {
        let ok = values.as_ref().is_none_or(|vals| vals.contains(&v.value));
        if !ok {
            let vals = values.as_deref().unwrap_or_default();
            cx.error(
                Code::UnknownVariantValue,
                &v.loc,
                format!("`{}` is not an allowed value of {what}", v.value),
                format!("expected one of {}", vals.join(", ")),
                did_you_mean(&v.value, vals),
            );
        }
        ok
    };
    match kind {
        VariantKind::Bool { default } => {
            if let Some(b) = cx.bool(node, &format!("the default of {what}")) {
                *default = b;
            }
        }
        VariantKind::Single { default, values } => {
            if let Some(v) = cx.string(node, &format!("the default of {what}")) {
                if allowed(cx, values, &v) {
                    *default = v.value;
                }
            }
        }
        VariantKind::Multi { default, values } => {
            let vals = cx.strings(node, &format!("the default of {what}"), true);
            let mut set = BTreeSet::new();
            let mut ok = true;
            for v in &vals {
                ok &= allowed(cx, values, v);
                set.insert(v.value.clone());
            }
            if ok && !set.is_empty() {
                *default = set;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::diag::Code;
    use crate::recipes::{PackageRepo, RepoDir, RepoOrigin, VariantKind};

    fn write(path: &Path, text: &str) {
        fs_err::create_dir_all(path.parent().unwrap()).unwrap();
        fs_err::write(path, text).unwrap();
    }

    const BASE: &str = "name: zlib\ndescription: z\nversions: [{version: \"1.3\", git: \"https://x/z.git\", tag: v1.3}]\nvariants:\n  shared: {default: true}\n  opt: {default: \"O2\", values: [O2, O3]}\nbuild: {system: generic}\n";

    fn repo(site: &Path, builtin: &Path) -> PackageRepo {
        let dir = |path: PathBuf, origin| RepoDir { path, origin };
        PackageRepo::load(vec![
            dir(site.to_path_buf(), RepoOrigin::Discovered),
            dir(builtin.to_path_buf(), RepoOrigin::BuiltIn),
        ])
    }

    #[test]
    fn an_overlay_adds_versions_and_changes_defaults_of_a_lower_recipe() {
        let tmp = tempfile::tempdir().unwrap();
        let (site, builtin) = (tmp.path().join("site"), tmp.path().join("builtin"));
        write(&builtin.join("zlib.yaml"), BASE);
        write(
            &site.join("zlib.yaml"),
            "name: zlib\noverlay: true\nversions: [{version: \"1.4\", git: \"https://x/z.git\", tag: v1.4}]\nvariants:\n  shared: {default: false}\n  opt: {default: O3}\n",
        );
        let repo = repo(&site, &builtin);
        let z = repo.get("zlib").expect("merged recipe");
        let versions: Vec<_> = z.versions.iter().map(|v| v.text.as_str()).collect();
        assert_eq!(versions, ["1.3", "1.4"]);
        assert_eq!(
            z.variant("shared").unwrap().kind,
            VariantKind::Bool { default: false }
        );
        assert!(
            matches!(&z.variant("opt").unwrap().kind, VariantKind::Single { default, .. } if default == "O3")
        );
        // The rest is the base's; the overlay's version points into the overlay.
        assert_eq!(z.file, builtin.join("zlib.yaml"));
        assert_eq!(*z.versions[1].loc.file, site.join("zlib.yaml"));
        assert_eq!(repo.overlays("zlib"), [site.join("zlib.yaml")]);
        assert!(repo.shadowed("zlib").is_empty());
        assert!(!repo.check("zlib").has_errors(), "{}", repo.check("zlib"));
    }

    #[test]
    fn overlay_mistakes_are_reported_with_the_base_file() {
        let tmp = tempfile::tempdir().unwrap();
        let (site, builtin) = (tmp.path().join("site"), tmp.path().join("builtin"));
        write(&builtin.join("zlib.yaml"), BASE);
        write(
            &site.join("zlib.yaml"),
            "name: zlib\noverlay: true\nvariants:\n  shraed: {default: false}\n  opt: {default: O4}\n",
        );
        let repo = repo(&site, &builtin);
        let d = repo.check("zlib");
        let codes: Vec<_> = d.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            [Code::UnknownVariant, Code::UnknownVariantValue],
            "{d}"
        );
        let text = d.to_string();
        assert!(
            text.contains("builtin/zlib.yaml) has no variant `shraed`"),
            "{text}"
        );
        // An overlay without a base is an error, not an empty recipe.
        write(&site.join("only.yaml"), "name: only\noverlay: true\n");
        let repo = super::super::PackageRepo::load(vec![RepoDir {
            path: site.clone(),
            origin: RepoOrigin::Flag,
        }]);
        assert!(repo.get("only").is_none());
        let d = repo.check("only");
        assert!(d.to_string().contains("has nothing to extend"), "{d}");
    }

    #[test]
    fn an_overlay_changes_the_default_of_every_definition_of_a_variant() {
        let tmp = tempfile::tempdir().unwrap();
        let (site, builtin) = (tmp.path().join("site"), tmp.path().join("builtin"));
        write(
            &builtin.join("kk.yaml"),
            "name: kk\ndescription: k\nversions: [{version: \"1.0\", git: \"https://x/k.git\", tag: v1}, {version: \"2.0\", git: \"https://x/k.git\", tag: v2}]\nvariants:\n  cxxstd:\n    - {default: \"14\", values: [\"14\", \"17\"], when: \"@:1\"}\n    - {default: \"20\", values: [\"17\", \"20\"], when: \"@2:\"}\nbuild: {system: generic}\n",
        );
        write(
            &site.join("kk.yaml"),
            "name: kk\noverlay: true\nvariants:\n  cxxstd: {default: \"17\"}\n",
        );
        let repo = repo(&site, &builtin);
        assert!(!repo.check("kk").has_errors(), "{}", repo.check("kk"));
        let k = repo.get("kk").unwrap();
        let defaults: Vec<_> = k
            .variants
            .iter()
            .filter(|v| v.name == "cxxstd")
            .map(|v| match &v.kind {
                VariantKind::Single { default, .. } => default.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(defaults, ["17", "17"]);
    }
}
