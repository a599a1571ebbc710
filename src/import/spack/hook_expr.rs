//! Expressions of hook bodies as recipe templates: `self.prefix`,
//! `spec["dep"].prefix.include`, `self.spec.version`, f-strings,
//! `"…".format(…)`, `join_path`, the CMake/Autotools helpers (`define`,
//! `define_from_variant`, `enable_or_disable`, `with_or_without`,
//! `activate_or_not`) and conditions (`satisfies`, `"+x" in spec`).

use std::collections::HashMap;

use tree_sitter::Node;

use super::cond::{Cond, if_else};
use super::translate::VariantInfo;
use super::value::{
    Args, Eval, Evaluator, Scope, Unevaluable, Value, children, format_braces, percent_format,
    string_prefix, text, unescape,
};

/// A name bound in a hook body.
#[derive(Clone, Debug)]
pub enum Local {
    /// A literal value.
    Value(Value),
    /// A template.
    Tmpl(String),
    /// A condition (`shared = self.spec.satisfies("+shared")`).
    Cond(Cond),
    /// The spec (`spec = self.spec`).
    Spec,
    /// The install prefix, possibly a subdirectory (`prefix.lib`).
    Prefix(String),
    /// A dependency (`mpi = spec["mpi"]`).
    Dep(String),
    /// An argument list being built.
    List(Vec<ArgItem>),
    /// A helper bound to a name (`define = self.define`).
    Func(String),
}

/// One argument under a condition.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgItem {
    pub cond: Cond,
    pub template: String,
}

/// What hook bodies can see.
pub struct Exprs<'a> {
    pub src: &'a str,
    pub variants: &'a [VariantInfo],
    pub locals: HashMap<String, Local>,
}

fn err<T>(node: Node, what: impl Into<String>) -> Eval<T> {
    Err(Unevaluable::new(node, what))
}

impl Exprs<'_> {
    fn t(&self, node: Node) -> &str {
        text(node, self.src)
    }

    /// `self.spec`, `self.pkg.spec`, `spec` (bound), `self`.
    pub fn is_spec(&self, node: Node) -> bool {
        match self.t(node) {
            "self.spec" | "self.pkg.spec" => true,
            name => matches!(self.locals.get(name), Some(Local::Spec)),
        }
    }

    /// `spec["dep"]` → `dep`.
    fn dep_of(&self, node: Node) -> Option<String> {
        if node.kind() == "identifier" {
            if let Some(Local::Dep(d)) = self.locals.get(self.t(node)) {
                return Some(d.clone());
            }
        }
        if node.kind() != "subscript" {
            return None;
        }
        let obj = node.child_by_field_name("value")?;
        if !self.is_spec(obj) {
            return None;
        }
        let key = node.child_by_field_name("subscript")?;
        let scope = Scope::new();
        let dep = Evaluator::new(self.src, &scope).eval(key).ok()?;
        dep.as_str().map(|d| {
            d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .next()
                .unwrap_or(d)
                .to_string()
        })
    }

    /// A path template: `self.prefix`, `prefix.lib`, `spec["x"].prefix.include`.
    fn path(&self, node: Node) -> Option<String> {
        match node.kind() {
            "identifier" => match self.locals.get(self.t(node))? {
                Local::Prefix(p) => Some(p.clone()),
                _ => None,
            },
            "attribute" => {
                let obj = node.child_by_field_name("object")?;
                let attr = self.t(node.child_by_field_name("attribute")?);
                if attr == "prefix" {
                    if self.t(obj) == "self" || self.is_spec(obj) || self.t(obj) == "self.pkg" {
                        return Some("{{ prefix }}".into());
                    }
                    if let Some(dep) = self.dep_of(obj) {
                        return Some(format!(
                            "{{{{ deps[{}].prefix }}}}",
                            super::cond::quote(&dep)
                        ));
                    }
                    return None;
                }
                let base = self.path(obj)?;
                if ["libs", "headers", "version", "name"].contains(&attr) {
                    return None;
                }
                Some(format!("{base}/{attr}"))
            }
            _ => None,
        }
    }

    /// A template for one argument.
    pub fn tmpl(&self, node: Node) -> Eval<String> {
        if let Some(p) = self.path(node) {
            return Ok(p);
        }
        match node.kind() {
            "string" => self.fstring(node),
            "concatenated_string" => {
                let mut out = String::new();
                for part in children(node) {
                    out.push_str(&self.fstring(part)?);
                }
                Ok(out)
            }
            "parenthesized_expression" => match children(node).first() {
                Some(inner) => self.tmpl(*inner),
                None => err(node, "()"),
            },
            "identifier" => match self.locals.get(self.t(node)) {
                Some(Local::Tmpl(t)) => Ok(t.clone()),
                Some(Local::Value(v)) => literal(node, &v.to_py_string()),
                Some(Local::Cond(c)) => Ok(if_else(c, "True", "False")),
                _ => match self.t(node) {
                    "spack_cc" => Ok("{{ compiler.cc }}".into()),
                    "spack_cxx" => Ok("{{ compiler.cxx }}".into()),
                    "spack_fc" | "spack_f77" => Ok("{{ compiler.fc }}".into()),
                    "make_jobs" => Ok("{{ jobs }}".into()),
                    name => err(node, format!("name `{name}`")),
                },
            },
            "integer" | "float" => Ok(self.t(node).to_string()),
            "attribute" => self.attribute(node),
            "binary_operator" => self.binary(node),
            "conditional_expression" => {
                let parts = children(node);
                if parts.len() != 3 {
                    return err(node, "conditional expression");
                }
                let (a, c, b) = (
                    self.tmpl(parts[0])?,
                    self.cond(parts[1])?,
                    self.tmpl(parts[2])?,
                );
                Ok(if_else(&c, &a, &b))
            }
            "call" => self.call_tmpl(node),
            "subscript" => self.subscript(node),
            _ => err(node, format!("expression `{}`", first_words(self.t(node)))),
        }
    }

    fn fstring(&self, node: Node) -> Eval<String> {
        let raw = string_prefix(node, self.src).contains('r');
        let mut out = String::new();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "string_content" => {
                    let t = self.t(child);
                    out.push_str(&literal(
                        child,
                        &if raw { t.to_string() } else { unescape(t) },
                    )?);
                }
                "interpolation" => {
                    if child.child_by_field_name("format_specifier").is_some() {
                        return err(child, "f-string format specifier");
                    }
                    let e = child
                        .child_by_field_name("expression")
                        .ok_or_else(|| Unevaluable::new(child, "interpolation"))?;
                    out.push_str(&self.tmpl(e)?);
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn attribute(&self, node: Node) -> Eval<String> {
        let obj = node
            .child_by_field_name("object")
            .ok_or_else(|| Unevaluable::new(node, "attribute"))?;
        let attr = self.t(node.child_by_field_name("attribute").unwrap_or(node));
        if attr == "version" && (self.is_spec(obj) || self.t(obj) == "self") {
            return Ok("{{ version }}".into());
        }
        if let Some(dep) = self.dep_of(obj) {
            if attr == "version" {
                return Ok(format!(
                    "{{{{ deps[{}].version }}}}",
                    super::cond::quote(&dep)
                ));
            }
            // MPI providers put their wrappers in bin/ (Spack's mpich,
            // openmpi and cray-mpich set `mpicc` to prefix.bin.mpicc).
            if ["mpicc", "mpicxx", "mpifc", "mpif77", "mpif90"].contains(&attr) {
                return Ok(format!(
                    "{{{{ deps[{}].prefix }}}}/bin/{attr}",
                    super::cond::quote(&dep)
                ));
            }
            return err(node, format!("dependency .{attr}"));
        }
        if self.is_version(obj) {
            return match attr {
                "dotted" | "string" => Ok("{{ version }}".into()),
                "underscored" => Ok("{{ version | replace(from=\".\", to=\"_\") }}".into()),
                "dashed" => Ok("{{ version | replace(from=\".\", to=\"-\") }}".into()),
                "joined" => Ok("{{ version | replace(from=\".\", to=\"\") }}".into()),
                _ => err(node, format!("version.{attr}")),
            };
        }
        if let Some(v) = self.variant_value(node) {
            return Ok(v);
        }
        match self.t(node) {
            "self.compiler.cc" => Ok("{{ compiler.cc }}".into()),
            "self.compiler.cxx" => Ok("{{ compiler.cxx }}".into()),
            "self.compiler.fc" | "self.compiler.f77" => Ok("{{ compiler.fc }}".into()),
            t => err(node, format!("attribute `{}`", first_words(t))),
        }
    }

    fn is_version(&self, node: Node) -> bool {
        let t = self.t(node);
        t == "self.spec.version" || t == "self.version" || {
            node.kind() == "attribute"
                && node
                    .child_by_field_name("object")
                    .is_some_and(|o| self.is_spec(o))
                && node
                    .child_by_field_name("attribute")
                    .is_some_and(|a| self.t(a) == "version")
        }
    }

    /// `spec.variants["x"].value` → `{{ variants.x }}`.
    fn variant_value(&self, node: Node) -> Option<String> {
        let name = self.variant_of(node)?;
        let info = self.variants.iter().find(|v| v.name == name)?;
        (!info.multi).then(|| format!("{{{{ variants.{name} }}}}"))
    }

    fn variant_of(&self, node: Node) -> Option<String> {
        if node.kind() != "attribute" || self.t(node.child_by_field_name("attribute")?) != "value" {
            return None;
        }
        let sub = node.child_by_field_name("object")?;
        if sub.kind() != "subscript" {
            return None;
        }
        let vars = sub.child_by_field_name("value")?;
        if vars.kind() != "attribute"
            || self.t(vars.child_by_field_name("attribute")?) != "variants"
        {
            return None;
        }
        if !self.is_spec(vars.child_by_field_name("object")?) {
            return None;
        }
        let scope = Scope::new();
        Evaluator::new(self.src, &scope)
            .eval(sub.child_by_field_name("subscript")?)
            .ok()?
            .as_str()
            .map(str::to_string)
    }

    fn binary(&self, node: Node) -> Eval<String> {
        let (Some(l), Some(r), Some(op)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
            node.child_by_field_name("operator"),
        ) else {
            return err(node, "operator");
        };
        match self.t(op) {
            "+" => Ok(self.tmpl(l)? + &self.tmpl(r)?),
            "%" => {
                let fmt = self.tmpl(l)?;
                let args = match r.kind() {
                    "tuple" | "parenthesized_expression" if r.kind() == "tuple" => children(r)
                        .into_iter()
                        .map(|a| self.tmpl(a).map(Value::Str))
                        .collect::<Eval<Vec<_>>>()?,
                    _ => vec![Value::Str(self.tmpl(r)?)],
                };
                match percent_format(&fmt, &args) {
                    Some(Value::Str(s)) => Ok(s),
                    _ => err(node, "% formatting"),
                }
            }
            o => err(node, format!("operator `{o}`")),
        }
    }

    fn subscript(&self, node: Node) -> Eval<String> {
        err(node, format!("subscript `{}`", first_words(self.t(node))))
    }

    fn call_tmpl(&self, node: Node) -> Eval<String> {
        let func = node
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(node, "call"))?;
        let args = Args::of_call(node, self.src).ok_or_else(|| Unevaluable::new(node, "call"))?;
        let fname = self.func_name(func);
        let fname = fname.as_str();
        let method = fname.rsplit('.').next().unwrap_or(fname);
        match method {
            "format" if func.kind() == "attribute" => {
                let obj = func.child_by_field_name("object").unwrap_or(func);
                let fmt = self.tmpl(obj)?;
                let vals = args
                    .positional
                    .iter()
                    .map(|a| self.tmpl(*a).map(Value::Str))
                    .collect::<Eval<Vec<_>>>()?;
                if !args.keywords.is_empty() {
                    return err(node, "format with keywords");
                }
                match format_braces(&fmt, &vals) {
                    Some(Value::Str(s)) => Ok(s),
                    _ => err(node, "format"),
                }
            }
            "join_path" | "join" if fname == "join_path" || fname == "os.path.join" => {
                let parts = args
                    .positional
                    .iter()
                    .map(|a| self.tmpl(*a))
                    .collect::<Eval<Vec<_>>>()?;
                Ok(parts.join("/"))
            }
            "join" if func.kind() == "attribute" => self.join(node, func, &args),
            "str" if fname == "str" && args.positional.len() == 1 => self.tmpl(args.positional[0]),
            "up_to" => {
                let obj = func.child_by_field_name("object").unwrap_or(func);
                let n = args.positional.first().map(|a| self.t(*a).parse::<usize>());
                match (self.is_version(obj), n) {
                    (true, Some(Ok(n))) => Ok(format!(
                        "{{{{ version | split(pat=\".\") | slice(end={n}) | join(sep=\".\") }}}}"
                    )),
                    _ => err(node, "up_to"),
                }
            }
            "define" => self.define(node, &args),
            "define_from_variant" => {
                let items = self.define_from_variant(node, &args)?;
                match items.as_slice() {
                    [item] if item.cond == Cond::True => Ok(item.template.clone()),
                    _ => err(node, "define_from_variant of a conditional variant"),
                }
            }
            _ => err(node, format!("call of `{}`", first_words(fname))),
        }
    }

    /// `",".join(spec.variants["x"].value)`.
    fn join(&self, node: Node, func: Node, args: &Args) -> Eval<String> {
        let sep_node = func.child_by_field_name("object").unwrap_or(func);
        let scope = Scope::new();
        let sep = match Evaluator::new(self.src, &scope).eval(sep_node) {
            Ok(Value::Str(s)) => s,
            _ => return err(node, "join"),
        };
        let arg = *args
            .positional
            .first()
            .ok_or_else(|| Unevaluable::new(node, "join"))?;
        if let Some(name) = self.variant_of(arg) {
            return Ok(format!(
                "{{{{ variants.{name} | join(sep={}) }}}}",
                super::cond::quote(&sep)
            ));
        }
        let items = self.list(arg)?;
        if items.iter().any(|i| i.cond != Cond::True) {
            return err(node, "join of a conditional list");
        }
        Ok(items
            .into_iter()
            .map(|i| i.template)
            .collect::<Vec<_>>()
            .join(&sep))
    }

    /// The called function's text, a bound helper resolved (`define` →
    /// `self.define`).
    pub fn func_name(&self, func: Node) -> String {
        match self.locals.get(self.t(func)) {
            Some(Local::Func(f)) => f.clone(),
            _ => self.t(func).to_string(),
        }
    }

    /// `define("NAME", value)`: `-DNAME:BOOL=ON`, `-DNAME:STRING=…`.
    fn define(&self, node: Node, args: &Args) -> Eval<String> {
        let [name, value] = args.positional[..] else {
            return err(node, "define with unusual arguments");
        };
        let name = self.tmpl(name)?;
        if let Ok(c) = self.cond(value) {
            return Ok(format!("-D{name}:BOOL={}", if_else(&c, "ON", "OFF")));
        }
        if matches!(value.kind(), "list" | "tuple" | "list_comprehension") {
            let items = self.list(value)?;
            if items.iter().any(|i| i.cond != Cond::True) {
                return err(node, "define of a conditional list");
            }
            let joined: Vec<String> = items.into_iter().map(|i| i.template).collect();
            return Ok(format!("-D{name}:STRING={}", joined.join(";")));
        }
        Ok(format!("-D{name}:STRING={}", self.tmpl(value)?))
    }

    fn variant_info(&self, node: Node, name: &str) -> Eval<&VariantInfo> {
        self.variants
            .iter()
            .find(|v| v.name == name)
            .ok_or_else(|| Unevaluable::new(node, format!("unknown variant `{name}`")))
    }

    fn str_arg(&self, node: Node) -> Eval<String> {
        let scope = self.literal_scope();
        match Evaluator::new(self.src, &scope).eval(node)? {
            Value::Str(s) => Ok(s),
            _ => err(node, "not a string"),
        }
    }

    pub fn literal_scope(&self) -> Scope {
        let mut scope = Scope::new();
        for (k, v) in &self.locals {
            if let Local::Value(v) = v {
                scope.set(k, v.clone());
            }
        }
        scope
    }

    /// `define_from_variant("NAME", "variant")`.
    pub fn define_from_variant(&self, node: Node, args: &Args) -> Eval<Vec<ArgItem>> {
        let cmake_var = self.tmpl(
            *args
                .positional
                .first()
                .ok_or_else(|| Unevaluable::new(node, "define_from_variant"))?,
        )?;
        let variant = match args.positional.get(1).or(args.keyword("variant").as_ref()) {
            Some(v) => self.str_arg(*v)?,
            None => cmake_var.to_lowercase(),
        };
        let info = self.variant_info(node, &variant)?;
        let template = if info.is_bool {
            format!(
                "-D{cmake_var}:BOOL={{% if variants.{variant} %}}ON{{% else %}}OFF{{% endif %}}"
            )
        } else if info.multi {
            format!("-D{cmake_var}:STRING={{{{ variants.{variant} | join(sep=\";\") }}}}")
        } else {
            format!("-D{cmake_var}:STRING={{{{ variants.{variant} }}}}")
        };
        let cond = info.when.clone().map(Cond::Spec).unwrap_or(Cond::True);
        Ok(vec![ArgItem { cond, template }])
    }

    /// `with_or_without`, `enable_or_disable`, `activate_or_not`.
    pub fn activate(&self, node: Node, args: &Args, on: &str, off: &str) -> Eval<Vec<ArgItem>> {
        let mut pos = args.positional.iter();
        let name = self.str_arg(
            *pos.next()
                .ok_or_else(|| Unevaluable::new(node, "no variant"))?,
        )?;
        let (on, off) = if on.is_empty() {
            let a = self.str_arg(
                *pos.next()
                    .ok_or_else(|| Unevaluable::new(node, "activation word"))?,
            )?;
            let b = self.str_arg(
                *pos.next()
                    .ok_or_else(|| Unevaluable::new(node, "deactivation word"))?,
            )?;
            (a, b)
        } else {
            (on.to_string(), off.to_string())
        };
        let activation = match pos.next().copied().or(args.keyword("activation_value")) {
            None => None,
            Some(v) => match self.str_arg(v) {
                Ok(s) if s == "prefix" => Some(()),
                _ => return err(v, "activation_value other than \"prefix\""),
            },
        };
        let variant = match args.keyword("variant") {
            Some(v) => self.str_arg(v)?,
            None => name.clone(),
        };
        let info = self.variant_info(node, &variant)?;
        let cond = info.when.clone().map(Cond::Spec).unwrap_or(Cond::True);
        let line = |opt: &str, test: String| {
            let then = match activation {
                Some(()) => format!(
                    "--{on}-{opt}={{{{ deps[{}].prefix }}}}",
                    super::cond::quote(opt)
                ),
                None => format!("--{on}-{opt}"),
            };
            format!("{{% if {test} %}}{then}{{% else %}}--{off}-{opt}{{% endif %}}")
        };
        if info.is_bool {
            let t = line(&name, format!("variants.{variant}"));
            return Ok(vec![ArgItem { cond, template: t }]);
        }
        let values = info.values.clone().ok_or_else(|| {
            Unevaluable::new(node, format!("variant `{variant}` has open values"))
        })?;
        Ok(values
            .iter()
            .filter(|v| !matches!(v.as_str(), "none" | "auto"))
            .map(|v| {
                let test = if info.multi {
                    format!("{} in variants.{variant}", super::cond::quote(v))
                } else {
                    format!("variants.{variant} == {}", super::cond::quote(v))
                };
                ArgItem {
                    cond: cond.clone(),
                    template: line(v, test),
                }
            })
            .collect())
    }

    /// A list-valued expression.
    pub fn list(&self, node: Node) -> Eval<Vec<ArgItem>> {
        match node.kind() {
            "list" | "tuple" => {
                let mut out = Vec::new();
                for item in children(node) {
                    if item.kind() == "list_splat" {
                        let inner = children(item)
                            .first()
                            .copied()
                            .ok_or_else(|| Unevaluable::new(item, "splat"))?;
                        out.extend(self.list(inner)?);
                    } else {
                        out.extend(self.element(item)?);
                    }
                }
                Ok(out)
            }
            "parenthesized_expression" => match children(node).first() {
                Some(inner) => self.list(*inner),
                None => Ok(Vec::new()),
            },
            "identifier" => match self.locals.get(self.t(node)) {
                Some(Local::List(items)) => Ok(items.clone()),
                Some(Local::Value(Value::List(vals))) => vals
                    .iter()
                    .map(|v| {
                        Ok(ArgItem {
                            cond: Cond::True,
                            template: literal(node, &v.to_py_string())?,
                        })
                    })
                    .collect(),
                _ => err(node, format!("list `{}`", self.t(node))),
            },
            "binary_operator" => {
                let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return err(node, "operator");
                };
                let mut a = self.list(l)?;
                a.extend(self.list(r)?);
                Ok(a)
            }
            "list_comprehension" => self.comprehension(node),
            "call" => self.list_call(node),
            "conditional_expression" => {
                let parts = children(node);
                if parts.len() != 3 {
                    return err(node, "conditional expression");
                }
                let c = self.cond(parts[1])?;
                let mut out: Vec<ArgItem> = self
                    .list(parts[0])?
                    .into_iter()
                    .map(|i| ArgItem {
                        cond: c.clone().and(i.cond),
                        ..i
                    })
                    .collect();
                out.extend(self.list(parts[2])?.into_iter().map(|i| ArgItem {
                    cond: c.clone().not().and(i.cond),
                    ..i
                }));
                Ok(out)
            }
            _ => err(
                node,
                format!("list expression `{}`", first_words(self.t(node))),
            ),
        }
    }

    /// One element of a list literal: an argument, or a helper call that
    /// yields one conditional argument.
    fn element(&self, node: Node) -> Eval<Vec<ArgItem>> {
        if node.kind() == "call" {
            let f = node
                .child_by_field_name("function")
                .map(|f| self.func_name(f))
                .unwrap_or_default();
            if f.ends_with("define_from_variant") {
                let args =
                    Args::of_call(node, self.src).ok_or_else(|| Unevaluable::new(node, "call"))?;
                return self.define_from_variant(node, &args);
            }
        }
        Ok(vec![ArgItem {
            cond: Cond::True,
            template: self.tmpl(node)?,
        }])
    }

    fn list_call(&self, node: Node) -> Eval<Vec<ArgItem>> {
        let func = node
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(node, "call"))?;
        let args = Args::of_call(node, self.src).ok_or_else(|| Unevaluable::new(node, "call"))?;
        let fname = self.func_name(func);
        let fname = fname.as_str();
        let method = fname.rsplit('.').next().unwrap_or(fname);
        match method {
            "with_or_without" => self.activate(node, &args, "with", "without"),
            "enable_or_disable" => self.activate(node, &args, "enable", "disable"),
            "activate_or_not" => self.activate(node, &args, "", ""),
            "configure_args" | "cmake_args" | "meson_args" if fname.starts_with("super(") => {
                Ok(Vec::new())
            }
            "split" if func.kind() == "attribute" && args.positional.is_empty() => {
                let obj = func.child_by_field_name("object").unwrap_or(func);
                let t = self.tmpl(obj)?;
                if t.contains("{%") {
                    return err(node, "split of a template");
                }
                Ok(t.split_whitespace()
                    .map(|w| ArgItem {
                        cond: Cond::True,
                        template: w.to_string(),
                    })
                    .collect())
            }
            "list" if fname == "list" && args.positional.len() == 1 => {
                self.list(args.positional[0])
            }
            _ => err(node, format!("call of `{}`", first_words(fname))),
        }
    }

    fn comprehension(&self, node: Node) -> Eval<Vec<ArgItem>> {
        let parts = children(node);
        let [body, clause] = parts[..] else {
            return err(node, "comprehension");
        };
        if clause.kind() != "for_in_clause" {
            return err(node, "comprehension");
        }
        let left = clause
            .child_by_field_name("left")
            .ok_or_else(|| Unevaluable::new(node, "comprehension"))?;
        let right = clause
            .child_by_field_name("right")
            .ok_or_else(|| Unevaluable::new(node, "comprehension"))?;
        let scope = self.literal_scope();
        let items = Evaluator::new(self.src, &scope)
            .eval(right)?
            .iter_items()
            .ok_or_else(|| Unevaluable::new(right, "iteration over a non-list"))?;
        let mut out = Vec::new();
        for item in items {
            let mut inner = Exprs {
                src: self.src,
                variants: self.variants,
                locals: self.locals.clone(),
            };
            let mut s = Scope::new();
            super::value::bind_target(left, self.src, item, &mut s)?;
            bind_scope(&mut inner, left, &s, self.src);
            out.extend(inner.element(body)?);
        }
        Ok(out)
    }

    /// A condition on the spec.
    pub fn cond(&self, node: Node) -> Eval<Cond> {
        match node.kind() {
            "true" => Ok(Cond::True),
            "false" => Ok(Cond::False),
            "parenthesized_expression" => match children(node).first() {
                Some(inner) => self.cond(*inner),
                None => err(node, "()"),
            },
            "not_operator" => Ok(self
                .cond(
                    node.child_by_field_name("argument")
                        .ok_or_else(|| Unevaluable::new(node, "not"))?,
                )?
                .not()),
            "boolean_operator" => {
                let (Some(l), Some(r), Some(op)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                    node.child_by_field_name("operator"),
                ) else {
                    return err(node, "boolean operator");
                };
                let (a, b) = (self.cond(l)?, self.cond(r)?);
                Ok(if self.t(op) == "and" {
                    a.and(b)
                } else {
                    a.or(b)
                })
            }
            "identifier" => match self.locals.get(self.t(node)) {
                Some(Local::Cond(c)) => Ok(c.clone()),
                Some(Local::Value(v)) => Ok(if v.truthy() { Cond::True } else { Cond::False }),
                _ => err(node, format!("condition `{}`", self.t(node))),
            },
            "attribute" => match self.t(node) {
                "self.run_tests" | "self.pkg.run_tests" => Ok(Cond::False),
                _ => match self.variant_of(node) {
                    Some(v) if self.variants.iter().any(|i| i.name == v && i.is_bool) => {
                        Ok(Cond::Spec(format!("+{v}")))
                    }
                    _ => err(node, format!("condition `{}`", first_words(self.t(node)))),
                },
            },
            "call" => self.cond_call(node),
            "comparison_operator" => self.comparison(node),
            _ => err(node, format!("condition `{}`", first_words(self.t(node)))),
        }
    }

    fn cond_call(&self, node: Node) -> Eval<Cond> {
        let func = node
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(node, "call"))?;
        let args = Args::of_call(node, self.src).ok_or_else(|| Unevaluable::new(node, "call"))?;
        if func.kind() == "attribute"
            && self.t(func.child_by_field_name("attribute").unwrap_or(func)) == "satisfies"
        {
            let obj = func.child_by_field_name("object").unwrap_or(func);
            let s = self.str_arg(
                *args
                    .positional
                    .first()
                    .ok_or_else(|| Unevaluable::new(node, "satisfies"))?,
            )?;
            if self.is_spec(obj) {
                return Ok(Cond::Spec(s));
            }
            if let Some(dep) = self.dep_of(obj) {
                return Ok(Cond::Spec(format!("^{dep}{}", s.trim())));
            }
        }
        err(node, format!("condition `{}`", first_words(self.t(node))))
    }

    fn comparison(&self, node: Node) -> Eval<Cond> {
        let parts = children(node);
        let mut cursor = node.walk();
        let op: Vec<String> = node
            .children(&mut cursor)
            .filter(|c| !c.is_named())
            .map(|c| self.t(c).to_string())
            .collect();
        let op = op.join(" ");
        if parts.len() != 2 {
            return err(node, "chained comparison");
        }
        let (a, b) = (parts[0], parts[1]);
        if (op == "in" || op == "not in") && self.is_spec(b) {
            let s = self.str_arg(a)?;
            let s = if s.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                format!("^{s}")
            } else {
                s
            };
            let c = Cond::Spec(s);
            return Ok(if op == "in" { c } else { c.not() });
        }
        if self.t(a) == "sys.platform" || self.t(a) == "platform.system()" {
            let s = self.str_arg(b)?.to_lowercase();
            let linux = s.starts_with("linux");
            return Ok(if (op == "==") == linux {
                Cond::True
            } else {
                Cond::False
            });
        }
        if let Some(var) = self.variant_of(a) {
            let v = self.str_arg(b)?;
            let c = Cond::Spec(format!("{var}={v}"));
            return match op.as_str() {
                "==" => Ok(c),
                "!=" => Ok(c.not()),
                _ => err(node, "variant comparison"),
            };
        }
        if self.is_version(a) {
            let scope = Scope::new();
            let v = match b.kind() {
                "call" => Args::of_call(b, self.src)
                    .and_then(|x| x.positional.first().copied())
                    .and_then(|x| Evaluator::new(self.src, &scope).eval(x).ok()),
                _ => Evaluator::new(self.src, &scope).eval(b).ok(),
            };
            let Some(Value::Str(v)) = v else {
                return err(node, "version comparison");
            };
            return match op.as_str() {
                ">=" => Ok(Cond::Spec(format!("@{v}:"))),
                "<" => Ok(Cond::Spec(format!("@{v}:")).not()),
                "==" => Ok(Cond::Spec(format!("@={v}"))),
                "!=" => Ok(Cond::Spec(format!("@={v}")).not()),
                _ => err(node, format!("version comparison `{op}`")),
            };
        }
        err(node, format!("condition `{}`", first_words(self.t(node))))
    }
}

/// Copy names bound in `s` (by a loop target) into the body's locals.
pub fn bind_scope(e: &mut Exprs, target: Node, s: &Scope, src: &str) {
    let mut names = Vec::new();
    collect_names(target, src, &mut names);
    for n in names {
        if let Some(v) = s.get(&n) {
            e.locals.insert(n, Local::Value(v.clone()));
        }
    }
}

fn collect_names(node: Node, src: &str, out: &mut Vec<String>) {
    if node.kind() == "identifier" {
        out.push(text(node, src).to_string());
    }
    for c in children(node) {
        collect_names(c, src, out);
    }
}

/// Literal text inside a template: tera's delimiters cannot appear in it.
fn literal(node: Node, s: &str) -> Eval<String> {
    if s.contains("{{") || s.contains("{%") || s.contains("{#") {
        return err(node, "literal text with template delimiters");
    }
    Ok(s.to_string())
}

/// The first words of an expression, for messages.
pub fn first_words(t: &str) -> String {
    let line = t.lines().next().unwrap_or("");
    if line.len() > 60 {
        let mut end = 60;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &line[..end])
    } else {
        line.to_string()
    }
}
