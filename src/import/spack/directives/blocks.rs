//! The class body on the statement walker: `with when(…)` / `with
//! default_args(…)`, `for` loops over evaluable lists, `if sys.platform …`
//! decided on Linux. A statement that cannot be read is recorded where it
//! is and the walk carries on.

use tree_sitter::Node;

use crate::import::spack::directives::class_body::{ClassReader, Context, first_line};
use crate::import::spack::directives::model::Kind;
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::value::{Args, Eval, Unevaluable, Value, children, text};
use crate::import::spack::evaluator::walk::{Collector, frame_in};

impl<'a> Collector<'a> for ClassReader<'a> {
    const LOOP_FRAME: bool = true;

    frame_in!(f);

    fn expression(&mut self, e: Node) -> Eval<()> {
        match e.kind() {
            "call" => self.call(e),
            "assignment" => self.assignment(e),
            "augmented_assignment" if self.augmented_assignment(e) => {}
            _ => return self.other_expression(e),
        }
        Ok(())
    }

    /// Strings are docstrings and comments; anything else is recorded.
    fn other_expression(&mut self, e: Node) -> Eval<()> {
        if e.kind() != "concatenated_string" {
            let line = e.start_position().row + 1;
            let stmt = e.parent().unwrap_or(e);
            self.pkg.untranslated(
                line,
                Kind::Directive,
                format!("class-level {}", e.kind()),
                first_line(stmt, self.src),
            );
        }
        Ok(())
    }

    fn with_statement(&mut self, stmt: Node) -> Eval<()> {
        self.with_block(stmt);
        Ok(())
    }

    fn other_statement(&mut self, stmt: Node) -> Eval<()> {
        match stmt.kind() {
            "function_definition" => self.method(stmt, stmt),
            "decorated_definition" => {
                if let Some(def) = stmt.child_by_field_name("definition") {
                    self.method(stmt, def);
                }
            }
            "import_statement" | "import_from_statement" => {}
            other => self.pkg.untranslated(
                stmt.start_position().row + 1,
                Kind::Directive,
                format!("class-level {other}"),
                first_line(stmt, self.src),
            ),
        }
        Ok(())
    }

    /// No `return` ends a class body: it is recorded like any statement
    /// that cannot be read.
    fn return_statement(&mut self, stmt: Node) -> Eval<()> {
        self.other_statement(stmt)
    }

    fn ret(&mut self, _stmt: Node, _cond: Cond) -> Eval<()> {
        Ok(())
    }

    /// `if sys.platform == "darwin":` and the like, with `elif`/`else`:
    /// each condition is evaluated when it can be (on Linux; `Version(v) >=
    /// Version("4.2")` over loop variables), else the `if` is recorded.
    fn condition(&self, node: Node) -> Eval<Cond> {
        let platform = text(node, self.src);
        let holds = if platform.contains("sys.platform") || platform.contains("platform.system") {
            platform_holds_on_linux(platform)
        } else {
            self.f.e.value(node)?.truthy()
        };
        Ok(if holds { Cond::True } else { Cond::False })
    }

    fn loop_items(&self, iterable: Node) -> Eval<Vec<Value>> {
        let items = match self.f.e.value(iterable) {
            Ok(v) => v.iter_items(),
            Err(_) => None,
        };
        items.ok_or_else(|| {
            Unevaluable::new(iterable, format!("loop over {}", text(iterable, self.src)))
        })
    }

    /// An `if` none of whose conditions could be decided, a loop over what
    /// does not evaluate to a list or whose items do not bind.
    fn failed(&mut self, stmt: Node, e: Unevaluable) -> Eval<()> {
        let line = stmt.start_position().row + 1;
        match stmt.kind() {
            "if_statement" => self.pkg.untranslated(
                line,
                Kind::Directive,
                "class-level if",
                first_line(stmt, self.src),
            ),
            // A `for` without its parts (a syntax error, reported as such).
            "for_statement"
                if ["left", "right", "body"]
                    .iter()
                    .any(|f| stmt.child_by_field_name(f).is_none()) => {}
            "for_statement" => {
                self.pkg
                    .untranslated(line, Kind::Directive, "class-level loop", e.what)
            }
            other => self.pkg.untranslated(
                e.line,
                Kind::Directive,
                format!("class-level {other}"),
                e.what,
            ),
        }
        Ok(())
    }
}

impl ClassReader<'_> {
    pub(crate) fn with_block(&mut self, stmt: Node) {
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
            // Every statement's failure is recorded where it is (`failed`).
            let _ = self.block(&children(body));
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
        let ev = self.f.e.ev();
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
