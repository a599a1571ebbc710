//! Directory properties (`@property def root_cmakelists_dir(self)`,
//! `configure_directory`): a body that returns a directory inside the
//! source tree, possibly under `if`/`elif`/`else` on the spec, becomes a
//! `source_subdir` template (`{% if spec is satisfies("@7.2:") %}projects/x{%
//! else %}.{% endif %}`).

use tree_sitter::Node;

use crate::import::spack::evaluator::cond::{Cond, if_else};
use crate::import::spack::evaluator::exprs::{Exprs, first_words};
use crate::import::spack::evaluator::value::{Eval, Unevaluable, children};
use crate::import::spack::evaluator::variant_info::VariantInfo;

/// The source subdirectory a directory property returns, as a template;
/// `.` is the source tree itself.
/// `def` is a node of the tree of `method_src`.
pub fn property_subdir(def: Node, method_src: &str, variants: &[VariantInfo]) -> Eval<String> {
    let body = def
        .child_by_field_name("body")
        .ok_or_else(|| Unevaluable::new(def, "method body"))?;
    let e = Exprs::new(method_src, variants);
    let mut out = Vec::new();
    returns(&e, &children(body), body, &mut out)?;
    // The last branch is the fallback; earlier ones take their condition.
    let mut template = match out.pop() {
        Some((_, t)) => t,
        None => return Err(Unevaluable::new(body, "property without a return")),
    };
    while let Some((c, t)) = out.pop() {
        template = if_else(&c, &t, &template);
    }
    Ok(template)
}

/// Collect `(condition, directory)` of each return, in order; every path
/// of the block must end in a return (the last one is unconditional).
fn returns(e: &Exprs, stmts: &[Node], at: Node, out: &mut Vec<(Cond, String)>) -> Eval<()> {
    let Some((last, first)) = stmts.split_last() else {
        return Err(Unevaluable::new(at, "block without a return"));
    };
    for s in first {
        match s.kind() {
            _ if is_docstring(e, *s) => {}
            // `if c: return a` followed by more statements.
            "if_statement" => if_returns(e, *s, false, out)?,
            _ => {
                return Err(Unevaluable::new(
                    *s,
                    format!("statement `{}`", first_words(e.t(*s))),
                ));
            }
        }
    }
    match last.kind() {
        "return_statement" => {
            let value = children(*last)
                .first()
                .copied()
                .ok_or_else(|| Unevaluable::new(*last, "return without a value"))?;
            out.push((Cond::True, directory(e, value)?));
            Ok(())
        }
        "if_statement" => if_returns(e, *last, true, out),
        _ => Err(Unevaluable::new(
            *last,
            format!("statement `{}`", first_words(e.t(*last))),
        )),
    }
}

fn is_docstring(e: &Exprs, s: Node) -> bool {
    s.kind() == "expression_statement"
        && children(s).first().is_some_and(|c| c.kind() == "string")
        && !e.t(s).is_empty()
}

/// `if c: return a` / `elif d: return b` / `else: return c` (the `else`
/// required when nothing follows).
fn if_returns(e: &Exprs, stmt: Node, needs_else: bool, out: &mut Vec<(Cond, String)>) -> Eval<()> {
    let missing = || Unevaluable::new(stmt, "if");
    let c = e.cond(stmt.child_by_field_name("condition").ok_or_else(missing)?)?;
    let then = stmt
        .child_by_field_name("consequence")
        .ok_or_else(missing)?;
    branch(e, c, then, out)?;
    let mut cursor = stmt.walk();
    let alternatives: Vec<Node> = stmt
        .children_by_field_name("alternative", &mut cursor)
        .collect();
    for alt in alternatives {
        match alt.kind() {
            "elif_clause" => {
                let c = e.cond(alt.child_by_field_name("condition").ok_or_else(missing)?)?;
                let body = alt.child_by_field_name("consequence").ok_or_else(missing)?;
                branch(e, c, body, out)?;
            }
            "else_clause" if needs_else => {
                let body = alt.child_by_field_name("body").ok_or_else(missing)?;
                return returns(e, &children(body), body, out);
            }
            "else_clause" => return Err(Unevaluable::new(alt, "else before more statements")),
            _ => {}
        }
    }
    if needs_else {
        return Err(Unevaluable::new(stmt, "if without else in a property"));
    }
    Ok(())
}

/// A branch must be a single return (nested conditions are not combined).
fn branch(e: &Exprs, c: Cond, body: Node, out: &mut Vec<(Cond, String)>) -> Eval<()> {
    let mut inner = Vec::new();
    returns(e, &children(body), body, &mut inner)?;
    match inner.as_slice() {
        [(Cond::True, t)] => {
            out.push((c, t.clone()));
            Ok(())
        }
        _ => Err(Unevaluable::new(body, "nested conditions in a property")),
    }
}

/// A returned directory: relative to the source tree, without `..`;
/// `self.stage.source_path` (the source tree itself) is `.`.
fn directory(e: &Exprs, value: Node) -> Eval<String> {
    if e.t(value) == "self.stage.source_path" {
        return Ok(".".into());
    }
    let t = e.tmpl(value)?;
    let t = if t.is_empty() { ".".to_string() } else { t };
    if t.starts_with('/') || t.contains("{{") || t.contains("{%") || t.split('/').any(|c| c == "..")
    {
        return Err(Unevaluable::new(
            value,
            format!("directory `{t}` outside the source tree"),
        ));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn property_subdir(src: &str, variants: &[VariantInfo]) -> Eval<String> {
        let tree = crate::import::spack::reader::parsed::parse(src).unwrap();
        let def = crate::import::spack::reader::parsed::find_def(tree.root_node()).unwrap();
        super::property_subdir(def, src, variants)
    }

    #[test]
    fn conditional_returns_become_one_template() {
        let src = r#"
@property
def root_cmakelists_dir(self):
    if self.spec.satisfies("@7.2:"):
        return "projects/amdsmi"
    elif "@:6" in self.spec:
        return join_path("amd", "smi")
    else:
        return self.stage.source_path
"#;
        assert_eq!(
            property_subdir(src, &[]).unwrap(),
            "{% if spec is satisfies(\"@7.2:\") %}projects/amdsmi{% else %}{% if spec is satisfies(\"@:6\") %}amd/smi{% else %}.{% endif %}{% endif %}"
        );
        let plain = "def configure_directory(self):\n    return \"src\"\n";
        assert_eq!(property_subdir(plain, &[]).unwrap(), "src");
    }

    #[test]
    fn paths_outside_the_tree_and_open_ifs_are_refused() {
        let up = "def configure_directory(self):\n    return \"../x\"\n";
        assert!(property_subdir(up, &[]).is_err());
        let open = "def configure_directory(self):\n    if self.spec.satisfies(\"@2:\"):\n        return \"x\"\n";
        assert!(property_subdir(open, &[]).is_err());
        let early = "def configure_directory(self):\n    if self.spec.satisfies(\"@2:\"):\n        return \"x\"\n    return \"y\"\n";
        assert_eq!(
            property_subdir(early, &[]).unwrap(),
            "{% if spec is satisfies(\"@2:\") %}x{% else %}y{% endif %}"
        );
        let prefix = "def configure_directory(self):\n    return self.prefix\n";
        assert!(property_subdir(prefix, &[]).is_err());
    }
}
