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
    }
}
