//! Readers for YAML shapes shared by the three file kinds: specs, `when:`
//! conditions, conditional argument lists, paths and environment operations.
//! Each records diagnostics in the [`Cx`] and returns what it could read.

use crate::diag::yaml::{Cx, Node};
use crate::diag::{Code, Spanned};
use crate::spec::Spec;

use super::env::{EnvOp, EnvOpKind};
use super::located::{ArgList, Conditional, PathRef, Resource, SpecRef, When, absolutize};

/// Whether a spec must, may, or must not name a package.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    Required,
    Forbidden,
    Any,
}

/// Parse a spec from a string value; parse errors point at the offending
/// character inside the YAML value.
pub fn spec_from(cx: &mut Cx, text: &Spanned<String>, what: &str, named: Named) -> Option<SpecRef> {
    let spec = match Spec::parse(text) {
        Ok(spec) => spec,
        Err(e) => {
            let loc = cx.sub_loc(&text.loc, text, e.offset, e.len.max(1));
            let help = e.help.clone().unwrap_or_else(|| {
                "spec syntax: name@version +variant ~variant key=value %compiler target=T ^dep \
                 (see docs/spec-syntax.md)"
                    .into()
            });
            cx.error(
                Code::BadSpec,
                &loc,
                format!("invalid spec `{}` in {what}: {}", text.value, e.message),
                e.label().to_string(),
                Some(help),
            );
            return None;
        }
    };
    match (named, spec.name.as_deref()) {
        (Named::Required, None) => {
            cx.error(
                Code::BadSpec,
                &text.loc,
                format!("{what} must name a package, found `{}`", text.value),
                "expected `name@version +variant …`",
                None,
            );
            return None;
        }
        (Named::Forbidden, Some(name)) => {
            cx.error(
                Code::BadSpec,
                &text.loc,
                format!("{what} must not name a package, found `{name}`"),
                "a condition on this package has no name",
                Some(format!(
                    "write only the constraints, e.g. `@1.2 +cuda`; to depend on another package use `^{name}`"
                )),
            );
            return None;
        }
        _ => {}
    }
    Some(SpecRef {
        spec,
        text: text.value.clone(),
        loc: text.loc.clone(),
    })
}

/// Parse a spec from a node.
pub fn spec(cx: &mut Cx, node: &Node, what: &str, named: Named) -> Option<SpecRef> {
    let text = cx.string(node, what)?;
    spec_from(cx, &text, what, named)
}

/// A list of specs (a single string counts as a one-element list).
pub fn specs(cx: &mut Cx, node: &Node, what: &str, named: Named) -> Vec<SpecRef> {
    cx.strings(node, what, true)
        .iter()
        .filter_map(|t| spec_from(cx, t, what, named))
        .collect()
}

/// A `when:` condition (an anonymous spec).
pub fn when(cx: &mut Cx, node: &Node) -> Option<When> {
    spec(cx, node, "a `when:` condition", Named::Forbidden)
}

/// A list of template strings and `{when: spec, args: [...]}` blocks.
pub fn arg_list(cx: &mut Cx, node: &Node, what: &str) -> ArgList {
    let Some(items) = cx.seq(node, what) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            Node::Mapping(_) => {
                let Some(m) = cx.map(
                    item,
                    &format!("a conditional block in {what}"),
                    &["when", "args"],
                ) else {
                    continue;
                };
                let when = cx
                    .required(&m, "when", "a conditional block")
                    .and_then(|n| self::when(cx, n));
                let args = cx
                    .required(&m, "args", "a conditional block")
                    .map(|n| cx.strings(n, what, false))
                    .unwrap_or_default();
                check_templates(cx, &args);
                if let Some(when) = when {
                    out.push(Conditional {
                        when: Some(when),
                        value: args.into_iter().map(|s| s.value).collect(),
                        loc: m.loc.clone(),
                    });
                }
            }
            _ => {
                if let Some(s) = cx.string(item, what) {
                    check_templates(cx, std::slice::from_ref(&s));
                    out.push(Conditional::always(vec![s.value], s.loc));
                }
            }
        }
    }
    out
}

/// Report template strings that tera cannot parse.
pub fn check_templates(cx: &mut Cx, items: &[Spanned<String>]) {
    for s in items {
        if !(s.contains("{{") || s.contains("{%") || s.contains("{#"))
            || plain_interpolation(s)
            || plain_conditionals(s)
        {
            continue;
        }
        // The template alone (no `Tera` with every built-in registered,
        // which costs more than parsing a recipe's line); what it may not
        // use (the environment, time, randomness, other files) is refused
        // here, so `stack check` reports it (`crate::template`).
        let (detail, label, help) = match tera::Template::new("value", None, s) {
            Ok(t) => match crate::template::refused_in(s, &t) {
                Some(r) => (
                    r.to_string(),
                    "not available in templates",
                    "templates see `name`, `version`, `prefix`, `spec`, `variants`, `compiler`, `deps`, …; pass anything else through the recipe (a variant, `env:`)",
                ),
                None => continue,
            },
            Err(e) => {
                let detail = std::error::Error::source(&e)
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| e.to_string());
                (
                    detail.lines().last().unwrap_or_default().trim().to_string(),
                    "template does not parse",
                    "templates use tera syntax: `{{ prefix }}`, `{% if … %}…{% endif %}`",
                )
            }
        };
        cx.error(
            Code::BadTemplate,
            &s.loc,
            format!("invalid template `{}`: {detail}", s.value),
            label,
            Some(help.into()),
        );
    }
}

/// Whether `text` is plain text with only `{{ name }}` / `{{ a.b }}`
/// interpolations: always valid tera, so tera's (slow) parser is not
/// needed to check it. Anything else (tags, comments, filters,
/// whitespace control, keywords) returns false and goes to tera.
fn plain_interpolation(text: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "and", "or", "not", "in", "is", "true", "false", "True", "False",
    ];
    let ident = |s: &str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
            && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
            && !KEYWORDS.contains(&s)
    };
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.as_bytes().first() {
            Some(b'%') | Some(b'#') => return false,
            Some(b'{') => {
                let Some(close) = after[1..].find("}}") else {
                    return false;
                };
                let inner = after[1..1 + close].trim_matches(' ');
                if inner.is_empty() || !inner.split('.').all(ident) {
                    return false;
                }
                rest = &after[1 + close + 2..];
            }
            _ => rest = after,
        }
    }
    true
}

/// Whether `text` is plain text with only `{{ name }}` / `{{ a.b }}`
/// interpolations and `{% if [not] a.b %}` … `{% elif [not] a.b %}` …
/// `{% else %}` … `{% endif %}` blocks, properly nested: always valid
/// tera, and nothing it refuses (no function, filter or test), so tera's
/// (slow) parser is not needed. Anything else returns false.
fn plain_conditionals(text: &str) -> bool {
    // Per open `if`: whether its `else` has been seen.
    let mut open: Vec<bool> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("{%") {
        // Each stretch of text between tags on its own (a `{{` … `}}`
        // split by a tag is no interpolation).
        if rest[..at].ends_with('{') || !plain_interpolation(&rest[..at]) {
            return false;
        }
        let Some(close) = rest[at + 2..].find("%}") else {
            return false;
        };
        let tag: Vec<&str> = rest[at + 2..at + 2 + close]
            .split(' ')
            .filter(|w| !w.is_empty())
            .collect();
        let condition = |words: &[&str]| {
            let words = match words {
                ["not", rest @ ..] => rest,
                _ => words,
            };
            matches!(words, [w] if plain_interpolation(&format!("{{{{ {w} }}}}")))
        };
        match tag.as_slice() {
            ["if", cond @ ..] if condition(cond) => open.push(false),
            ["elif", cond @ ..] if condition(cond) && open.last() == Some(&false) => {}
            ["else"] if open.last() == Some(&false) => {
                open.pop();
                open.push(true);
            }
            ["endif"] if open.pop().is_some() => {}
            _ => return false,
        }
        rest = &rest[at + 2 + close + 2..];
    }
    open.is_empty() && plain_interpolation(rest)
}

/// A local path relative to `cx`'s file.
pub fn path(cx: &mut Cx, node: &Node, what: &str) -> Option<PathRef> {
    let s = cx.nonempty_string(node, what)?;
    let path = absolutize(std::path::Path::new(&s.value), &cx.dir());
    Some(PathRef {
        text: s.value,
        path,
        loc: s.loc,
    })
}

/// A URL or a path relative to `cx`'s file.
pub fn resource(cx: &mut Cx, node: &Node, what: &str) -> Option<(Resource, Spanned<String>)> {
    let s = cx.nonempty_string(node, what)?;
    Some((Resource::parse(&s, &cx.dir()), s))
}

/// A list of env operations: `{set: {VAR: value}}`, `{unset: VAR}` (or a
/// list of names), `{prepend_path: {VAR: value}}`, `{append_path: {…}}`,
/// each optionally with `when:`; `build_env` also takes `{append_flags: {…}}`.
pub fn env_ops(cx: &mut Cx, node: &Node, what: &str) -> Vec<EnvOp> {
    let Some(items) = cx.seq(node, what) else {
        return Vec::new();
    };
    let keys: &[&str] = if what == "`build_env`" {
        &EnvOpKind::BUILD_KEYS
    } else {
        &EnvOpKind::KEYS
    };
    let mut allowed = keys.to_vec();
    allowed.push("when");
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, &format!("an entry of {what}"), &allowed) else {
            continue;
        };
        let when = m.get("when").and_then(|n| self::when(cx, n));
        let ops: Vec<_> = keys
            .iter()
            .filter_map(|k| {
                m.get(k)
                    .map(|n| (EnvOpKind::from_key(k).expect("known key"), n))
            })
            .collect();
        if ops.len() != 1 {
            cx.error(
                Code::InvalidValue,
                &m.loc,
                format!(
                    "an entry of {what} needs exactly one of `{}` (found {})",
                    keys.join("`, `"),
                    ops.len()
                ),
                "one operation per entry",
                Some("write each operation as its own list entry".into()),
            );
        }
        for (kind, n) in ops {
            out.extend(env_op(cx, kind, n, when.clone()));
        }
    }
    out
}

fn env_op(cx: &mut Cx, kind: EnvOpKind, node: &Node, when: Option<When>) -> Vec<EnvOp> {
    let what = format!("`{}`", kind.key());
    if kind == EnvOpKind::Unset {
        return cx
            .strings(node, &what, true)
            .into_iter()
            .map(|v| EnvOp {
                kind,
                var: v.value,
                value: String::new(),
                when: when.clone(),
                loc: v.loc,
            })
            .collect();
    }
    let Some(m) = cx.open_map(node, &what) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, v) in m.entries() {
        let var = k.as_str().to_string();
        let loc = cx.scalar_loc(k);
        check_var_name(cx, &var, &loc);
        if let Some(value) = cx.string(v, &format!("the value of {var}")) {
            check_templates(cx, std::slice::from_ref(&value));
            super::placeholders::check(cx, &value);
            out.push(EnvOp {
                kind,
                var,
                value: value.value,
                when: when.clone(),
                loc,
            });
        }
    }
    out
}

/// Environment variable names: letters, digits, underscore, not starting
/// with a digit.
pub fn check_var_name(cx: &mut Cx, var: &str, loc: &crate::diag::Loc) {
    if !valid_var_name(var) {
        cx.error(
            Code::InvalidValue,
            loc,
            format!("`{var}` is not a valid environment variable name"),
            "expected letters, digits and `_`",
            None,
        );
    }
}

/// Letters, digits and `_`, not starting with a digit.
pub fn valid_var_name(var: &str) -> bool {
    !var.is_empty()
        && !var.starts_with(|c: char| c.is_ascii_digit())
        && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Check a sha256 value: 64 hex digits; returned lower-case.
pub fn sha256(cx: &mut Cx, node: &Node, what: &str) -> Option<String> {
    let s = cx.string(node, what)?;
    if s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit()) {
        Some(s.to_ascii_lowercase())
    } else {
        cx.error(
            Code::BadChecksum,
            &s.loc,
            format!("{what}: `{}` is not a sha256 checksum", s.value),
            format!(
                "expected 64 hex digits, found {} characters",
                s.chars().count()
            ),
            Some("compute it with `sha256sum FILE`".into()),
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{plain_conditionals, plain_interpolation};

    fn tera_accepts(s: &str) -> bool {
        tera::Tera::default().add_raw_template("t", s).is_ok()
    }

    /// The fast path never accepts what tera rejects, and takes the
    /// common shapes of recipe templates.
    #[test]
    fn plain_interpolation_is_a_subset_of_tera() {
        let fast = [
            "{{ prefix }}",
            "--with-cuda={{ spec.cuda.prefix }}",
            "{{prefix}}/lib:{{ jobs }}",
            "a } b }} {{ x_1 }}}",
            "no template { at all",
        ];
        for s in fast {
            assert!(plain_interpolation(s), "{s}");
            assert!(tera_accepts(s), "{s}");
        }
        let slow = [
            "{{ prefix",
            "{{ }}",
            "{{ 1abc }}",
            "{{ a | upper }}",
            "{{- a -}}",
            "{% if x %}y{% endif %}",
            "{# c #}",
            "{{ and }}",
            "{{ a..b }}",
            "{{ a.0 }}",
            "{{\tprefix }}",
            "{{{ a }}",
        ];
        for s in slow {
            assert!(!plain_interpolation(s), "{s}");
        }
    }

    /// The same for `{% if %}` blocks: what the fast path takes, tera
    /// parses (and finds nothing refused in).
    #[test]
    fn plain_conditionals_are_a_subset_of_tera() {
        let fast = [
            "{% if variants.shared %}--enable-shared{% else %}--disable-shared{% endif %}",
            "{%if x%}{% endif %}",
            "a{% if not deps.mpi.system %}{{ deps.mpi.prefix }}{% elif y %}b{% elif z %}{% endif %}c",
            "{% if a %}{% if b %}x{% else %}y{% endif %}{% endif %} } %}",
            "{{ prefix }}/{% if x %}lib64{% else %}lib{% endif %}",
        ];
        for s in fast {
            assert!(plain_conditionals(s), "{s}");
            assert!(tera_accepts(s), "{s}");
            let t = tera::Template::new("t", None, s).unwrap();
            assert!(crate::template::refused_in(s, &t).is_none(), "{s}");
        }
        let slow = [
            "{% if x %}",
            "{% endif %}",
            "{% if x %}{% else %}{% else %}{% endif %}",
            "{% if x %}{% else %}{% elif y %}{% endif %}",
            "{% if x == 1 %}{% endif %}",
            "{% if spec is satisfies('@1:') %}a{% endif %}",
            "{% if not %}{% endif %}",
            "{% if and %}{% endif %}",
            "{%- if x -%}{% endif %}",
            "{% for a in b %}{% endfor %}",
            "{{ a {% if x %} }}{% endif %}",
            "{{% if x %}{% endif %}",
            "{% if x %}{{ a | upper }}{% endif %}",
            "{% if get_env(name='HOME') %}{% endif %}",
            "{% if\tx %}{% endif %}",
        ];
        for s in slow {
            assert!(!plain_conditionals(s), "{s}");
        }
    }
}
