//! Placeholders in environment values, as stackinator defines them:
//!
//! - `$@mount@`, `$@view_name@`, `$@view_path@` are replaced when the view is
//!   generated (the last two only exist inside a view);
//! - `${@VAR@}` is kept for load time: uenv expands it from the caller's
//!   environment; `activate.sh` renders it as `${VAR}`, Lmod as
//!   `os.getenv("VAR")`, Tcl as `$::env(VAR)`.
//!
//! A value is parsed once into [`Value`] pieces and then rendered for each
//! output with the quoting that output needs.

use super::env_op::valid_var_name;

/// What `$@...@` placeholders resolve to.
#[derive(Debug, Clone)]
pub struct PlaceholderContext {
    pub mount: String,
    /// `(view_name, view_path)` when rendering for a view.
    pub view: Option<(String, String)>,
}

/// A parsed value: literal text and load-time variable references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value(pub Vec<Piece>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    /// `${@VAR@}`: expanded at load time.
    Var(String),
}

/// Why a value was rejected; the caller adds where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaceholderProblem {
    pub message: String,
    pub hint: String,
}

const KNOWN: &str = "$@mount@, $@view_name@, $@view_path@ (replaced now) and ${@VAR@} (expanded when the environment is loaded)";

impl Value {
    /// Parse `raw`, substituting the `$@...@` placeholders from `ctx`.
    pub fn parse(raw: &str, ctx: &PlaceholderContext) -> Result<Value, PlaceholderProblem> {
        let mut pieces: Vec<Piece> = Vec::new();
        let mut text = String::new();
        let mut rest = raw;
        while let Some(pos) = rest.find('$') {
            text.push_str(&rest[..pos]);
            let after = &rest[pos..];
            if let Some(body) = after.strip_prefix("${@") {
                let end = body.find("@}").ok_or_else(|| PlaceholderProblem {
                    message: format!("unterminated `${{@` in `{raw}`"),
                    hint: format!(
                        "write a load-time variable as ${{@NAME@}}; known placeholders: {KNOWN}"
                    ),
                })?;
                let name = &body[..end];
                if !valid_var_name(name) {
                    return Err(PlaceholderProblem {
                        message: format!(
                            "`${{@{name}@}}` in `{raw}` does not name an environment variable"
                        ),
                        hint:
                            "variable names are letters, digits and `_`, not starting with a digit"
                                .into(),
                    });
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Var(name.to_string()));
                rest = &body[end + 2..];
            } else if let Some(body) = after.strip_prefix("$@") {
                let end = body.find('@').ok_or_else(|| PlaceholderProblem {
                    message: format!("unterminated `$@` in `{raw}`"),
                    hint: format!("known placeholders: {KNOWN}"),
                })?;
                let name = &body[..end];
                let replacement = match (name, &ctx.view) {
                    ("mount", _) => ctx.mount.clone(),
                    ("view_name", Some((v, _))) => v.clone(),
                    ("view_path", Some((_, p))) => p.clone(),
                    ("view_name" | "view_path", None) => {
                        return Err(PlaceholderProblem {
                            message: format!(
                                "`$@{name}@` in `{raw}` is only defined inside a view"
                            ),
                            hint:
                                "module files belong to no view; use $@mount@ or the package prefix"
                                    .into(),
                        });
                    }
                    _ => {
                        return Err(PlaceholderProblem {
                            message: format!("unknown placeholder `$@{name}@` in `{raw}`"),
                            hint: format!("known placeholders: {KNOWN}"),
                        });
                    }
                };
                text.push_str(&replacement);
                rest = &body[end + 1..];
            } else {
                text.push('$');
                rest = &after[1..];
            }
        }
        text.push_str(rest);
        if !text.is_empty() || pieces.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(Value(pieces))
    }

    /// A literal value without placeholders.
    pub fn literal(text: impl Into<String>) -> Value {
        Value(vec![Piece::Text(text.into())])
    }

    /// The env.json form: text as is, load-time variables as `${@VAR@}`.
    pub fn to_uenv(&self) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Var(v) => {
                    out.push_str("${@");
                    out.push_str(v);
                    out.push_str("@}");
                }
            }
        }
        out
    }

    /// The inside of a POSIX shell double-quoted string.
    pub fn to_shell_dq(&self) -> String {
        let mut out = String::new();
        for p in &self.0 {
            match p {
                Piece::Text(t) => {
                    for c in t.chars() {
                        if matches!(c, '"' | '\\' | '$' | '`') {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                }
                Piece::Var(v) => {
                    out.push_str("${");
                    out.push_str(v);
                    out.push('}');
                }
            }
        }
        out
    }

    /// A Lua expression (string literals concatenated with `os.getenv`).
    pub fn to_lua(&self) -> String {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|p| match p {
                Piece::Text(t) => lua_string(t),
                Piece::Var(v) => format!("(os.getenv(\"{v}\") or \"\")"),
            })
            .collect();
        if parts.is_empty() {
            "\"\"".into()
        } else {
            parts.join(" .. ")
        }
    }

    /// A Tcl word (a double-quoted string; load-time variables are read from
    /// `::env` and are empty when unset).
    pub fn to_tcl(&self) -> String {
        let mut out = String::from("\"");
        for p in &self.0 {
            match p {
                Piece::Text(t) => {
                    for c in t.chars() {
                        match c {
                            '"' | '\\' | '$' | '[' | ']' => {
                                out.push('\\');
                                out.push(c);
                            }
                            '\n' => out.push_str("\\n"),
                            _ => out.push(c),
                        }
                    }
                }
                Piece::Var(v) => {
                    out.push_str(&format!(
                        "[if {{[info exists ::env({v})]}} {{set ::env({v})}}]"
                    ));
                }
            }
        }
        out.push('"');
        out
    }

    /// Split on `:` into list elements (for `set` on a list variable);
    /// load-time variables stay inside their element.
    pub fn split_list(&self) -> Vec<Value> {
        let mut out = vec![Vec::new()];
        for p in &self.0 {
            match p {
                Piece::Var(_) => out.last_mut().expect("non-empty").push(p.clone()),
                Piece::Text(t) => {
                    let mut parts = t.split(':');
                    if let Some(first) = parts.next()
                        && !first.is_empty()
                    {
                        out.last_mut()
                            .expect("non-empty")
                            .push(Piece::Text(first.into()));
                    }
                    for part in parts {
                        out.push(Vec::new());
                        if !part.is_empty() {
                            out.last_mut()
                                .expect("non-empty")
                                .push(Piece::Text(part.into()));
                        }
                    }
                }
            }
        }
        out.into_iter()
            .filter(|v| !v.is_empty())
            .map(Value)
            .collect()
    }
}

fn lua_string(t: &str) -> String {
    let mut out = String::from("\"");
    for c in t.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view_ctx() -> PlaceholderContext {
        PlaceholderContext {
            mount: "/user-environment".into(),
            view: Some(("default".into(), "/user-environment/env/default".into())),
        }
    }

    #[test]
    fn substitutes_configure_time_placeholders() {
        let v = Value::parse("$@view_path@/bin:$@mount@/x:$@view_name@", &view_ctx()).unwrap();
        assert_eq!(
            v,
            Value::literal("/user-environment/env/default/bin:/user-environment/x:default")
        );
    }

    #[test]
    fn keeps_load_time_variables() {
        let v = Value::parse("${@SCRATCH@}/julia-$@view_name@", &view_ctx()).unwrap();
        assert_eq!(
            v.0,
            vec![
                Piece::Var("SCRATCH".into()),
                Piece::Text("/julia-default".into())
            ]
        );
        assert_eq!(v.to_uenv(), "${@SCRATCH@}/julia-default");
        assert_eq!(v.to_shell_dq(), "${SCRATCH}/julia-default");
        assert_eq!(
            v.to_lua(),
            "(os.getenv(\"SCRATCH\") or \"\") .. \"/julia-default\""
        );
        assert_eq!(
            v.to_tcl(),
            "\"[if {[info exists ::env(SCRATCH)]} {set ::env(SCRATCH)}]/julia-default\""
        );
    }

    #[test]
    fn plain_dollars_are_literal_and_quoted() {
        let v = Value::parse("a$b\"`c\\", &view_ctx()).unwrap();
        assert_eq!(v, Value::literal("a$b\"`c\\"));
        assert_eq!(v.to_shell_dq(), "a\\$b\\\"\\`c\\\\");
        assert_eq!(v.to_tcl(), "\"a\\$b\\\"`c\\\\\"");
        assert_eq!(v.to_lua(), "\"a$b\\\"`c\\\\\"");
    }

    #[test]
    fn rejects_unknown_and_misplaced_placeholders() {
        let e = Value::parse("$@mnt@/x", &view_ctx()).unwrap_err();
        assert!(e.message.contains("unknown placeholder `$@mnt@`"), "{e:?}");
        let e = Value::parse("${@1X@}", &view_ctx()).unwrap_err();
        assert!(e.message.contains("does not name"), "{e:?}");
        let e = Value::parse("${@HOME", &view_ctx()).unwrap_err();
        assert!(e.message.contains("unterminated"), "{e:?}");
        let module_ctx = PlaceholderContext {
            mount: "/m".into(),
            view: None,
        };
        let e = Value::parse("$@view_path@/bin", &module_ctx).unwrap_err();
        assert!(e.message.contains("only defined inside a view"), "{e:?}");
    }

    #[test]
    fn split_list_keeps_variables_in_their_element() {
        let v = Value::parse("/a:${@HOME@}/b::/c", &view_ctx()).unwrap();
        let parts: Vec<String> = v.split_list().iter().map(Value::to_uenv).collect();
        assert_eq!(parts, ["/a", "${@HOME@}/b", "/c"]);
    }

    #[test]
    fn empty_value_is_one_empty_text() {
        let v = Value::parse("", &view_ctx()).unwrap();
        assert_eq!(v.to_uenv(), "");
        assert_eq!(v.to_lua(), "\"\"");
    }
}
