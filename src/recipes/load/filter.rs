//! Reading `build.filter:`: file edits with Python regular expressions.

use crate::diag::Code;
use crate::diag::yaml::{Cx, Node};
use crate::file_filter::{self, FileFilter};

use super::super::build::Filter;
use super::super::read;

const KEYS: &[&str] = &[
    "file",
    "regex",
    "replace",
    "string",
    "ignore_absent",
    "when",
];

/// Read `filter:`, a list of `{file, regex, replace, string, ignore_absent, when}`.
pub fn filters(cx: &mut Cx, node: &Node) -> Vec<Filter> {
    let Some(items) = cx.seq(node, "`filter`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let Some(m) = cx.map(item, "a `filter` entry", KEYS) else {
            continue;
        };
        let text = |cx: &mut Cx, key: &str, nonempty: bool| {
            let n = cx.required(&m, key, "a `filter` entry")?;
            let s = if nonempty {
                cx.nonempty_string(n, &format!("`{key}`"))
            } else {
                cx.string(n, &format!("`{key}`"))
            }?;
            read::check_templates(cx, std::slice::from_ref(&s));
            Some(s)
        };
        let file = text(cx, "file", true);
        let regex = text(cx, "regex", true);
        let replace = text(cx, "replace", false);
        let flag = |cx: &mut Cx, key: &str| {
            m.get(key)
                .and_then(|n| cx.bool(n, &format!("`{key}`")))
                .unwrap_or(false)
        };
        let string = flag(cx, "string");
        let ignore_absent = flag(cx, "ignore_absent");
        let when = m.get("when").and_then(|n| read::when(cx, n));
        let (Some(file), Some(regex), Some(replace)) = (file, regex, replace) else {
            continue;
        };
        let filter = FileFilter {
            file: file.value.clone(),
            regex: regex.value.clone(),
            replace: replace.value.clone(),
            string,
            ignore_absent,
        };
        if !is_template(&file.value) && !relative_inside(&file.value) {
            cx.error(
                Code::InvalidValue,
                &file.loc,
                "`file` must be a relative path inside the source tree",
                "leaves the source tree",
                Some("filters edit files of the staged source, named relative to its top".into()),
            );
        }
        if !is_template(&regex.value) {
            if let Err(e) = file_filter::compile(&filter) {
                let why = match e {
                    file_filter::FilterError::Regex { why, .. } => why,
                    other => other.to_string(),
                };
                cx.error(
                    Code::InvalidValue,
                    &regex.loc,
                    format!("`regex` `{}`: {why}", regex.value),
                    "not a pattern both Python and stack read alike",
                    Some("Python `re` syntax without back references, lookaround or inline flags; `string: true` for a literal".into()),
                );
            }
        }
        out.push(Filter {
            file: filter.file,
            regex: filter.regex,
            replace: filter.replace,
            string,
            ignore_absent,
            when,
            loc: m.loc.clone(),
        });
    }
    out
}

fn is_template(s: &str) -> bool {
    s.contains("{{") || s.contains("{%")
}

fn relative_inside(p: &str) -> bool {
    use std::path::{Component, Path};
    Path::new(p)
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}
