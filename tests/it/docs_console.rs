//! Docs that cannot drift, executed (issue 19): every ```` ```console ````
//! block of docs/*.md and README.md runs, command by command, in a copy of
//! the shipped recipes, stacks, cluster configurations and demo fixtures.
//!
//! - `$ CMD` lines are commands (`sh -c`, with this build's `stack` first on
//!   `PATH`); a trailing `# comment` is the doc's, not the shell's.
//! - Lines after a command, up to the next `$ `, are its expected output
//!   (stdout then stderr): each must appear, in order; `…` stands for any
//!   lines. A block that shows no output still runs (exit status 0).
//! - `? N` after a command expects exit status N.
//! - Everything every command printed is also an insta snapshot per block
//!   (`docs_console__<file>_<n>.snap`), so any change of output is seen.
//! - ```` ```console,no-run ```` blocks are not executed; the doc source must
//!   say why in an HTML comment just above (`<!-- no-run: … -->`): only
//!   commands that need long builds, images or a cluster.

use crate::docs_support;
use std::path::{Path, PathBuf};

use docs_support::{matches, run, workspace};

struct Block {
    file: String,
    line: usize,
    run: bool,
    reason: Option<String>,
    commands: Vec<Cmd>,
}

struct Cmd {
    line: String,
    expected: Vec<String>,
    status: i32,
}

fn blocks(file: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim_start();
        let Some(info) = l.strip_prefix("```console") else {
            i += 1;
            continue;
        };
        let run = info.trim() != ",no-run";
        let reason = (i > 0)
            .then(|| lines[i - 1].trim())
            .and_then(|p| p.strip_prefix("<!-- no-run:"))
            .map(|r| r.trim_end_matches("-->").trim().to_string());
        let mut b = Block {
            file: file.into(),
            line: i + 1,
            run,
            reason,
            commands: Vec::new(),
        };
        i += 1;
        while i < lines.len() && !lines[i].trim_start().starts_with("```") {
            let l = lines[i];
            if let Some(cmd) = l.strip_prefix("$ ") {
                let cmd = match cmd.find("  #") {
                    Some(p) => &cmd[..p],
                    None => cmd,
                };
                b.commands.push(Cmd {
                    line: cmd.trim().to_string(),
                    expected: Vec::new(),
                    status: 0,
                });
            } else if let Some(c) = b.commands.last_mut() {
                match l.strip_prefix("? ").and_then(|n| n.trim().parse().ok()) {
                    Some(n) => c.status = n,
                    None => c.expected.push(l.to_string()),
                }
            }
            i += 1;
        }
        out.push(b);
        i += 1;
    }
    out
}

#[test]
fn console_blocks_in_the_docs_run_as_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = fs_err::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.push(root.join("README.md"));
    let (mut executed, mut skipped, mut failures) = (0, 0, Vec::new());
    for f in &files {
        let name = f.strip_prefix(root).unwrap().display().to_string();
        let text = fs_err::read_to_string(f).unwrap();
        for (n, b) in blocks(&name, &text).into_iter().enumerate() {
            if !b.run {
                assert!(
                    b.reason.as_deref().is_some_and(|r| !r.is_empty()),
                    "{}:{}: a no-run block needs `<!-- no-run: why -->` above it",
                    b.file,
                    b.line
                );
                skipped += b.commands.len();
                continue;
            }
            let tmp = tempfile::tempdir().unwrap();
            workspace(root, tmp.path());
            let mut transcript = String::new();
            for c in &b.commands {
                let (code, text) = run(&c.line, tmp.path());
                executed += 1;
                if code != c.status {
                    failures.push(format!(
                        "{}:{}: `{}` exited {code}, the doc says {}:\n{text}",
                        b.file, b.line, c.line, c.status
                    ));
                } else if let Err(e) = matches(&c.expected, &text) {
                    failures.push(format!("{}:{}: `{}`: {e}\n{text}", b.file, b.line, c.line));
                }
                transcript.push_str(&format!("$ {}\n{text}? {code}\n", c.line));
            }
            let snap = format!("{}_{n}", name.replace(['/', '.'], "_"));
            insta::assert_snapshot!(snap, transcript);
        }
    }
    eprintln!(
        "docs-tests: {executed} documented commands executed, {skipped} not executed (no-run)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        executed >= 10,
        "only {executed} documented commands executed"
    );
}
