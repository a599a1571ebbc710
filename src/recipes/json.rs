//! A package recipe as JSON (`stack info --format json`).

use serde_json::{Value, json};

use super::{GitRef, PackageRecipe, Source, VariantKind};

impl PackageRecipe {
    /// The recipe's description, versions, variants, dependencies, provided
    /// virtuals and build system as a JSON object.
    pub fn to_json(&self) -> Value {
        let when = |w: &Option<super::When>| w.as_ref().map(|w| w.text.clone());
        let versions: Vec<Value> = self
            .versions_newest_first()
            .into_iter()
            .map(|v| match &v.source {
                Source::Archive(a) => json!({
                    "version": v.text,
                    "preferred": v.preferred,
                    "url": a.url_text,
                    "sha256": a.sha256,
                    "expand": a.expand,
                }),
                Source::Git(g) => {
                    let (kind, name) = match &g.reference {
                        GitRef::Tag(t) => ("tag", t),
                        GitRef::Branch(b) => ("branch", b),
                        GitRef::Commit(c) => ("commit", c),
                    };
                    let mut o = json!({
                        "version": v.text,
                        "preferred": v.preferred,
                        "git": g.repo_text,
                        "commit": g.commit,
                        "submodules": g.submodules,
                    });
                    o[kind] = json!(name);
                    o
                }
                Source::None => json!({
                    "version": v.text,
                    "preferred": v.preferred,
                    "source": "none",
                }),
            })
            .collect();
        let variants: Vec<Value> = self
            .variants
            .iter()
            .map(|v| {
                let (default, values, multi) = match &v.kind {
                    VariantKind::Bool { default } => (json!(default), json!([true, false]), false),
                    VariantKind::Single { default, values } => {
                        (json!(default), json!(values), false)
                    }
                    VariantKind::Multi { default, values } => (json!(default), json!(values), true),
                };
                json!({
                    "name": v.name,
                    "default": default,
                    "values": values,
                    "multi": multi,
                    "when": when(&v.when),
                    "description": v.description,
                })
            })
            .collect();
        let dependencies: Vec<Value> = self
            .dependencies
            .iter()
            .map(|d| {
                json!({
                    "spec": d.spec.text,
                    "name": d.name(),
                    "build": d.types.build,
                    "link": d.types.link,
                    "run": d.types.run,
                    "test": d.types.test,
                    "when": when(&d.when),
                })
            })
            .collect();
        json!({
            "name": self.name,
            "description": self.description,
            "homepage": self.homepage,
            "recipe": self.file,
            "versions": versions,
            "variants": variants,
            "dependencies": dependencies,
            "provides": self.provides.iter().map(|p| json!({"virtual": p.name, "versions": p.versions.to_string(), "when": when(&p.when)})).collect::<Vec<_>>(),
            "build_system": self.build.system.name(),
        })
    }
}
