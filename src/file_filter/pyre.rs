//! Python `re` patterns as Rust `regex` patterns, for the subset on which
//! both engines agree; everything else is refused with a reason.
//!
//! The text a pattern is matched against is one line with its `\n` (as
//! Spack's `filter_file` reads files), so Python's `^` is `\A` and its `$`
//! (end, or before the final newline) is a multi-line `$`.

use regex_syntax::hir::Hir;

/// Python's `\w` (`str.isalnum()` or `_`) and `\s` (`str.isspace()`): Rust's
/// `\s` lacks the separators U+001C–U+001F.
const WORD: &str = r"\p{L}\p{N}_";
const SPACE: &str = r"\s\x1C-\x1F";

/// Translate a Python pattern; `Err` says which construct has no exact equivalent.
pub fn translate(py: &str) -> Result<String, String> {
    let chars: Vec<char> = py.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut lazy_or_alt = false;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => i = escape(&chars, i, false, &mut out)?,
            '[' => i = class(&chars, i, &mut out)?,
            '(' => i = group(&chars, i, &mut out)?,
            '{' => {
                let (next, quant) = brace(&chars, i);
                match quant {
                    Some(q) => {
                        out.push_str(&q);
                        i = quantifier_suffix(&chars, next, &mut out, &mut lazy_or_alt)?;
                    }
                    None => out.push_str(r"\{"),
                }
            }
            '}' => out.push_str(r"\}"),
            '*' | '+' | '?' => {
                out.push(c);
                i = quantifier_suffix(&chars, i, &mut out, &mut lazy_or_alt)?;
            }
            '|' => {
                lazy_or_alt = true;
                out.push('|');
            }
            '^' => out.push_str(r"\A"),
            '$' => out.push_str("(?m:$)"),
            _ => out.push(c),
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&out)
        .map_err(|e| {
            format!(
                "not a regular expression both engines read: {}",
                first_line(&e.to_string())
            )
        })?;
    if lazy_or_alt && can_match_empty(&hir) {
        return Err(
            "a pattern that can match the empty string with `|` or a lazy quantifier (Python and Rust iterate its matches differently)".into(),
        );
    }
    Ok(out)
}

fn first_line(s: &str) -> String {
    s.lines().last().unwrap_or(s).trim().to_string()
}

fn can_match_empty(hir: &Hir) -> bool {
    hir.properties().minimum_len() == Some(0)
}

/// After `*`, `+`, `?` or `{m,n}`: a lazy `?` is kept, a possessive `+` refused.
fn quantifier_suffix(
    chars: &[char],
    i: usize,
    out: &mut String,
    lazy: &mut bool,
) -> Result<usize, String> {
    match chars.get(i) {
        Some('?') => {
            *lazy = true;
            out.push('?');
            Ok(i + 1)
        }
        Some('+') => Err("possessive quantifier".into()),
        _ => Ok(i),
    }
}

/// Python's rule for `{`: a repetition `{m}`, `{m,}`, `{,n}`, `{m,n}`, `{,}`;
/// anything else is a literal `{`. Returns the index after `}` and the Rust
/// quantifier, or `None` for a literal.
fn brace(chars: &[char], start: usize) -> (usize, Option<String>) {
    let mut i = start;
    if chars.get(i) == Some(&'}') {
        return (start, None);
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        chars[s..*i].iter().collect::<String>()
    };
    let lo = digits(&mut i);
    let hi = if chars.get(i) == Some(&',') {
        i += 1;
        Some(digits(&mut i))
    } else {
        None
    };
    if chars.get(i) != Some(&'}') {
        return (start, None);
    }
    let lo_n = if lo.is_empty() {
        "0".to_string()
    } else {
        lo.clone()
    };
    let q = match hi {
        None => format!("{{{lo_n}}}"),
        Some(h) if h.is_empty() => format!("{{{lo_n},}}"),
        Some(h) => format!("{{{lo_n},{h}}}"),
    };
    (i + 1, Some(q))
}

/// `(`: plain, non-capturing and named groups; no lookaround, no inline
/// flags, no comments, no named back references.
fn group(chars: &[char], i: usize, out: &mut String) -> Result<usize, String> {
    if chars.get(i) != Some(&'?') {
        out.push('(');
        return Ok(i);
    }
    let rest: String = chars[i..chars.len().min(i + 4)].iter().collect();
    if rest.starts_with("?:") {
        out.push_str("(?:");
        return Ok(i + 2);
    }
    if rest.starts_with("?P<") {
        out.push_str("(?P<");
        return Ok(i + 3);
    }
    let what = match rest.get(1..2) {
        Some("=") | Some("!") | Some("<") => "lookaround",
        Some("P") => "named back reference",
        Some("#") => "comment group",
        Some("(") => "conditional group",
        _ => "inline flags",
    };
    Err(format!("{what} `({rest}…`"))
}

/// A backslash escape at `chars[i]` (after the `\`). Literal characters are
/// written as `\x{…}` so that no escape means something else in Rust
/// (`\<` is a word boundary there, a literal `<` in Python).
fn escape(chars: &[char], i: usize, in_class: bool, out: &mut String) -> Result<usize, String> {
    let Some(&c) = chars.get(i) else {
        return Err("pattern ends with `\\`".into());
    };
    let hex = |n: usize| -> Result<u32, String> {
        let s: String = chars
            .get(i + 1..i + 1 + n)
            .map(|c| c.iter().collect())
            .unwrap_or_default();
        u32::from_str_radix(&s, 16)
            .ok()
            .filter(|_| s.len() == n)
            .ok_or_else(|| format!("bad escape `\\{c}{s}`"))
    };
    let lit = |out: &mut String, ch: u32| out.push_str(&format!(r"\x{{{ch:X}}}"));
    let class = |out: &mut String, neg: bool, body: &str| {
        if neg || !in_class {
            out.push_str(&format!("[{}{body}]", if neg { "^" } else { "" }));
        } else {
            out.push_str(body);
        }
    };
    match c {
        'd' | 'D' => out.push_str(&format!("\\{c}")),
        'w' | 'W' => class(out, c == 'W', WORD),
        's' | 'S' => class(out, c == 'S', SPACE),
        'b' if in_class => lit(out, 0x08),
        'b' | 'B' | 'A' if !in_class => out.push_str(&format!("\\{c}")),
        'Z' if !in_class => out.push_str(r"\z"),
        'n' => lit(out, 0x0A),
        't' => lit(out, 0x09),
        'r' => lit(out, 0x0D),
        'f' => lit(out, 0x0C),
        'v' => lit(out, 0x0B),
        'a' => lit(out, 0x07),
        'x' => {
            lit(out, hex(2)?);
            return Ok(i + 3);
        }
        'u' => {
            lit(out, hex(4)?);
            return Ok(i + 5);
        }
        'U' => {
            lit(out, hex(8)?);
            return Ok(i + 9);
        }
        '0'..='9' => return Err(format!("back reference or octal escape `\\{c}`")),
        c if c.is_ascii_alphanumeric() => return Err(format!("escape `\\{c}`")),
        c => lit(out, c as u32),
    }
    Ok(i + 1)
}

/// A character class from after its `[` to its `]`. `[`, `&`, `~` are
/// literal in Python but nesting/set operators in Rust: written escaped.
fn class(chars: &[char], mut i: usize, out: &mut String) -> Result<usize, String> {
    out.push('[');
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str(r"\]");
        i += 1;
    }
    let mut prev = None;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            ']' => {
                out.push(']');
                return Ok(i);
            }
            '\\' => i = escape(chars, i, true, out)?,
            '-' if prev == Some('-') => return Err("`--` in a character class".into()),
            '[' | '&' | '~' => out.push_str(&format!(r"\x{{{:X}}}", c as u32)),
            c => out.push(c),
        }
        prev = Some(c);
    }
    Err("unterminated character class".into())
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn common_patterns_translate() {
        assert_eq!(
            translate(r"^CC\s*=.*$").unwrap(),
            r"\ACC[\s\x1C-\x1F]*=.*(?m:$)"
        );
        assert_eq!(translate(r"\$\{prefix}").unwrap(), r"\x{24}\x{7B}prefix\}");
        assert_eq!(translate(r"a{2,}b{,3}").unwrap(), r"a{2,}b{0,3}");
        assert_eq!(translate(r"[[\]&]").unwrap(), r"[\x{5B}\x{5D}\x{26}]");
        assert_eq!(translate(r"(?P<x>a)(?:b)").unwrap(), r"(?P<x>a)(?:b)");
    }

    #[test]
    fn constructs_that_differ_are_refused() {
        for bad in [
            r"(a)\1", r"(?=a)", r"(?i)a", r"a++", r"(a|)", r"x*?", r"[a--b]", r"\q",
        ] {
            assert!(translate(bad).is_err(), "{bad}");
        }
        assert!(translate("a|b").is_ok());
    }
}
