//! The Autotools and CMake helpers of hook bodies: `define`,
//! `define_from_variant`, `enable_or_disable`, `with_or_without`,
//! `activate_or_not`.

use tree_sitter::Node;

use crate::import::spack::evaluator::collected::ArgItem;
use crate::import::spack::evaluator::cond::{Cond, if_else, quote};
use crate::import::spack::evaluator::exprs::{Exprs, err};
use crate::import::spack::evaluator::value::{Args, Eval, Unevaluable};
use crate::import::spack::evaluator::variant_info::{VariantInfo, variant_ref};

impl Exprs<'_> {
    /// `define("NAME", value)`: `-DNAME:BOOL=ON`, `-DNAME:STRING=…`.
    pub(crate) fn define(&self, node: Node, args: &Args) -> Eval<String> {
        let [name, value] = args.positional[..] else {
            return err(node, "define with unusual arguments");
        };
        let name = self.tmpl(name)?;
        if let Some(var) = self.multi_variant(value) {
            return Ok(format!(
                "-D{name}:STRING={{{{ {} | join(sep=\";\") }}}}",
                variant_ref(&var)
            ));
        }
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

    /// Spack's `CMakeBuilder.define_cuda_architectures(pkg)` and
    /// `define_hip_architectures(pkg)`: `CMAKE_CUDA_ARCHITECTURES` from
    /// `cuda_arch` (with cmake 3.18 or newer), `CMAKE_HIP_ARCHITECTURES` from
    /// `amdgpu_target` (cmake 3.21 or newer) where the variant exists; an
    /// empty argument otherwise.
    pub(crate) fn define_architectures(&self, node: Node, method: &str) -> Eval<String> {
        let (var, cmake_var, cmake) = match method {
            "define_cuda_architectures" => ("cuda_arch", "CMAKE_CUDA_ARCHITECTURES", "3.18"),
            _ => ("amdgpu_target", "CMAKE_HIP_ARCHITECTURES", "3.21"),
        };
        if !self.variants.iter().any(|v| v.name == var) {
            return Ok(String::new());
        }
        let (_, exists) = self.variant_info(node, var)?;
        let cond = exists.and(Cond::Spec(format!("^cmake@{cmake}:")));
        let define = format!(
            "-D{cmake_var}:STRING={{{{ {} | join(sep=\";\") }}}}",
            variant_ref(var)
        );
        Ok(if_else(&cond, &define, ""))
    }

    /// The variant `name` with the condition under which it exists: a
    /// variant defined once per `when` exists when any of them holds, and
    /// takes the values of all of them.
    pub(crate) fn variant_info(&self, node: Node, name: &str) -> Eval<(VariantInfo, Cond)> {
        let mut defs = self.variants.iter().filter(|v| v.name == name);
        let first = defs
            .next()
            .ok_or_else(|| Unevaluable::new(node, format!("unknown variant `{name}`")))?;
        let cond_of = |v: &VariantInfo| v.when.clone().map(Cond::Spec).unwrap_or(Cond::True);
        let mut info = first.clone();
        let mut conds = vec![cond_of(first)];
        for d in defs {
            conds.push(cond_of(d));
            info.values = match (info.values.take(), &d.values) {
                (Some(mut a), Some(b)) => {
                    a.extend(
                        b.iter()
                            .filter(|v| !a.contains(v))
                            .cloned()
                            .collect::<Vec<_>>(),
                    );
                    Some(a)
                }
                _ => None,
            };
        }
        let cond = if conds.iter().any(|c| matches!(c, Cond::True)) {
            Cond::True
        } else if conds.len() == 1 {
            conds.pop().expect("one condition")
        } else {
            Cond::Or(conds)
        };
        Ok((info, cond))
    }

    pub(crate) fn str_arg(&self, node: Node) -> Eval<String> {
        self.ev().string(node)
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
        let (info, cond) = self.variant_info(node, &variant)?;
        let template = if info.is_bool {
            format!(
                "-D{cmake_var}:BOOL={{% if {} %}}ON{{% else %}}OFF{{% endif %}}",
                variant_ref(&variant)
            )
        } else if info.multi {
            format!(
                "-D{cmake_var}:STRING={{{{ {} | join(sep=\";\") }}}}",
                variant_ref(&variant)
            )
        } else {
            format!("-D{cmake_var}:STRING={{{{ {} }}}}", variant_ref(&variant))
        };
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
        let (info, cond) = self.variant_info(node, &variant)?;
        let line = |opt: &str, test: String| {
            let then = match activation {
                Some(()) => format!("--{on}-{opt}={{{{ deps[{}].prefix }}}}", quote(opt)),
                None => format!("--{on}-{opt}"),
            };
            format!("{{% if {test} %}}{then}{{% else %}}--{off}-{opt}{{% endif %}}")
        };
        if info.is_bool {
            let t = line(&name, variant_ref(&variant));
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
                    format!("{} in {}", quote(v), variant_ref(&variant))
                } else {
                    format!("{} == {}", variant_ref(&variant), quote(v))
                };
                ArgItem {
                    cond: cond.clone(),
                    template: line(v, test),
                }
            })
            .collect())
    }
}
