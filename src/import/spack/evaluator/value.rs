//! Evaluating the literal part of Python: the values a `package.py` passes to
//! its directives (strings, numbers, lists, dicts, f-strings over known
//! names, `"…".format(…)`, comprehensions over literal lists).
//!
//! Anything else (attribute access on objects, calls of unknown functions,
//! lambdas) is [`Unevaluable`]: the caller records the construct as
//! untranslated instead of guessing.

use tree_sitter::Node;

pub use crate::import::spack::reader::parsed::{children, operators, text};

pub use crate::import::spack::evaluator::loops::bind_target;
pub use crate::import::spack::evaluator::pystr::{
    format_braces, format_spec, percent_format, string_with,
};
pub use crate::import::spack::evaluator::scope::Scope;

use crate::import::spack::evaluator::collected::ArgItem;
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::hook::{Hook, Values};

/// A Python value the importer can hold.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    None,
    /// Lists, tuples and sets.
    List(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    /// A call of a value-set helper (`any_combination_of("a", "b")`,
    /// `disjoint_sets(…)`, `conditional(…)`): its name and arguments.
    Call(Box<CallValue>),
    /// A condition on the spec being built, which only the build decides
    /// (what the condition collector gives: `self.spec.satisfies("+x")`).
    /// `not`, `and` and `or` over it are conditions again, and do not
    /// short-circuit.
    Cond(Cond),
    /// An argument list the build decides: each item a template under its
    /// condition (what the argument-list collector gives).
    Args(Vec<ArgItem>),
}

/// A call kept as data.
#[derive(Clone, Debug, PartialEq)]
pub struct CallValue {
    pub name: String,
    pub args: Vec<Value>,
    pub kwargs: Vec<(String, Value)>,
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Str(s) => !s.is_empty(),
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Bool(b) => *b,
            Value::None => false,
            Value::List(v) => !v.is_empty(),
            Value::Dict(v) => !v.is_empty(),
            Value::Call(_) => true,
            Value::Cond(c) => *c != Cond::False,
            Value::Args(items) => !items.is_empty(),
        }
    }

    /// `str(value)`.
    pub fn to_py_string(&self) -> String {
        match self {
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format!("{f:?}"),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::None => "None".into(),
            Value::List(v) => format!(
                "[{}]",
                v.iter()
                    .map(Value::to_py_repr)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Dict(_) | Value::Call(_) | Value::Cond(_) | Value::Args(_) => "<object>".into(),
        }
    }

    fn to_py_repr(&self) -> String {
        match self {
            Value::Str(s) => format!("'{s}'"),
            other => other.to_py_string(),
        }
    }

    /// The items of a list, or the keys of a dict (what `for x in v` sees).
    pub fn iter_items(&self) -> Option<Vec<Value>> {
        match self {
            Value::List(v) => Some(v.clone()),
            Value::Dict(d) => Some(d.iter().map(|(k, _)| k.clone()).collect()),
            Value::Str(s) => Some(s.chars().map(|c| Value::Str(c.to_string())).collect()),
            _ => None,
        }
    }
}

/// Why an expression has no value here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unevaluable {
    /// 1-based line in package.py.
    pub line: usize,
    /// The construct, in words (`call of filter_file`, `attribute self.spec.x`).
    pub what: String,
}

impl Unevaluable {
    pub fn new(node: Node, what: impl Into<String>) -> Self {
        Unevaluable {
            line: node.start_position().row + 1,
            what: what.into(),
        }
    }
}

pub type Eval<T> = Result<T, Unevaluable>;

/// The arguments of a call: positional values and keyword arguments, each
/// still a node.
pub struct Args<'t> {
    pub positional: Vec<Node<'t>>,
    pub keywords: Vec<(String, Node<'t>)>,
}

impl<'t> Args<'t> {
    pub fn of_call(call: Node<'t>, src: &str) -> Option<Args<'t>> {
        let list = call.child_by_field_name("arguments")?;
        if list.kind() != "argument_list" {
            return None;
        }
        let mut args = Args {
            positional: Vec::new(),
            keywords: Vec::new(),
        };
        for child in children(list) {
            if child.kind() == "keyword_argument" {
                let name = child.child_by_field_name("name")?;
                let value = child.child_by_field_name("value")?;
                args.keywords.push((text(name, src).to_string(), value));
            } else {
                args.positional.push(child);
            }
        }
        Some(args)
    }

    pub fn keyword(&self, name: &str) -> Option<Node<'t>> {
        self.keywords
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
    }
}

/// Evaluates expressions against a [`Scope`].
pub struct Evaluator<'a> {
    pub src: &'a str,
    pub scope: &'a Scope,
    /// The consumer's part in the walk ([`Hook`]); none: values alone.
    pub hook: Option<&'a dyn Hook>,
}

impl<'a> Evaluator<'a> {
    pub fn new(src: &'a str, scope: &'a Scope) -> Self {
        Evaluator {
            src,
            scope,
            hook: None,
        }
    }

    /// This evaluator over another scope (a comprehension's, a lambda's).
    pub(crate) fn over<'b>(&self, scope: &'b Scope) -> Evaluator<'b>
    where
        'a: 'b,
    {
        Evaluator {
            src: self.src,
            scope,
            hook: self.hook,
        }
    }

    /// The consumer's part in the walk.
    fn hook(&self) -> &dyn Hook {
        self.hook.unwrap_or(&Values)
    }

    pub fn eval(&self, node: Node) -> Eval<Value> {
        if let Some(v) = self.hook().node(node, self) {
            return v;
        }
        match node.kind() {
            "string" | "concatenated_string" => self.string(node).map(Value::Str),
            "integer" => text(node, self.src)
                .replace('_', "")
                .parse()
                .map(Value::Int)
                .map_err(|_| Unevaluable::new(node, "integer literal")),
            "float" => text(node, self.src)
                .parse()
                .map(Value::Float)
                .map_err(|_| Unevaluable::new(node, "float literal")),
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            "none" => Ok(Value::None),
            "list" | "tuple" | "set" | "expression_list" => self.sequence(node),
            "parenthesized_expression" => match children(node).first() {
                Some(inner) => self.eval(*inner),
                None => Ok(Value::List(Vec::new())),
            },
            "dictionary" => self.dict(node),
            "identifier" => {
                let name = text(node, self.src);
                self.scope
                    .get(name)
                    .cloned()
                    .ok_or_else(|| Unevaluable::new(node, format!("name `{name}`")))
            }
            "binary_operator" => self.binary(node),
            "unary_operator" | "not_operator" | "conditional_expression" | "boolean_operator" => {
                self.logic(node)
            }
            "subscript" => self.subscript(node),
            "call" => self.call(node),
            "dictionary_comprehension" => self.dict_comprehension(node),
            "list_comprehension" | "generator_expression" | "set_comprehension" => {
                self.comprehension(node)
            }
            "comparison_operator" => self.comparison(node),
            "attribute" => self
                .scope
                .get(text(node, self.src))
                .cloned()
                .ok_or_else(|| {
                    Unevaluable::new(node, format!("attribute `{}`", text(node, self.src)))
                }),
            "lambda" => Err(Unevaluable::new(node, "lambda")),
            other => Err(Unevaluable::new(node, format!("expression `{other}`"))),
        }
    }

    /// `-x`, `not x`, `a if c else b`, `a and b`, `a or b`.
    fn logic(&self, node: Node) -> Eval<Value> {
        match node.kind() {
            "unary_operator" => {
                let arg = node
                    .child_by_field_name("argument")
                    .ok_or_else(|| Unevaluable::new(node, "unary operator"))?;
                match (text(node, self.src).chars().next(), self.eval(arg)?) {
                    (Some('-'), Value::Int(i)) => Ok(Value::Int(-i)),
                    (Some('-'), Value::Float(f)) => Ok(Value::Float(-f)),
                    _ => Err(Unevaluable::new(node, "unary operator")),
                }
            }
            "not_operator" => {
                let arg = node
                    .child_by_field_name("argument")
                    .ok_or_else(|| Unevaluable::new(node, "not"))?;
                Ok(match self.eval(arg)? {
                    Value::Cond(c) => Value::Cond(c.not()),
                    v => Value::Bool(!v.truthy()),
                })
            }
            "conditional_expression" => {
                let parts = children(node);
                if parts.len() != 3 {
                    return Err(Unevaluable::new(node, "conditional expression"));
                }
                let decided = self
                    .hook()
                    .conditional(node, [parts[0], parts[1], parts[2]], self);
                if let Some(v) = decided {
                    return v;
                }
                if self.eval(parts[1])?.truthy() {
                    self.eval(parts[0])
                } else {
                    self.eval(parts[2])
                }
            }
            "boolean_operator" => {
                let l = node.child_by_field_name("left");
                let r = node.child_by_field_name("right");
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| text(o, self.src));
                let (Some(l), Some(r), Some(op @ ("and" | "or"))) = (l, r, op) else {
                    return Err(Unevaluable::new(node, "boolean operator"));
                };
                match (op, self.eval(l)?) {
                    (op, Value::Cond(a)) => self.symbolic_logic(a, r, op),
                    ("and", l) if l.truthy() => self.eval(r),
                    ("or", l) if !l.truthy() => self.eval(r),
                    (_, l) => Ok(l),
                }
            }
            other => Err(Unevaluable::new(node, format!("expression `{other}`"))),
        }
    }

    /// `a and b`, `a or b` over a condition: both sides are read.
    fn symbolic_logic(&self, a: Cond, r: Node, op: &str) -> Eval<Value> {
        let b = match self.eval(r)? {
            Value::Cond(c) => c,
            v if v.truthy() => Cond::True,
            _ => Cond::False,
        };
        Ok(Value::Cond(if op == "and" { a.and(b) } else { a.or(b) }))
    }

    /// A string literal; f-strings are evaluated when every interpolation is.
    pub fn string(&self, node: Node) -> Eval<String> {
        if !matches!(node.kind(), "string" | "concatenated_string") {
            return match self.eval(node)? {
                Value::Str(s) => Ok(s),
                _ => Err(Unevaluable::new(node, "not a string")),
            };
        }
        let hook = self.hook();
        string_with(
            node,
            self.src,
            &|part, s| hook.literal(part, s),
            &|child, expr, spec| hook.interpolation(child, expr, spec, self),
        )
    }

    fn sequence(&self, node: Node) -> Eval<Value> {
        let mut items = Vec::new();
        for child in children(node) {
            if child.kind() == "list_splat" {
                let inner = children(child)
                    .first()
                    .copied()
                    .ok_or_else(|| Unevaluable::new(child, "splat"))?;
                let v = self.eval(inner)?;
                items.extend(
                    v.iter_items()
                        .ok_or_else(|| Unevaluable::new(child, "splat of a non-list"))?,
                );
            } else {
                items.push(self.eval(child)?);
            }
        }
        Ok(Value::List(items))
    }

    fn dict(&self, node: Node) -> Eval<Value> {
        let mut items = Vec::new();
        for pair in children(node) {
            if pair.kind() != "pair" {
                return Err(Unevaluable::new(pair, "dict entry"));
            }
            let k = pair
                .child_by_field_name("key")
                .ok_or_else(|| Unevaluable::new(pair, "dict key"))?;
            let v = pair
                .child_by_field_name("value")
                .ok_or_else(|| Unevaluable::new(pair, "dict value"))?;
            items.push((self.eval(k)?, self.eval(v)?));
        }
        Ok(Value::Dict(items))
    }

    fn binary(&self, node: Node) -> Eval<Value> {
        let (Some(l), Some(r), Some(op)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
            node.child_by_field_name("operator"),
        ) else {
            return Err(Unevaluable::new(node, "binary operator"));
        };
        let op = text(op, self.src);
        self.hook().operator(node, op)?;
        // A tuple on the right of `%` is its arguments, whatever a hook
        // makes of tuples elsewhere.
        let rv = |r: Node| match (op, r.kind()) {
            ("%", "tuple") => self.sequence(r),
            _ => self.eval(r),
        };
        let (lv, rv) = (self.eval(l)?, rv(r)?);
        match (op, lv, rv) {
            ("+", Value::Str(a), Value::Str(b)) => Ok(Value::Str(a + &b)),
            ("+", Value::Args(mut a), Value::Args(b)) => {
                a.extend(b);
                Ok(Value::Args(a))
            }
            ("+", Value::List(mut a), Value::List(b)) => {
                a.extend(b);
                Ok(Value::List(a))
            }
            ("+", Value::Int(a), Value::Int(b)) => Ok(Value::Int(a + b)),
            ("-", Value::Int(a), Value::Int(b)) => Ok(Value::Int(a - b)),
            ("*", Value::Int(a), Value::Int(b)) => Ok(Value::Int(a * b)),
            ("*", Value::Str(a), Value::Int(n)) => Ok(Value::Str(a.repeat(n.max(0) as usize))),
            ("*", Value::List(a), Value::Int(n)) => Ok(Value::List(
                a.iter()
                    .cycle()
                    .take(a.len() * n.max(0) as usize)
                    .cloned()
                    .collect(),
            )),
            ("%", Value::Str(fmt), arg) => {
                let args = match arg {
                    Value::List(v) => v,
                    other => vec![other],
                };
                percent_format(&fmt, &args).ok_or_else(|| Unevaluable::new(node, "% formatting"))
            }
            _ => Err(Unevaluable::new(node, format!("operator `{op}`"))),
        }
    }

    fn comparison(&self, node: Node) -> Eval<Value> {
        let parts = children(node);
        let ops = operators(node, self.src);
        if parts.iter().any(|p| self.is_version_call(*p)) {
            return self.version_comparison(node, &parts, &ops);
        }
        if parts.len() != 2 || ops.is_empty() {
            return Err(Unevaluable::new(node, "comparison"));
        }
        let (a, b) = (self.eval(parts[0])?, self.eval(parts[1])?);
        let op = ops.join(" ");
        let r = match op.as_str() {
            "==" => a == b,
            "!=" => a != b,
            "in" => {
                b.iter_items().is_some_and(|v| v.contains(&a))
                    || matches!((&a, &b), (Value::Str(x), Value::Str(y)) if y.contains(x.as_str()))
            }
            "not in" => !b.iter_items().is_some_and(|v| v.contains(&a)),
            // Identity of the singletons `None`, `True`, `False`.
            "is" | "is not" if matches!(b, Value::None | Value::Bool(_)) => {
                (a == b) == (op == "is")
            }
            "<" | "<=" | ">" | ">=" => {
                let ord = match (&a, &b) {
                    (Value::Int(x), Value::Int(y)) => x.cmp(y),
                    (Value::Str(x), Value::Str(y)) => x.cmp(y),
                    _ => return Err(Unevaluable::new(node, format!("comparison `{op}`"))),
                };
                match op.as_str() {
                    "<" => ord.is_lt(),
                    "<=" => ord.is_le(),
                    ">" => ord.is_gt(),
                    _ => ord.is_ge(),
                }
            }
            _ => return Err(Unevaluable::new(node, format!("comparison `{op}`"))),
        };
        Ok(Value::Bool(r))
    }

    fn subscript(&self, node: Node) -> Eval<Value> {
        let value = node
            .child_by_field_name("value")
            .ok_or_else(|| Unevaluable::new(node, "subscript"))?;
        let index = node
            .child_by_field_name("subscript")
            .ok_or_else(|| Unevaluable::new(node, "subscript"))?;
        let v = self.eval(value)?;
        if index.kind() == "slice" {
            return self.slice(index, v);
        }
        let i = self.eval(index)?;
        match (v, i) {
            (Value::List(items), Value::Int(i)) => {
                let idx = if i < 0 { items.len() as i64 + i } else { i };
                items
                    .get(idx as usize)
                    .cloned()
                    .ok_or_else(|| Unevaluable::new(node, "index out of range"))
            }
            (Value::Str(s), Value::Int(i)) => {
                let chars: Vec<char> = s.chars().collect();
                let idx = if i < 0 { chars.len() as i64 + i } else { i };
                usize::try_from(idx)
                    .ok()
                    .and_then(|i| chars.get(i))
                    .map(|c| Value::Str(c.to_string()))
                    .ok_or_else(|| Unevaluable::new(node, "index out of range"))
            }
            (Value::Dict(items), key) => items
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Unevaluable::new(node, "missing dict key")),
            _ => Err(Unevaluable::new(node, "subscript")),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Evaluate the Python expression `expr` in `scope`.
    pub(in crate::import::spack) fn eval(expr: &str, scope: &Scope) -> Eval<Value> {
        let tree = crate::import::spack::reader::parsed::parse(expr).unwrap();
        let stmt = tree.root_node().named_child(0).unwrap();
        let e = stmt.named_child(0).unwrap();
        Evaluator::new(expr, scope).eval(e)
    }

    #[test]
    fn literals_fstrings_and_comprehensions_evaluate() {
        let mut scope = Scope::new();
        scope.set("v", Value::Str("1.2".into()));
        assert_eq!(
            eval("f\"a-{v}.tar.gz\"", &scope),
            Ok(Value::Str("a-1.2.tar.gz".into()))
        );
        assert_eq!(
            eval("'x{0}y{1}'.format(1, 'b')", &scope),
            Ok(Value::Str("x1yb".into()))
        );
        assert_eq!(
            eval("'%s-%s' % ('a', v)", &scope),
            Ok(Value::Str("a-1.2".into()))
        );
        assert_eq!(
            eval("[x + 'z' for x in ('a', 'b') if x != 'b']", &scope),
            Ok(Value::List(vec![Value::Str("az".into())]))
        );
        assert_eq!(eval("{'a': 1}['a']", &scope), Ok(Value::Int(1)));
        assert!(eval("self.spec.version", &scope).is_err());
        assert!(eval("foo(1)", &scope).is_err());
    }
}
