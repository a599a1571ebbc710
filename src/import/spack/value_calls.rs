//! Calls the evaluator knows: value-set helpers kept as data
//! (`any_combination_of`, `disjoint_sets`, `patch`), `str`/`int`/`len`/
//! `list`/`range`/`dict`, and methods of strings, dicts and value sets.

use tree_sitter::Node;

use super::value::{Args, CallValue, Eval, Evaluator, Unevaluable, Value, format_braces, text};

impl Evaluator<'_> {
    pub(super) fn call(&self, node: Node) -> Eval<Value> {
        let func = node
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(node, "call"))?;
        let args = Args::of_call(node, self.src)
            .ok_or_else(|| Unevaluable::new(node, "call with unusual arguments"))?;
        let positional = self.positional(&args.positional);
        if func.kind() == "attribute" {
            let object = func.child_by_field_name("object");
            let attr = func
                .child_by_field_name("attribute")
                .map(|a| text(a, self.src));
            if let (Some(object), Some(attr)) = (object, attr) {
                if let Ok(obj) = self.eval(object) {
                    return self.method(node, obj, attr, positional?);
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

    pub(super) fn method(
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
            (Value::Dict(d), "items") => Ok(Value::List(
                d.into_iter()
                    .map(|(k, v)| Value::List(vec![k, v]))
                    .collect(),
            )),
            (Value::Dict(d), "keys") => Ok(Value::List(d.into_iter().map(|(k, _)| k).collect())),
            (Value::Dict(d), "values") => Ok(Value::List(d.into_iter().map(|(_, v)| v).collect())),
            _ => Err(fail()),
        }
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
        let fail = || Unevaluable::new(node, format!("method `.{attr}()`"));
        match (Value::Str(s), attr) {
            (Value::Str(s), "format") => {
                format_braces(&s, &args).ok_or_else(|| Unevaluable::new(node, "str.format"))
            }
            (Value::Str(s), "join") => match args.as_slice() {
                [v] => Ok(Value::Str(
                    v.iter_items()
                        .ok_or_else(fail)?
                        .iter()
                        .map(Value::to_py_string)
                        .collect::<Vec<_>>()
                        .join(&s),
                )),
                _ => Err(fail()),
            },
            (Value::Str(s), "upper") => Ok(Value::Str(s.to_uppercase())),
            (Value::Str(s), "rsplit" | "split") if args.len() == 2 => match (&args[0], &args[1]) {
                (Value::Str(sep), Value::Int(n)) => {
                    let n = (*n).max(0) as usize + 1;
                    let parts: Vec<Value> = if attr == "rsplit" {
                        let mut p: Vec<Value> = s
                            .rsplitn(n, sep.as_str())
                            .map(|p| Value::Str(p.into()))
                            .collect();
                        p.reverse();
                        p
                    } else {
                        s.splitn(n, sep.as_str())
                            .map(|p| Value::Str(p.into()))
                            .collect()
                    };
                    Ok(Value::List(parts))
                }
                _ => Err(fail()),
            },
            (Value::Str(s), "rstrip" | "lstrip" | "strip") => match args.as_slice() {
                [Value::Str(chars)] => {
                    let set: Vec<char> = chars.chars().collect();
                    Ok(Value::Str(match attr {
                        "rstrip" => s.trim_end_matches(set.as_slice()).to_string(),
                        "lstrip" => s.trim_start_matches(set.as_slice()).to_string(),
                        _ => s.trim_matches(set.as_slice()).to_string(),
                    }))
                }
                [] => Ok(Value::Str(match attr {
                    "rstrip" => s.trim_end().to_string(),
                    "lstrip" => s.trim_start().to_string(),
                    _ => s.trim().to_string(),
                })),
                _ => Err(fail()),
            },
            (Value::Str(s), "startswith" | "endswith") => match args.as_slice() {
                [Value::Str(x)] => Ok(Value::Bool(if attr == "startswith" {
                    s.starts_with(x.as_str())
                } else {
                    s.ends_with(x.as_str())
                })),
                _ => Err(fail()),
            },
            (Value::Str(s), "lower") => Ok(Value::Str(s.to_lowercase())),
            (Value::Str(s), "replace") => match args.as_slice() {
                [Value::Str(a), Value::Str(b)] => Ok(Value::Str(s.replace(a.as_str(), b))),
                _ => Err(fail()),
            },
            (Value::Str(s), "split") => match args.as_slice() {
                [] => Ok(Value::List(
                    s.split_whitespace().map(|p| Value::Str(p.into())).collect(),
                )),
                [Value::Str(sep)] => Ok(Value::List(
                    s.split(sep.as_str())
                        .map(|p| Value::Str(p.into()))
                        .collect(),
                )),
                _ => Err(fail()),
            },
            _ => Err(fail()),
        }
    }
}
