//! A package's own `url_for_version(self, version)`, evaluated per version
//! at import time: `if`/`elif`/`else` over version comparisons, assignments
//! and `+=` to names, strings built from `version`, `version.up_to(n)`,
//! `.dotted`, `version[i]`, class attributes and `super().url_for_version`.
//! A version no rule places is reported by the caller, never guessed.

use tree_sitter::Node;

use crate::spec::Spec;

use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::walk::{Collector, Frame, frame_in};

use crate::import::spack::evaluator::url::{self, restyle};
use crate::import::spack::evaluator::value::{
    Args, Eval, Evaluator, Scope, Unevaluable, Value, children, operators, text,
};
use crate::import::spack::evaluator::version_parts::{
    component_value, component_values, components, up_to,
};
use crate::import::spack::reader::parsed::find_def;

/// Evaluate the package's `url_for_version(self, version)` (`def`, a node
/// of the tree of `method_src`) for `version`. An error's line is a line of
/// the method (its first, decorators included, is 1).
pub fn url_for_version(
    def: Node,
    method_src: &str,
    version: &str,
    scope: &Scope,
    known: &[&str],
) -> Eval<String> {
    let outer = match def.parent() {
        Some(p) if p.kind() == "decorated_definition" => p,
        _ => def,
    };
    let line_base = outer.start_position().row;
    run_method(def, method_src, version, scope, known, line_base).map_err(|mut e| {
        e.line = e.line.saturating_sub(line_base);
        e
    })
}

fn run_method(
    def: Node,
    method_src: &str,
    version: &str,
    scope: &Scope,
    known: &[&str],
    line_base: usize,
) -> Eval<String> {
    let params = def
        .child_by_field_name("parameters")
        .map(|p| {
            children(p)
                .into_iter()
                .map(|n| text(n, method_src).to_string())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let vname = params.get(1).cloned().unwrap_or_else(|| "version".into());
    let body = def
        .child_by_field_name("body")
        .ok_or_else(|| Unevaluable::new(def, "url_for_version body"))?;
    let mut scope = scope.clone();
    scope.push();
    scope.set(&vname, Value::Str(version.to_string()));
    let cx = VersionCx {
        name: vname,
        version: version.to_string(),
        known: known.iter().map(|k| k.to_string()).collect(),
        line_base,
    };
    match run_block(&children(body), method_src, scope, &cx)? {
        Some(url) => Ok(url),
        None => Err(Unevaluable::new(body, "url_for_version returned nothing")),
    }
}

struct VersionCx {
    /// The name the version is bound to (`version`, `ver`).
    name: String,
    version: String,
    /// The package's versions, to find the one written in the class's URL
    /// (Spack's default `url_for_version`, called as `super()`).
    known: Vec<String>,
    /// The lines of package.py before the method's (its nodes' lines are
    /// lines of package.py; a helper's are lines of the helper).
    line_base: usize,
}

impl VersionCx {
    /// What Spack's default `url_for_version` gives: the class URL (as the
    /// method may have set it: `self.gnu_mirror_path = …`) with the version
    /// substituted.
    fn default_url(&self, scope: &Scope) -> Option<String> {
        let base = url::class_url_with(|k| scope.get(&format!("self.{k}")))?;
        let known: Vec<&str> = self.known.iter().map(String::as_str).collect();
        url::substitute(&base, &self.version, &known)
    }
}

/// The collector of a `url_for_version` run for one version: conditions
/// are decided (the version is known), so one branch of each `if` runs;
/// assignments change the frame's scope; the first `return` reached is the
/// URL.
struct UrlRun<'a, 'c> {
    f: Frame<'a>,
    cx: &'c VersionCx,
    url: Option<String>,
}

/// Run statements over `scope` until a `return`.
fn run_block(stmts: &[Node], src: &str, scope: Scope, cx: &VersionCx) -> Eval<Option<String>> {
    let mut run = UrlRun {
        f: Frame::new(src, &[]),
        cx,
        url: None,
    };
    run.f.e.scope = scope;
    run.block(stmts)?;
    Ok(run.url)
}

impl<'a> Collector<'a> for UrlRun<'a, '_> {
    const IN: &'static str = " in url_for_version";

    frame_in!(f);

    fn expression(&mut self, e: Node) -> Eval<()> {
        match e.kind() {
            "assignment" | "augmented_assignment" => {
                assign(e, self.f.e.src, &mut self.f.e.scope, self.cx)
            }
            _ => self.other_expression(e),
        }
    }

    fn other_expression(&mut self, e: Node) -> Eval<()> {
        Err(Unevaluable::new(e, "statement in url_for_version"))
    }

    // Spack refuses this version: there is no URL to place.
    fn other_statement(&mut self, stmt: Node) -> Eval<()> {
        match stmt.kind() {
            "raise_statement" => Err(Unevaluable::new(stmt, "url_for_version raises")),
            other => Err(Unevaluable::new(stmt, format!("`{other}`{}", Self::IN))),
        }
    }

    fn check_loop(&self, stmt: Node, _iterable: Node) -> Eval<()> {
        Err(Unevaluable::new(
            stmt,
            format!("`for_statement`{}", Self::IN),
        ))
    }

    fn condition(&self, node: Node) -> Eval<Cond> {
        Ok(
            match eval(node, self.f.e.src, &self.f.e.scope, self.cx)?.truthy() {
                true => Cond::True,
                false => Cond::False,
            },
        )
    }

    fn ret(&mut self, stmt: Node, _cond: Cond) -> Eval<()> {
        let e = children(stmt)
            .first()
            .copied()
            .ok_or_else(|| Unevaluable::new(stmt, "bare return"))?;
        match eval(e, self.f.e.src, &self.f.e.scope, self.cx)? {
            Value::Str(s) => {
                self.url = Some(s);
                Ok(())
            }
            _ => Err(Unevaluable::new(e, "url_for_version returns a non-string")),
        }
    }
}

/// `name = …`, `self.attr = …` (`self.gnu_mirror_path`, read back by
/// `super().url_for_version`) and `name += …` over strings and integers.
fn assign(e: Node, src: &str, scope: &mut Scope, cx: &VersionCx) -> Eval<()> {
    let (Some(l), Some(r)) = (
        e.child_by_field_name("left"),
        e.child_by_field_name("right"),
    ) else {
        return Err(Unevaluable::new(e, "assignment"));
    };
    let target = text(l, src);
    if matches!(l.kind(), "pattern_list" | "tuple_pattern") && e.kind() == "assignment" {
        // `major, minor = chunks`; `major, minor, patch = version` unpacks
        // the version's components.
        let v = if version_valued(r, src, cx) {
            let hook = |n: Node, ev: &Evaluator| version_expr(n, ev, cx);
            let ev = Evaluator {
                src,
                scope,
                hook: Some(&hook),
            };
            Value::List(component_values(&version_of(r, &ev, cx)?))
        } else {
            eval(r, src, scope, cx)?
        };
        return crate::import::spack::evaluator::value::bind_target(l, src, v, scope);
    }
    let to_self = l.kind() == "attribute" && target.starts_with("self.");
    if l.kind() != "identifier" && !to_self {
        return Err(Unevaluable::new(e, "assignment"));
    }
    let mut v = eval(r, src, scope, cx)?;
    if e.kind() == "augmented_assignment" {
        let op = e.child_by_field_name("operator").map(|o| text(o, src));
        let old = scope.get(target).cloned();
        v = match (op, old, v) {
            (Some("+="), Some(Value::Str(a)), Value::Str(b)) => Value::Str(a + &b),
            (Some("+="), Some(Value::Int(a)), Value::Int(b)) => Value::Int(a + b),
            _ => return Err(Unevaluable::new(e, "augmented assignment")),
        };
    }
    scope.set(target, v);
    Ok(())
}

fn eval(node: Node, src: &str, scope: &Scope, cx: &VersionCx) -> Eval<Value> {
    let hook = |n: Node, ev: &Evaluator| version_expr(n, ev, cx);
    Evaluator {
        src,
        scope,
        hook: Some(&hook),
    }
    .eval(node)
}

/// Expressions over the version: `version.up_to(2)`, `.dotted`,
/// `.underscored`, `.joined`, `.dashed`, `version[0]`, comparisons with
/// `Version("…")`, `version.satisfies("@…")`, `self.spec.satisfies("@…")`.
fn version_expr(n: Node, ev: &Evaluator, cx: &VersionCx) -> Option<Eval<Value>> {
    let src = ev.src;
    match n.kind() {
        "attribute" => {
            let obj = n.child_by_field_name("object")?;
            let attr = text(n.child_by_field_name("attribute")?, src);
            if !version_valued(obj, src, cx) {
                return None;
            }
            let v = match version_of(obj, ev, cx) {
                Ok(v) => v,
                Err(e) => return Some(Err(e)),
            };
            let styled = match attr {
                "dotted" => restyle(&v, '.'),
                "underscored" => restyle(&v, '_'),
                "dashed" => restyle(&v, '-'),
                "joined" => v
                    .chars()
                    .filter(|c| !matches!(c, '.' | '_' | '-'))
                    .collect(),
                "string" => v,
                _ => return Some(Err(Unevaluable::new(n, format!("version.{attr}")))),
            };
            Some(Ok(Value::Str(styled)))
        }
        "call" => version_call(n, ev, cx),
        "subscript" => {
            let obj = n.child_by_field_name("value")?;
            if !version_valued(obj, src, cx) {
                return None;
            }
            let sub = n.child_by_field_name("subscript")?;
            Some(version_subscript(n, sub, ev, cx))
        }
        "comparison_operator" => version_comparison(n, ev, cx),
        _ => None,
    }
}

/// Whether an expression is a Spack `Version`: the version itself,
/// `self.spec.version`, `Version("…")`, and `.up_to(n)`, `.dotted`, … or a
/// slice of one.
fn version_valued(n: Node, src: &str, cx: &VersionCx) -> bool {
    let t = text(n, src);
    if t == cx.name || t == "self.spec.version" {
        return true;
    }
    match n.kind() {
        "call" => n.child_by_field_name("function").is_some_and(|f| {
            matches!(text(f, src), "Version" | "ver")
                || (f.kind() == "attribute"
                    && text_of_field(f, "attribute", src) == Some("up_to")
                    && f.child_by_field_name("object")
                        .is_some_and(|o| version_valued(o, src, cx)))
        }),
        "attribute" => {
            matches!(
                text_of_field(n, "attribute", src),
                Some("dotted" | "underscored" | "dashed" | "joined")
            ) && n
                .child_by_field_name("object")
                .is_some_and(|o| version_valued(o, src, cx))
        }
        "subscript" => {
            n.child_by_field_name("subscript")
                .is_some_and(|s| s.kind() == "slice")
                && n.child_by_field_name("value")
                    .is_some_and(|o| version_valued(o, src, cx))
        }
        _ => false,
    }
}

fn text_of_field<'s>(n: Node, field: &str, src: &'s str) -> Option<&'s str> {
    n.child_by_field_name(field).map(|f| text(f, src))
}

/// The string of a version-valued expression.
fn version_of(n: Node, ev: &Evaluator, cx: &VersionCx) -> Eval<String> {
    let t = text(n, ev.src);
    if t == cx.name || t == "self.spec.version" {
        return Ok(cx.version.clone());
    }
    match ev.eval(n)? {
        Value::Str(s) => Ok(s),
        _ => Err(Unevaluable::new(n, "version expression")),
    }
}

/// `version[i]` (an `int` for a numeric component, as in Spack), `version[-1]`,
/// `version[:n]`, `version[:-1]`.
fn version_subscript(n: Node, sub: Node, ev: &Evaluator, cx: &VersionCx) -> Eval<Value> {
    let obj = n
        .child_by_field_name("value")
        .ok_or_else(|| Unevaluable::new(n, "version subscript"))?;
    let v = version_of(obj, ev, cx)?;
    let comps = components(&v).ok_or_else(|| Unevaluable::new(n, "version components"))?;
    if sub.kind() == "slice" {
        let t = text(sub, ev.src).replace(' ', "");
        return match t.strip_prefix(':').map(str::parse::<i64>) {
            Some(Ok(k)) => Ok(Value::Str(up_to(&v, k))),
            _ => match t.strip_suffix(':').map(str::parse::<i64>) {
                Some(Ok(k)) => Ok(Value::Str(
                    crate::import::spack::evaluator::version_parts::from(&v, k),
                )),
                _ => Err(Unevaluable::new(n, "version slice")),
            },
        };
    }
    let i = match ev.eval(sub)? {
        Value::Int(i) if i < 0 => comps.len() as i64 + i,
        Value::Int(i) => i,
        _ => return Err(Unevaluable::new(n, "version subscript")),
    };
    let (c, _) = usize::try_from(i)
        .ok()
        .and_then(|i| comps.get(i))
        .ok_or_else(|| Unevaluable::new(n, "version subscript out of range"))?;
    Ok(component_value(c))
}

/// `super().url_for_version`, or its Python 2 spelling
/// `super(Mesa, self).url_for_version`.
fn is_super_url_for_version(func: &str) -> bool {
    let Some(args) = func
        .strip_prefix("super(")
        .and_then(|f| f.strip_suffix(").url_for_version"))
    else {
        return false;
    };
    let args: Vec<&str> = args.split(',').map(str::trim).collect();
    matches!(args.as_slice(), [""] | [_, "self"])
}

fn version_call(n: Node, ev: &Evaluator, cx: &VersionCx) -> Option<Eval<Value>> {
    let src = ev.src;
    let func = n.child_by_field_name("function")?;
    let args = Args::of_call(n, src)?;
    let arg0 = args.positional.first().map(|a| ev.eval(*a));
    if is_super_url_for_version(text(func, src)) {
        return Some(
            cx.default_url(ev.scope)
                .map(Value::Str)
                .ok_or_else(|| Unevaluable::new(n, "super().url_for_version without a url")),
        );
    }
    if let Some(r) = crate::import::spack::evaluator::dates::date_call(n, func, &args, ev) {
        return Some(r);
    }
    if let Some(helper) = ev.scope.get(&format!("{}()", text(func, src))) {
        let helper = helper.as_str()?.to_string();
        return Some(call_helper(n, &helper, &args, ev, cx));
    }
    match func.kind() {
        "attribute" => {
            let obj = text(func.child_by_field_name("object")?, src);
            let attr = text(func.child_by_field_name("attribute")?, src);
            let on_version = obj == cx.name || obj == "self.spec.version";
            match (attr, on_version || obj == "self.spec" || obj == "spec") {
                ("up_to", true) if on_version => Some(match arg0 {
                    Some(Ok(Value::Int(k))) => Ok(Value::Str(up_to(&cx.version, k))),
                    _ => Err(Unevaluable::new(n, "version.up_to")),
                }),
                ("satisfies", true) => Some(match arg0 {
                    Some(Ok(Value::Str(cond))) => satisfies(&cx.version, &cond)
                        .map(Value::Bool)
                        .ok_or_else(|| Unevaluable::new(n, "satisfies")),
                    _ => Err(Unevaluable::new(n, "satisfies")),
                }),
                _ => None,
            }
        }
        "identifier" if text(func, src) == "Version" || text(func, src) == "ver" => {
            Some(match arg0 {
                Some(Ok(Value::Str(s))) => Ok(Value::Str(s)),
                Some(Ok(Value::Int(i))) => Ok(Value::Str(i.to_string())),
                _ => Err(Unevaluable::new(n, "Version()")),
            })
        }
        "identifier" if text(func, src) == "len" => {
            let a = *args.positional.first()?;
            version_valued(a, src, cx).then(|| {
                let v = version_of(a, ev, cx)?;
                Ok(Value::Int(component_values(&v).len() as i64))
            })
        }
        "identifier" if text(func, src) == "str" => {
            let a = args.positional.first()?;
            (text(*a, src) == cx.name).then(|| Ok(Value::Str(cx.version.clone())))
        }
        _ => None,
    }
}

/// A call of a static helper outside `url_for_version` (a class attribute
/// `url = QtPackage.get_url(__qualname__)`): `None` when `n` is not a call of
/// one (`Class.method()` in scope holds the helper's source).
pub fn static_call(n: Node, ev: &Evaluator) -> Option<Eval<Value>> {
    if n.kind() != "call" {
        return None;
    }
    let func = n.child_by_field_name("function")?;
    let helper = ev.scope.get(&format!("{}()", text(func, ev.src)))?;
    let helper = helper.as_str()?.to_string();
    let args = Args::of_call(n, ev.src)?;
    let cx = VersionCx {
        name: String::new(),
        version: String::new(),
        known: Vec::new(),
        line_base: 0,
    };
    Some(call_helper(n, &helper, &args, ev, &cx))
}

/// A static helper the method calls (`Pdi.version_url(version)`: a
/// `@staticmethod` of the package's class or of a class it imports), run
/// with its parameters bound; the parameter given the version is the version.
fn call_helper(n: Node, helper: &str, args: &Args, ev: &Evaluator, cx: &VersionCx) -> Eval<Value> {
    let fail = || Unevaluable::new(n, format!("call of `{}`", text(n, ev.src)));
    let tree = helper_tree(helper).ok_or_else(fail)?;
    let def = find_def(tree.root_node()).ok_or_else(fail)?;
    let params = def
        .child_by_field_name("parameters")
        .map(children)
        .unwrap_or_default();
    if params.len() != args.positional.len()
        || !args.keywords.is_empty()
        || params.iter().any(|p| p.kind() != "identifier")
    {
        return Err(fail());
    }
    let mut scope = ev.scope.clone();
    scope.push();
    let mut name = String::new();
    for (p, a) in params.iter().zip(&args.positional) {
        let p = text(*p, helper);
        if text(*a, ev.src) == cx.name {
            name = p.to_string();
        }
        scope.set(p, ev.eval(*a)?);
    }
    let inner = VersionCx {
        name,
        version: cx.version.clone(),
        known: cx.known.clone(),
        line_base: 0,
    };
    let body = def.child_by_field_name("body").ok_or_else(fail)?;
    // The helper's lines are its own: kept as they are where the caller
    // counts lines from its method's first.
    let ran = run_block(&children(body), helper, scope, &inner).map_err(|mut e| {
        e.line += cx.line_base;
        e
    });
    match ran? {
        Some(s) => Ok(Value::Str(s)),
        None => Err(fail()),
    }
}

/// The parse of a static helper's source (a string in the scope: it may
/// come from another package.py), once per thread for the versions that
/// call it one after the other.
fn helper_tree(helper: &str) -> Option<tree_sitter::Tree> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<(String, tree_sitter::Tree)>> =
            const { std::cell::RefCell::new(None) };
    }
    LAST.with(|cell| {
        let mut last = cell.borrow_mut();
        match &*last {
            Some((text, tree)) if text == helper => Some(tree.clone()),
            _ => {
                let tree = crate::import::spack::reader::parsed::parse(helper)?;
                *last = Some((helper.to_string(), tree.clone()));
                Some(tree)
            }
        }
    })
}

/// A comparison with a version on either side, chained as in Python
/// (`Version("0.3.4") > version >= Version("0.2.7")`), by Spack's ordering.
fn version_comparison(n: Node, ev: &Evaluator, cx: &VersionCx) -> Option<Eval<Value>> {
    let src = ev.src;
    let parts = children(n);
    // `"@:2.3.6" in self.spec`: the version satisfies the condition.
    let ops = operators(n, src);
    if parts.len() == 2 && matches!(text(parts[1], src), "self.spec" | "spec") {
        let cond = match ev.eval(parts[0]) {
            Ok(Value::Str(c)) if c.trim_start().starts_with('@') => c,
            _ => return Some(Err(Unevaluable::new(n, "condition on the spec"))),
        };
        let holds = satisfies(&cx.version, &cond);
        return Some(match (ops.as_slice(), holds) {
            (["in"], Some(h)) => Ok(Value::Bool(h)),
            (["not", "in"], Some(h)) => Ok(Value::Bool(!h)),
            _ => Err(Unevaluable::new(n, "condition on the spec")),
        });
    }
    if ops.len() + 1 != parts.len() || !parts.iter().any(|p| version_valued(*p, src, cx)) {
        return None;
    }
    let mut versions = Vec::new();
    for p in &parts {
        let parsed = version_of(*p, ev, cx).and_then(|s| {
            crate::spec::Version::parse(&s).map_err(|_| Unevaluable::new(*p, "version"))
        });
        match parsed {
            Ok(v) => versions.push(v),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(crate::import::spack::evaluator::calls::compare_chained(
        n, &ops, &versions,
    ))
}

/// Whether the concrete version satisfies a `@…` condition.
pub(crate) fn satisfies(version: &str, cond: &str) -> Option<bool> {
    let concrete = Spec::parse(&format!("x@={version}")).ok()?;
    let cond = Spec::parse(cond.trim()).ok()?;
    Some(concrete.satisfies(&cond))
}

#[cfg(test)]
mod tests;
