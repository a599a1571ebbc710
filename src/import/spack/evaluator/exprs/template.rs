//! Templates as a collector of the one evaluator: the evaluator walks the
//! expression (strings and f-strings, parentheses, `+` and `%`,
//! conditionals) and [`Exprs`], as its [`Hook`], gives the text of what
//! only the build knows (the spec, prefixes, dependencies, variants,
//! compilers: `{{ … }}` placeholders) or refuses it with its reason.
//!
//! A template is text: every value on the walk is a string. Literal text
//! cannot hold tera's delimiters, an f-string interpolation takes no
//! format specifier, the operators are `+` and `%`, and `a if c else b`
//! is a template conditional on the spec.

use tree_sitter::Node;

use crate::import::spack::evaluator::cond::if_else;
use crate::import::spack::evaluator::exprs::{
    Exprs, Local, SITE_PACKAGES, err, first_words, literal,
};
use crate::import::spack::evaluator::hook::Hook;
use crate::import::spack::evaluator::value::{Eval, Evaluator, Value};

impl Exprs<'_> {
    /// A template for one argument.
    pub fn tmpl(&self, node: Node) -> Eval<String> {
        let ev = Evaluator {
            hook: Some(self),
            ..self.ev()
        };
        text_of(node, ev.eval(node)?)
    }

    /// A node the template collector reads itself: a path, a name, a
    /// number, a spec attribute, a call, a subscript; any other construct
    /// is refused.
    fn leaf(&self, node: Node) -> Eval<String> {
        if let Some(p) = self.path(node) {
            return Ok(p);
        }
        match node.kind() {
            "identifier" => self.name(node),
            "integer" | "float" => Ok(self.t(node).to_string()),
            "attribute" => self.attribute(node),
            "call" => self.call_tmpl(node),
            "subscript" => self.subscript(node),
            _ => err(node, format!("expression `{}`", first_words(self.t(node)))),
        }
    }

    /// A name: what it is bound to, or one of Spack's build-time names.
    fn name(&self, node: Node) -> Eval<String> {
        match self.scope.local(self.t(node)) {
            Some(Local::Tmpl(t)) => Ok(t.clone()),
            Some(Local::Value(v)) => literal(node, &v.to_py_string()),
            Some(Local::Cond(c)) => Ok(if_else(c, "True", "False")),
            _ => match self.t(node) {
                // Spack's `spack_cc` is its compiler wrapper; ours is first on the
                // build PATH under these names (`self.compiler.cc` is the real one).
                "spack_cc" => Ok("cc".into()),
                "spack_cxx" => Ok("c++".into()),
                "spack_fc" | "spack_f77" => Ok("gfortran".into()),
                "make_jobs" => Ok("{{ jobs }}".into()),
                // Spack's python sets both for its extensions to
                // `<prefix>/lib/pythonX.Y/site-packages` (its platlib/purelib).
                "python_platlib" | "python_purelib" => Ok(SITE_PACKAGES.into()),
                name => err(node, format!("name `{name}`")),
            },
        }
    }
}

impl Hook for Exprs<'_> {
    fn node(&self, node: Node, _ev: &Evaluator) -> Option<Eval<Value>> {
        match node.kind() {
            // The evaluator walks these.
            "string"
            | "concatenated_string"
            | "parenthesized_expression"
            | "binary_operator"
            | "conditional_expression" => None,
            _ => Some(self.leaf(node).map(Value::Str)),
        }
    }

    fn literal(&self, node: Node, s: String) -> Eval<String> {
        literal(node, &s)
    }

    fn interpolation(
        &self,
        child: Node,
        expr: Node,
        spec: Option<&str>,
        ev: &Evaluator,
    ) -> Eval<String> {
        match spec {
            Some(_) => err(child, "f-string format specifier"),
            None => text_of(expr, ev.eval(expr)?),
        }
    }

    fn operator(&self, node: Node, op: &str) -> Eval<()> {
        match op {
            "+" | "%" => Ok(()),
            o => err(node, format!("operator `{o}`")),
        }
    }

    /// `a if c else b`: both templates, under the condition on the spec.
    fn conditional(&self, _node: Node, parts: [Node; 3], ev: &Evaluator) -> Option<Eval<Value>> {
        let [a, c, b] = parts;
        let chosen = || {
            let a = text_of(a, ev.eval(a)?)?;
            let c = self.cond(c)?;
            let b = text_of(b, ev.eval(b)?)?;
            Ok(Value::Str(if_else(&c, &a, &b)))
        };
        Some(chosen())
    }
}

/// A template's text: every value the template collector gives is one.
fn text_of(node: Node, v: Value) -> Eval<String> {
    match v {
        Value::Str(s) => Ok(s),
        _ => err(node, "template of a non-string value"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::spack::evaluator::cond::Cond;
    use crate::import::spack::evaluator::value::Unevaluable;
    use crate::import::spack::evaluator::variant_info::VariantInfo;
    use crate::import::spack::reader::parsed;

    fn shared() -> Vec<VariantInfo> {
        vec![VariantInfo {
            name: "shared".into(),
            is_bool: true,
            values: None,
            multi: false,
            when: None,
            line: 1,
        }]
    }

    /// The template of the expression `expr` (one line), with `spec` bound
    /// to the spec and `n` to the value 3; and its value with `n` alone.
    fn read(expr: &str) -> (Eval<String>, Eval<Value>) {
        let tree = parsed::parse(expr).expect("parses");
        let node = parsed::expression_of(&tree);
        let variants = shared();
        let mut e = Exprs::new(expr, &variants);
        e.scope.bind("spec".into(), Local::Spec);
        e.scope.set("n", Value::Int(3));
        (e.tmpl(node), e.value(node))
    }

    fn refused(what: &str) -> Eval<String> {
        Err(Unevaluable {
            line: 1,
            what: what.into(),
        })
    }

    #[test]
    fn an_fstring_of_spec_attributes_and_dependency_prefixes_is_a_template() {
        let (t, v) = read(r#"f"--with-zlib={spec['zlib'].prefix.lib} -v{self.spec.version}""#);
        assert_eq!(
            t.unwrap(),
            "--with-zlib={{ deps[\"zlib\"].prefix }}/lib -v{{ version }}"
        );
        // The values alone know neither.
        assert!(v.is_err());
        let (t, _) = read(r#""%s/%s-%d" % (self.prefix, "lib", n)"#);
        assert_eq!(t.unwrap(), "{{ prefix }}/lib-3");
        let (t, _) = read(r#"("-O" + str(n)) if spec.satisfies("+shared") else "-g""#);
        let on = Cond::Spec("+shared".into());
        assert_eq!(t.unwrap(), if_else(&on, "-O3", "-g"));
    }

    #[test]
    fn a_refused_construct_gives_its_reason() {
        // Python formats `n`; a template takes no format specifier.
        let (t, v) = read(r#"f"{n:04d}""#);
        assert_eq!(v, Ok(Value::Str("0003".into())));
        assert_eq!(t, refused("f-string format specifier"));
        // `*` is refused before its operands are read.
        assert_eq!(read(r#"spec.x * 2"#).0, refused("operator `*`"));
        assert_eq!(read("[n, 1]").0, refused("expression `[n, 1]`"));
        assert_eq!(
            read(r#""{{ x }}" + self.prefix"#).0,
            refused("literal text with template delimiters")
        );
        assert_eq!(
            read(r#"f"{spec['mpi'].mpifc}""#).0,
            refused("dependency .mpifc (set by the provider's setup_dependent_package)")
        );
    }
}
