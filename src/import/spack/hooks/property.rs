//! Directory properties (`@property def root_cmakelists_dir(self)`,
//! `configure_directory`): a body that returns a directory inside the
//! source tree, possibly under `if`/`elif`/`else` on the spec, becomes a
//! `source_subdir` template (`{% if spec is satisfies("@7.2:") %}projects/x{%
//! else %}.{% endif %}`).

use tree_sitter::Node;

use crate::import::spack::evaluator::cond::{Cond, if_else};
use crate::import::spack::evaluator::exprs::{Exprs, err, first_words};
use crate::import::spack::evaluator::value::{Eval, Unevaluable, children};
use crate::import::spack::evaluator::variant_info::VariantInfo;
use crate::import::spack::evaluator::walk::{Collector, Frame, frame_in};

/// The source subdirectory a directory property returns, as a template;
/// `.` is the source tree itself.
/// `def` is a node of the tree of `method_src`.
pub fn property_subdir(def: Node, method_src: &str, variants: &[VariantInfo]) -> Eval<String> {
    let body = def
        .child_by_field_name("body")
        .ok_or_else(|| Unevaluable::new(def, "method body"))?;
    let mut run = Returns {
        f: Frame::new(method_src, variants),
        out: Vec::new(),
    };
    let stmts = children(body);
    run.block(&stmts)?;
    let mut out = run.out;
    // The last return is the fallback; earlier ones take their condition.
    let mut template = match out.pop() {
        Some((Cond::True, t)) => t,
        Some(_) => {
            let at = stmts.last().copied().unwrap_or(body);
            return err(at, "if without else in a property");
        }
        None => return err(body, "property without a return"),
    };
    while let Some((c, t)) = out.pop() {
        template = if_else(&c, &t, &template);
    }
    Ok(template)
}

/// The collector of a directory property: each `return`, in order, with
/// the condition of the one arm it sits in (an `if`/`elif` arm ends in its
/// return, so reaching a later one means the earlier ones did not hold).
struct Returns<'a> {
    f: Frame<'a>,
    out: Vec<(Cond, String)>,
}

impl<'a> Collector<'a> for Returns<'a> {
    frame_in!(f);

    fn expression(&mut self, e: Node) -> Eval<()> {
        self.refused(e)
    }

    fn other_statement(&mut self, stmt: Node) -> Eval<()> {
        self.refused(stmt)
    }

    fn with_statement(&mut self, stmt: Node) -> Eval<()> {
        self.refused(stmt)
    }

    fn check_loop(&self, stmt: Node, _iterable: Node) -> Eval<()> {
        self.refused(stmt)
    }

    fn ret(&mut self, stmt: Node, _cond: Cond) -> Eval<()> {
        if self.f.path.len() > 1 {
            return err(stmt, "nested conditions in a property");
        }
        let value = children(stmt)
            .first()
            .copied()
            .ok_or_else(|| Unevaluable::new(stmt, "return without a value"))?;
        let dir = directory(&self.f.e, value)?;
        self.out.push((self.f.arm.clone(), dir));
        Ok(())
    }

    fn arm_end(&mut self, body: Node, returned: bool) -> Eval<()> {
        let else_arm = body.parent().is_some_and(|p| p.kind() == "else_clause");
        match returned || else_arm {
            true => Ok(()),
            false => err(body, "block without a return"),
        }
    }
}

impl Returns<'_> {
    /// A statement a property may not have: only `if`s and `return`s.
    fn refused<T>(&self, stmt: Node) -> Eval<T> {
        let words = first_words(self.f.e.t(stmt));
        err(stmt, format!("statement `{words}`"))
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
        let nested = "def configure_directory(self):\n    if self.spec.satisfies(\"@2:\"):\n        if self.spec.satisfies(\"+x\"):\n            return \"x\"\n    return \"y\"\n";
        let e = property_subdir(nested, &[]).unwrap_err();
        assert_eq!(
            (e.line, e.what.as_str()),
            (4, "nested conditions in a property")
        );
        let empty_arm = "def configure_directory(self):\n    if self.spec.satisfies(\"@2:\"):\n        pass\n    return \"y\"\n";
        assert_eq!(
            property_subdir(empty_arm, &[]).unwrap_err().what,
            "block without a return"
        );
        let assign = "def configure_directory(self):\n    d = \"x\"\n    return d\n";
        assert_eq!(
            property_subdir(assign, &[]).unwrap_err().what,
            "statement `d = \"x\"`"
        );
    }
}
