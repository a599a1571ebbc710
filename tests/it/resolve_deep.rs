//! `stack resolve --format tree` of a very deep dependency chain neither
//! recurses (a 35,000-deep chain overflowed the stack, exit 134) nor
//! indents without bound (its output would be quadratic in the depth).

use crate::harness::resolve::*;
use stack::resolve::ResolveOptions;
use stack::resolve::render::render_tree;

#[test]
fn a_deep_chain_renders_in_a_small_stack() {
    const N: usize = 600;
    let t = tempfile::tempdir().unwrap();
    let recipes = t.path().join("recipes");
    std::fs::create_dir_all(&recipes).unwrap();
    for i in 0..N {
        let dep = if i + 1 < N {
            format!("dependencies: [p{}]\n", i + 1)
        } else {
            String::new()
        };
        std::fs::write(
            recipes.join(format!("p{i}.yaml")),
            format!(
                "name: p{i}\ndescription: p\nversions:\n  - {{version: \"1.0\", url: https://example.org/p.tar.gz, sha256: {}}}\n{dep}build:\n  system: generic\n  install: []\n",
                "ab".repeat(32)
            ),
        )
        .unwrap();
    }
    let stack = t.path().join("s.yaml");
    std::fs::write(
        &stack,
        "name: s\nversion: \"1\"\ncompiler: gcc\nrepos: [recipes]\nenvironments:\n  e:\n    specs: [p0]\n",
    )
    .unwrap();
    let inputs = load(&stack, "local");
    let plan = resolve_inputs(&inputs, &ResolveOptions::default()).unwrap();
    // 64 KiB of stack: a recursive walk of 600 levels does not fit.
    let text = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || render_tree(&plan))
        .unwrap()
        .join()
        .expect("rendering the tree overflowed its stack");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().any(|l| l.contains("p599@1.0")), "{text}");
    assert!(
        lines.iter().any(|l| l.starts_with("… (level 65) └── ")),
        "{text}"
    );
    let longest = lines.iter().map(|l| l.len()).max().unwrap();
    assert!(longest < 400, "indentation grows without bound: {longest}");
}
