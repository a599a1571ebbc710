//! Conditions and specs as the comparison reads them: both sides parsed by
//! the stack's spec parser and brought to the reading the oracle's record is
//! (Linux, x86_64), so that spellings that mean the same compare equal and
//! only a different meaning is a difference.
//!
//! - `platform=linux` always holds; another platform (`platform=darwin`,
//!   `os=windows`) never does: the entry is not for this reading (the
//!   importer leaves such entries out, docs/import.md).
//! - `target=x86_64:` always holds on the x86_64 reading; a target range
//!   that admits no x86_64 target (`target=aarch64:`, `arch=ppc64le:`)
//!   never does. Narrower x86_64 ranges (`target=zen2:`) stay.
//! - Per-architecture versions (`@=3.0-x86_64,=3.0-aarch64`, docs/import.md
//!   "read once per architecture") are the release (`@=3.0`); a version
//!   list only of `-aarch64` versions never holds here.
//! - The package's own name in a condition (`conflicts("pkg@:1.0")`) is the
//!   package itself; an edge's virtuals (`%mpi=openmpi`, written
//!   `^openmpi` by the importer, docs/import.md) are not compared.

use crate::import::spack::COMPILERS;
use crate::spec::{Spec, TargetConstraint, target_family};

/// A condition read for Linux on x86_64.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// It can hold: the spec it is (empty: always).
    Holds(Box<Spec>),
    /// The stack's parser does not read it: compared as its sorted words.
    Text(Vec<String>),
    /// It never holds on Linux x86_64.
    Never,
}

impl Cond {
    pub fn holds(&self) -> bool {
        !matches!(self, Cond::Never)
    }
}

/// Spack's spellings that the importer rewrites (docs/import.md): a range
/// followed by `key=value` without a space (`@1.1.0:platform=windows`).
fn respell(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        let split = ["platform=", "os=", "target=", "arch="]
            .iter()
            .filter_map(|k| word.find(k).filter(|&i| i > 0 && word[..i].ends_with(':')))
            .min();
        match split {
            Some(i) => {
                out.push_str(&word[..i]);
                out.push(' ');
                out.push_str(&word[i..]);
            }
            None => out.push_str(word),
        }
    }
    // A compiler named again without constraints (`%clang@:3.0 %clang`)
    // once.
    let words: Vec<&str> = out.split_whitespace().collect();
    let kept: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| {
            !(w.starts_with('%')
                && !w.contains(['@', '='])
                && words
                    .iter()
                    .any(|o| o != w && o.starts_with(&format!("{w}@"))))
        })
        .collect();
    // Spack 1.x's `%name` of a package that is not a compiler is a direct
    // dependency (`%meson@:1.0`); the stack spells it `^name`.
    let kept: Vec<String> = kept
        .iter()
        .map(|w| {
            let name_end = w[1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c)))
                .map_or(w.len(), |i| i + 1);
            let name = &w[1..name_end];
            let assignment = w[name_end..].starts_with('=');
            if w.starts_with('%') && !name.is_empty() && !assignment && !COMPILERS.contains(&name) {
                format!("^{}", &w[1..])
            } else {
                (*w).to_string()
            }
        })
        .collect();
    kept.iter()
        .map(|w| arch_words(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `arch=linux-rhel7-broadwell` is `platform=linux os=rhel7
/// target=broadwell`; `arch=ppc64le:` a target alone.
fn arch_words(w: &str) -> String {
    let Some(value) = w.strip_prefix("arch=") else {
        return w.to_string();
    };
    let parts: Vec<&str> = value.splitn(3, '-').collect();
    match parts.as_slice() {
        [p, o, t] => [("platform", p), ("os", o), ("target", t)]
            .iter()
            .filter(|(_, v)| !v.is_empty() && **v != "None")
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        _ => format!("target={value}"),
    }
}

/// `@…` version lists with per-architecture versions: `-x86_64` dropped,
/// `-aarch64` versions left out. `None`: a list left empty.
fn per_arch_versions(text: &str) -> Option<String> {
    if !text.contains("-x86_64") && !text.contains("-aarch64") {
        return Some(text.to_string());
    }
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        let Some(at) = word.find('@') else {
            out.push(word.to_string());
            continue;
        };
        let (head, list) = word.split_at(at + 1);
        let kept: Vec<String> = list
            .split(',')
            .filter(|v| !v.ends_with("-aarch64"))
            .map(|v| v.trim_end_matches("-x86_64").to_string())
            .collect();
        if kept.is_empty() {
            return None;
        }
        let mut kept_unique: Vec<String> = Vec::new();
        for k in kept {
            if !kept_unique.contains(&k) {
                kept_unique.push(k);
            }
        }
        out.push(format!("{head}{}", kept_unique.join(",")));
    }
    Some(out.join(" "))
}

fn words(s: &str) -> Vec<String> {
    let mut w: Vec<String> = s.split_whitespace().map(str::to_string).collect();
    w.sort();
    w.dedup();
    w
}

/// Every target of the x86_64 family.
fn x86_64_family() -> TargetConstraint {
    TargetConstraint::parse("x86_64:").expect("x86_64 is a known target")
}

/// The node (and its `^` dependencies) read for Linux x86_64; `false`:
/// it never holds here.
fn for_linux_x86_64(spec: &mut Spec) -> bool {
    match spec.platform.as_deref() {
        Some("linux") => spec.platform = None,
        Some(_) => return false,
        None => {}
    }
    if spec
        .os
        .as_deref()
        .is_some_and(|o| matches!(o, "windows" | "macos") || o.starts_with("windows"))
    {
        return false;
    }
    if let Some(t) = &spec.target {
        let x86: Vec<String> = t
            .targets()
            .into_iter()
            .filter(|n| target_family(n) == Some("x86_64"))
            .collect();
        if x86.is_empty() {
            return false;
        }
        if x86_64_family().is_subset_of(t) {
            spec.target = None;
        }
    }
    for d in &mut spec.deps {
        d.virtuals.clear();
        if !for_linux_x86_64(d) {
            return false;
        }
    }
    true
}

/// A condition (or spec) of package `own`, given as parts that hold
/// together (a conflict's spec and its `when`).
pub fn cond(parts: &[Option<&str>], own: &str) -> Cond {
    let mut texts = Vec::new();
    for p in parts.iter().flatten() {
        let Some(t) = per_arch_versions(&respell(p)) else {
            return Cond::Never;
        };
        if !t.trim().is_empty() {
            texts.push(t);
        }
    }
    let mut merged = Spec::default();
    for t in &texts {
        let Ok(mut s) = Spec::parse(t) else {
            return Cond::Text(words(&texts.join(" ")));
        };
        match s.name.as_deref() {
            Some(n) if n == own => s.name = None,
            // A spec naming another package is a condition on that
            // dependency (`conflicts("openfast@4.0.0:4.0.3")` is
            // `^openfast@4.0.0:4.0.3`, docs/import.md).
            Some(_) => {
                s = Spec {
                    deps: vec![s],
                    ..Spec::default()
                }
            }
            None => {}
        }
        if merged.constrain(&s).is_err() {
            return Cond::Text(words(&texts.join(" ")));
        }
    }
    if !for_linux_x86_64(&mut merged) {
        return Cond::Never;
    }
    Cond::Holds(Box::new(merged))
}

/// A dependency's spec (named): read like a condition, the name kept.
pub fn dep_spec(text: &str) -> Cond {
    let Some(t) = per_arch_versions(&respell(text)) else {
        return Cond::Never;
    };
    match Spec::parse(&t) {
        Ok(mut s) => {
            if for_linux_x86_64(&mut s) {
                Cond::Holds(Box::new(s))
            } else {
                Cond::Never
            }
        }
        Err(_) => Cond::Text(words(&t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(parts: &[Option<&str>]) -> Cond {
        cond(parts, "demo")
    }

    #[test]
    fn spellings_that_mean_the_same_compare_equal() {
        assert_eq!(
            holds(&[Some("+mpi"), Some("^mpich@4.0:4.0.3")]),
            holds(&[Some("+mpi ^mpich@4.0:4.0.3")])
        );
        assert_eq!(
            holds(&[Some("demo@:1.0 +beta")]),
            holds(&[Some("@:1.0 +beta")])
        );
        assert_eq!(
            holds(&[Some("@1.2: %mpi=openmpi")]),
            holds(&[Some("@1.2: ^openmpi")])
        );
        assert_eq!(
            holds(&[Some("build_system=meson platform=linux")]),
            holds(&[Some("build_system=meson")])
        );
        assert_eq!(holds(&[Some("@=3.0")]), holds(&[Some("@=3.0-x86_64")]));
        assert_eq!(
            holds(&[Some("@=3.0")]),
            holds(&[Some("@=3.0-x86_64,=3.0-aarch64")])
        );
        assert_eq!(holds(&[Some("target=x86_64:")]), holds(&[None]));
        assert_eq!(holds(&[Some("%meson@:1.0")]), holds(&[Some("^meson@:1.0")]));
        assert_eq!(
            holds(&[Some("openfast@4.0.0:4.0.3"), Some("+x")]),
            holds(&[Some("+x ^openfast@4.0.0:4.0.3")])
        );
        assert_eq!(
            holds(&[Some("arch=linux-rhel7-broadwell")]),
            holds(&[Some("platform=linux os=rhel7 target=broadwell")])
        );
        assert_eq!(
            holds(&[Some("%clang@:3.0 %clang")]),
            holds(&[Some("%clang@:3.0")])
        );
    }

    #[test]
    fn other_platforms_and_architectures_never_hold() {
        for c in [
            "platform=darwin",
            "@1.1.0:platform=windows +mpi",
            "target=aarch64:",
            "+mpi arch=ppc64le:",
            "@=3.0-aarch64",
        ] {
            assert_eq!(holds(&[Some(c)]), Cond::Never, "{c}");
        }
        assert!(holds(&[Some("target=zen2:")]).holds());
        assert_ne!(holds(&[Some("target=zen2:")]), holds(&[None]));
    }

    #[test]
    fn different_meanings_stay_different() {
        assert_ne!(holds(&[Some("+mpi")]), holds(&[Some("~mpi")]));
        assert_ne!(holds(&[Some("%gcc@:9")]), holds(&[Some("%gcc@:8")]));
        assert_ne!(dep_spec("cuda@11:"), dep_spec("cuda"));
    }
}
