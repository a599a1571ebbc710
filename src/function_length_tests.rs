//! No function in `src/` is longer than [`MAX_LINES`] lines, counted from
//! its `fn` to its closing brace without blank and comment-only lines
//! (clippy's `too_many_lines` stops at 120; this is the project's rule,
//! docs: `src/lib.rs`, "split … a function ~80 lines").

use std::path::{Path, PathBuf};

/// The longest a function may be.
const MAX_LINES: usize = 100;

/// Functions allowed to be longer for now (none: the last five were split;
/// an entry names a file and a function, and a stale entry fails the test).
const KNOWN: &[(&str, &str)] = &[];

#[test]
fn no_function_is_longer_than_the_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for file in rust_files(&root.join("src")) {
        let text = fs_err::read_to_string(&file).unwrap();
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for (name, line, lines) in functions(&text) {
            if lines > MAX_LINES {
                long.push((rel.clone(), name, line, lines));
            }
        }
    }
    let unexpected: Vec<String> = long
        .iter()
        .filter(|(f, n, _, _)| !KNOWN.contains(&(f.as_str(), n.as_str())))
        .map(|(f, n, l, c)| format!("{f}:{l}: `{n}` has {c} lines"))
        .collect();
    assert!(
        unexpected.is_empty(),
        "functions over {MAX_LINES} lines (split them):\n{}",
        unexpected.join("\n")
    );
    let stale: Vec<String> = KNOWN
        .iter()
        .filter(|(f, n)| !long.iter().any(|(lf, ln, _, _)| lf == f && ln == n))
        .map(|(f, n)| format!("{f}: `{n}`"))
        .collect();
    assert!(
        stale.is_empty(),
        "no longer over {MAX_LINES} lines, remove from KNOWN:\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_counter_counts_code_lines_of_a_function() {
    let text = "fn a() {\n    // a comment\n\n    let s = \"}\";\n    x();\n}\nfn b(x: impl Fn() -> u8) -> u8 { x() }\n";
    assert_eq!(
        functions(text),
        [("a".to_string(), 1, 4), ("b".to_string(), 7, 1)]
    );
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in fs_err::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Each function of `text` with a body: its name, the line of its `fn`
/// (1-based) and its length in lines holding code.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let code = blank_out(text);
    let b = code.as_bytes();
    let lines: Vec<&str> = code.split('\n').collect();
    let line_of = |pos: usize| code[..pos].matches('\n').count();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(off) = code[at..].find("fn ") {
        let start = at + off;
        at = start + 3;
        if start > 0 && ident(b[start - 1]) {
            continue;
        }
        let name_start = at + code[at..].len() - code[at..].trim_start().len();
        let name_len = b[name_start..].iter().take_while(|c| ident(**c)).count();
        if name_len == 0 {
            continue;
        }
        let name = code[name_start..name_start + name_len].to_string();
        let Some(open) = body_start(b, name_start + name_len) else {
            continue;
        };
        let Some(close) = matching_brace(b, open) else {
            continue;
        };
        let (first, last) = (line_of(start), line_of(close));
        let count = lines[first..=last]
            .iter()
            .filter(|l| !l.trim().is_empty())
            .count();
        out.push((name, first + 1, count));
    }
    out
}

/// The `{` opening the body after a function's name, `None` for a
/// declaration (`;` first).
fn body_start(b: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in b.iter().enumerate().skip(from) {
        match c {
            b'(' | b'<' | b'[' => depth += 1,
            b')' | b'>' | b']' => depth -= 1,
            b';' if depth <= 0 => return None,
            b'{' if depth <= 0 => return Some(i),
            _ => {}
        }
    }
    None
}

fn matching_brace(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` with comments, strings and character literals blanked (newlines
/// kept), so that braces in them do not count and comment lines are blank.
fn blank_out(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let blank = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend(s.iter().map(|c| if *c == b'\n' { b'\n' } else { b' ' }));
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let end = if rest.starts_with(b"//") {
            i + rest.iter().position(|c| *c == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            i + find(rest, b"*/", 2).map_or(rest.len(), |p| p + 2)
        } else if let Some(hashes) = raw_string_start(b, i) {
            let close = [b"\"".as_slice(), &vec![b'#'; hashes]].concat();
            let open_len = 2 + hashes;
            i + find(rest, &close, open_len).map_or(rest.len(), |p| p + close.len())
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            i + (j + 1).min(rest.len())
        } else if let Some(len) = char_literal(rest) {
            i + len
        } else {
            out.push(b[i]);
            i += 1;
            continue;
        };
        blank(&mut out, &b[i..end]);
        i = end;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    (from..=hay.len().saturating_sub(needle.len())).find(|&p| hay[p..].starts_with(needle))
}

/// `r"…"` or `r#"…"#` starting at `i`: the number of `#`.
fn raw_string_start(b: &[u8], i: usize) -> Option<usize> {
    if b[i] != b'r' || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
        return None;
    }
    let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
    (b.get(i + 1 + hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of a character literal (`'a'`, `'\n'`, `'\''`) at the start
/// of `rest`; `None` for a lifetime.
fn char_literal(rest: &[u8]) -> Option<usize> {
    if rest.first() != Some(&b'\'') {
        return None;
    }
    if rest.get(1) == Some(&b'\\') {
        let close = rest[3..].iter().position(|c| *c == b'\'')?;
        return Some(close + 4);
    }
    let ch_len = match rest.get(1)? {
        c if *c < 0x80 => 1,
        c if *c >= 0xf0 => 4,
        c if *c >= 0xe0 => 3,
        _ => 2,
    };
    (rest.get(1 + ch_len) == Some(&b'\'')).then_some(ch_len + 2)
}
