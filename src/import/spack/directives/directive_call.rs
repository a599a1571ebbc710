//! A directive call of the class body: its arguments evaluated (`*args`,
//! `**kwargs` of literal lists and dicts, a validator kept by name) and the
//! enclosing `with when(…)` / `with default_args(…)` merged in.

use tree_sitter::Node;

use crate::import::spack::directives::class_body::{ClassReader, first_line};
use crate::import::spack::directives::model::Directive;
use crate::import::spack::evaluator::value::{Args, Eval, Unevaluable, Value, children};

impl ClassReader<'_> {
    pub(crate) fn directive(&self, call: Node, name: &str) -> Eval<Directive> {
        let ev = self.f.e.ev();
        let args =
            Args::of_call(call, self.src).ok_or_else(|| Unevaluable::new(call, "arguments"))?;
        let mut positional = Vec::new();
        let mut splat_kwargs = Vec::new();
        for a in &args.positional {
            if a.kind() == "dictionary_splat" {
                // `**Pdi.versions[v]`: a literal dict's entries as keywords.
                let inner = children(*a)
                    .first()
                    .copied()
                    .ok_or_else(|| Unevaluable::new(*a, "splat"))?;
                let Value::Dict(entries) = ev.eval(inner)? else {
                    return Err(Unevaluable::new(*a, "** of a non-dict"));
                };
                for (k, v) in entries {
                    let Value::Str(k) = k else {
                        return Err(Unevaluable::new(*a, "** with a non-string key"));
                    };
                    splat_kwargs.push((k, v));
                }
            } else if a.kind() == "list_splat" {
                let inner = children(*a)
                    .first()
                    .copied()
                    .ok_or_else(|| Unevaluable::new(*a, "splat"))?;
                let v = ev.eval(inner)?;
                positional.extend(
                    v.iter_items()
                        .ok_or_else(|| Unevaluable::new(*a, "splat"))?,
                );
            } else {
                positional.push(ev.eval(*a)?);
            }
        }
        let mut kwargs = splat_kwargs;
        // `conflicts(spec, when)` / `depends_on(spec, when)`: the second
        // positional argument is the condition.
        if matches!(name, "conflicts" | "depends_on" | "extends") && positional.len() == 2 {
            let when = positional.pop().expect("two arguments");
            kwargs.push(("when".to_string(), when));
        }
        for (k, v) in &args.keywords {
            match ev.eval(*v) {
                Ok(value) => kwargs.push((k.clone(), value)),
                // A validator is code: kept by name, reported by the translator.
                Err(_) if k == "validator" => {
                    kwargs.push((k.clone(), Value::Str(first_line(*v, self.src))));
                }
                // `values=str`: every string is a value, as a recipe variant
                // without `values`. Another callable (`values=int`, a
                // lambda) validates values: kept by name as a validator.
                Err(_) if k == "values" && name == "variant" => {
                    kwargs.push((k.clone(), Value::None));
                    let t = first_line(*v, self.src);
                    if t != "str" {
                        kwargs.push(("validator".into(), Value::Str(t)));
                    }
                }
                // `default=slingshot_network()`: a probe of the host Spack
                // runs on; kept by its code, reported by the translator.
                Err(_) if k == "default" && name == "variant" => {
                    kwargs.push(("default_code".into(), Value::Str(first_line(*v, self.src))));
                }
                Err(e) => return Err(e),
            }
        }
        // `variant(name="int64", …)`: the name given by keyword.
        if name == "variant" && positional.is_empty() {
            if let Some(pos) = kwargs.iter().position(|(k, _)| k == "name") {
                positional.push(kwargs.remove(pos).1);
            }
        }
        self.apply_context(name, &mut kwargs);
        Ok(Directive {
            name: name.to_string(),
            line: call.start_position().row + 1,
            args: positional,
            kwargs,
        })
    }

    /// Merge the enclosing `with` blocks into a directive's keywords:
    /// `when` conditions are joined, `default_args` fill missing keywords.
    fn apply_context(&self, name: &str, kwargs: &mut Vec<(String, Value)>) {
        let mut whens: Vec<String> = self.context.iter().filter_map(|c| c.when.clone()).collect();
        if let Some(pos) = kwargs.iter().position(|(k, _)| k == "when") {
            if let Value::Str(w) = &kwargs[pos].1 {
                whens.push(w.clone());
            }
            kwargs.remove(pos);
        }
        let joined = crate::import::spack::evaluator::cond::join_conditions(&whens);
        if !joined.is_empty() && name != "maintainers" {
            kwargs.push(("when".into(), Value::Str(joined)));
        }
        for ctx in self.context.iter().rev() {
            for (k, v) in &ctx.defaults {
                if !kwargs.iter().any(|(kk, _)| kk == k) {
                    kwargs.push((k.clone(), v.clone()));
                }
            }
        }
    }
}
