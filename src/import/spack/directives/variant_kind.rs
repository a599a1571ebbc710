//! A `variant(…)` directive's `default`, `values` and `multi` as recipe keys.

use crate::import::yaml_out::Yaml;

use crate::import::spack::directives::model::Directive;
use crate::import::spack::directives::sections::Entries;
use crate::import::spack::evaluator::value::Value;
use crate::import::spack::evaluator::variant_info::VariantInfo;

/// The `default`/`values`/`multi` keys of a variant and what hooks need.
pub(crate) fn variant_kind(d: &Directive) -> Result<(Entries, VariantInfo), String> {
    let info = |is_bool, values, multi| VariantInfo {
        name: String::new(),
        is_bool,
        values,
        multi,
        when: None,
        line: 0,
    };
    let values = d.kw("values");
    let multi_kw = d.kw_bool("multi");
    let default = d.kw("default");
    match values {
        None | Some(Value::None) => match default {
            None | Some(Value::Bool(_)) => {
                let b = matches!(default, Some(Value::Bool(true)) | None);
                Ok((
                    vec![("default".into(), Yaml::Bool(b))],
                    info(true, None, false),
                ))
            }
            Some(v) => {
                let text = default_text(v);
                Ok(valued(&text, None, multi_kw.unwrap_or(false)))
            }
        },
        Some(Value::List(vals)) => {
            let vals = vals.iter().map(scalar).collect::<Result<Vec<_>, _>>()?;
            if vals.iter().all(|v| v == "True" || v == "False") {
                let b = matches!(default, Some(Value::Bool(true)));
                return Ok((
                    vec![("default".into(), Yaml::Bool(b))],
                    info(true, None, false),
                ));
            }
            let def = match default {
                Some(v) => default_text(v),
                None => vals.first().cloned().unwrap_or_default(),
            };
            Ok(valued(&def, Some(vals), multi_kw.unwrap_or(false)))
        }
        Some(Value::Call(c)) => {
            let mut vals: Vec<String> = Vec::new();
            for a in &c.args {
                match a {
                    Value::List(items) => {
                        for item in items {
                            vals.push(scalar(item)?);
                        }
                    }
                    other => vals.push(scalar(other)?),
                }
            }
            let mut def = "none".to_string();
            if (c.name == "disjoint_sets" || c.name == "any_combination_of")
                && !vals.contains(&"none".to_string())
            {
                vals.insert(0, "none".into());
            }
            if c.name == "auto_or_any_combination_of" {
                vals.insert(0, "auto".into());
                def = "auto".into();
            }
            if let Some((_, v)) = c.kwargs.iter().find(|(k, _)| k == "__with_default") {
                def = default_text(v);
            }
            if let Some(v) = default {
                def = default_text(v);
            }
            if c.name == "conditional" {
                return Ok(valued(&def, Some(vals), multi_kw.unwrap_or(false)));
            }
            Ok(valued(&def, Some(vals), true))
        }
        Some(other) => Err(format!("values {}", other.to_py_string())),
    }
}

/// A variant's default as text: a list or tuple of values (a multi-valued
/// variant's `default=("4", "d")`) is its values joined by commas, as
/// Spack reads it (it was written `['4', 'd']`).
pub(crate) fn default_text(v: &Value) -> String {
    match v {
        Value::List(items) => items
            .iter()
            .map(Value::to_py_string)
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_py_string(),
    }
}

/// A value of a variant as text; an object (`conditional(…)` inside
/// `disjoint_sets`, a dict) is refused rather than written as `<object>`.
fn scalar(v: &Value) -> Result<String, String> {
    match v {
        Value::Dict(_) | Value::Call(_) => Err(format!("value {}", describe(v))),
        other => Ok(other.to_py_string()),
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Call(c) => format!("{}(…)", c.name),
        _ => "of a dict".to_string(),
    }
}

pub(crate) fn valued(
    default: &str,
    values: Option<Vec<String>>,
    multi: bool,
) -> (Entries, VariantInfo) {
    let mut e = Vec::new();
    if multi {
        let defaults: Vec<&str> = default.split(',').filter(|s| !s.is_empty()).collect();
        e.push(("default".into(), Yaml::strs(&defaults)));
    } else {
        e.push(("default".into(), Yaml::str(default)));
    }
    if let Some(v) = &values {
        let mut v = v.clone();
        for d in default.split(',').filter(|s| !s.is_empty()) {
            if !v.iter().any(|x| x == d) {
                v.push(d.to_string());
            }
        }
        e.push(("values".into(), Yaml::strs(&v)));
    }
    if multi {
        e.push(("multi".into(), Yaml::Bool(true)));
    }
    let info = VariantInfo {
        name: String::new(),
        is_bool: false,
        values,
        multi,
        when: None,
        line: 0,
    };
    (e, info)
}
