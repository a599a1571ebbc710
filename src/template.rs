//! Tera as recipes, hooks and module templates use it: a function of what
//! `stack` hands it, nothing else. The environment (`get_env`), the time
//! (`now`), randomness (`get_random`) and other files (`include`,
//! `import`, `extends`) are not available: a template that uses them is
//! refused where it is read (`stack check` names its position) and, should
//! one get through, fails to render instead of reading them.
//!
//! Why: a recipe's templates end up in build logs, build commands and the
//! image; `{{ get_env(name="MY_TOKEN") }}` would copy the caller's secret
//! there, and time or randomness would make two builds of one lock file
//! differ.

use std::collections::HashMap;

use tera::ast::{Expr, ExprVal, FunctionCall, Node};

/// Functions a template may not call, and what each would read.
pub const REFUSED_FUNCTIONS: &[(&str, &str)] = &[
    ("get_env", "the environment"),
    ("now", "the time"),
    ("get_random", "randomness"),
];

/// A construct a template may not use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// As written: `get_env(…)`, `include "x"`.
    pub construct: String,
    /// What it would read: `the environment`, `other files`.
    pub reads: &'static str,
    /// Byte offset of the construct in the template text, when found.
    pub offset: Option<usize>,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` would read {}, which templates cannot: they see only what stack gives them",
            self.construct, self.reads
        )
    }
}

/// A tera instance for templates: the built-in filters and tests, and the
/// functions of [`REFUSED_FUNCTIONS`] replaced by ones that fail.
pub fn tera() -> tera::Tera {
    let mut t = tera::Tera::default();
    for (name, reads) in REFUSED_FUNCTIONS {
        let message = format!("`{name}` would read {reads}; templates cannot");
        t.register_function(name, move |_: &HashMap<String, tera::Value>| {
            Err::<tera::Value, _>(tera::Error::msg(message.clone()))
        });
    }
    t
}

/// Render `text` as one template with [`tera()`], refusing it first if it
/// uses what templates may not.
pub fn render_one(text: &str, context: &tera::Context) -> tera::Result<String> {
    if let Some(r) = refused(text)? {
        return Err(tera::Error::msg(r.to_string()));
    }
    tera().render_str(text, context)
}

/// The first construct of `text` a template may not use (`Err`: it does
/// not parse).
pub fn refused(text: &str) -> tera::Result<Option<Refused>> {
    let t = tera::Template::new("template", None, text)?;
    Ok(refused_in(text, &t))
}

/// The first construct of the parsed template `t` (of `text`) that is refused.
pub fn refused_in(text: &str, t: &tera::Template) -> Option<Refused> {
    let files = |construct: String, needle: &str| Refused {
        construct,
        reads: "other files",
        offset: text.find(needle),
    };
    if let Some(parent) = &t.parent {
        return Some(files(format!("extends \"{parent}\""), "extends"));
    }
    if let Some((file, _)) = t.imported_macro_files.first() {
        return Some(files(format!("import \"{file}\""), "import"));
    }
    let mut found = None;
    walk_nodes(&t.ast, &mut |name| {
        if found.is_none() {
            found = Some(name.to_string());
        }
    });
    if let Some(name) = found {
        if let Some(include) = name.strip_prefix("include ") {
            return Some(files(format!("include {include}"), "include"));
        }
        let reads = REFUSED_FUNCTIONS
            .iter()
            .find(|(f, _)| *f == name)
            .map(|(_, r)| *r)
            .unwrap_or("other files");
        return Some(Refused {
            construct: format!("{name}(…)"),
            reads,
            offset: find_call(text, &name),
        });
    }
    None
}

/// Where `name(` is called in `text` (not as part of a longer name).
fn find_call(text: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].trim_start().starts_with('(');
        if after && !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Some(at);
        }
        from = at + name.len();
    }
    None
}

/// Calls `hit` with the name of every refused function call (and
/// `include "…"` for includes) in `nodes`.
fn walk_nodes(nodes: &[Node], hit: &mut dyn FnMut(&str)) {
    for n in nodes {
        match n {
            Node::VariableBlock(_, e) => walk_expr(e, hit),
            Node::MacroDefinition(_, m, _) => {
                for e in m.args.values().flatten() {
                    walk_expr(e, hit);
                }
                walk_nodes(&m.body, hit);
            }
            Node::Include(_, files, _) => hit(&format!("include {files:?}")),
            Node::Set(_, s) => walk_expr(&s.value, hit),
            Node::FilterSection(_, f, _) => {
                walk_call(&f.filter, hit, false);
                walk_nodes(&f.body, hit);
            }
            Node::Block(_, b, _) => walk_nodes(&b.body, hit),
            Node::Forloop(_, l, _) => {
                walk_expr(&l.container, hit);
                walk_nodes(&l.body, hit);
                if let Some(body) = &l.empty_body {
                    walk_nodes(body, hit);
                }
            }
            Node::If(i, _) => {
                for (_, cond, body) in &i.conditions {
                    walk_expr(cond, hit);
                    walk_nodes(body, hit);
                }
                if let Some((_, body)) = &i.otherwise {
                    walk_nodes(body, hit);
                }
            }
            _ => {}
        }
    }
}

fn walk_call(f: &FunctionCall, hit: &mut dyn FnMut(&str), is_function: bool) {
    if is_function && REFUSED_FUNCTIONS.iter().any(|(n, _)| *n == f.name) {
        hit(&f.name);
    }
    for e in f.args.values() {
        walk_expr(e, hit);
    }
}

fn walk_expr(e: &Expr, hit: &mut dyn FnMut(&str)) {
    match &e.val {
        ExprVal::FunctionCall(f) => walk_call(f, hit, true),
        ExprVal::Math(m) => {
            walk_expr(&m.lhs, hit);
            walk_expr(&m.rhs, hit);
        }
        ExprVal::Logic(l) => {
            walk_expr(&l.lhs, hit);
            walk_expr(&l.rhs, hit);
        }
        ExprVal::In(i) => {
            walk_expr(&i.lhs, hit);
            walk_expr(&i.rhs, hit);
        }
        ExprVal::Test(t) => {
            for a in &t.args {
                walk_expr(a, hit);
            }
        }
        ExprVal::MacroCall(m) => {
            for a in m.args.values() {
                walk_expr(a, hit);
            }
        }
        ExprVal::Array(items) => {
            for a in items {
                walk_expr(a, hit);
            }
        }
        ExprVal::StringConcat(c) => {
            for v in &c.values {
                walk_expr(&Expr::new(v.clone()), hit);
            }
        }
        _ => {}
    }
    for f in &e.filters {
        walk_call(f, hit, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40, item 12: the environment, the time, randomness and files
    /// are refused wherever they hide in a template.
    #[test]
    fn refuses_environment_time_randomness_and_files() {
        let cases = [
            (
                r#"{{ get_env(name="MY_TOKEN") }}"#,
                "get_env(…)",
                "the environment",
            ),
            (r#"x {{ now() | date }}"#, "now(…)", "the time"),
            (r#"{{ get_random(end=9) }}"#, "get_random(…)", "randomness"),
            (
                r#"{% if true %}{% for x in [1] %}{{ "a" ~ get_env(name="H") }}{% endfor %}{% endif %}"#,
                "get_env(…)",
                "the environment",
            ),
            (
                r#"{{ prefix | replace(from="a", to=get_env(name="H", default="")) }}"#,
                "get_env(…)",
                "the environment",
            ),
            (r#"{% set t = now() %}{{ t }}"#, "now(…)", "the time"),
            (
                r#"{% include "/etc/passwd" %}"#,
                r#"include ["/etc/passwd"]"#,
                "other files",
            ),
            (
                r#"{% import "m.tera" as m %}"#,
                r#"import "m.tera""#,
                "other files",
            ),
            (
                r#"{% extends "base" %}"#,
                r#"extends "base""#,
                "other files",
            ),
        ];
        for (text, construct, reads) in cases {
            let r = refused(text)
                .unwrap()
                .unwrap_or_else(|| panic!("{text} passed"));
            assert_eq!(
                (r.construct.as_str(), r.reads),
                (construct, reads),
                "{text}"
            );
            assert!(r.offset.is_some(), "{text}");
        }
        let r = refused("ab {{ get_env(name='X') }}").unwrap().unwrap();
        assert_eq!(r.offset, Some(6));
        for ok in [
            "{{ prefix }}/lib",
            "{% for i in range(end=3) %}{{ i }}{% endfor %}",
            "{{ version | replace(from='.', to='_') }}",
            "{{ \"get_env(\" }}",
        ] {
            assert_eq!(refused(ok).unwrap(), None, "{ok}");
        }
    }

    #[test]
    fn rendering_refuses_them_too() {
        let cx = tera::Context::new();
        let err = tera()
            .render_str(r#"{{ get_env(name="HOME") }}"#, &cx)
            .unwrap_err();
        assert!(
            crate::diag::error_chain(&err).contains("`get_env` would read the environment"),
            "{}",
            crate::diag::error_chain(&err)
        );
        let err = render_one(r#"{{ now() }}"#, &cx).unwrap_err();
        assert!(err.to_string().contains("the time"), "{err}");
        assert_eq!(render_one("a{{ 1 + 1 }}", &cx).unwrap(), "a2");
    }
}
