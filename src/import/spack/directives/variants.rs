//! `variant(…)` directives → the recipe's `variants:` and what the
//! evaluator knows of each variant ([`VariantInfo`]).

use crate::import::spack::directives::conditional_values as conditional;
use crate::import::spack::directives::conditions::when_of;
use crate::import::spack::directives::model::{Directive, Kind, SpackPackage};
use crate::import::spack::directives::sections::{Sections, kept};
use crate::import::spack::directives::variant_kind::variant_kind;
use crate::import::spack::evaluator::value::Value;
use crate::import::spack::evaluator::variant_info::VariantInfo;
use crate::import::yaml_out::Yaml;

/// `variant(…)` → an entry of `variants:` (conditional values: one per
/// condition).
pub(crate) fn variant(pkg: &mut SpackPackage, s: &mut Sections, d: &Directive) {
    let Some(name) = d.arg_str(0).map(str::to_string) else {
        pkg.untranslated(d.line, Kind::Directive, "directive variant", "no name");
        return;
    };
    if crate::spec::reserved_variant(&name) {
        // athena's `cflags`, timemory's `compiler`: in a spec the name is
        // a compiler flag or the compiler, never this variant.
        let detail = format!("`{name}`: a name the stack's spec syntax reserves; not written");
        pkg.untranslated(d.line, Kind::Directive, "variant name reserved", detail);
        return;
    }
    if let Some(defs) = conditional_values(pkg, d, &name) {
        for def in defs {
            variant(pkg, s, &def);
        }
        return;
    }
    let when = when_of(pkg, d);
    let description = d.kw_str("description").map(str::to_string);
    let (kind, info) = match variant_kind(d) {
        Ok(k) => k,
        Err(why) => {
            pkg.untranslated(
                d.line,
                Kind::Directive,
                "directive variant",
                format!("{name}: {why}"),
            );
            return;
        }
    };
    let mut kind = kind;
    if let Some(code) = d.kw_str("default_code") {
        // Spack computes it on the host it runs on: a bool is written
        // false, a valued variant its first value, and both are reported.
        for (k, v) in &mut kind {
            if k == "default" && *v == Yaml::Bool(true) {
                *v = Yaml::Bool(false);
            }
        }
        let written = kind
            .iter()
            .find(|(k, _)| k == "default")
            .map(|(_, v)| v.to_document().trim().to_string())
            .unwrap_or_default();
        pkg.untranslated(
            d.line,
            Kind::Directive,
            "variant default",
            format!("{name}: `{code}` is computed on the host Spack runs on; written {written}"),
        );
    }
    if d.kw("validator").is_some() {
        pkg.untranslated(d.line, Kind::Directive, "variant validator", name.clone());
    }
    if d.kw_bool("sticky") == Some(true) {
        s.kept.push(kept(d));
    }
    let mut entries = kind;
    if let Some(desc) = description {
        entries.push((
            "description".into(),
            Yaml::str(desc.split_whitespace().collect::<Vec<_>>().join(" ")),
        ));
    }
    if let Some(w) = &when {
        entries.push(("when".into(), Yaml::str(w)));
    }
    let info = VariantInfo {
        name: name.clone(),
        when: when.clone(),
        ..info
    };
    if let Some(pos) = s.variants.iter().position(|(n, _)| *n == name) {
        // A package's declaration replaces its base class's; a package that
        // declares a variant several times (under different `when`s) keeps
        // every definition: the recipe's variant becomes a list.
        if s.variant_info[pos].line == 0 && d.line > 0 {
            s.variants[pos] = (name, Yaml::Map(entries));
            s.variant_info[pos] = VariantInfo {
                line: d.line,
                ..info
            };
        } else {
            let first = std::mem::replace(&mut s.variants[pos].1, Yaml::Seq(Vec::new()));
            s.variants[pos].1 = match first {
                Yaml::Seq(mut defs) => {
                    defs.push(Yaml::Map(entries));
                    Yaml::Seq(defs)
                }
                one => Yaml::Seq(vec![one, Yaml::Map(entries)]),
            };
            s.variant_info.push(VariantInfo {
                line: d.line,
                ..info
            });
        }
        return;
    }
    s.variants.push((name, Yaml::Map(entries)));
    s.variant_info.push(VariantInfo {
        line: d.line,
        ..info
    });
}

/// A variant whose `values` hold `conditional(…)`: one directive per
/// condition (`None`: no conditional values, or they were reported).
fn conditional_values(pkg: &mut SpackPackage, d: &Directive, name: &str) -> Option<Vec<Directive>> {
    let values = match d.kw("values")? {
        Value::List(vals) => vals.clone(),
        call @ Value::Call(_) => vec![call.clone()],
        _ => return None,
    };
    if !conditional::has_conditional(&values) {
        return None;
    }
    let defs = match conditional::definitions(&values) {
        Ok(defs) => defs,
        Err(why) => {
            pkg.untranslated(
                d.line,
                Kind::Directive,
                "conditional values",
                format!("{name}: {why}"),
            );
            return Some(Vec::new());
        }
    };
    let default = d
        .kw("default")
        .map(crate::import::spack::directives::variant_kind::default_text);
    let outer = d.kw_str("when").unwrap_or("").to_string();
    let directives = defs.into_iter().map(|(when, vals)| {
        let mut def = d.clone();
        let default = match &default {
            Some(x) if vals.contains(x) => x.clone(),
            _ => vals.first().cloned().unwrap_or_default(),
        };
        let when = crate::import::spack::evaluator::cond::join_conditions(&[
            outer.as_str(),
            when.as_deref().unwrap_or(""),
        ]);
        def.kwargs
            .retain(|(k, _)| !matches!(k.as_str(), "values" | "default" | "when"));
        def.kwargs.push((
            "values".into(),
            Value::List(vals.into_iter().map(Value::Str).collect()),
        ));
        def.kwargs.push(("default".into(), Value::Str(default)));
        if !when.is_empty() {
            def.kwargs.push(("when".into(), Value::Str(when)));
        }
        def
    });
    Some(directives.collect())
}
