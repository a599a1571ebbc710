//! The placeholders an environment value may hold, checked when the file
//! is read so that `stack check` reports a typo (`$@viewpath@`) with its
//! position instead of the view stage failing after every package is built.
//! The grammar is the one `view::placeholder` renders: `$@mount@`,
//! `$@view_name@`, `$@view_path@`, and `${@VAR@}` for load-time variables.

use crate::diag::yaml::Cx;
use crate::diag::{Code, Spanned};

/// The `$@…@` names the view stage replaces.
pub const NAMES: [&str; 3] = ["mount", "view_name", "view_path"];

const KNOWN: &str = "$@mount@, $@view_name@, $@view_path@ and ${@VAR@}";

/// A problem in a value: byte range, message, hint.
#[derive(Debug, PartialEq, Eq)]
pub struct PlaceholderSyntax {
    pub offset: usize,
    pub len: usize,
    pub message: String,
    pub hint: String,
}

/// The first placeholder problem in `value`, if any.
pub fn scan(value: &str) -> Option<PlaceholderSyntax> {
    let mut at = 0;
    while let Some(pos) = value[at..].find('$').map(|p| p + at) {
        let after = &value[pos..];
        if let Some(body) = after.strip_prefix("${@") {
            let Some(end) = body.find("@}") else {
                return Some(problem(pos, after.len(), "unterminated `${@`", value));
            };
            let name = &body[..end];
            if !super::read::valid_var_name(name) {
                return Some(PlaceholderSyntax {
                    offset: pos,
                    len: end + 5,
                    message: format!("`${{@{name}@}}` does not name an environment variable"),
                    hint: "variable names are letters, digits and `_`, not starting with a digit"
                        .into(),
                });
            }
            at = pos + 3 + end + 2;
        } else if let Some(body) = after.strip_prefix("$@") {
            let Some(end) = body.find('@') else {
                return Some(problem(pos, after.len(), "unterminated `$@`", value));
            };
            let name = &body[..end];
            if !NAMES.contains(&name) {
                let mut p = problem(
                    pos,
                    end + 3,
                    &format!("unknown placeholder `$@{name}@`"),
                    value,
                );
                if let Some(s) = crate::diag::nearest(name, NAMES) {
                    p.hint = format!("did you mean `$@{s}@`? known placeholders: {KNOWN}");
                }
                return Some(p);
            }
            at = pos + 2 + end + 1;
        } else {
            at = pos + 1;
        }
    }
    None
}

fn problem(offset: usize, len: usize, what: &str, value: &str) -> PlaceholderSyntax {
    PlaceholderSyntax {
        offset,
        len,
        message: format!("{what} in `{value}`"),
        hint: format!("known placeholders: {KNOWN}"),
    }
}

/// Report the first placeholder problem of `value` at its position.
pub fn check(cx: &mut Cx, value: &Spanned<String>) {
    if let Some(p) = scan(&value.value) {
        let loc = cx.sub_loc(&value.loc, &value.value, p.offset, p.len);
        cx.error(
            Code::BadTemplate,
            &loc,
            p.message,
            "bad placeholder",
            Some(p.hint),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_placeholders_pass() {
        for ok in [
            "$@view_path@/bin:$@mount@/x",
            "${@SCRATCH@}/julia-$@view_name@",
            "$HOME/plain $ sign",
            "",
        ] {
            assert_eq!(scan(ok), None, "{ok}");
        }
    }

    #[test]
    fn a_typo_is_found_with_its_range_and_a_suggestion() {
        let p = scan("x:$@viewpath@/bin").unwrap();
        assert_eq!((p.offset, p.len), (2, 11));
        assert!(p.message.contains("unknown placeholder `$@viewpath@`"));
        assert!(
            p.hint.starts_with("did you mean `$@view_path@`?"),
            "{}",
            p.hint
        );
        let p = scan("${@1BAD@}").unwrap();
        assert_eq!((p.offset, p.len), (0, 9));
        assert!(scan("$@mount").unwrap().message.contains("unterminated"));
        assert!(scan("${@X").unwrap().message.contains("unterminated"));
    }
}
