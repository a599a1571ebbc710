//! Spack's view of a version string: its components (runs of digits or of
//! letters, with the separators after them), `version[i]` and `up_to(n)`.

use crate::import::spack::evaluator::value::Value;

/// A component as Spack holds it: an `int` when numeric.
pub(crate) fn component_value(c: &str) -> Value {
    match c.parse::<i64>() {
        Ok(num) if c.chars().all(|ch| ch.is_ascii_digit()) => Value::Int(num),
        _ => Value::Str(c.to_string()),
    }
}

/// The components of a version as values (`list(version)`, unpacking).
pub(crate) fn component_values(v: &str) -> Vec<Value> {
    components(v)
        .unwrap_or_default()
        .iter()
        .map(|(c, _)| component_value(c))
        .collect()
}

/// Spack's version components: runs of digits or of letters, each with the
/// separators (`.`, `_`, `-`, possibly none) after it. `None` for a version
/// with other characters.
pub(crate) fn components(v: &str) -> Option<Vec<(String, String)>> {
    let mut out: Vec<(String, String)> = Vec::new();
    let chars: Vec<char> = v.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let digit = chars[i].is_ascii_digit();
        if !chars[i].is_ascii_alphanumeric() {
            return None;
        }
        let start = i;
        while i < chars.len()
            && chars[i].is_ascii_alphanumeric()
            && chars[i].is_ascii_digit() == digit
        {
            i += 1;
        }
        let comp: String = chars[start..i].iter().collect();
        let sep_start = i;
        while i < chars.len() && matches!(chars[i], '.' | '_' | '-') {
            i += 1;
        }
        out.push((comp, chars[sep_start..i].iter().collect()));
    }
    Some(out)
}

/// A component as a slice of a version writes it: Spack holds numeric
/// components as integers, so `Version("2.06").up_to(2)` is `2.6`.
fn as_spack_holds(c: &str) -> String {
    if !c.is_empty() && c.chars().all(|ch| ch.is_ascii_digit()) {
        let t = c.trim_start_matches('0');
        return if t.is_empty() { "0".into() } else { t.into() };
    }
    c.to_string()
}

/// `Version.up_to(n)` (Spack's `version[:n]`): the first `n` components with
/// the separators between them (numbers as integers: `2.06` up to 2 is
/// `2.6`); a negative `n` counts from the end.
pub fn up_to(version: &str, n: i64) -> String {
    let Some(comps) = components(version) else {
        return version.to_string();
    };
    let n = if n < 0 { comps.len() as i64 + n } else { n };
    let n = usize::try_from(n).unwrap_or(0).min(comps.len());
    let mut out = String::new();
    for (i, (c, sep)) in comps[..n].iter().enumerate() {
        out.push_str(&as_spack_holds(c));
        if i + 1 < n {
            out.push_str(sep);
        }
    }
    out
}

/// `version[k:]`: the components from the `k`-th on, with the separators
/// between them (`8.9.7.29-12` from 4 → `12`).
pub fn from(version: &str, k: i64) -> String {
    let Some(comps) = components(version) else {
        return version.to_string();
    };
    let k = if k < 0 { comps.len() as i64 + k } else { k };
    let k = usize::try_from(k).unwrap_or(0).min(comps.len());
    let rest = &comps[k..];
    let mut out = String::new();
    for (i, (c, sep)) in rest.iter().enumerate() {
        out.push_str(&as_spack_holds(c));
        if i + 1 < rest.len() {
            out.push_str(sep);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_split_into_spack_components() {
        assert_eq!(up_to("1.2rc3", 3), "1.2rc");
        assert_eq!(up_to("3.1-20210216", -1), "3.1");
        assert_eq!(up_to("1.2.3", 0), "");
        let c = components("2.0_beta-1").unwrap();
        let names: Vec<&str> = c.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["2", "0", "beta", "1"]);
        assert!(components("1.0+local").is_none());
    }

    #[test]
    fn components_from_an_index() {
        assert_eq!(from("8.9.7.29-12", 4), "12");
        assert_eq!(from("7.1.3-9.1", 3), "9.1");
        assert_eq!(from("1.2", 5), "");
        assert_eq!(up_to("8.9.7.29-12", 3), "8.9.7");
        // Spack holds numeric components as integers (astyle's `2.06`).
        assert_eq!(up_to("2.06", 2), "2.6");
        assert_eq!(from("2024.01.05", 1), "1.5");
    }
}
