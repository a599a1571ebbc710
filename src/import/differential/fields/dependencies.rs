//! Dependencies: Spack's `depends_on` records (merged where Spack merges
//! them) against the recipe's dependencies, languages and base-class
//! dependencies.

use std::collections::BTreeSet;

use super::super::normal::{self, Cond};
use super::super::recipe_view::RecipeView;
use super::super::{Difference, Field, Standing};
use super::{
    BY_DESIGN_DEPENDENCIES, Json, LANGUAGES, flags_when, items, json_text, push, standing,
};

pub(super) fn spec_name(spec: &str) -> &str {
    spec.split(|c: char| c.is_whitespace() || "@+~%^=".contains(c))
        .next()
        .unwrap_or("")
}

fn dep_text(spec: &str, types: &[String], when: Option<&str>) -> String {
    format!("{spec} {types:?} when {}", when.unwrap_or("-"))
}

/// One dependency as compared: entries of the same name under conditions
/// that read the same are one (Spack's `depends_on` constrains a
/// dependency named again; the importer may write them apart).
struct Dep {
    name: String,
    spec: Cond,
    types: BTreeSet<String>,
    when: Cond,
    when_text: Option<String>,
    text: String,
}

fn merge_deps(deps: Vec<Dep>) -> Vec<Dep> {
    let mut out: Vec<Dep> = Vec::new();
    for d in deps {
        match out
            .iter_mut()
            .find(|o| o.name == d.name && o.when == d.when)
        {
            Some(o) => {
                o.types.extend(d.types);
                o.text = format!("{}; {}", o.text, d.text);
                o.spec = match (&o.spec, &d.spec) {
                    (Cond::Holds(a), Cond::Holds(b)) => {
                        let mut m = a.clone();
                        match m.constrain(b) {
                            Ok(_) => Cond::Holds(m),
                            Err(_) => Cond::Text(vec![o.text.clone()]),
                        }
                    }
                    _ => Cond::Text(vec![o.text.clone()]),
                };
            }
            None => out.push(d),
        }
    }
    out
}

fn same_dep(a: &Dep, b: &Dep) -> bool {
    a.name == b.name
        && a.when == b.when
        && (LANGUAGES.contains(&a.name.as_str()) || (a.spec == b.spec && a.types == b.types))
}

pub fn dependencies(view: &RecipeView, record: &Json, out: &mut Vec<Difference>) {
    let own = record["name"].as_str().unwrap_or("");
    let mut spack = Vec::new();
    for d in items(record, "dependencies") {
        let spec = d["spec"].as_str().unwrap_or("");
        let name = spec_name(spec).to_string();
        let all_types: Vec<String> = d["type"]
            .as_array()
            .map(|t| t.iter().filter_map(json_text).collect())
            .unwrap_or_default();
        let text = dep_text(spec, &all_types, d["when"].as_str());
        let when = normal::cond(&[d["when"].as_str()], own);
        // Test dependencies are kept as data (tests are not run), and
        // entries for other platforms or architectures are left out
        // (docs/import.md).
        let types: BTreeSet<String> = all_types
            .into_iter()
            .flat_map(|t| match t.as_str() {
                "all" => vec!["build".into(), "link".into(), "run".into()],
                _ => vec![t],
            })
            .filter(|t| t != "test")
            .collect();
        if types.is_empty() || !when.holds() {
            push(
                out,
                Field::Dependency,
                &name,
                text,
                "not for this reading".into(),
                Standing::ByDesign,
            );
            continue;
        }
        let spec = normal::dep_spec(spec);
        let when_text = d["when"].as_str().map(str::to_string);
        spack.push(Dep {
            name,
            spec,
            types,
            when,
            when_text,
            text,
        });
    }
    let spack = merge_deps(spack);
    let ours = merge_deps(
        view.dependencies
            .iter()
            .filter_map(|o| {
                let when = normal::cond(&[o.when.as_deref()], own);
                when.holds().then(|| Dep {
                    name: spec_name(&o.spec).to_string(),
                    spec: normal::dep_spec(&o.spec),
                    types: o.types.iter().cloned().collect(),
                    when,
                    when_text: o.when.clone(),
                    text: dep_text(&o.spec, &o.types, o.when.as_deref()),
                })
            })
            .collect(),
    );
    for d in &spack {
        if ours.iter().any(|o| same_dep(d, o)) {
            continue;
        }
        let mine: Vec<&str> = ours
            .iter()
            .filter(|o| o.name == d.name)
            .map(|o| o.text.as_str())
            .collect();
        let s = if BY_DESIGN_DEPENDENCIES.contains(&d.name.as_str()) {
            Standing::ByDesign
        } else {
            standing(view.flags(&d.name) || flags_when(view, d.when_text.as_deref()))
        };
        let mine = if mine.is_empty() {
            "missing".into()
        } else {
            mine.join("; ")
        };
        push(out, Field::Dependency, &d.name, d.text.clone(), mine, s);
    }
    for o in &ours {
        if !spack.iter().any(|d| same_dep(d, o)) {
            let s = standing(view.flags(&o.name));
            push(
                out,
                Field::Dependency,
                &o.name,
                "missing".into(),
                o.text.clone(),
                s,
            );
        }
    }
}
