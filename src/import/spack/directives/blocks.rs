//! Class-level blocks: `with when(…)` / `with default_args(…)`, `for`
//! loops over literal lists, `if sys.platform …`.

use tree_sitter::Node;

use crate::import::spack::directives::class_body::{ClassReader, Context, first_line};
use crate::import::spack::directives::model::Kind;
use crate::import::spack::evaluator::value::{Args, Evaluator, bind_target, children, text};

impl ClassReader<'_> {
    pub(crate) fn with_block(&mut self, stmt: Node, builder: Option<&str>) {
        let line = stmt.start_position().row + 1;
        let body = stmt.child_by_field_name("body");
        let clause = children(stmt)
            .into_iter()
            .find(|c| c.kind() == "with_clause");
        let mut pushed = 0;
        for item in clause.map(children).unwrap_or_default() {
            let value = item.child_by_field_name("value");
            match value.map(|v| self.with_context(v)) {
                Some(Ok(ctx)) => {
                    self.context.push(ctx);
                    pushed += 1;
                }
                Some(Err(what)) => {
                    self.pkg
                        .untranslated(line, Kind::Directive, "with block", what);
                    for _ in 0..pushed {
                        self.context.pop();
                    }
                    return;
                }
                None => {}
            }
        }
        if let Some(body) = body {
            self.block(&children(body), builder);
        }
        for _ in 0..pushed {
            self.context.pop();
        }
    }

    pub(crate) fn with_context(&self, value: Node) -> Result<Context, String> {
        if value.kind() != "call" {
            return Err(first_line(value, self.src));
        }
        let func = value
            .child_by_field_name("function")
            .map(|f| text(f, self.src))
            .unwrap_or("");
        let args = Args::of_call(value, self.src).ok_or("arguments")?;
        let ev = Evaluator::new(self.src, &self.scope);
        match func {
            "when" => {
                let mut parts = Vec::new();
                for a in &args.positional {
                    let v = ev.eval(*a).map_err(|e| e.what)?;
                    parts.push(v.as_str().ok_or("when() of a non-string")?.to_string());
                }
                Ok(Context {
                    when: Some(parts.join(" ")),
                    defaults: Vec::new(),
                })
            }
            "default_args" => {
                let mut defaults = Vec::new();
                for (k, v) in &args.keywords {
                    defaults.push((k.clone(), ev.eval(*v).map_err(|e| e.what)?));
                }
                let when = defaults
                    .iter()
                    .position(|(k, _)| k == "when")
                    .and_then(|i| defaults.remove(i).1.as_str().map(str::to_string));
                Ok(Context { when, defaults })
            }
            _ => Err(format!("with {}", first_line(value, self.src))),
        }
    }

    pub(crate) fn for_loop(&mut self, stmt: Node, builder: Option<&str>) {
        let line = stmt.start_position().row + 1;
        let (Some(left), Some(right), Some(body)) = (
            stmt.child_by_field_name("left"),
            stmt.child_by_field_name("right"),
            stmt.child_by_field_name("body"),
        ) else {
            return;
        };
        let items = match Evaluator::new(self.src, &self.scope).eval(right) {
            Ok(v) => v.iter_items(),
            Err(_) => None,
        };
        let Some(items) = items else {
            self.pkg.untranslated(
                line,
                Kind::Directive,
                "class-level loop",
                format!("loop over {}", text(right, self.src)),
            );
            return;
        };
        let stmts = children(body);
        for item in items {
            self.scope.push();
            if let Err(e) = bind_target(left, self.src, item, &mut self.scope) {
                self.scope.pop();
                self.pkg
                    .untranslated(line, Kind::Directive, "class-level loop", e.what);
                return;
            }
            self.block(&stmts, builder);
            self.scope.pop();
        }
    }

    /// `if sys.platform == "darwin":` and the like at class level, with
    /// `elif`/`else`: each condition is evaluated when it can be (on Linux;
    /// `Version(v) >= Version("4.2")` over loop variables), else the `if` is
    /// recorded.
    pub(crate) fn class_if(&mut self, stmt: Node, builder: Option<&str>) {
        let line = stmt.start_position().row + 1;
        let mut cursor = stmt.walk();
        let alternatives: Vec<Node> = stmt
            .children_by_field_name("alternative", &mut cursor)
            .collect();
        let mut clauses = vec![(
            stmt.child_by_field_name("condition"),
            stmt.child_by_field_name("consequence"),
        )];
        for alt in alternatives {
            match alt.kind() {
                "elif_clause" => clauses.push((
                    alt.child_by_field_name("condition"),
                    alt.child_by_field_name("consequence"),
                )),
                _ => clauses.push((None, alt.child_by_field_name("body"))),
            }
        }
        for (cond, body) in clauses {
            let taken = match cond {
                None => Some(true),
                Some(c) => self.condition_value(c),
            };
            match taken {
                None => {
                    self.pkg.untranslated(
                        line,
                        Kind::Directive,
                        "class-level if",
                        first_line(stmt, self.src),
                    );
                    return;
                }
                Some(false) => {}
                Some(true) => {
                    if let Some(body) = body {
                        self.block(&children(body), builder);
                    }
                    return;
                }
            }
        }
    }

    fn condition_value(&self, cond: Node) -> Option<bool> {
        let platform = text(cond, self.src);
        if platform.contains("sys.platform") || platform.contains("platform.system") {
            return Some(platform_holds_on_linux(platform));
        }
        Evaluator::new(self.src, &self.scope)
            .eval(cond)
            .ok()
            .map(|v| v.truthy())
    }
}

/// Whether a class-level condition on the platform (`sys.platform ==
/// "darwin"`, `sys.platform not in ["darwin", "win32"]`,
/// `platform.system() != "Linux"`) holds on Linux, where the stack builds.
fn platform_holds_on_linux(cond: &str) -> bool {
    let names_linux = cond.to_ascii_lowercase().contains("linux");
    if cond.contains("not in") || cond.contains("!=") {
        !names_linux
    } else {
        names_linux
    }
}

#[cfg(test)]
mod platform_tests {
    use super::platform_holds_on_linux as holds;

    #[test]
    fn platform_conditions_are_read_for_linux() {
        assert!(holds(r#"sys.platform not in ["darwin", "win32"]"#));
        assert!(!holds(r#"sys.platform in ["darwin", "win32"]"#));
        assert!(holds(r#"sys.platform != "darwin""#));
        assert!(!holds(r#"sys.platform != "linux""#));
        assert!(holds(r#"sys.platform == "linux""#));
        assert!(!holds(r#"sys.platform == "darwin""#));
        assert!(holds(r#"platform.system() == "Linux""#));
        assert!(holds(r#"sys.platform in ("linux", "cray")"#));
    }
}
