//! Property tests: ordering laws, round trips, and consistency of
//! `contains` / `intersect` / `satisfies` / `intersects` / `constrain`.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};

use proptest::prelude::*;

use super::*;

const WORDS: &[&str] = &[
    "a", "b", "rc", "alpha", "beta", "dev", "main", "develop", "master", "stable", "x", "final",
];

/// Version text: components joined by separators (a letter run may follow
/// digits directly), sometimes a git version.
fn version_text() -> impl Strategy<Value = String> {
    let component = prop_oneof![
        3 => (0u32..12).prop_map(|n| n.to_string()),
        1 => (0u32..200).prop_map(|n| format!("{n:03}")),
        2 => proptest::sample::select(WORDS).prop_map(str::to_string),
    ];
    let sep = proptest::sample::select(&[".", ".", ".", "-", "_", ""][..]);
    let plain = (
        component.clone(),
        proptest::collection::vec((sep, component), 0..4),
    )
        .prop_map(|(first, rest)| {
            let mut out = first;
            for (sep, c) in rest {
                let last_digit = out.ends_with(|c: char| c.is_ascii_digit());
                let next_digit = c.starts_with(|c: char| c.is_ascii_digit());
                // without a separator, two runs of the same kind would merge
                let sep = if sep.is_empty() && last_digit == next_digit {
                    "."
                } else {
                    sep
                };
                out.push_str(sep);
                out.push_str(&c);
            }
            out
        });
    let git_ref = proptest::sample::select(&["abc", "v1.2", "feature/x", "0123abcd"][..]);
    prop_oneof![
        6 => plain.clone(),
        1 => (git_ref, plain).prop_map(|(r, v)| format!("git.{r}={v}")),
    ]
}

/// Versions from a small pool, so that prefixes and equal bounds are common.
fn small_version_text() -> impl Strategy<Value = String> {
    let component = prop_oneof![
        4 => (1u32..4).prop_map(|n| n.to_string()),
        1 => proptest::sample::select(&["rc", "dev", "main", "rc1"][..]).prop_map(str::to_string),
    ];
    let plain = proptest::collection::vec(component, 1..4).prop_map(|cs| {
        let mut out = String::new();
        for c in cs {
            if !out.is_empty() && !c.starts_with("rc") {
                out.push('.');
            }
            out.push_str(&c);
        }
        out
    });
    prop_oneof![
        8 => plain.clone(),
        1 => plain.prop_map(|v| format!("git.r={v}")),
    ]
    .prop_filter("valid", |t| Version::parse(t).is_ok())
}

fn any_version_text() -> impl Strategy<Value = String> {
    prop_oneof![version_text(), small_version_text()]
}

fn version() -> impl Strategy<Value = Version> {
    any_version_text().prop_map(|t| Version::parse(&t).unwrap_or_else(|e| panic!("{t}: {e}")))
}

fn constraint_element() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => any_version_text(),
        1 => any_version_text().prop_map(|v| format!("={v}")),
        2 => (any_version_text(), any_version_text()).prop_map(|(a, b)| format!("{a}:{b}")),
        1 => any_version_text().prop_map(|v| format!(":{v}")),
        1 => any_version_text().prop_map(|v| format!("{v}:")),
        1 => Just(":".to_string()),
    ]
}

fn constraint() -> impl Strategy<Value = VersionConstraint> {
    proptest::collection::vec(constraint_element(), 1..4).prop_filter_map("empty range", |parts| {
        VersionConstraint::parse(&parts.join(",")).ok()
    })
}

/// Versions near the bounds of `cs`: the bounds themselves and versions just
/// above, below and inside them.
fn probes(cs: &[&VersionConstraint], extra: &[Version]) -> Vec<Version> {
    let mut out: Vec<Version> = extra.to_vec();
    for c in cs {
        for r in c.ranges() {
            let bounds: Vec<&Version> = match r {
                VersionRange::Exact(v) => vec![v],
                VersionRange::Between { lo, hi } => lo.iter().chain(hi.iter()).collect(),
            };
            for b in bounds {
                let plain = b.ref_version();
                let t = plain.as_str();
                out.push(b.clone());
                for derived in [
                    format!("{t}.0"),
                    format!("{t}.5"),
                    format!("{t}-dev"),
                    format!("{t}rc1"),
                    format!("{t}.1rc1"),
                    format!("git.zz={t}"),
                    format!("git.zz={t}.1"),
                    t.to_string(),
                ] {
                    if let Ok(v) = Version::parse(&derived) {
                        out.push(v);
                    }
                }
                for n in 1..plain.len() {
                    out.extend(plain.up_to(n));
                }
            }
        }
    }
    out
}

fn hash_of<T: Hash>(t: &T) -> u64 {
    let mut h = DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

const TARGETS: &[&str] = &[
    "zen2",
    "zen3",
    "neoverse_v2",
    "aarch64:",
    "x86_64:",
    ":zen3",
    "zen2:zen4",
    "x86_64_v3:",
    "neoverse_v1:,zen4",
];

fn variant_value() -> impl Strategy<Value = VariantValue> {
    prop_oneof![
        any::<bool>().prop_map(VariantValue::Bool),
        proptest::collection::btree_set(
            proptest::sample::select(&["cxi", "shm", "tcp", "80", "-O3 -g", "a,b", ""][..]),
            1..3
        )
        .prop_map(|s| VariantValue::Values(s.into_iter().map(str::to_string).collect())),
    ]
}

/// A spec without dependencies.
fn node(names: &'static [&'static str]) -> impl Strategy<Value = Spec> {
    (
        proptest::option::of(proptest::sample::select(names)),
        proptest::option::weighted(0.6, constraint()),
        proptest::collection::btree_map(
            proptest::sample::select(&["cuda", "debug", "fabrics", "cuda_arch"][..]),
            variant_value(),
            0..3,
        ),
        proptest::option::of((
            proptest::sample::select(&["gcc", "clang"][..]),
            proptest::option::of(constraint()),
        )),
        proptest::option::of(proptest::sample::select(TARGETS)),
        proptest::option::of(proptest::sample::select(&["linux", "darwin"][..])),
        proptest::option::of(proptest::sample::select(&["sles15", "ubuntu24.04"][..])),
        proptest::collection::btree_map(
            proptest::sample::select(&["cflags", "ldflags"][..]),
            (
                proptest::collection::vec(
                    proptest::sample::select(&["-O2", "-g", "-Wl,-z,now", "-DX=1"][..]),
                    1..3,
                ),
                any::<bool>(),
            ),
            0..2,
        ),
    )
        .prop_map(
            |(name, versions, variants, compiler, target, platform, os, flags)| Spec {
                name: name.map(str::to_string),
                versions: versions.unwrap_or_default(),
                variants: variants
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect::<BTreeMap<_, _>>(),
                compiler: compiler.map(|(n, v)| CompilerSpec {
                    name: n.to_string(),
                    versions: v.unwrap_or_default(),
                }),
                target: target.map(|t| TargetConstraint::parse(t).unwrap()),
                platform: platform.map(str::to_string),
                os: os.map(str::to_string),
                languages: BTreeMap::new(),
                flags: flags
                    .into_iter()
                    .map(|(k, (mut f, propagate))| {
                        f.dedup();
                        let flags = f.into_iter().map(str::to_string).collect();
                        (k.to_string(), FlagList { flags, propagate })
                    })
                    .collect(),
                deps: Vec::new(),
                virtuals: Default::default(),
            },
        )
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        node(&["foo", "libfabric"]),
        proptest::collection::btree_map(
            proptest::sample::select(&["libcxi", "json-c"][..]),
            node(&["x"]),
            0..3,
        ),
    )
        .prop_map(|(mut root, deps)| {
            root.deps = deps
                .into_iter()
                .map(|(name, mut d)| {
                    d.name = Some(name.to_string());
                    d
                })
                .collect();
            root
        })
}

/// `s` with some parts dropped: `s` always satisfies the result.
fn weaken(s: &Spec, mask: u16) -> Spec {
    let bit = |i: u16| mask & (1 << i) != 0;
    let mut w = s.clone();
    if bit(0) {
        w.name = None;
    }
    if bit(1) {
        w.versions = VersionConstraint::any();
    }
    if bit(2) {
        w.variants.pop_first();
    }
    if bit(3) {
        w.compiler = None;
    }
    if bit(4) {
        w.target = None;
    }
    if bit(5) {
        w.platform = None;
    }
    if bit(6) {
        w.os = None;
    }
    if bit(7) {
        w.deps.pop();
    }
    if bit(8) {
        if let Some(d) = w.deps.first_mut() {
            *d = weaken(d, mask >> 9 | 1 << 7);
            d.name = s.deps[0].name.clone();
        }
    }
    if let Some(VariantValue::Values(vals)) = w.variants.values_mut().next() {
        if bit(10) && vals.len() > 1 {
            vals.pop_first();
        }
    }
    w
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn version_order_is_total_and_consistent(a in version(), b in version(), c in version()) {
        prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        prop_assert_eq!(a == b, a.cmp(&b) == std::cmp::Ordering::Equal);
        if a == b {
            prop_assert_eq!(hash_of(&a), hash_of(&b));
        }
        if a <= b && b <= c {
            prop_assert!(a <= c, "{} <= {} <= {} but not {} <= {}", a, b, c, a, c);
        }
        if a < b && b < c {
            prop_assert!(a < c);
        }
        prop_assert_eq!(a.cmp(&a), std::cmp::Ordering::Equal);
    }

    #[test]
    fn version_display_round_trips(text in version_text()) {
        let v = Version::parse(&text).unwrap();
        prop_assert_eq!(v.to_string(), text.clone());
        let again = Version::parse(&v.to_string()).unwrap();
        prop_assert_eq!(&again, &v);
        prop_assert_eq!(again.git_ref(), v.git_ref());
    }

    #[test]
    fn prefix_and_up_to_agree(v in version()) {
        for n in 1..=v.len() {
            let p = v.up_to(n).unwrap();
            if !p.is_prerelease() {
                prop_assert!(p.is_prefix_of(&v), "{} is not a prefix of {}", p, v);
                let at_p = VersionConstraint::parse(p.as_str()).unwrap();
                prop_assert_eq!(at_p.contains(&v), v >= p, "@{} and {}", p, v);
            }
        }
    }

    #[test]
    fn constraint_display_round_trips(c in constraint()) {
        let text = c.to_string();
        let again = VersionConstraint::parse(&text).unwrap();
        prop_assert_eq!(&again, &c, "{}", text);
        prop_assert_eq!(again.to_string(), text);
    }

    #[test]
    fn intersect_contains_exactly_the_common_versions(
        a in constraint(), b in constraint(), extra in proptest::collection::vec(version(), 0..6)
    ) {
        let both = a.intersect(&b);
        prop_assert_eq!(both.is_some(), a.intersects(&b), "{} ∩ {} = {:?}", a, b, both.as_ref().map(|c| c.to_string()));
        prop_assert_eq!(a.intersects(&b), b.intersects(&a));
        for v in probes(&[&a, &b], &extra) {
            let in_both = a.contains(&v) && b.contains(&v);
            if in_both {
                prop_assert!(a.intersects(&b), "{} is in {} and {} but they do not intersect", v, a, b);
            }
            let in_result = both.as_ref().is_some_and(|c| c.contains(&v));
            prop_assert_eq!(in_result, in_both, "{} in {} ∩ {} = {:?}", v, a, b, both.as_ref().map(|c| c.to_string()));
            if a.is_subset_of(&b) && a.contains(&v) {
                prop_assert!(b.contains(&v), "{} ⊆ {} but {} only in the first", a, b, v);
            }
        }
        if let Some(c) = &both {
            prop_assert!(c.is_subset_of(&a) && c.is_subset_of(&b), "{} not inside {} and {}", c, a, b);
            prop_assert_eq!(&VersionConstraint::parse(&c.to_string()).unwrap(), c);
        }
    }

    #[test]
    fn spec_display_round_trips(s in spec()) {
        let text = s.to_string();
        let again = Spec::parse(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&again, &s, "{}", text);
        prop_assert_eq!(again.to_string(), text);
    }

    #[test]
    fn satisfies_implies_intersects(a in spec(), b in spec(), mask in any::<u16>()) {
        prop_assert!(a.satisfies(&a), "{} does not satisfy itself", a);
        let w = weaken(&a, mask);
        prop_assert!(a.satisfies(&w), "{} does not satisfy its weakening {}", a, w);
        for (x, y) in [(&a, &b), (&b, &a), (&a, &w), (&w, &a)] {
            if x.satisfies(y) {
                prop_assert!(x.intersects(y) && y.intersects(x), "{} satisfies {} but they do not intersect", x, y);
            }
            prop_assert_eq!(x.intersects(y), y.intersects(x), "intersects not symmetric: {} / {}", x, y);
        }
    }

    #[test]
    fn constrain_agrees_with_intersects(a in spec(), b in spec(), mask in any::<u16>()) {
        for other in [b.clone(), weaken(&a, mask), weaken(&b, mask)] {
            let mut merged = a.clone();
            match merged.constrain(&other) {
                Ok(changed) => {
                    prop_assert!(a.intersects(&other), "{} and {} merged but do not intersect", a, other);
                    prop_assert_eq!(changed, merged != a, "changed flag wrong for {} + {}", a, other);
                    prop_assert!(merged.satisfies(&other), "{} + {} = {} does not satisfy the constraint", a, other, merged);
                    prop_assert!(merged.satisfies(&a), "{} + {} = {} does not satisfy the original", a, other, merged);
                    let mut twice = merged.clone();
                    prop_assert_eq!(twice.constrain(&other), Ok(false), "not idempotent: {} + {}", merged, other);
                    let text = merged.to_string();
                    prop_assert_eq!(&Spec::parse(&text).unwrap(), &merged, "{}", text);
                }
                Err(conflict) => {
                    prop_assert!(!a.intersects(&other), "{} and {} intersect but constrain failed: {}", a, other, conflict);
                    prop_assert_eq!(&merged, &a);
                }
            }
        }
    }

    #[test]
    fn parser_never_panics(text in "\\PC{0,40}") {
        check_parse(&text)?;
    }

    #[test]
    fn parser_never_panics_on_spec_like_text(
        text in "[a-z0-9@:=,.+~%^ _\"'-]{0,40}|(foo|@|\\+|~| -|%gcc|\\^bar|target=|zen2|aarch64:|=|,|:|1\\.2|git\\.x=1| |fabrics=|\"a b\")*"
    ) {
        check_parse(&text)?;
    }
}

fn check_parse(text: &str) -> Result<(), TestCaseError> {
    match Spec::parse(text) {
        Ok(s) => {
            let shown = s.to_string();
            let again = Spec::parse(&shown)
                .map_err(|e| TestCaseError::fail(format!("{text:?} → {shown:?}: {e}")))?;
            prop_assert_eq!(&again, &s, "{:?} → {:?}", text, shown);
        }
        Err(e) => {
            prop_assert!(
                e.offset + e.len <= text.len(),
                "{:?}: span {:?}",
                text,
                e.range()
            );
            prop_assert!(
                text.is_char_boundary(e.offset) && text.is_char_boundary(e.offset + e.len)
            );
            prop_assert!(!e.message.is_empty());
            let mut out = String::new();
            miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
                .render_report(&mut out, &e)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }
    Ok(())
}

#[test]
fn probe_helpers_cover_bounds() {
    let c = VersionConstraint::parse("1.2:1.4").unwrap();
    let ps: BTreeSet<String> = probes(&[&c], &[]).iter().map(|v| v.to_string()).collect();
    assert!(ps.contains("1.4.5") && ps.contains("1.2rc1") && ps.contains("1"));
}
