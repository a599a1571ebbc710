//! No input makes a loader panic: arbitrary text and mutated valid files go
//! through the three loaders, and every diagnostic they produce must render
//! (its spans lie inside the file).

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use stack::cluster::parse_cluster;
use stack::diag::{Diagnostics, SourceFile};
use stack::recipes::parse_package;
use stack::stacks::parse_stack_recipe;

fn shared(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/errors/_shared")
        .join(name);
    fs_err::read_to_string(p).unwrap()
}

fn seeds() -> Vec<String> {
    vec![
        shared("recipes/libgreet.yaml"),
        shared("recipes/hello.yaml"),
        shared("recipes/fakempi.yaml"),
        shared("stack.yaml"),
        shared("cluster.yaml"),
    ]
}

/// Run every loader on `text`; render every diagnostic.
fn load_all(text: &str) {
    let dir = std::env::temp_dir();
    let src = SourceFile::new(dir.join("fuzz/recipes/libgreet.yaml"), text);
    let mut d = Diagnostics::new();
    let _ = parse_package(&src, &dir.join("fuzz/recipes"), &mut d);
    let _ = parse_stack_recipe(&src, &mut d);
    let _ = parse_cluster(&src, &mut d);
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::none());
    for diag in &d {
        if let Some(loc) = diag.loc() {
            if diag.source.is_some() {
                assert!(
                    loc.offset + loc.len <= text.len(),
                    "span {}+{} outside a {}-byte file: {diag}",
                    loc.offset,
                    loc.len,
                    text.len()
                );
                assert!(text.is_char_boundary(loc.offset), "{diag}");
            }
        }
        let mut out = String::new();
        handler
            .render_report(&mut out, diag)
            .unwrap_or_else(|e| panic!("cannot render {diag}: {e}"));
    }
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, String),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let snippet = prop::sample::select(vec![
        ":", ": ", "-", "- ", "[", "]", "{", "}", "\"", "'", "#", "&a", "*a", "!!str ", "\t", "\n",
        "  ", "@", "+", "~", "^", "%", "=", ",", "{{", "}}", "{%", "é", "null", "~\n", "? ", "|\n",
        ">\n", "---\n", "...\n", "\u{feff}", "0x", "true", "[]", "{}",
    ])
    .prop_map(str::to_string);
    prop_oneof![
        (any::<usize>(), 0usize..20).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), snippet).prop_map(|(a, s)| Mutation::Insert(a, s)),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut s = text.to_string();
    match m {
        Mutation::Delete(at, n) => {
            let a = floor_boundary(&s, at % (s.len() + 1));
            let b = floor_boundary(&s, a + n);
            s.replace_range(a..b, "");
        }
        Mutation::Insert(at, snippet) => {
            let a = floor_boundary(&s, at % (s.len() + 1));
            s.insert_str(a, snippet);
        }
        Mutation::DuplicateLine(i) => {
            let mut lines: Vec<&str> = s.lines().collect();
            if !lines.is_empty() {
                let i = i % lines.len();
                lines.insert(i, lines[i]);
            }
            s = lines.join("\n");
        }
        Mutation::SwapLines(a, b) => {
            let mut lines: Vec<&str> = s.lines().collect();
            if !lines.is_empty() {
                let n = lines.len();
                lines.swap(a % n, b % n);
            }
            s = lines.join("\n");
        }
        Mutation::Truncate(at) => {
            let a = floor_boundary(&s, at % (s.len() + 1));
            s.truncate(a);
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_text_never_panics(text in "[ -~\t\n\u{e9}]{0,200}") {
        load_all(&text);
    }

    #[test]
    fn yaml_shaped_text_never_panics(
        text in r"((name|versions|variants|build|system|when|spec|url|git|- |  |\{|\}|\[|\]|: |, |\n|@|\+|~|default|values|environments|specs|packages|[a-z0-9.]{1,6}|#|'|\x22){0,60})"
    ) {
        load_all(&text);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        seed in 0usize..5,
        muts in prop::collection::vec(mutation(), 1..6),
    ) {
        let mut text = seeds()[seed].clone();
        for m in &muts {
            text = apply(&text, m);
        }
        load_all(&text);
    }
}

#[test]
fn the_seeds_load_cleanly_through_their_own_loader() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/errors/_shared");
    let src = SourceFile::read(dir.join("recipes/hello.yaml")).unwrap();
    let mut d = Diagnostics::new();
    assert!(parse_package(&src, &dir.join("recipes"), &mut d).is_some());
    assert!(d.is_empty(), "{d}");
}
