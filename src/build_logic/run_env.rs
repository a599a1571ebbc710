//! The run environment a package's `setup_run_environment` produces: the
//! layer writes it to `outputs.run_env` as a list of operations; the build
//! stage keeps it as `<prefix>/.stack/run-env.json` (part of the prefix's
//! metadata, carried by the binary cache), where views, modules,
//! `meta/env.json` and the builds of dependents read it as they read a
//! recipe's `env:`.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The file name below `<prefix>/.stack/`.
pub const RUN_ENV_FILE: &str = "run-env.json";

/// What an operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    Set,
    Unset,
    PrependPath,
    AppendPath,
    /// Remove every entry equal to the value from the list.
    RemovePath,
}

/// One operation, as the layer writes it:
/// `{"op": "prepend_path", "name": "PATH", "value": "/p/bin"}`; list
/// operations may carry a `separator` (default `:`; `" "` for Spack's
/// `append_flags`, `prepend_flags`, `remove_flags`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunEnvOp {
    pub op: OpKind,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
}

impl RunEnvOp {
    /// The list separator (`:` unless given).
    pub fn separator(&self) -> &str {
        self.separator.as_deref().unwrap_or(":")
    }

    /// The value (empty for `unset`).
    pub fn value(&self) -> &str {
        self.value.as_deref().unwrap_or("")
    }
}

fn check(op: &RunEnvOp) -> Result<(), String> {
    let name = &op.name;
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !ok {
        return Err(format!("`{name}` is not an environment variable name"));
    }
    match (op.op, &op.value, &op.separator) {
        (OpKind::Unset, Some(_), _) => Err(format!("`unset` of `{name}` has a value")),
        (OpKind::Set | OpKind::Unset, _, Some(_)) => Err(format!(
            "a `separator` for `{name}` on an operation that is not a list edit"
        )),
        (OpKind::Unset, None, None) => Ok(()),
        (_, None, _) => Err(format!("the operation on `{name}` has no value")),
        (_, Some(v), sep) => {
            if v.contains('\0')
                || sep
                    .as_deref()
                    .is_some_and(|s| s.is_empty() || s.contains('\0'))
            {
                Err(format!(
                    "the value or separator for `{name}` is empty or contains a NUL byte"
                ))
            } else {
                Ok(())
            }
        }
    }
}

/// Parse and check a run environment (names are environment variable
/// names, values present where the operation needs one, no NUL byte).
pub fn parse(bytes: &[u8]) -> Result<Vec<RunEnvOp>, String> {
    let ops: Vec<RunEnvOp> = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    ops.iter().try_for_each(check)?;
    Ok(ops)
}

/// The run environment recorded in an installed prefix (at `host_prefix`);
/// empty when it records none.
pub fn read_recorded(host_prefix: &Path) -> Result<Vec<RunEnvOp>, String> {
    let path = host_prefix.join(".stack").join(RUN_ENV_FILE);
    match fs_err::read(&path) {
        Ok(bytes) => parse(&bytes).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_parse_as_the_layer_writes_them() {
        let ops = parse(
            br#"[{"op": "set", "name": "FOO_HOME", "value": "/p"},
                 {"op": "prepend_path", "name": "PATH", "value": "/p/bin"},
                 {"op": "unset", "name": "BAR"},
                 {"op": "append_path", "name": "LDFLAGS", "value": "-lm", "separator": " "},
                 {"op": "remove_path", "name": "PATH", "value": "/old"}]"#,
        )
        .unwrap();
        assert_eq!(ops.len(), 5);
        assert_eq!(ops[1].op, OpKind::PrependPath);
        assert_eq!(ops[1].separator(), ":");
        assert_eq!(ops[3].separator(), " ");
        for bad in [
            &br#"[{"op": "set", "name": "A B", "value": "x"}]"#[..],
            br#"[{"op": "frobnicate", "name": "A"}]"#,
            br#"[{"op": "set", "name": "A", "value": 1}]"#,
            br#"[{"op": "set", "name": "A"}]"#,
            br#"[{"op": "unset", "name": "A", "value": "x"}]"#,
            br#"[{"op": "set", "name": "A", "value": "x", "separator": " "}]"#,
            br#"[{"op": "set", "name": "A", "value": "x", "other": 1}]"#,
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn a_prefix_without_a_record_has_no_run_environment() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(read_recorded(tmp.path()).unwrap(), Vec::new());
        fs_err::create_dir_all(tmp.path().join(".stack")).unwrap();
        fs_err::write(
            tmp.path().join(".stack").join(RUN_ENV_FILE),
            br#"[{"op": "set", "name": "X", "value": "1"}]"#,
        )
        .unwrap();
        assert_eq!(read_recorded(tmp.path()).unwrap().len(), 1);
    }
}
