//! Forward checking and the narrower conflict sets ([`super::blame`]) only
//! prune what fails: on random repositories of small recipes (versions, a
//! variant, conditional dependencies with version ranges, conflicts), the
//! search finds the plan the plain backjumping search
//! ([`crate::resolve::ResolveOptions::plain_backjumping`]) finds. It may
//! find another, or one where the plain search fails: a clash refused at
//! once teaches its flip (`~x` → `+x`) even when another failure of the
//! same choice would have been met first (`p6@2` that no recipe has). Such
//! a plan must hold — the plain search, given every node of it as a root,
//! resolves to it — and differ only by those flips: the plain search,
//! required the plan's variant values, finds the same plan.

use std::path::Path;

use proptest::prelude::*;

use crate::resolve::{ResolveOptions, resolve};
use crate::stacks::{InputOptions, load_inputs};

const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";
const PACKAGES: usize = 8;

/// One recipe: how many versions (1..=3), the variant's default, and for
/// each version the dependencies (package index, lowest, highest version or
/// 0 for none, condition kind) and conflicts: `@v +x`, or `@v ^pJ@k` (a
/// dependency's version, checked once everything is decided) when `k` > 0.
#[derive(Clone, Debug)]
struct Pkg {
    versions: u8,
    default_x: bool,
    deps: Vec<(usize, u8, u8, u8)>,
    conflicts: Vec<(u8, usize, u8)>,
}

fn later_too(i: usize) -> std::ops::Range<usize> {
    (i + 1)..PACKAGES.max(i + 2)
}

fn pkg(i: usize) -> impl Strategy<Value = Pkg> {
    let later = later_too(i);
    (
        1u8..=3,
        any::<bool>(),
        prop::collection::vec((later, 0u8..=3, 0u8..=3, 0u8..=3), 0..5),
        prop::collection::vec((1u8..=3, later_too(i), 0u8..=3), 0..3),
    )
        .prop_map(|(versions, default_x, deps, conflicts)| Pkg {
            versions,
            default_x,
            deps: deps.into_iter().filter(|d| d.0 < PACKAGES).collect(),
            conflicts: conflicts
                .into_iter()
                .filter(|c| c.2 == 0 || c.1 < PACKAGES)
                .collect(),
        })
}

fn recipe(i: usize, p: &Pkg) -> String {
    let mut y = format!("name: p{i}\ndescription: p{i}\nversions:\n");
    for v in 1..=p.versions {
        y.push_str(&format!(
            "  - {{version: \"{v}\", url: https://example.org/p{i}-{v}.tgz, sha256: {SHA}}}\n"
        ));
    }
    y.push_str(&format!(
        "build: {{system: generic}}\nvariants:\n  x: {{default: {}}}\n",
        p.default_x
    ));
    if !p.deps.is_empty() {
        y.push_str("dependencies:\n");
        for (j, lo, hi, cond) in &p.deps {
            let range = match (lo, hi) {
                (0, 0) => String::new(),
                (0, h) => format!("@:{h}"),
                (l, 0) => format!("@{l}:"),
                (l, h) => format!("@{}:{}", l.min(h), l.max(h)),
            };
            let when = match cond {
                0 => String::new(),
                1 => ", when: \"+x\"".to_string(),
                2 => ", when: \"~x\"".to_string(),
                _ => ", when: \"@2:\"".to_string(),
            };
            y.push_str(&format!("  - {{spec: \"p{j}{range}\"{when}}}\n"));
        }
    }
    if !p.conflicts.is_empty() {
        y.push_str("conflicts:\n");
        for (v, j, k) in &p.conflicts {
            match k {
                0 => y.push_str(&format!("  - {{when: \"@{v} +x\"}}\n")),
                k => y.push_str(&format!("  - {{when: \"@{v} ^p{j}@{k}\"}}\n")),
            }
        }
    }
    y
}

/// The plan's nodes as `name@version variants`, sorted; `Err` when the
/// search fails.
/// The stack: `roots`, and per package of `required` (`p5 ~x`) a policy
/// requiring its variant values.
fn write_stack(dir: &Path, roots: &[String], required: &[String]) {
    let mut policies = String::new();
    if !required.is_empty() {
        policies.push_str("    packages:\n");
        for node in required {
            let (name, variants) = node.split_once(' ').unwrap_or((node, ""));
            let name = name.split('@').next().unwrap_or(name);
            policies.push_str(&format!("      {name}: {{require: \"{variants}\"}}\n"));
        }
    }
    fs_err::write(
        dir.join("stack.yaml"),
        format!(
            "name: t\nrepos: [{}]\nenvironments:\n  e:\n    specs: [{}]\n{policies}",
            dir.join("recipes").display(),
            roots.join(", ")
        ),
    )
    .unwrap();
}

/// A node of an outcome (`p3@2 ~x`) as a root pinning it (`"p3@=2 ~x"`).
fn pinned(node: &str) -> String {
    format!("\"{}\"", node.replacen('@', "@=", 1))
}

fn outcome(dir: &Path, plain_backjumping: bool) -> Result<Vec<String>, ()> {
    outcome_with(dir, plain_backjumping, true)
}

fn outcome_with(dir: &Path, plain_backjumping: bool, learn: bool) -> Result<Vec<String>, ()> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/resolve");
    let input = InputOptions {
        recipe: dir.join("stack.yaml"),
        cluster: Some(fixtures.join("cluster-configs/local")),
        no_builtin: true,
        ..InputOptions::default()
    };
    let inputs = load_inputs(&input).unwrap_or_else(|d| panic!("{d:#?}"));
    let opts = ResolveOptions {
        plain_backjumping,
        no_learning: !learn,
        ..ResolveOptions::default()
    };
    let plan = resolve(&inputs.recipe, &inputs.cluster, &inputs.repo, &opts).map_err(|_| ())?;
    let mut nodes: Vec<String> = plan
        .graph
        .node_weights()
        .map(|n| {
            let v: Vec<String> = n.variants.iter().map(|(k, v)| v.to_spec_text(k)).collect();
            format!("{}@{} {}", n.name, n.version, v.join(" "))
        })
        .collect();
    nodes.sort();
    Ok(nodes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Conflict learning ([`super::nogood`]) only refuses what would fail:
    /// the search finds the plan it finds without it, or fails as it does.
    #[test]
    fn learning_finds_the_plan_the_search_without_it_finds(
        pkgs in (0..PACKAGES).map(pkg).collect::<Vec<_>>(),
        root_version in 0u8..=3,
        second_root in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("recipes");
        fs_err::create_dir(&repo).unwrap();
        for (i, p) in pkgs.iter().enumerate() {
            fs_err::write(repo.join(format!("p{i}.yaml")), recipe(i, p)).unwrap();
        }
        let mut roots = vec![match root_version {
            0 => "p0".to_string(),
            v => format!("\"p0@{v}\""),
        }];
        if second_root {
            roots.push("p1".into());
        }
        write_stack(dir.path(), &roots, &[]);
        prop_assert_eq!(
            outcome_with(dir.path(), false, true),
            outcome_with(dir.path(), false, false)
        );
    }

    #[test]
    fn pruning_finds_the_plan_the_plain_search_finds(
        pkgs in (0..PACKAGES).map(pkg).collect::<Vec<_>>(),
        root_version in 0u8..=3,
        second_root in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("recipes");
        fs_err::create_dir(&repo).unwrap();
        for (i, p) in pkgs.iter().enumerate() {
            fs_err::write(repo.join(format!("p{i}.yaml")), recipe(i, p)).unwrap();
        }
        let mut roots = vec![match root_version {
            0 => "p0".to_string(),
            v => format!("\"p0@{v}\""),
        }];
        if second_root {
            roots.push("p1".into());
        }
        write_stack(dir.path(), &roots, &[]);
        let (pruned, plain) = (outcome(dir.path(), false), outcome(dir.path(), true));
        match (&pruned, &plain) {
            (Ok(nodes), _) if pruned != plain => {
                // it holds: pinned node by node, the plain search finds it
                let mut all = roots.clone();
                all.extend(nodes.iter().map(|n| pinned(n)));
                write_stack(dir.path(), &all, &[]);
                prop_assert_eq!(&outcome(dir.path(), true), &pruned);
                // and it differs only by flips the plain search did not
                // learn: given the variant values, it finds the same plan
                write_stack(dir.path(), &roots, nodes);
                prop_assert_eq!(&outcome(dir.path(), true), &pruned);
            }
            _ => prop_assert_eq!(&pruned, &plain),
        }
    }
}
