//! Expressions of hook bodies as recipe templates, conditions and
//! argument lists, three collectors of the one evaluator: `self.prefix`,
//! `spec["dep"].prefix.include`, `self.spec.version`, f-strings,
//! `"…".format(…)`, `join_path`, the CMake/Autotools helpers (`define`,
//! `define_from_variant`, `enable_or_disable`, `with_or_without`,
//! `activate_or_not`) and conditions (`satisfies`, `"+x" in spec`).
//!
//! [`Exprs`] is one type; its methods are split by what they give: what a
//! template reads from the spec here, the template collector on the one
//! evaluator (`template`), the collectors of conditions (`cond`) and of
//! argument lists (`lists`), and the build-system helpers (`helpers`).

mod cond;
mod helpers;
mod lists;
mod template;

use tree_sitter::Node;

use crate::import::spack::evaluator::compiler_flags::compiler_flag;
use crate::import::spack::evaluator::cond::{Cond, if_else, quote};
use crate::import::spack::evaluator::scope::EMPTY;
pub use crate::import::spack::evaluator::scope::Local;
use crate::import::spack::evaluator::value::{
    Args, Eval, Evaluator, Scope, Unevaluable, Value, format_braces, text,
};
use crate::import::spack::evaluator::variant_info::VariantInfo;
use crate::import::spack::evaluator::variant_info::variant_ref;

/// A python extension's `site-packages` directory (Spack's `python_platlib`).
pub(crate) const SITE_PACKAGES: &str =
    "{{ prefix }}/lib/python{{ deps.python.version | up_to(n=2) }}/site-packages";

/// What hook bodies can see.
#[derive(Clone)]
pub struct Exprs<'a> {
    pub src: &'a str,
    pub variants: &'a [VariantInfo],
    /// The names bound: values, which the evaluator computes with, and
    /// what only templates know (the spec, prefixes, argument lists).
    pub scope: Scope,
}

pub(crate) fn err<T>(node: Node, what: impl Into<String>) -> Eval<T> {
    Err(Unevaluable::new(node, what))
}

impl<'a> Exprs<'a> {
    /// Expressions of a body in `src`, nothing bound yet.
    pub(crate) fn new(src: &'a str, variants: &'a [VariantInfo]) -> Self {
        Exprs {
            src,
            variants,
            scope: Scope::new(),
        }
    }
}

impl Exprs<'_> {
    pub(crate) fn t(&self, node: Node) -> &str {
        text(node, self.src)
    }

    /// `self.spec`, `self.pkg.spec`, `spec` (bound), `self`.
    pub fn is_spec(&self, node: Node) -> bool {
        match self.t(node) {
            "self.spec" | "self.pkg.spec" => true,
            name => matches!(self.scope.local(name), Some(Local::Spec)),
        }
    }

    /// The install prefix itself: `prefix` of `self` or of the spec
    /// (`self.spec.prefix`, `spec.prefix` with `spec` bound to it).
    pub(crate) fn is_prefix(&self, node: Node) -> bool {
        let (Some(obj), Some(attr)) = (
            node.child_by_field_name("object"),
            node.child_by_field_name("attribute"),
        ) else {
            return false;
        };
        node.kind() == "attribute"
            && self.t(attr) == "prefix"
            && (self.t(obj) == "self" || self.is_spec(obj))
    }

    /// `spec["dep"]` → `dep`.
    pub(crate) fn dep_of(&self, node: Node) -> Option<String> {
        if node.kind() == "identifier" {
            if let Some(Local::Dep(d)) = self.scope.local(self.t(node)) {
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
        let dep = self.constant(node.child_by_field_name("subscript")?)?;
        dep.as_str().map(|d| {
            d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .next()
                .unwrap_or(d)
                .to_string()
        })
    }

    /// A path template: `self.prefix`, `prefix.lib`, `spec["x"].prefix.include`.
    pub(crate) fn path(&self, node: Node) -> Option<String> {
        match node.kind() {
            "identifier" => match self.scope.local(self.t(node))? {
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
                        return Some(format!("{{{{ deps[{}].prefix }}}}", quote(&dep)));
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

    pub(crate) fn attribute(&self, node: Node) -> Eval<String> {
        let obj = node
            .child_by_field_name("object")
            .ok_or_else(|| Unevaluable::new(node, "attribute"))?;
        let attr = self.t(node.child_by_field_name("attribute").unwrap_or(node));
        // A class attribute (`self.build_directory`).
        if let Some(Local::Tmpl(t)) = self.scope.local(self.t(node)) {
            return Ok(t.clone());
        }
        if attr == "version" && (self.is_spec(obj) || self.t(obj) == "self") {
            return Ok("{{ version }}".into());
        }
        if let Some(dep) = self.dep_of(obj) {
            if attr == "version" {
                return Ok(format!("{{{{ deps[{}].version }}}}", quote(&dep)));
            }
            // hip's `setup_dependent_package`: `hipcc` is `prefix.bin.hipcc`
            // (hip is its only provider).
            if attr == "hipcc" {
                return Ok(format!("{{{{ deps[{}].prefix }}}}/bin/{attr}", quote(&dep)));
            }
            // An MPI provider's wrappers are whatever its
            // `setup_dependent_package` sets: mpich's `mpifc` is
            // bin/mpif90, openmpi's `mpicxx` bin/mpic++, cray-mpich's the
            // compilers themselves. No single path says that.
            if ["mpicc", "mpicxx", "mpifc", "mpif77", "mpif90"].contains(&attr) {
                return err(
                    node,
                    format!("dependency .{attr} (set by the provider's setup_dependent_package)"),
                );
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
        if let Some((dep, var)) = self.dep_variant(node) {
            return Ok(format!(
                "{{{{ deps[{}].variants[{}] }}}}",
                quote(&dep),
                quote(&var)
            ));
        }
        match self.t(node) {
            "self.compiler.cc" => Ok("{{ compiler.cc }}".into()),
            "self.compiler.cxx" => Ok("{{ compiler.cxx }}".into()),
            "self.compiler.fc" | "self.compiler.f77" => Ok("{{ compiler.fc }}".into()),
            t => match compiler_flag(t) {
                Some(p) => Ok(format!("{{{{ compiler.{p} }}}}")),
                None => err(node, format!("attribute `{}`", first_words(t))),
            },
        }
    }

    pub(crate) fn is_version(&self, node: Node) -> bool {
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
    pub(crate) fn variant_value(&self, node: Node) -> Option<String> {
        let name = self.variant_of(node)?;
        let info = self.variants.iter().find(|v| v.name == name)?;
        (!info.multi).then(|| format!("{{{{ {} }}}}", variant_ref(&name)))
    }

    pub(crate) fn variant_of(&self, node: Node) -> Option<String> {
        self.variant_subscript(self.value_attr(node)?)
    }

    /// `X.value` → `X`.
    fn value_attr<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        if node.kind() != "attribute" || self.t(node.child_by_field_name("attribute")?) != "value" {
            return None;
        }
        node.child_by_field_name("object")
    }

    /// `X.variants["x"]` → (`X`, `x`).
    fn variants_key<'t>(&self, sub: Node<'t>) -> Option<(Node<'t>, String)> {
        let vars = sub.child_by_field_name("value")?;
        if sub.kind() != "subscript"
            || vars.kind() != "attribute"
            || self.t(vars.child_by_field_name("attribute")?) != "variants"
        {
            return None;
        }
        let key = self.constant(sub.child_by_field_name("subscript")?)?;
        Some((
            vars.child_by_field_name("object")?,
            key.as_str()?.to_string(),
        ))
    }

    /// `spec.variants["x"]` → `x`.
    pub(crate) fn variant_subscript(&self, sub: Node) -> Option<String> {
        let (obj, name) = self.variants_key(sub)?;
        self.is_spec(obj).then_some(name)
    }

    pub(crate) fn subscript(&self, node: Node) -> Eval<String> {
        if let Some(name) = self.first_of_multi(node) {
            return Ok(format!("{{{{ {} | first }}}}", variant_ref(&name)));
        }
        err(node, format!("subscript `{}`", first_words(self.t(node))))
    }

    /// A multi-valued variant's value: `spec.variants["x"].value` or a name
    /// bound to it → `x`.
    pub(crate) fn multi_variant(&self, node: Node) -> Option<String> {
        if node.kind() == "identifier" {
            return match self.scope.local(self.t(node)) {
                Some(Local::Multi(v)) => Some(v.clone()),
                _ => None,
            };
        }
        let name = self.variant_of(node)?;
        self.variants
            .iter()
            .any(|v| v.name == name && v.multi)
            .then_some(name)
    }

    /// `spec["dep"].variants["x"].value` → (`dep`, `x`): the dependency's
    /// variant, as its node has it at build time.
    pub(crate) fn dep_variant(&self, node: Node) -> Option<(String, String)> {
        let (obj, var) = self.variants_key(self.value_attr(node)?)?;
        Some((self.dep_of(obj)?, var))
    }

    /// A name bound to a variant object (`tgt = spec.variants["x"]`) → `x`.
    pub(crate) fn variant_object(&self, node: Node) -> Option<String> {
        match self.scope.local(self.t(node)) {
            Some(Local::Variant(v)) if node.kind() == "identifier" => Some(v.clone()),
            _ => None,
        }
    }

    /// `x[0]` of a multi-valued variant's value (its smallest value: Spack
    /// keeps the values sorted, as the template's list is) → `x`.
    pub(crate) fn first_of_multi(&self, node: Node) -> Option<String> {
        if node.kind() != "subscript" || self.t(node.child_by_field_name("subscript")?) != "0" {
            return None;
        }
        self.multi_variant(node.child_by_field_name("value")?)
    }

    pub(crate) fn call_tmpl(&self, node: Node) -> Eval<String> {
        let (func, args, fname) = self.call_parts(node)?;
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
            // `str(spec.satisfies("+x"))`, `"{0}".format(spec.satisfies(…))`:
            // Python's `True`/`False`.
            "satisfies" => match self.cond(node) {
                Ok(c) => Ok(if_else(&c, "True", "False")),
                Err(e) => Err(e),
            },
            "up_to" => {
                let obj = func.child_by_field_name("object").unwrap_or(func);
                let n = args.positional.first().map(|a| self.t(*a).parse::<usize>());
                let dep_version = (obj.kind() == "attribute")
                    .then(|| obj.child_by_field_name("object"))
                    .flatten()
                    .filter(|_| self.t(obj).ends_with(".version"))
                    .and_then(|o| self.dep_of(o));
                match (self.is_version(obj), n) {
                    (true, Some(Ok(n))) => Ok(format!(
                        "{{{{ version | split(pat=\".\") | slice(end={n}) | join(sep=\".\") }}}}"
                    )),
                    (false, Some(Ok(n))) if dep_version.is_some() => Ok(format!(
                        "{{{{ deps[{}].version | up_to(n={n}) }}}}",
                        quote(&dep_version.unwrap_or_default())
                    )),
                    _ => err(node, "up_to"),
                }
            }
            "define" => self.define(node, &args),
            "define_cuda_architectures" | "define_hip_architectures" => {
                self.define_architectures(node, method)
            }
            "define_from_variant" => {
                let items = self.define_from_variant(node, &args)?;
                match items.as_slice() {
                    [item] if item.cond == Cond::True => Ok(item.template.clone()),
                    _ => err(node, "define_from_variant of a conditional variant"),
                }
            }
            _ => match compiler_flag(self.t(node)) {
                Some(p) => Ok(format!("{{{{ compiler.{p} }}}}")),
                None => err(node, format!("call of `{}`", first_words(fname))),
            },
        }
    }

    /// A call's function, arguments and called name (a bound helper
    /// resolved).
    pub(crate) fn call_parts<'t>(&self, node: Node<'t>) -> Eval<(Node<'t>, Args<'t>, String)> {
        let missing = || Unevaluable::new(node, "call");
        let func = node.child_by_field_name("function").ok_or_else(missing)?;
        let args = Args::of_call(node, self.src).ok_or_else(missing)?;
        Ok((func, args, self.func_name(func)))
    }

    /// The called function's text, a bound helper resolved (`define` →
    /// `self.define`).
    pub fn func_name(&self, func: Node) -> String {
        match self.scope.local(self.t(func)) {
            Some(Local::Func(f)) => f.clone(),
            _ => self.t(func).to_string(),
        }
    }

    /// The evaluator of values over the names bound.
    pub fn ev(&self) -> Evaluator<'_> {
        Evaluator::new(self.src, &self.scope)
    }

    /// The value of `node` over the names bound.
    pub fn value(&self, node: Node) -> Eval<Value> {
        self.ev().eval(node)
    }

    /// The value of `node` as a literal (no names).
    pub fn constant(&self, node: Node) -> Option<Value> {
        Evaluator::new(self.src, &EMPTY).eval(node).ok()
    }
}

/// Literal text inside a template: tera's delimiters cannot appear in it.
pub(crate) fn literal(node: Node, s: &str) -> Eval<String> {
    if s.contains("{{") || s.contains("{%") || s.contains("{#") {
        return err(node, "literal text with template delimiters");
    }
    Ok(s.to_string())
}

/// The first words of an expression, for messages.
pub fn first_words(t: &str) -> String {
    crate::import::spack::reader::parsed::clip(t.lines().next().unwrap_or(""), 60)
}
