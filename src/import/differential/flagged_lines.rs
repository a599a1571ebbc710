//! Which directive calls of package.py an `imported.untranslated` item
//! covers: the item's line and, for a statement that opens a block (a
//! class-level loop or `if` the importer could not evaluate), every line of
//! that block. A directive the oracle recorded from such a call is flagged
//! even though the item names the loop, not the directive.

use std::collections::BTreeSet;

/// The lines covered by the items at `lines` in the source `text`.
pub fn covered(text: &str, lines: &[usize]) -> BTreeSet<usize> {
    let src: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = BTreeSet::new();
    for &line in lines.iter().filter(|&&l| l > 0 && l <= src.len()) {
        out.insert(line);
        let head = src[line - 1];
        let opens = head.trim_end().ends_with(':') || head.trim_start().starts_with("for ");
        // The class statement itself would cover every directive.
        if !opens || head.trim_start().starts_with("class ") {
            continue;
        }
        let base = indent(head);
        for (i, l) in src.iter().enumerate().skip(line) {
            if !l.trim().is_empty() && indent(l) <= base {
                break;
            }
            out.insert(i + 1);
        }
    }
    out
}

/// The last line of the statement that starts at `line` (a call written
/// over several lines ends where its parentheses close). Strings are not
/// parsed: a bracket inside one may end it early or late, which only makes
/// the span a line or two off.
pub fn statement_end(text: &str, line: usize) -> usize {
    let mut depth: i64 = 0;
    for (i, l) in text.lines().enumerate().skip(line.saturating_sub(1)) {
        let code = l.split('#').next().unwrap_or("");
        for c in code.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
        if depth <= 0 {
            return i + 1;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flagged_loop_covers_its_body() {
        let src = "class P:\n    for a in xs:\n        conflicts(a)\n\n        depends_on(a)\n    depends_on('z')\n";
        let c = covered(src, &[2]);
        assert_eq!(c, [2, 3, 4, 5].into_iter().collect());
        assert_eq!(covered(src, &[6, 0, 99]), [6].into_iter().collect());
        assert_eq!(covered(src, &[1]), [1].into_iter().collect());
        let call = "x = 1\nversion(\n    \"1.0\",\n    submodules=f,\n)\ny = 2\n";
        assert_eq!(statement_end(call, 2), 5);
        assert_eq!(statement_end(call, 1), 1);
    }
}
