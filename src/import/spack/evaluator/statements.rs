//! Statements of hook bodies: building an argument list
//! (`args = []`, `args.append(…)`, `args.extend(…)`, `if …:`, loops over
//! literal lists, `return args`) and environment changes (`env.set(…)`,
//! `env.prepend_path(…)`), each under the condition of its `if` blocks.

use tree_sitter::Node;

use crate::import::spack::evaluator::collected::ArgItem;
use crate::import::spack::evaluator::collected::{EnvItem, InstallItem, Produced};
use crate::import::spack::evaluator::cond::Cond;
use crate::import::spack::evaluator::exprs::{Local, err, first_words};
use crate::import::spack::evaluator::value::{Args, Eval, Unevaluable, Value, children, text};
use crate::import::spack::evaluator::variant_info::VariantInfo;
use crate::import::spack::evaluator::walk::{Collector, Frame, frame_in};

/// Run the method defined in `method_src` (a `def …` snippet).
#[cfg(test)]
pub fn run_method(method_src: &str, variants: &[VariantInfo]) -> Eval<Produced> {
    run_snippet_in(method_src, variants, &[])
}

/// [`run_method_in`] of the `def` of a snippet.
#[cfg(test)]
pub fn run_snippet_in(
    method_src: &str,
    variants: &[VariantInfo],
    class_attrs: &[(String, String)],
) -> Eval<Produced> {
    let tree = crate::import::spack::reader::parsed::parse(method_src).expect("parses");
    let def = crate::import::spack::reader::parsed::find_def(tree.root_node()).expect("a def");
    run_method_in(def, method_src, variants, class_attrs)
}

/// Run the method `def` (a node of the tree of `method_src`) in a class
/// whose literal attributes `class_attrs` (name → template) it reads as
/// `self.NAME`.
pub fn run_method_in(
    def: Node,
    method_src: &str,
    variants: &[VariantInfo],
    class_attrs: &[(String, String)],
) -> Eval<Produced> {
    let params: Vec<String> = def
        .child_by_field_name("parameters")
        .map(|p| {
            children(p)
                .into_iter()
                .map(|n| param_name(n, method_src))
                .collect()
        })
        .unwrap_or_default();
    let env_name = params.get(1).filter(|p| p.contains("env")).cloned();
    let mut body = Body {
        f: Frame::new(method_src, variants),
        env_name,
        out: Produced::default(),
        dir: String::new(),
    };
    let locals = &mut body.f.e.scope;
    if let Some(spec) = params.get(1) {
        // Old-style hooks: (self, spec, prefix); environment hooks: (self, env).
        if spec == "spec" {
            locals.bind(spec.clone(), Local::Spec);
        }
    }
    if let Some(p) = params.get(2) {
        if p == "prefix" {
            locals.bind(p.clone(), Local::Prefix("{{ prefix }}".into()));
        }
    }
    for (name, t) in class_attrs {
        locals.bind(format!("self.{name}"), Local::Tmpl(t.clone()));
    }
    let block = def
        .child_by_field_name("body")
        .ok_or_else(|| Unevaluable::new(def, "method body"))?;
    body.block(&children(block))?;
    Ok(body.out)
}

/// The name of a parameter (`env`, `env: EnvironmentModifications`, `x=1`).
fn param_name(n: Node, src: &str) -> String {
    if n.kind() == "identifier" {
        return text(n, src).to_string();
    }
    children(n)
        .into_iter()
        .find(|c| c.kind() == "identifier")
        .map(|c| text(c, src).to_string())
        .unwrap_or_default()
}

/// The collector of argument lists, environment changes, install steps
/// and file filters.
pub(crate) struct Body<'a> {
    pub(crate) f: Frame<'a>,
    env_name: Option<String>,
    pub(crate) out: Produced,
    /// The `with working_dir(…)` directory, relative to the source tree.
    pub(crate) dir: String,
}

impl<'a> Collector<'a> for Body<'a> {
    frame_in!(f);

    fn expression(&mut self, e: Node) -> Eval<()> {
        match e.kind() {
            "assignment" => self.assignment(e),
            "augmented_assignment" => self.augmented(e),
            _ => self.call_statement(e),
        }
    }

    fn with_statement(&mut self, stmt: Node) -> Eval<()> {
        self.working_dir(stmt)
    }

    /// The returned list's items hold under the return's condition.
    fn ret(&mut self, stmt: Node, cond: Cond) -> Eval<()> {
        let Some(e) = children(stmt).first().copied() else {
            return Ok(());
        };
        let items = self.f.e.list(e)?.into_iter().map(|i| ArgItem {
            cond: cond.clone().and(i.cond),
            ..i
        });
        self.out.args.get_or_insert_with(Vec::new).extend(items);
        Ok(())
    }
}

impl Body<'_> {
    pub(crate) fn t(&self, node: Node) -> String {
        self.f.t(node)
    }

    fn assignment(&mut self, a: Node) -> Eval<()> {
        let (Some(l), Some(r)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
        ) else {
            return err(a, "assignment");
        };
        if l.kind() != "identifier" {
            return err(a, format!("assignment to `{}`", first_words(&self.t(l))));
        }
        let name = self.t(l);
        if self.f.cond != self.f.live && self.f.e.scope.local(&name).is_some() {
            return err(a, format!("conditional assignment to `{name}`"));
        }
        let local = match self.file_filter_object(r)? {
            Some(files) => files,
            None => self.value_of(r)?,
        };
        self.f.e.scope.bind(name, local);
        Ok(())
    }

    /// What the right side of an assignment is.
    fn value_of(&self, r: Node) -> Eval<Local> {
        let rt = self.t(r);
        if self.f.e.is_spec(r) {
            return Ok(Local::Spec);
        }
        if self.f.e.is_prefix(r) {
            return Ok(Local::Prefix("{{ prefix }}".into()));
        }
        if r.kind() == "subscript"
            && r.child_by_field_name("value")
                .is_some_and(|v| self.f.e.is_spec(v))
        {
            if let Some(Value::Str(d)) = r
                .child_by_field_name("subscript")
                .and_then(|s| self.f.e.constant(s))
            {
                return Ok(Local::Dep(d));
            }
        }
        if let Some(name) = self.f.e.multi_variant(r) {
            return Ok(Local::Multi(name));
        }
        if let Some(name) = self.f.e.variant_subscript(r) {
            return Ok(Local::Variant(name));
        }
        if let Ok(v) = self.f.e.value(r) {
            if !matches!(v, Value::List(_)) {
                return Ok(Local::Value(v));
            }
        }
        const HELPERS: &[&str] = &[
            "define",
            "define_from_variant",
            "with_or_without",
            "enable_or_disable",
            "activate_or_not",
        ];
        if let Some(h) = rt.strip_prefix("self.").filter(|h| HELPERS.contains(h)) {
            return Ok(Local::Func(format!("self.{h}")));
        }
        if matches!(r.kind(), "list" | "list_comprehension" | "binary_operator") {
            if let Ok(items) = self.f.e.list(r) {
                return Ok(Local::List(items));
            }
            if r.kind() != "binary_operator" {
                return self.f.e.list(r).map(Local::List);
            }
        } else if let Ok(items) = self.f.e.list(r) {
            return Ok(Local::List(items));
        }
        if let Ok(c) = self.f.e.cond(r) {
            return Ok(Local::Cond(c));
        }
        self.f.e.tmpl(r).map(Local::Tmpl)
    }

    fn push_items(&mut self, list: &str, node: Node, items: Vec<ArgItem>) -> Eval<()> {
        let cond = self.f.cond.clone();
        match self.f.e.scope.local_mut(list) {
            Some(Local::List(v)) => {
                v.extend(items.into_iter().map(|i| ArgItem {
                    cond: cond.clone().and(i.cond),
                    ..i
                }));
                Ok(())
            }
            _ => err(node, format!("`{list}` is not an argument list")),
        }
    }

    fn augmented(&mut self, a: Node) -> Eval<()> {
        let (Some(l), Some(r)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
        ) else {
            return err(a, "augmented assignment");
        };
        let items = self.f.e.list(r)?;
        let name = self.t(l);
        self.push_items(&name, a, items)
    }

    fn call_statement(&mut self, call: Node) -> Eval<()> {
        let func = call
            .child_by_field_name("function")
            .ok_or_else(|| Unevaluable::new(call, "call"))?;
        if func.kind() == "identifier" {
            if self.t(func) == "filter_file" {
                return self.filter_file(call);
            }
            return self.install_call(call, &self.t(func));
        }
        if func.kind() != "attribute" {
            return err(call, format!("call of `{}`", first_words(&self.t(func))));
        }
        let obj = self.t(func.child_by_field_name("object").unwrap_or(func));
        let method = self.t(func.child_by_field_name("attribute").unwrap_or(func));
        let args =
            Args::of_call(call, self.f.e.src).ok_or_else(|| Unevaluable::new(call, "call"))?;
        if self.env_name.as_deref() == Some(obj.as_str()) {
            return self.env_call(call, &method, &args);
        }
        if method == "filter" {
            let obj_node = func.child_by_field_name("object").unwrap_or(func);
            if self.filter_method(call, obj_node)?.is_some() {
                return Ok(());
            }
        }
        let items = match method.as_str() {
            "append" => match args.positional[..] {
                [a] => self.e_element(a)?,
                _ => return err(call, "append"),
            },
            "extend" => match args.positional[..] {
                [a] => self.f.e.list(a)?,
                _ => return err(call, "extend"),
            },
            _ => return err(call, format!("call of `{}`", first_words(&self.t(func)))),
        };
        self.push_items(&obj, call, items)
    }

    fn e_element(&self, a: Node) -> Eval<Vec<ArgItem>> {
        let helper = a
            .child_by_field_name("function")
            .map(|f| self.f.e.func_name(f))
            .unwrap_or_default();
        if a.kind() == "call" && helper.ends_with("define_from_variant") {
            let args = Args::of_call(a, self.f.e.src).ok_or_else(|| Unevaluable::new(a, "call"))?;
            return self.f.e.define_from_variant(a, &args);
        }
        Ok(vec![ArgItem {
            cond: Cond::True,
            template: self.f.e.tmpl(a)?,
        }])
    }

    /// `install_tree(src, prefix.x)`, `install(file, prefix.bin)`,
    /// `copy(…)`, `mkdirp(prefix.x)` in an `install()` body.
    fn install_call(&mut self, call: Node, name: &str) -> Eval<()> {
        let args =
            Args::of_call(call, self.f.e.src).ok_or_else(|| Unevaluable::new(call, "call"))?;
        if !args.keywords.is_empty() {
            return err(call, format!("{name} with keywords"));
        }
        let rel = |t: String| -> Eval<String> {
            match t.strip_prefix("{{ prefix }}") {
                Some("") => Ok(".".into()),
                Some(r) if r.starts_with('/') => Ok(r.trim_start_matches('/').to_string()),
                _ => err(call, format!("{name} outside the prefix")),
            }
        };
        if name == "make" {
            // Inside `with working_dir("x")`: `make -C x …` (its callers
            // refuse a package whose make_args already enter a
            // build_directory).
            let mut argv = match self.dir.as_str() {
                "" | "." => Vec::new(),
                d => vec!["-C".to_string(), d.to_string()],
            };
            for a in &args.positional {
                argv.push(self.f.e.tmpl(*a)?);
            }
            self.out.install.push(InstallItem {
                cond: self.f.cond.clone(),
                op: "make",
                from: None,
                to: String::new(),
                args: argv,
            });
            return Ok(());
        }
        let (op, from, to) = match (name, &args.positional[..]) {
            ("install_tree" | "copy_tree" | "install" | "copy", [a, b]) => {
                let from = self.f.e.tmpl(*a)?;
                if from.contains("{{") || from.contains("{%") || from.starts_with('/') {
                    return err(
                        call,
                        format!("{name} of a path outside the build directory"),
                    );
                }
                // Relative to the `with working_dir(…)` directory.
                ("copy", Some(self.in_dir(&from)), rel(self.f.e.tmpl(*b)?)?)
            }
            ("mkdirp" | "mkdir", [a]) => ("mkdir", None, rel(self.f.e.tmpl(*a)?)?),
            _ => return err(call, format!("call of `{name}`")),
        };
        self.out.install.push(InstallItem {
            cond: self.f.cond.clone(),
            op,
            from,
            to,
            args: Vec::new(),
        });
        Ok(())
    }

    fn env_call(&mut self, call: Node, method: &str, args: &Args) -> Eval<()> {
        let op = match method {
            "set" => "set",
            "unset" => "unset",
            "prepend_path" => "prepend_path",
            "append_path" => "append_path",
            "append_flags" => "append_flags",
            other => return err(call, format!("env.{other}")),
        };
        let var_node = *args
            .positional
            .first()
            .ok_or_else(|| Unevaluable::new(call, "env"))?;
        let var = match self.f.e.value(var_node)? {
            Value::Str(s) => s,
            _ => return err(var_node, "variable name"),
        };
        let value = match args.positional.get(1) {
            Some(v) => Some(self.f.e.tmpl(*v)?),
            None if op == "unset" => None,
            None => return err(call, "env value"),
        };
        if !args.keywords.is_empty() {
            return err(call, "env keywords");
        }
        self.out.env.push(EnvItem {
            cond: self.f.cond.clone(),
            op,
            var,
            value,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests;
