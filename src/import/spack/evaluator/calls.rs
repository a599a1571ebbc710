//! Calls the evaluator knows: value-set helpers kept as data
//! (`any_combination_of`, `disjoint_sets`, `patch`), `str`/`int`/`len`/
//! `list`/`range`/`dict`, and methods of strings, dicts and value sets.

use tree_sitter::Node;

use crate::import::spack::evaluator::value::{
    Args, CallValue, Eval, Evaluator, Unevaluable, Value, format_braces, text,
};

/// `a < b <= c` over versions, chained as Python chains comparisons.
pub(crate) fn compare_chained(
    node: Node,
    ops: &[&str],
    versions: &[crate::spec::Version],
) -> Eval<Value> {
    let mut all = true;
    for (op, pair) in ops.iter().zip(versions.windows(2)) {
        all &= match *op {
            "<" => pair[0] < pair[1],
            "<=" => pair[0] <= pair[1],
            ">" => pair[0] > pair[1],
            ">=" => pair[0] >= pair[1],
            "==" => pair[0] == pair[1],
            "!=" => pair[0] != pair[1],
            _ => return Err(Unevaluable::new(node, format!("comparison `{op}`"))),
        };
    }
    Ok(Value::Bool(all))
}

impl Evaluator<'_> {
    pub(crate) fn call(&self, node: Node) -> Eval<Value> {
        let func = node
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(node, "call"))?;
        let args = Args::of_call(node, self.src)
            .ok_or_else(|| Unevaluable::new(node, "call with unusual arguments"))?;
        let fname = text(func, self.src);
        // `platform.machine()` / `platform.system()`: bound only while a
        // machine-dependent package is read for one architecture (`per_arch`).
        if matches!(fname, "platform.machine" | "platform.system") {
            if let Some(v) = self.scope.get(fname) {
                return Ok(v.clone());
            }
        }
        if matches!(
            fname,
            "itertools.chain" | "chain" | "itertools.product" | "product"
        ) && self.scope.get(fname).is_none()
        {
            return self.iter_tool(node, fname, self.positional(&args.positional)?);
        }
        if matches!(fname, "re.search" | "re.match" | "re.fullmatch")
            && self.scope.get("re").is_none()
            && args.keywords.is_empty()
        {
            return self.re_call(node, fname, self.positional(&args.positional)?);
        }
        if fname == "filter" && args.positional.len() == 2 {
            return self.filter(node, args.positional[0], args.positional[1]);
        }
        let positional = self.positional(&args.positional);
        if func.kind() == "attribute" {
            let object = func.child_by_field_name("object");
            let attr = func
                .child_by_field_name("attribute")
                .map(|a| text(a, self.src));
            if let (Some(object), Some(attr)) = (object, attr) {
                if let Ok(obj) = self.eval(object) {
                    let mut positional = positional?;
                    // `s.rsplit("/", maxsplit=1)`: the second parameter.
                    match args.keywords.as_slice() {
                        [] => {}
                        [(k, v)] if k == "maxsplit" && positional.len() == 1 => {
                            positional.push(self.eval(*v)?);
                        }
                        kws if attr == "format" => {
                            let Value::Str(fmt) = obj else {
                                return Err(Unevaluable::new(node, "keywords of `.format()`"));
                            };
                            let named = kws
                                .iter()
                                .map(|(k, v)| Ok((k.clone(), self.eval(*v)?)))
                                .collect::<Eval<Vec<_>>>()?;
                            return crate::import::spack::evaluator::pystr::format_named(
                                &fmt,
                                &positional,
                                &named,
                            )
                            .ok_or_else(|| Unevaluable::new(node, "str.format"));
                        }
                        _ => {
                            return Err(Unevaluable::new(node, format!("keywords of `.{attr}()`")));
                        }
                    }
                    return self.method(node, obj, attr, positional);
                }
            }
            return Err(Unevaluable::new(
                node,
                format!("call of `{}`", text(func, self.src)),
            ));
        }
        let name = text(func, self.src);
        match name {
            "any_combination_of"
            | "disjoint_sets"
            | "conditional"
            | "auto_or_any_combination_of"
            | "patch" => {
                let kwargs = args
                    .keywords
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), self.eval(*v)?)))
                    .collect::<Eval<Vec<_>>>()?;
                Ok(Value::Call(Box::new(CallValue {
                    name: name.to_string(),
                    args: positional?,
                    kwargs,
                })))
            }
            _ => self.builtin(node, name, positional, &args),
        }
    }

    /// Positional arguments, a `*literal_list` splat spread into them.
    fn positional(&self, nodes: &[Node]) -> Eval<Vec<Value>> {
        let mut out = Vec::new();
        for a in nodes {
            if a.kind() == "list_splat" {
                let inner = a
                    .named_child(0)
                    .ok_or_else(|| Unevaluable::new(*a, "splat argument"))?;
                let items = self
                    .eval(inner)?
                    .iter_items()
                    .ok_or_else(|| Unevaluable::new(*a, "splat argument"))?;
                out.extend(items);
            } else {
                out.push(self.eval(*a)?);
            }
        }
        Ok(out)
    }

    pub(crate) fn method(
        &self,
        node: Node,
        obj: Value,
        attr: &str,
        args: Vec<Value>,
    ) -> Eval<Value> {
        let fail = || Unevaluable::new(node, format!("method `.{attr}()`"));
        match (obj, attr) {
            (Value::Str(s), _) => self.str_method(node, s, attr, args),
            (
                Value::Call(mut c),
                "with_default" | "with_non_feature_values" | "prohibit_empty_set" | "with_error",
            ) => {
                let v = args.into_iter().next().unwrap_or(Value::None);
                c.kwargs.push((format!("__{attr}"), v));
                Ok(Value::Call(c))
            }
            (Value::Call(c), "group") => {
                crate::import::spack::evaluator::regex::match_group(&c, &args).ok_or_else(fail)
            }
            (Value::Dict(d), "items") => Ok(Value::List(
                d.into_iter()
                    .map(|(k, v)| Value::List(vec![k, v]))
                    .collect(),
            )),
            (Value::Dict(d), "keys") => Ok(Value::List(d.into_iter().map(|(k, _)| k).collect())),
            (Value::Dict(d), "values") => Ok(Value::List(d.into_iter().map(|(_, v)| v).collect())),
            // `d.get(key)`, `d.get(key, default)`.
            (Value::Dict(d), "get") if matches!(args.len(), 1 | 2) => {
                let mut args = args.into_iter();
                let key = args.next().expect("a key");
                let found = d.into_iter().find(|(k, _)| *k == key).map(|(_, v)| v);
                Ok(found.or_else(|| args.next()).unwrap_or(Value::None))
            }
            _ => Err(fail()),
        }
    }

    /// `Version("4.2")` (or `ver(…)`): compared by Spack's version order.
    pub(crate) fn is_version_call(&self, n: Node) -> bool {
        n.kind() == "call"
            && n.child_by_field_name("function")
                .is_some_and(|f| matches!(text(f, self.src), "Version" | "ver"))
    }

    /// `Version(a) < Version(b)`, chained as Python chains comparisons.
    pub(crate) fn version_comparison(
        &self,
        node: Node,
        parts: &[Node],
        ops: &[&str],
    ) -> Eval<Value> {
        if ops.len() + 1 != parts.len() {
            return Err(Unevaluable::new(node, "comparison"));
        }
        let mut versions = Vec::new();
        for p in parts {
            let arg = if self.is_version_call(*p) {
                Args::of_call(*p, self.src)
                    .and_then(|a| a.positional.first().copied())
                    .ok_or_else(|| Unevaluable::new(*p, "Version()"))?
            } else {
                *p
            };
            let s = match self.eval(arg)? {
                Value::Str(s) => s,
                _ => return Err(Unevaluable::new(*p, "version")),
            };
            versions.push(
                crate::spec::Version::parse(&s).map_err(|_| Unevaluable::new(*p, "version"))?,
            );
        }
        compare_chained(node, ops, &versions)
    }

    /// `itertools.chain(a, b, …)` and `itertools.product(a, b, …)` over
    /// literal sequences.
    fn iter_tool(&self, node: Node, name: &str, lists: Vec<Value>) -> Eval<Value> {
        let fail = || Unevaluable::new(node, format!("call of `{name}`"));
        let lists = lists
            .iter()
            .map(|l| l.iter_items().ok_or_else(fail))
            .collect::<Eval<Vec<_>>>()?;
        if name.ends_with("chain") {
            return Ok(Value::List(lists.into_iter().flatten().collect()));
        }
        let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
        for list in lists {
            rows = rows
                .into_iter()
                .flat_map(|row| {
                    list.iter().map(move |v| {
                        let mut r = row.clone();
                        r.push(v.clone());
                        r
                    })
                })
                .collect();
        }
        Ok(Value::List(rows.into_iter().map(Value::List).collect()))
    }

    /// `filter(lambda x: cond, seq)`: the items for which the lambda's body
    /// is true.
    fn filter(&self, node: Node, func: Node, seq: Node) -> Eval<Value> {
        let fail = || Unevaluable::new(node, "call of `filter`");
        if func.kind() != "lambda" {
            return Err(fail());
        }
        let params = func
            .child_by_field_name("parameters")
            .map(crate::import::spack::evaluator::value::children)
            .unwrap_or_default();
        let [param] = params.as_slice() else {
            return Err(fail());
        };
        if param.kind() != "identifier" {
            return Err(fail());
        }
        let body = func.child_by_field_name("body").ok_or_else(fail)?;
        let items = self.eval(seq)?.iter_items().ok_or_else(fail)?;
        let mut kept = Vec::new();
        for item in items {
            let mut scope = self.scope.clone();
            scope.push();
            scope.set(text(*param, self.src), item.clone());
            if self.over(&scope).eval(body)?.truthy() {
                kept.push(item);
            }
        }
        Ok(Value::List(kept))
    }

    /// `str`, `int`, `len`, `list`/`tuple`/`sorted`/`set`, `range`, `dict(k=v)`.
    fn builtin(
        &self,
        node: Node,
        name: &str,
        positional: Eval<Vec<Value>>,
        args: &Args,
    ) -> Eval<Value> {
        match name {
            "bool" => match positional?.as_slice() {
                [v] => Ok(Value::Bool(v.truthy())),
                _ => Err(Unevaluable::new(node, "bool()")),
            },
            // A Spack version as its text: compared by Spack's order where
            // a comparison names `Version(…)`, cut by `.up_to(n)`.
            "enumerate" => match positional?.as_slice() {
                [v] => Ok(Value::List(
                    v.iter_items()
                        .ok_or_else(|| Unevaluable::new(node, "enumerate()"))?
                        .into_iter()
                        .enumerate()
                        .map(|(i, x)| Value::List(vec![Value::Int(i as i64), x]))
                        .collect(),
                )),
                _ => Err(Unevaluable::new(node, "enumerate()")),
            },
            "Version" | "ver" => match positional?.as_slice() {
                [Value::Str(v)] => Ok(Value::Str(v.clone())),
                _ => Err(Unevaluable::new(node, format!("{name}()"))),
            },
            "str" => match positional?.as_slice() {
                [v] => Ok(Value::Str(v.to_py_string())),
                _ => Err(Unevaluable::new(node, "str()")),
            },
            "list" | "tuple" | "sorted" | "set" => match positional?.as_slice() {
                [v] => {
                    let mut items = v
                        .iter_items()
                        .ok_or_else(|| Unevaluable::new(node, format!("{name}()")))?;
                    if name == "sorted" {
                        items.sort_by_key(|a| a.to_py_string());
                    }
                    Ok(Value::List(items))
                }
                [] => Ok(Value::List(Vec::new())),
                _ => Err(Unevaluable::new(node, format!("{name}()"))),
            },
            "int" => match positional?.as_slice() {
                [Value::Str(s)] => s
                    .trim()
                    .parse()
                    .map(Value::Int)
                    .map_err(|_| Unevaluable::new(node, "int()")),
                [Value::Int(i)] => Ok(Value::Int(*i)),
                _ => Err(Unevaluable::new(node, "int()")),
            },
            "len" => match positional?.as_slice() {
                [v] => v
                    .iter_items()
                    .map(|i| Value::Int(i.len() as i64))
                    .ok_or_else(|| Unevaluable::new(node, "len()")),
                _ => Err(Unevaluable::new(node, "len()")),
            },
            "range" => match positional?.as_slice() {
                [Value::Int(n)] => Ok(Value::List((0..*n).map(Value::Int).collect())),
                [Value::Int(a), Value::Int(b)] => {
                    Ok(Value::List((*a..*b).map(Value::Int).collect()))
                }
                _ => Err(Unevaluable::new(node, "range()")),
            },
            "dict" if args.positional.is_empty() => {
                let kwargs = args
                    .keywords
                    .iter()
                    .map(|(k, v)| Ok((Value::Str(k.clone()), self.eval(*v)?)))
                    .collect::<Eval<Vec<_>>>()?;
                Ok(Value::Dict(kwargs))
            }
            _ => Err(Unevaluable::new(node, format!("call of `{name}`"))),
        }
    }

    /// Methods of strings.
    fn str_method(&self, node: Node, s: String, attr: &str, args: Vec<Value>) -> Eval<Value> {
        if attr == "format" {
            return format_braces(&s, &args).ok_or_else(|| Unevaluable::new(node, "str.format"));
        }
        super::str_methods::call(&s, attr, &args)
            .ok_or_else(|| Unevaluable::new(node, format!("method `.{attr}()`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::spack::evaluator::value::Scope;
    use crate::import::spack::evaluator::value::tests::eval;

    fn strs(items: &[&str]) -> Value {
        Value::List(items.iter().map(|s| Value::Str(s.to_string())).collect())
    }

    #[test]
    fn itertools_filter_versions_and_identity_evaluate() {
        let mut scope = Scope::new();
        scope.set("xs", strs(&["11", "14", "17"]));
        scope.set("mac", Value::None);
        let e = |x: &str| eval(x, &scope).unwrap();
        assert_eq!(
            e(r#"itertools.chain(["98"], xs)"#),
            strs(&["98", "11", "14", "17"])
        );
        assert_eq!(
            e(r#"list(filter(lambda s: s != "11", xs))"#),
            strs(&["14", "17"])
        );
        assert_eq!(
            e(r#"product(["a"], ["1", "2"])"#),
            Value::List(vec![strs(&["a", "1"]), strs(&["a", "2"])])
        );
        assert_eq!(
            e(r#"Version("1.10") > Version("1.9") >= Version("1.9")"#),
            Value::Bool(true)
        );
        assert_eq!(e("mac is not None"), Value::Bool(false));
        assert_eq!(e("bool(mac)"), Value::Bool(false));
        assert_eq!(e("3 > 2"), Value::Bool(true));
        assert_eq!(
            e(r#""a/b/c".rsplit("/", maxsplit=1)[0]"#),
            Value::Str("a/b".into())
        );
        assert_eq!(
            e(r#""{x}-{0:03d}".format(7, x="v")"#),
            Value::Str("v-007".into())
        );
        assert_eq!(e(r#""abc".rfind("c")"#), Value::Int(2));
        assert_eq!(e(r#""7".zfill(3)"#), Value::Str("007".into()));
    }
}
