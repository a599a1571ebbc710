//! One warning for many unreviewed imported recipes. A stack read from
//! Spack repositories (a stackinator recipe) may reach hundreds of
//! translated recipes whose build logic is not fully translated; each
//! loads with its own warning, which would bury everything else. Above
//! [`DETAILED`] of them they become one warning naming the packages; `stack
//! build` still lists the constructs of those it would build.

use crate::diag::{Code, Diagnostic, Diagnostics};

/// Up to this many unreviewed recipes keep their own warnings.
pub const DETAILED: usize = 3;

/// `diags` with the unreviewed-import warnings merged into one when there
/// are more than [`DETAILED`].
pub fn summarize(diags: Diagnostics) -> Diagnostics {
    let (unreviewed, mut out): (Vec<Diagnostic>, Vec<Diagnostic>) = diags
        .into_iter()
        .partition(|d| d.code == Code::Unreviewed && !d.is_error());
    if unreviewed.len() <= DETAILED {
        out.extend(unreviewed);
    } else {
        let mut names: Vec<&str> = unreviewed
            .iter()
            .filter_map(|d| d.subject.as_deref())
            .collect();
        names.sort_unstable();
        names.dedup();
        out.push(
            Diagnostic::warning(
                Code::Unreviewed,
                format!(
                    "{} imported recipes the stack may use have untranslated build logic: {}",
                    names.len(),
                    names.join(", ")
                ),
            )
            .with_help(
                "each recipe's `imported.untranslated` lists what is missing; `stack build` \
                 refuses those it would build until they are reviewed (`imported.reviewed: true`)",
            ),
        );
    }
    let mut d = Diagnostics::new();
    d.extend(out);
    d.sort();
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unreviewed(name: &str) -> Diagnostic {
        Diagnostic::warning(
            Code::Unreviewed,
            format!(
                "imported recipe `{name}` has 1 untranslated build construct(s) in x: line 1: hook"
            ),
        )
        .about(name)
    }

    #[test]
    fn a_few_keep_their_own_warnings() {
        let mut d = Diagnostics::new();
        d.extend([unreviewed("a"), unreviewed("b")]);
        assert_eq!(summarize(d).len(), 2);
    }

    #[test]
    fn many_become_one_naming_them_and_others_stay() {
        let mut d = Diagnostics::new();
        d.extend(["d", "b", "a", "c", "b"].map(unreviewed));
        d.push(Diagnostic::warning(Code::Unsupported, "other"));
        let out = summarize(d);
        assert_eq!(out.len(), 2);
        let text: Vec<&str> = out.iter().map(|d| d.message.as_str()).collect();
        assert!(text.contains(&"other"), "{text:?}");
        assert!(
            text.contains(
                &"4 imported recipes the stack may use have untranslated build logic: a, b, c, d"
            ),
            "{text:?}"
        );
    }
}
