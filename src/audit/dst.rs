//! Dynamic string tokens (`$ORIGIN`, `$LIB`, `$PLATFORM`) and search path
//! lists, following glibc's `_dl_dst_substitute` and `fillin_rpath`.

/// What a token expands to for one object.
#[derive(Clone, Copy, Debug)]
pub struct DstContext<'a> {
    /// Directory of the object (`None`: unknown, the element is dropped).
    pub origin: Option<&'a str>,
    pub lib: &'a str,
    pub platform: &'a str,
    /// Secure mode (set-uid/set-gid program).
    pub secure: bool,
    /// The object is the main program (`lt_executable`).
    pub is_main: bool,
    /// System directories with trailing slashes (trusted in secure mode).
    pub trusted: &'a [String],
}

/// Length of the token `name` at the start of `input` (after the `$`),
/// including braces, or 0 when it is not that token.
fn is_dst(input: &[u8], name: &str) -> usize {
    let (curly, body) = match input.first() {
        Some(b'{') => (true, &input[1..]),
        _ => (false, input),
    };
    let n = name.len();
    if !body.starts_with(name.as_bytes()) {
        return 0;
    }
    let next = body.get(n).copied();
    if curly {
        if next != Some(b'}') {
            return 0;
        }
        return n + 2;
    }
    if next.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
        return 0;
    }
    n
}

/// Whether `s` contains a token glibc knows (`_dl_dst_count`).
pub fn has_dst(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'$' && {
            let r = &b[i + 1..];
            is_dst(r, "ORIGIN") != 0 || is_dst(r, "PLATFORM") != 0 || is_dst(r, "LIB") != 0
        }
    })
}

/// Whether `s` uses `$ORIGIN`.
pub fn has_origin(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter()
        .enumerate()
        .any(|(i, &c)| c == b'$' && is_dst(&b[i + 1..], "ORIGIN") != 0)
}

/// Expands the tokens in `s` (one path element or one `DT_NEEDED` name).
/// `None` means a known token could not be expanded (or, in secure mode, the
/// result is not trusted): glibc drops the element.
pub fn expand(s: &str, ctx: &DstContext<'_>) -> Option<String> {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len() + 16);
    let mut i = 0;
    let mut check_trusted = false;
    let mut lit_start = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        out.push_str(&s[lit_start..i]);
        let rest = &b[i + 1..];
        let (len, repl): (usize, Option<&str>) = if let n @ 1.. = is_dst(rest, "ORIGIN") {
            check_trusted = ctx.secure && ctx.is_main;
            let after = rest.get(n).copied();
            if ctx.secure && !(i == 0 && (after.is_none() || after == Some(b'/'))) {
                (n, None)
            } else {
                (n, ctx.origin)
            }
        } else if let n @ 1.. = is_dst(rest, "PLATFORM") {
            (n, Some(ctx.platform))
        } else if let n @ 1.. = is_dst(rest, "LIB") {
            (n, Some(ctx.lib))
        } else {
            (0, None)
        };
        if len == 0 {
            out.push('$');
            i += 1;
        } else {
            out.push_str(repl?);
            i += 1 + len;
        }
        lit_start = i;
    }
    out.push_str(&s[lit_start..]);
    if check_trusted && !is_trusted(&out, ctx.trusted) {
        return None;
    }
    Some(out)
}

/// glibc's `is_trusted_path_normalize`: the lexically normalised path lies
/// in one of the trusted directories.
fn is_trusted(path: &str, trusted: &[String]) -> bool {
    if path.is_empty() {
        return false;
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let mut norm = String::from("/");
    for p in parts {
        norm.push_str(p);
        norm.push('/');
    }
    trusted.iter().any(|t| norm.starts_with(t.as_str()))
}

/// One element of a search path list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    pub raw: String,
    /// The directory searched, with a trailing `/` (`""` = the working
    /// directory); `None` when the element is dropped.
    pub dir: Option<String>,
}

/// Splits and expands a search path list (`fillin_rpath`): empty elements
/// mean the working directory, elements whose tokens cannot be expanded (or
/// that expand to nothing) are dropped, trailing slashes are normalised.
pub fn elements(raw: &str, seps: &[char], ctx: &DstContext<'_>) -> Vec<Element> {
    raw.split(seps)
        .map(|e| {
            let dir = if e.is_empty() {
                Some(String::new())
            } else {
                expand(e, ctx).filter(|x| !x.is_empty()).map(|x| {
                    let t = x.trim_end_matches('/');
                    if t.is_empty() {
                        "/".to_string()
                    } else {
                        format!("{t}/")
                    }
                })
            };
            Element {
                raw: e.to_string(),
                dir,
            }
        })
        .collect()
}

/// The directories of a search path list, de-duplicated, in order.
pub fn search_dirs(raw: &str, seps: &[char], ctx: &DstContext<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in elements(raw, seps, ctx) {
        if let Some(d) = e.dir {
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx<'a>(trusted: &'a [String]) -> DstContext<'a> {
        DstContext {
            origin: Some("/opt/app/bin"),
            lib: "lib/x86_64-linux-gnu",
            platform: "haswell",
            secure: false,
            is_main: true,
            trusted,
        }
    }

    #[test]
    fn expands_tokens() {
        let t = vec!["/usr/lib/".to_string()];
        let c = ctx(&t);
        assert_eq!(expand("$ORIGIN/../lib", &c).unwrap(), "/opt/app/bin/../lib");
        assert_eq!(expand("${ORIGIN}/x", &c).unwrap(), "/opt/app/bin/x");
        assert_eq!(
            expand("/a/$LIB/$PLATFORM", &c).unwrap(),
            "/a/lib/x86_64-linux-gnu/haswell"
        );
        assert_eq!(
            expand("/a/${LIB}x", &c).unwrap(),
            "/a/lib/x86_64-linux-gnux"
        );
        // Unknown tokens and identifier continuations stay literal.
        assert_eq!(
            expand("/a/$FOO/$ORIGINAL/$", &c).unwrap(),
            "/a/$FOO/$ORIGINAL/$"
        );
        assert_eq!(expand("/a/${ORIGIN", &c).unwrap(), "/a/${ORIGIN");
        let unknown = DstContext { origin: None, ..c };
        assert_eq!(expand("$ORIGIN/x", &unknown), None);
        assert!(has_origin("a:${ORIGIN}"));
        assert!(!has_origin("$ORIGINAL"));
        assert!(has_dst("/x/$LIB"));
    }

    #[test]
    fn secure_mode_rules() {
        let t = vec!["/usr/lib/".to_string()];
        let mut c = ctx(&t);
        c.secure = true;
        // Not at the start: dropped.
        assert_eq!(expand("/x$ORIGIN", &c), None);
        // At the start but not trusted (main program): dropped.
        assert_eq!(expand("$ORIGIN/../lib", &c), None);
        // Trusted after normalisation.
        c.origin = Some("/usr/bin");
        assert_eq!(expand("$ORIGIN/../lib", &c).unwrap(), "/usr/bin/../lib");
        // A library's $ORIGIN at the start is fine in secure mode.
        c.is_main = false;
        c.origin = Some("/opt/x");
        assert_eq!(expand("$ORIGIN/lib", &c).unwrap(), "/opt/x/lib");
        assert_eq!(expand("$LIB", &c).unwrap(), "lib/x86_64-linux-gnu");
    }

    #[test]
    fn path_lists() {
        let t = vec![];
        let c = ctx(&t);
        assert_eq!(
            search_dirs("/a/:/b//::rel:/a:$ORIGIN/:/", &[':'], &c),
            vec!["/a/", "/b/", "", "rel/", "/opt/app/bin/", "/"]
        );
        let unknown = DstContext { origin: None, ..c };
        assert_eq!(search_dirs("$ORIGIN:/x", &[':'], &unknown), vec!["/x/"]);
        assert_eq!(search_dirs("/a;/b", &[':', ';'], &c), vec!["/a/", "/b/"]);
    }
}
