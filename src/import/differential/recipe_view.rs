//! The parts of an imported recipe the differential check compares, read
//! from the recipe as written (`Converted::recipe`).

use crate::import::spack::Converted;
use crate::import::yaml_out::Yaml;

/// One `versions:` entry.
#[derive(Clone, Debug, Default)]
pub struct VersionView {
    pub name: String,
    pub url: Option<String>,
    pub sha256: Option<String>,
    pub git: Option<String>,
    pub tag: Option<String>,
    pub branch: Option<String>,
    pub commit: Option<String>,
}

/// One definition of a variant (a variant may have one per condition).
#[derive(Clone, Debug, Default)]
pub struct VariantView {
    pub default: Vec<String>,
    pub values: Option<Vec<String>>,
}

/// One dependency (or language) with its types and condition.
#[derive(Clone, Debug, Default)]
pub struct DepView {
    pub spec: String,
    pub types: Vec<String>,
    pub when: Option<String>,
}

/// One patch.
#[derive(Clone, Debug, Default)]
pub struct PatchView {
    pub sha256: Option<String>,
    pub level: i64,
    pub when: Option<String>,
}

/// What the check reads of a recipe.
#[derive(Clone, Debug, Default)]
pub struct RecipeView {
    pub versions: Vec<VersionView>,
    pub variants: Vec<(String, VariantView)>,
    pub dependencies: Vec<DepView>,
    /// Conflicts: the merged condition.
    pub conflicts: Vec<String>,
    /// (virtual, condition).
    pub provides: Vec<(String, Option<String>)>,
    pub patches: Vec<PatchView>,
    /// Spack's build systems, the default first.
    pub build_systems: Vec<String>,
    /// `imported.untranslated` items as `construct: detail` text.
    pub untranslated: Vec<String>,
    /// The package.py lines those items are at (0: not a line of it).
    pub untranslated_lines: Vec<usize>,
}

fn get<'y>(map: &'y Yaml, key: &str) -> Option<&'y Yaml> {
    match map {
        Yaml::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

fn text(y: &Yaml) -> Option<String> {
    match y {
        Yaml::Str(s) => Some(s.clone()),
        Yaml::Bool(b) => Some(b.to_string()),
        Yaml::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

fn str_of(map: &Yaml, key: &str) -> Option<String> {
    get(map, key).and_then(text)
}

fn texts(y: Option<&Yaml>) -> Vec<String> {
    match y {
        Some(Yaml::Seq(items)) => items.iter().filter_map(text).collect(),
        Some(other) => text(other).into_iter().collect(),
        None => Vec::new(),
    }
}

fn seq(map: &Yaml, key: &str) -> Vec<Yaml> {
    match get(map, key) {
        Some(Yaml::Seq(items)) => items.clone(),
        _ => Vec::new(),
    }
}

impl RecipeView {
    pub fn of(c: &Converted) -> RecipeView {
        let r = &c.recipe;
        let imported = get(r, "imported").cloned().unwrap_or(Yaml::Map(Vec::new()));
        let mut view = RecipeView {
            versions: seq(r, "versions").iter().map(version).collect(),
            variants: variants(get(r, "variants")),
            dependencies: seq(r, "dependencies").iter().map(dependency).collect(),
            conflicts: seq(r, "conflicts")
                .iter()
                .filter_map(|c| str_of(c, "when"))
                .collect(),
            provides: seq(r, "provides").iter().filter_map(provided).collect(),
            patches: seq(r, "patches").iter().map(patch).collect(),
            build_systems: build_systems(&imported),
            untranslated: c
                .untranslated
                .iter()
                .map(|u| format!("{}: {}", u.construct, u.detail))
                .collect(),
            untranslated_lines: c.untranslated.iter().map(|u| u.line).collect(),
        };
        view.dependencies.extend(languages(&imported));
        view
    }

    /// Whether an `imported.untranslated` item mentions `what`.
    pub fn flags(&self, what: &str) -> bool {
        !what.is_empty() && self.untranslated.iter().any(|u| u.contains(what))
    }
}

fn version(e: &Yaml) -> VersionView {
    VersionView {
        name: str_of(e, "version").unwrap_or_default(),
        url: str_of(e, "url"),
        sha256: str_of(e, "sha256"),
        git: str_of(e, "git"),
        tag: str_of(e, "tag"),
        branch: str_of(e, "branch"),
        commit: str_of(e, "commit"),
    }
}

fn variants(y: Option<&Yaml>) -> Vec<(String, VariantView)> {
    let Some(Yaml::Map(entries)) = y else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, def) in entries {
        let defs = match def {
            Yaml::Seq(items) => items.clone(),
            other => vec![other.clone()],
        };
        for d in defs {
            let values = get(&d, "values").map(|v| texts(Some(v)));
            out.push((
                name.clone(),
                VariantView {
                    default: texts(get(&d, "default")),
                    values,
                },
            ));
        }
    }
    out
}

fn dependency(e: &Yaml) -> DepView {
    let types = texts(get(e, "type"));
    DepView {
        spec: str_of(e, "spec").unwrap_or_default(),
        types: if types.is_empty() {
            vec!["build".into(), "link".into()]
        } else {
            types
        },
        when: str_of(e, "when"),
    }
}

/// `imported.languages` as dependencies of type build (Spack's
/// `depends_on("c", type="build")`).
fn languages(imported: &Yaml) -> Vec<DepView> {
    seq(imported, "languages")
        .iter()
        .map(|l| match l {
            Yaml::Str(name) => DepView {
                spec: name.clone(),
                types: vec!["build".into()],
                when: None,
            },
            other => DepView {
                spec: str_of(other, "language").unwrap_or_default(),
                types: vec!["build".into()],
                when: str_of(other, "when"),
            },
        })
        .collect()
}

fn provided(e: &Yaml) -> Option<(String, Option<String>)> {
    match e {
        Yaml::Str(v) => Some((v.clone(), None)),
        other => Some((str_of(other, "virtual")?, str_of(other, "when"))),
    }
}

fn patch(e: &Yaml) -> PatchView {
    PatchView {
        sha256: str_of(e, "sha256"),
        level: match get(e, "level") {
            Some(Yaml::Int(l)) => *l,
            _ => 1,
        },
        when: str_of(e, "when"),
    }
}

fn build_systems(imported: &Yaml) -> Vec<String> {
    let all = texts(get(imported, "build_systems"));
    if !all.is_empty() {
        return all;
    }
    str_of(imported, "build_system").into_iter().collect()
}
