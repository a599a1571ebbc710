//! An ordered list of resolved environment operations and its renderings:
//! uenv `values` (env.json), shell lines (activate.sh), Lmod and Tcl calls.

use std::collections::BTreeSet;
use std::path::Path;

use super::env_json::{EnvValues, ListOp, OrderedMap};
use super::env_op::{EnvOp, OpKind, PREFIX_INSPECTIONS, PREFIX_LIST_VARS, valid_var_name};
use super::error::ViewError;
use super::placeholder::{PlaceholderContext, Value};

/// One operation with its placeholders resolved. `values` has one element
/// except for prefix inspections and `prefix_paths`, which prepend several
/// directories at once (the first ends up first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedOp {
    pub kind: OpKind,
    pub var: String,
    pub values: Vec<Value>,
}

/// The environment of a view or a module, in application order.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub ops: Vec<ResolvedOp>,
}

impl Environment {
    /// Add `op`, resolving its placeholders; `origin` names where it came
    /// from for error messages (e.g. "view `default`, env_vars").
    pub fn push_op(
        &mut self,
        op: &EnvOp,
        ctx: &PlaceholderContext,
        origin: &str,
    ) -> Result<(), ViewError> {
        let var = op.var();
        if !valid_var_name(var) {
            return Err(ViewError::InvalidVarName {
                origin: origin.to_string(),
                var: var.to_string(),
            });
        }
        let values = match op.value() {
            None => Vec::new(),
            Some(raw) => {
                vec![Value::parse(raw, ctx).map_err(|p| ViewError::Placeholder {
                    origin: origin.to_string(),
                    var: var.to_string(),
                    message: p.message,
                    hint: p.hint,
                })?]
            }
        };
        self.ops.push(ResolvedOp {
            kind: op.kind(),
            var: var.to_string(),
            values,
        });
        Ok(())
    }

    /// Prepend every `subdir` of `root` that exists (checked in `store_root`,
    /// where `root` is found at build time) to `var`, as one operation.
    pub fn push_existing_dirs(
        &mut self,
        var: &str,
        root: &Path,
        store_root: &Path,
        subdirs: &[impl AsRef<str>],
    ) {
        // a directory reached twice (lib64 -> lib) is listed once
        let mut seen = Vec::new();
        let values: Vec<Value> = subdirs
            .iter()
            .map(AsRef::as_ref)
            .filter(|sub| {
                let p = store_root.join(sub);
                match p.canonicalize() {
                    Ok(c) if p.is_dir() && !seen.contains(&c) => {
                        seen.push(c);
                        true
                    }
                    _ => false,
                }
            })
            .map(|sub| {
                let p = if sub.is_empty() {
                    root.to_path_buf()
                } else {
                    root.join(sub)
                };
                Value::literal(p.to_string_lossy().into_owned())
            })
            .collect();
        if !values.is_empty() {
            self.ops.push(ResolvedOp {
                kind: OpKind::Prepend,
                var: var.to_string(),
                values,
            });
        }
    }

    /// The built-in prefix inspections (PATH ← bin, …) of `root`.
    pub fn push_inspections(&mut self, root: &Path, store_root: &Path) {
        for (var, subdirs) in PREFIX_INSPECTIONS {
            self.push_existing_dirs(var, root, store_root, subdirs);
        }
    }

    /// The same environment with each directory once per list variable: a
    /// value prepended again later (the view's `prefix_paths`, the prefix
    /// inspections and a package's own `env` often name one directory) is
    /// kept only where it ends up first — the last prepend, else the first
    /// append. A `set`/`unset` of the variable starts over.
    pub fn deduped(&self) -> Environment {
        type Seen<'a> = std::collections::HashMap<&'a str, Vec<&'a Value>>;
        fn insert<'a>(seen: &mut Vec<&'a Value>, v: &'a Value) -> bool {
            if seen.contains(&v) {
                false
            } else {
                seen.push(v);
                true
            }
        }
        let n = self.ops.len();
        // Per op: which of its values survive.
        let mut keep: Vec<Vec<bool>> = self
            .ops
            .iter()
            .map(|o| vec![true; o.values.len()])
            .collect();
        // Prepends: walk backwards, a value already prepended later goes.
        let mut later: Seen = Default::default();
        for i in (0..n).rev() {
            let op = &self.ops[i];
            match op.kind {
                OpKind::Set | OpKind::Unset => {
                    later.remove(op.var.as_str());
                }
                OpKind::Prepend => {
                    let seen = later.entry(op.var.as_str()).or_default();
                    // Within one op the first value ends up first.
                    let mut mine: Vec<&Value> = Vec::new();
                    for (j, v) in op.values.iter().enumerate() {
                        if seen.contains(&v) || !insert(&mut mine, v) {
                            keep[i][j] = false;
                        }
                    }
                    seen.extend(mine);
                }
                OpKind::Append => {}
            }
        }
        // Appends: walk forwards, a value already present goes (prepended
        // anywhere since the last set, or appended before).
        let mut present: Seen = Default::default();
        let mut prepended: Seen = Default::default();
        for op in &self.ops {
            if op.kind == OpKind::Prepend {
                prepended
                    .entry(op.var.as_str())
                    .or_default()
                    .extend(op.values.iter());
            }
        }
        for (i, op) in self.ops.iter().enumerate() {
            match op.kind {
                OpKind::Set | OpKind::Unset => {
                    present.remove(op.var.as_str());
                }
                OpKind::Prepend => {}
                OpKind::Append => {
                    let pre = prepended.get(op.var.as_str());
                    let seen = present.entry(op.var.as_str()).or_default();
                    for (j, v) in op.values.iter().enumerate() {
                        if pre.is_some_and(|p| p.contains(&v)) || !insert(seen, v) {
                            keep[i][j] = false;
                        }
                    }
                }
            }
        }
        let ops = self
            .ops
            .iter()
            .zip(keep)
            .filter_map(|(op, keep)| {
                if !matches!(op.kind, OpKind::Prepend | OpKind::Append) {
                    return Some(op.clone());
                }
                let values: Vec<Value> = op
                    .values
                    .iter()
                    .zip(keep)
                    .filter(|(_, k)| *k)
                    .map(|(v, _)| v.clone())
                    .collect();
                (!values.is_empty()).then(|| ResolvedOp {
                    kind: op.kind,
                    var: op.var.clone(),
                    values,
                })
            })
            .collect();
        Environment { ops }
    }

    /// Variables treated as `:`-separated lists: the fixed set plus any
    /// variable that some operation prepends or appends to.
    pub fn list_vars(&self) -> BTreeSet<&str> {
        let mut vars: BTreeSet<&str> = PREFIX_LIST_VARS.iter().copied().collect();
        for op in &self.ops {
            if matches!(op.kind, OpKind::Prepend | OpKind::Append) {
                vars.insert(&op.var);
            }
        }
        vars
    }

    /// The uenv form: list variables keep every operation in order, scalars
    /// keep their final value (`null` when unset).
    pub fn uenv_values(&self) -> EnvValues {
        let this = self.deduped();
        let list_vars = self.list_vars();
        let mut list: OrderedMap<Vec<ListOp>> = OrderedMap::default();
        let mut scalar: OrderedMap<Option<String>> = OrderedMap::default();
        for op in &this.ops {
            if list_vars.contains(op.var.as_str()) {
                let value: Vec<String> = match op.kind {
                    OpKind::Unset => Vec::new(),
                    OpKind::Set => op
                        .values
                        .iter()
                        .flat_map(Value::split_list)
                        .map(|v| v.to_uenv())
                        .collect(),
                    OpKind::Prepend | OpKind::Append => {
                        op.values.iter().map(Value::to_uenv).collect()
                    }
                };
                list.entry_or_default(&op.var).push(ListOp {
                    op: op.kind.uenv_name().to_string(),
                    value,
                });
            } else {
                let value = match op.kind {
                    OpKind::Unset => None,
                    _ => Some(op.values.iter().map(Value::to_uenv).collect::<String>()),
                };
                *scalar.entry_or_default(&op.var) = value;
            }
        }
        EnvValues { list, scalar }
    }

    /// POSIX shell lines, one per operation.
    pub fn shell_lines(&self) -> Vec<String> {
        self.deduped()
            .ops
            .iter()
            .map(|op| {
                let joined = || {
                    op.values
                        .iter()
                        .map(Value::to_shell_dq)
                        .collect::<Vec<_>>()
                        .join(":")
                };
                let var = &op.var;
                match op.kind {
                    OpKind::Set => format!("export {var}=\"{}\"", joined()),
                    OpKind::Unset => format!("unset {var}"),
                    OpKind::Prepend => {
                        format!("export {var}=\"{}${{{var}:+:${{{var}}}}}\"", joined())
                    }
                    OpKind::Append => {
                        format!("export {var}=\"${{{var}:+${{{var}}}:}}{}\"", joined())
                    }
                }
            })
            .collect()
    }

    /// Lmod (lua) statements, one or more per operation.
    pub fn lua_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for op in &self.deduped().ops {
            let var = &op.var;
            match op.kind {
                OpKind::Set => {
                    let v = concat_lua(&op.values);
                    out.push(format!("setenv(\"{var}\", {v})"));
                }
                OpKind::Unset => out.push(format!("unsetenv(\"{var}\")")),
                // prepend the last first so the first value ends up in front
                OpKind::Prepend => out.extend(
                    op.values
                        .iter()
                        .rev()
                        .map(|v| format!("prepend_path(\"{var}\", {})", v.to_lua())),
                ),
                OpKind::Append => out.extend(
                    op.values
                        .iter()
                        .map(|v| format!("append_path(\"{var}\", {})", v.to_lua())),
                ),
            }
        }
        out
    }

    /// Tcl modulefile commands, one or more per operation.
    pub fn tcl_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for op in &self.deduped().ops {
            let var = &op.var;
            match op.kind {
                OpKind::Set => {
                    let v = Value(op.values.iter().flat_map(|v| v.0.clone()).collect());
                    out.push(format!("setenv {var} {}", v.to_tcl()));
                }
                OpKind::Unset => out.push(format!("unsetenv {var}")),
                OpKind::Prepend => out.extend(
                    op.values
                        .iter()
                        .rev()
                        .map(|v| format!("prepend-path {var} {}", v.to_tcl())),
                ),
                OpKind::Append => out.extend(
                    op.values
                        .iter()
                        .map(|v| format!("append-path {var} {}", v.to_tcl())),
                ),
            }
        }
        out
    }
}

fn concat_lua(values: &[Value]) -> String {
    let v = Value(values.iter().flat_map(|v| v.0.clone()).collect());
    v.to_lua()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> PlaceholderContext {
        PlaceholderContext {
            mount: "/m".into(),
            view: Some(("v".into(), "/m/env/v".into())),
        }
    }

    fn env(ops: &[EnvOp]) -> Environment {
        let mut e = Environment::default();
        for op in ops {
            e.push_op(op, &ctx(), "test").unwrap();
        }
        e
    }

    #[test]
    fn scalars_keep_the_last_value_and_lists_keep_every_op() {
        let e = env(&[
            EnvOp::set("A", "1"),
            EnvOp::prepend_path("PATH", "$@view_path@/bin"),
            EnvOp::set("A", "2"),
            EnvOp::unset("B"),
            EnvOp::append_path("PATH", "${@HOME@}/bin"),
            EnvOp::set("PYTHONPATH", "/x:/y"),
            EnvOp::unset("PYTHONPATH"),
            EnvOp::append_path("NCCL_PLUGIN_PATH", "/p"),
        ]);
        let v = serde_json::to_value(e.uenv_values()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "list": {
                    "PATH": [
                        {"op": "prepend", "value": ["/m/env/v/bin"]},
                        {"op": "append", "value": ["${@HOME@}/bin"]}
                    ],
                    "PYTHONPATH": [
                        {"op": "set", "value": ["/x", "/y"]},
                        {"op": "unset", "value": []}
                    ],
                    "NCCL_PLUGIN_PATH": [{"op": "append", "value": ["/p"]}]
                },
                "scalar": {"A": "2", "B": null}
            })
        );
    }

    #[test]
    fn each_directory_once_per_list_variable() {
        let lit = |s: &str| Value::literal(s.to_string());
        let op = |kind, var: &str, vals: &[&str]| ResolvedOp {
            kind,
            var: var.into(),
            values: vals.iter().map(|v| lit(v)).collect(),
        };
        let env = Environment {
            ops: vec![
                op(
                    OpKind::Prepend,
                    "PATH",
                    &["/m/a/bin", "/m/b/bin", "/m/a/bin"],
                ),
                op(OpKind::Prepend, "PKG_CONFIG_PATH", &["/m/a/lib/pkgconfig"]),
                op(OpKind::Prepend, "PATH", &["/m/b/bin"]),
                op(OpKind::Prepend, "PKG_CONFIG_PATH", &["/m/a/lib/pkgconfig"]),
                op(
                    OpKind::Append,
                    "PATH",
                    &["/m/c/bin", "/m/a/bin", "/m/c/bin"],
                ),
            ],
        };
        assert_eq!(
            env.shell_lines(),
            vec![
                r#"export PATH="/m/a/bin${PATH:+:${PATH}}""#,
                r#"export PATH="/m/b/bin${PATH:+:${PATH}}""#,
                r#"export PKG_CONFIG_PATH="/m/a/lib/pkgconfig${PKG_CONFIG_PATH:+:${PKG_CONFIG_PATH}}""#,
                r#"export PATH="${PATH:+${PATH}:}/m/c/bin""#,
            ]
        );
        assert_eq!(env.lua_lines().len(), 4);
    }

    #[test]
    fn shell_lines_quote_and_expand_at_load_time() {
        let mut e = env(&[
            EnvOp::set("UCX_ERROR_SIGNALS", "SIGILL,SIGBUS,SIGFPE"),
            EnvOp::set("CACHE", "${@SCRATCH@}/c \"q\""),
            EnvOp::unset("FOO"),
            EnvOp::append_path("PATH", "/z"),
        ]);
        e.ops.push(ResolvedOp {
            kind: OpKind::Prepend,
            var: "LD_LIBRARY_PATH".into(),
            values: vec![Value::literal("/a"), Value::literal("/b")],
        });
        assert_eq!(
            e.shell_lines(),
            [
                "export UCX_ERROR_SIGNALS=\"SIGILL,SIGBUS,SIGFPE\"",
                "export CACHE=\"${SCRATCH}/c \\\"q\\\"\"",
                "unset FOO",
                "export PATH=\"${PATH:+${PATH}:}/z\"",
                "export LD_LIBRARY_PATH=\"/a:/b${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\"",
            ]
        );
        let lua = e.lua_lines();
        assert_eq!(lua[4], "prepend_path(\"LD_LIBRARY_PATH\", \"/b\")");
        assert_eq!(lua[5], "prepend_path(\"LD_LIBRARY_PATH\", \"/a\")");
        let tcl = e.tcl_lines();
        assert_eq!(tcl[2], "unsetenv FOO");
        assert_eq!(tcl[3], "append-path PATH \"/z\"");
    }

    #[test]
    fn bad_names_and_placeholders_say_where() {
        let mut e = Environment::default();
        let err = e
            .push_op(&EnvOp::set("A-B", "x"), &ctx(), "view `v`, env_vars")
            .unwrap_err();
        assert!(
            err.to_string().starts_with("view `v`, env_vars: `A-B`"),
            "{err}"
        );
        let err = e
            .push_op(&EnvOp::set("A", "$@nope@"), &ctx(), "package foo@1")
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("package foo@1: bad value for A"),
            "{err}"
        );
    }
}
