//! The package's own part of a condition naming a variant, a platform or a
//! version twice, which the stack's spec syntax refuses
//! (`with when("@0.26:")` around `depends_on(…, when="@:0.25")`, a
//! `conflicts("jit=a", when="jit=b")`). Spack intersects the two: a
//! multi-valued variant holds both values (`jit=a,b`, which the stack
//! spells that way); two values of a single-valued variant or two
//! platforms, or two version ranges without a common version, never hold.

use crate::import::spack::evaluator::variant_info::VariantInfo;
use crate::spec::Spec;

/// `when` with repeated atoms merged as Spack merges them, or why it never
/// holds. A condition the stack's spec parser reads, or one this does not
/// make readable, is returned as it is.
pub(crate) fn merge_repeats(info: &[VariantInfo], when: &str) -> Result<String, String> {
    if Spec::parse(when).is_ok() {
        return Ok(when.to_string());
    }
    let own_end = when.find(['^', '%']).unwrap_or(when.len());
    let (own, deps) = when.split_at(own_end);
    let mut kept: Vec<String> = Vec::new();
    let mut versions: Vec<&str> = Vec::new();
    for tok in own.split_whitespace() {
        if let Some(v) = tok.strip_prefix('@') {
            if let Some(w) = versions.iter().find(|w| disjoint(w, v)) {
                return Err(format!("`@{w}` and `@{v}` have no version in common"));
            }
            versions.push(v);
            kept.push(tok.to_string());
            continue;
        }
        let pair = tok
            .split_once('=')
            .filter(|(k, v)| !k.is_empty() && !v.starts_with('=') && !tok.contains(['"', '\'']));
        let Some((k, v)) = pair else {
            kept.push(tok.to_string());
            continue;
        };
        let earlier = kept
            .iter()
            .position(|t| t.split_once('=').is_some_and(|(k2, _)| k2 == k));
        let Some(i) = earlier else {
            kept.push(tok.to_string());
            continue;
        };
        let old = kept[i]
            .split_once('=')
            .map(|(_, o)| o.to_string())
            .unwrap_or_default();
        let defs: Vec<&VariantInfo> = info.iter().filter(|d| d.name == k).collect();
        let multi = !defs.is_empty() && defs.iter().all(|d| d.multi);
        let single = !defs.is_empty() && defs.iter().all(|d| !d.multi && !d.is_bool);
        if multi {
            let mut values: Vec<&str> = old.split(',').collect();
            values.extend(v.split(',').filter(|x| !old.split(',').any(|o| o == *x)));
            kept[i] = format!("{k}={}", values.join(","));
        } else if (single || k == "platform") && old != v {
            return Err(format!("`{k}={old}` and `{k}={v}`: `{k}` has one value"));
        } else {
            kept.push(tok.to_string());
        }
    }
    let mut out = kept.join(" ");
    if !deps.is_empty() {
        out.push(' ');
        out.push_str(deps);
    }
    Ok(if Spec::parse(&out).is_ok() {
        out
    } else {
        when.to_string()
    })
}

/// Two version ranges (`0.26:`, `0:0.25`) without a common version.
fn disjoint(a: &str, b: &str) -> bool {
    match (
        Spec::parse(&format!("x@{a}")),
        Spec::parse(&format!("x@{b}")),
    ) {
        (Ok(x), Ok(y)) => !x.intersects(&y),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> Vec<VariantInfo> {
        let v = |name: &str, multi: bool| VariantInfo {
            name: name.into(),
            is_bool: false,
            values: None,
            multi,
            when: None,
            line: 1,
        };
        vec![v("jit", true), v("mode", false)]
    }

    /// Regression: these conditions were written as they are, and the
    /// stack refused to load the recipe (easi, gasnet, seissol, eckit;
    /// curl; acts-algebra-plugins, detray, gaudi, podio).
    #[test]
    fn repeated_atoms_merge_or_never_hold_as_spack_intersects_them() {
        let i = info();
        assert_eq!(
            merge_repeats(&i, "jit=impalajit jit=impalajit-llvm").unwrap(),
            "jit=impalajit,impalajit-llvm"
        );
        assert_eq!(
            merge_repeats(&i, "+x jit=a jit=b,a ^mpi").unwrap(),
            "+x jit=a,b ^mpi"
        );
        for never in [
            "mode=a mode=b",
            "platform=windows platform=darwin @:8.14",
            "@0.26: @0:0.25",
            "@39: @38",
            "@:1.1 @1.3:",
        ] {
            assert!(merge_repeats(&i, never).is_err(), "{never}");
        }
        // Overlapping ranges and readable conditions stay as written.
        for kept in ["@1: @:2", "jit=a mode=b", "@1.2: ^foo@1 ^foo@2"] {
            assert_eq!(merge_repeats(&i, kept).unwrap(), kept);
        }
    }
}
