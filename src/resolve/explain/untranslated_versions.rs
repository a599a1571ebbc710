//! Versions a Spack package lists that its translation could not keep
//! (no url: a manual download; an md5 checksum only; …): when none of the
//! kept versions satisfies a request, these say why the asked-for one is
//! missing.

use crate::recipes::PackageRecipe;
use crate::spec::{Version, VersionConstraint};

/// `(version, why, "package.py:line")` of the untranslated versions of
/// `recipe` within `wanted`.
pub(super) fn untranslated_versions(
    recipe: &PackageRecipe,
    wanted: &VersionConstraint,
) -> Vec<(String, String, String)> {
    let Some(imported) = &recipe.imported else {
        return Vec::new();
    };
    imported
        .untranslated
        .iter()
        .filter(|u| u.construct.starts_with("version "))
        .filter_map(|u| {
            let (v, why) = u.detail.as_deref()?.split_once(": ")?;
            let version = Version::parse(v).ok()?;
            wanted.contains(&version).then(|| {
                let file = imported.file.as_deref().unwrap_or("package.py");
                (v.to_string(), why.to_string(), format!("{file}:{}", u.line))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_versions_left_out_within_the_request() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("namd.yaml");
        fs_err::write(
            &file,
            "name: namd\ndescription: d\nversions:\n  - {version: master, git: https://example.org/namd.git, branch: master}\n\
             build: {system: generic}\nimported:\n  from: spack\n  untranslated:\n\
             \x20   - {line: 29, kind: directive, construct: \"version source\", detail: \"3.0.2: no url\"}\n\
             \x20   - {line: 36, kind: info, construct: \"version kept\", detail: \"2.13: md5 checksum only\"}\n\
             \x20   - {line: 40, kind: build, construct: \"hook install\", detail: \"x: y\"}\n",
        )
        .unwrap();
        let (recipe, diags) = crate::recipes::load_package(&file, dir.path());
        let recipe = recipe.unwrap_or_else(|| panic!("{diags}"));
        let want = |c: &str| untranslated_versions(&recipe, &VersionConstraint::parse(c).unwrap());
        assert_eq!(
            want("=3.0.2"),
            [("3.0.2".into(), "no url".into(), "package.py:29".into())]
        );
        assert_eq!(want("2:").len(), 2);
        assert!(want("4:").is_empty());
    }
}
