//! Spack spellings of a spec that the stack's parser does not read, rewritten
//! to the stack's spelling where the meaning is the same (Spack's lexer
//! allows them: `BOOL_VARIANT = [~+-]\s*NAME`, version lists with spaces
//! around commas, a range's upper bound never being the key of a
//! `key=value`, a virtual assignment right after `^`/`%`).

/// `scotch + esmumps` → `scotch +esmumps`; `%gcc@:4.5.4, 7.1.0:` →
/// `%gcc@:4.5.4,7.1.0:`; `@1.1.2:platform=windows` → `@1.1.2: platform=windows`;
/// `libzmq@4.2.5:-libsodium` → `libzmq@4.2.5: ~libsodium`; `^mpi=openmpi` and
/// `%mpi=openmpi` (a virtual provided by a dependency) → `^openmpi`;
/// `%clang@:3.0 %clang` → `%clang@:3.0` (the second edge adds nothing).
pub fn spack_spelling(s: &str) -> String {
    let s = glue_bool_variants(&glue_commas(s));
    let s = split_versions(&s);
    drop_repeated_compilers(&virtual_assignments(&s))
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `+ name`, `~ name` → `+name`, `~name`.
fn glue_bool_variants(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        out.push(c);
        if c == '+' || c == '~' {
            let rest = &s[i + 1..];
            let trimmed = rest.trim_start();
            if trimmed.len() < rest.len() && trimmed.starts_with(is_name_char) {
                while chars.peek().is_some_and(|(_, c)| c.is_whitespace()) {
                    chars.next();
                }
            }
        }
    }
    out
}

/// Spaces around the commas of a version list.
fn glue_commas(s: &str) -> String {
    if !s.contains(',') {
        return s.to_string();
    }
    let parts: Vec<&str> = s.split(',').collect();
    let mut out = String::with_capacity(s.len());
    for (i, p) in parts.iter().enumerate() {
        let mut p = *p;
        if i > 0 {
            out.push(',');
            p = p.trim_start();
        }
        if i + 1 < parts.len() {
            p = p.trim_end();
        }
        out.push_str(p);
    }
    out
}

/// After `@`: an upper bound followed by `=` is a key (`@1.1.2:platform=x`),
/// and `-name` after a range's `:` is a disabled variant (`@4.2.5:-x`).
fn split_versions(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let mut rest = s;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..=at]);
        let after = &rest[at + 1..];
        let end = after
            .find(|c: char| c.is_whitespace() || "+~^%@=".contains(c))
            .unwrap_or(after.len());
        let token = &after[..end];
        let next = after[end..].chars().next();
        match token.rfind(':') {
            Some(colon)
                if next == Some('=')
                    && token[colon + 1..].starts_with(|c: char| c.is_ascii_alphabetic())
                    && !token[colon + 1..].contains(',') =>
            {
                out.push_str(&token[..=colon]);
                out.push(' ');
                out.push_str(&token[colon + 1..]);
            }
            Some(colon)
                if token[colon + 1..].starts_with('-')
                    && token[colon + 2..].starts_with(|c: char| c.is_ascii_alphabetic()) =>
            {
                out.push_str(&token[..=colon]);
                out.push_str(" ~");
                out.push_str(&token[colon + 2..]);
            }
            _ => out.push_str(token),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// `^mpi=openmpi`, `%tbb=intel-tbb` → `^openmpi`, `^intel-tbb` (language
/// virtuals, `%c=gcc`, are the compiler's and left alone).
fn virtual_assignments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(['^', '%']) {
        out.push_str(&rest[..i]);
        let after = rest[i + 1..].trim_start();
        if let Some((edge, tail)) = edge_attributes(&rest[i..=i], after) {
            out.push_str(&edge);
            rest = tail;
            continue;
        }
        let key_len = after
            .find(|c: char| !(is_name_char(c) || c == '-' || c == ','))
            .unwrap_or(after.len());
        let key = &after[..key_len];
        let is_assignment = key_len > 0
            && after[key_len..].starts_with('=')
            && after[key_len + 1..].starts_with(is_name_char);
        let language = key.split(',').all(|k| matches!(k, "c" | "cxx" | "fortran"));
        if is_assignment && !language {
            out.push('^');
            rest = &after[key_len + 1..];
        } else {
            out.push_str(&rest[i..=i]);
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// An edge with attributes, `^[virtuals=gl] osmesa`, `%[virtuals=c] gcc@15:`
/// (Spack 1.x: the dependency provides these virtuals), in the spelling of
/// a virtual assignment: `%c=gcc@15:` for languages (the compiler), else
/// `^osmesa` like `^gl=osmesa` (the provider as a dependency). Returns the
/// edge's sigil and name, and the text after the name.
fn edge_attributes<'a>(sigil: &str, after: &'a str) -> Option<(String, &'a str)> {
    let inner = after.strip_prefix('[')?;
    let close = inner.find(']')?;
    let mut virtuals = Vec::new();
    for attr in inner[..close].split_whitespace() {
        let (key, value) = attr.split_once('=')?;
        match key {
            "virtuals" => virtuals.extend(value.split(',').filter(|v| !v.is_empty())),
            // Dependency types say nothing about what the node is.
            "deptypes" => {}
            _ => return None,
        }
    }
    let tail = inner[close + 1..].trim_start();
    if !tail.starts_with(is_name_char) {
        return None;
    }
    let language = !virtuals.is_empty()
        && virtuals
            .iter()
            .all(|k| matches!(*k, "c" | "cxx" | "fortran"));
    Some(if sigil == "%" && language {
        (format!("%{}=", virtuals.join(",")), tail)
    } else {
        ("^".to_string(), tail)
    })
}

/// `%clang@:3.0 %clang`: a compiler named again without constraints (also
/// when conditions are merged) adds nothing.
pub(crate) fn drop_repeated_compilers(s: &str) -> String {
    let tokens: Vec<&str> = s.split_whitespace().collect();
    if tokens.iter().filter(|t| t.starts_with('%')).count() < 2 {
        return s.to_string();
    }
    let name_of = |c: &'_ str| c.split(['@', '+', '~']).next().unwrap_or("").to_string();
    let constrained: Vec<String> = tokens
        .iter()
        .filter_map(|t| t.strip_prefix('%'))
        .filter(|c| name_of(c) != *c)
        .map(&name_of)
        .collect();
    let mut bare_seen: Vec<&str> = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    for t in tokens {
        if let Some(c) = t.strip_prefix('%') {
            if name_of(c) == c {
                if constrained.iter().any(|n| n == c) || bare_seen.contains(&c) {
                    continue;
                }
                bare_seen.push(c);
            }
        }
        kept.push(t);
    }
    kept.join(" ")
}

#[cfg(test)]
mod tests {
    use super::{drop_repeated_compilers, spack_spelling};

    #[test]
    fn spack_spellings_become_the_stack_s() {
        assert_eq!(
            spack_spelling("scotch + esmumps ~ metis"),
            "scotch +esmumps ~metis"
        );
        assert_eq!(
            spack_spelling("@:1.5.0 %gcc@:4.5.4, 7.1.0:"),
            "@:1.5.0 %gcc@:4.5.4,7.1.0:"
        );
        assert_eq!(
            spack_spelling("@1.1.2:platform=windows"),
            "@1.1.2: platform=windows"
        );
        assert_eq!(
            spack_spelling("libzmq@4.2.5:-libsodium"),
            "libzmq@4.2.5: ~libsodium"
        );
        assert_eq!(spack_spelling("^mpi=openmpi"), "^openmpi");
        assert_eq!(
            spack_spelling("@:23.06 +mpi %mpi=openmpi"),
            "@:23.06 +mpi ^openmpi"
        );
        assert_eq!(spack_spelling("%clang@:3.0 %clang"), "%clang@:3.0");
        // Edge attributes (Spack 1.x): the provider of a virtual.
        assert_eq!(spack_spelling("+glx ^[virtuals=gl] osmesa"), "+glx ^osmesa");
        assert_eq!(spack_spelling("%[virtuals=c] gcc@15:"), "%c=gcc@15:");
        assert_eq!(
            spack_spelling("@1.35 ^[virtuals=iconv] libiconv"),
            "@1.35 ^libiconv"
        );
        // Left alone: compilers per language, `@=`, ranges, names with dashes.
        assert_eq!(spack_spelling("%fortran=aocc"), "%fortran=aocc");
        assert_eq!(spack_spelling("@=1.2 x=a,b"), "@=1.2 x=a,b");
        assert_eq!(spack_spelling("@:0.7.8,=0.8.1"), "@:0.7.8,=0.8.1");
        assert_eq!(
            spack_spelling("@1.2:1.4 ^intel-tbb@2021:"),
            "@1.2:1.4 ^intel-tbb@2021:"
        );
        assert_eq!(spack_spelling("%gcc %clang"), "%gcc %clang");
        assert_eq!(
            drop_repeated_compilers("+x %nvhpc %nvhpc@21.11:"),
            "+x %nvhpc@21.11:"
        );
    }
}
