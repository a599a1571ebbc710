//! The directive part of a translated recipe ([`Sections`]), and a
//! directive the recipe has no field for, kept as data.

use std::collections::{BTreeMap, BTreeSet};

use crate::import::spack::directives::conditional_values as conditional;
use crate::import::spack::directives::model::Directive;
use crate::import::spack::evaluator::value::Value;
use crate::import::spack::evaluator::variant_info::VariantInfo;
use crate::import::yaml_out::Yaml;

/// The directive part of a translated recipe.
#[derive(Debug, Default)]
pub struct Sections {
    pub versions: Vec<Yaml>,
    pub variants: Vec<(String, Yaml)>,
    /// Declared variants: name → (bool?, allowed values, `when`).
    pub variant_info: Vec<VariantInfo>,
    pub dependencies: Vec<Yaml>,
    pub dependency_names: BTreeSet<String>,
    pub conflicts: Vec<Yaml>,
    pub patches: Vec<Yaml>,
    /// Package-level `resources:` (each with its `when`).
    pub resources: Vec<Yaml>,
    pub provides: Vec<Yaml>,
    /// Languages from `depends_on("c"/"cxx"/"fortran")`: each with its
    /// conditions (`None`: always).
    pub languages: BTreeMap<String, Vec<Option<String>>>,
    /// Build systems named by `build_system(…)`, the default first.
    pub build_systems: Vec<String>,
    /// `build_system(conditional(…), …)`: the names allowed per condition.
    pub build_system_defs: Option<Vec<conditional::Definition>>,
    /// Directives with no stack equivalent, kept as data.
    pub kept: Vec<Yaml>,
    pub license: Vec<Yaml>,
    pub maintainers: Vec<String>,
    /// Patch files to copy: (name in the Spack package directory and below
    /// `patches/<package>/`, bytes).
    pub patch_files: Vec<(String, Vec<u8>)>,
    /// Class attributes hook bodies may read as `self.NAME`, as templates
    /// (`build_directory = "src"` → `self.build_directory` is `src`).
    pub class_attrs: Vec<(String, String)>,
    /// The line of an `install` that only raises: the package is
    /// external-only (`build: {system: external}`).
    pub external_only: Option<usize>,
}

pub(crate) type Entries = Vec<(String, Yaml)>;

/// A directive as data: its name, line and arguments.
pub fn kept(d: &Directive) -> Yaml {
    let mut entries = vec![("directive".to_string(), Yaml::str(&d.name))];
    if d.line > 0 {
        entries.push(("line".into(), Yaml::Int(d.line as i64)));
    }
    if !d.args.is_empty() {
        entries.push((
            "args".into(),
            Yaml::Seq(d.args.iter().map(value_yaml).collect()),
        ));
    }
    for (k, v) in &d.kwargs {
        entries.push((k.clone(), value_yaml(v)));
    }
    Yaml::Map(entries)
}

/// A Python value as YAML (calls as `{call: name, args: …}`).
pub fn value_yaml(v: &Value) -> Yaml {
    match v {
        Value::Str(s) => Yaml::str(s),
        Value::Int(i) => Yaml::Int(*i),
        Value::Float(f) => Yaml::str(format!("{f}")),
        Value::Bool(b) => Yaml::Bool(*b),
        Value::None => Yaml::str("None"),
        Value::List(items) => Yaml::Seq(items.iter().map(value_yaml).collect()),
        Value::Dict(items) => Yaml::Map(
            items
                .iter()
                .map(|(k, v)| (k.to_py_string(), value_yaml(v)))
                .collect(),
        ),
        Value::Call(c) => {
            let mut e = vec![("call".to_string(), Yaml::str(&c.name))];
            e.push((
                "args".into(),
                Yaml::Seq(c.args.iter().map(value_yaml).collect()),
            ));
            for (k, v) in &c.kwargs {
                e.push((k.clone(), value_yaml(v)));
            }
            Yaml::Map(e)
        }
        // Only a hook body's conditions and argument lists are symbolic; no
        // directive holds one.
        Value::Cond(c) => Yaml::str(c.as_tera()),
        Value::Args(items) => Yaml::Seq(items.iter().map(|i| Yaml::str(&i.template)).collect()),
    }
}
