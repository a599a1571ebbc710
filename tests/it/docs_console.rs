//! Docs that cannot drift, executed (issue 19, issue 36): every console
//! example of docs/*.md and README.md runs, in a copy of the shipped
//! recipes, stacks, cluster configurations and demo fixtures, or is marked
//! as not run, with the reason.
//!
//! - ```` ```console ```` blocks: `$ CMD` lines are commands (`sh -c`, with
//!   this build's `stack` first on `PATH`); a trailing `# comment` is the
//!   doc's, not the shell's. Lines after a command, up to the next `$ `,
//!   are its expected output (stdout then stderr): each must appear, in
//!   order; `…` stands for any lines. A block that shows no output still
//!   runs (exit status 0). `? N` after a command expects exit status N.
//!   Everything every command printed is also an insta snapshot per block
//!   (`docs_console__<file>_<n>.snap`), so any change of output is seen.
//! - ```` ```sh ```` (`bash`, `shell`) blocks run as one script (`sh -e`)
//!   and must exit 0.
//! - A block marked `no-run` in its fence (```` ```sh no-run: why ````,
//!   ```` ```console,no-run ```` with `<!-- no-run: why -->` above) is not
//!   executed; the reason is required: only commands that need long
//!   builds, images, a registry, a cluster or a site's directories.
//! - A console example anywhere else is an error: a ```` ```text ```` block
//!   or an indented block with `$ ` lines, or an indented `stack …` line
//!   that is not a synopsis (no `RECIPE`, `[…]`, `A|B` placeholders).

use std::path::{Path, PathBuf};

use crate::harness::docs::{matches, run, workspace};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Console,
    Shell,
}

struct Block {
    file: String,
    line: usize,
    kind: Kind,
    run: bool,
    reason: Option<String>,
    commands: Vec<Cmd>,
    /// A shell block's text.
    script: String,
}

struct Cmd {
    line: String,
    expected: Vec<String>,
    status: i32,
}

/// The examples of one Markdown file, and the console examples found
/// outside a runnable block (problems).
fn blocks(file: &str, text: &str) -> (Vec<Block>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut problems = Vec::new();
    let mut i = 0;
    let mut prev_blank = true;
    while i < lines.len() {
        let l = lines[i].trim_start();
        let Some(info) = l.strip_prefix("```") else {
            // An indented block (after a blank line, outside a list).
            if prev_blank && lines[i].starts_with("    ") && !lines[i].trim().is_empty() {
                let start = i;
                while i < lines.len()
                    && (lines[i].starts_with("    ") || lines[i].trim().is_empty())
                {
                    if let Some(p) = stray_example(lines[i].trim_start()) {
                        problems.push(format!(
                            "{file}:{}: {p} in an indented block (block at line {}): fence it as ```console or ```sh (or mark it no-run with the reason)",
                            i + 1,
                            start + 1
                        ));
                    }
                    i += 1;
                }
                prev_blank = true;
                continue;
            }
            prev_blank = lines[i].trim().is_empty();
            i += 1;
            continue;
        };
        let lang = info
            .split(|c: char| c == ',' || c.is_whitespace())
            .next()
            .unwrap_or("");
        let kind = match lang {
            "console" => Some(Kind::Console),
            "sh" | "bash" | "shell" => Some(Kind::Shell),
            _ => None,
        };
        let no_run = info.contains("no-run");
        let reason = info
            .split_once("no-run:")
            .map(|(_, r)| r.trim().to_string())
            .or_else(|| {
                (i > 0)
                    .then(|| lines[i - 1].trim())
                    .and_then(|p| p.strip_prefix("<!-- no-run:"))
                    .map(|r| r.trim_end_matches("-->").trim().to_string())
            });
        let mut b = Block {
            file: file.into(),
            line: i + 1,
            kind: kind.unwrap_or(Kind::Shell),
            run: !no_run,
            reason,
            commands: Vec::new(),
            script: String::new(),
        };
        let fence_line = i + 1;
        i += 1;
        while i < lines.len() && !lines[i].trim_start().starts_with("```") {
            let l = lines[i];
            if kind.is_none() && l.starts_with("$ ") {
                problems.push(format!(
                    "{file}:{}: a `$ ` command in a ```{lang} block (line {fence_line}): use ```console",
                    i + 1
                ));
            }
            b.script.push_str(l);
            b.script.push('\n');
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
        if kind.is_some() {
            out.push(b);
        }
        i += 1;
        prev_blank = false;
    }
    (out, problems)
}

/// Why an indented line is a console example: a `$ ` command, or a
/// `stack …` command that is no synopsis (a synopsis names placeholders:
/// `RECIPE`, `[--flag]`, `A|B`, `…`).
fn stray_example(line: &str) -> Option<&'static str> {
    if line.starts_with("$ ") {
        return Some("a `$ ` command");
    }
    let rest = line.strip_prefix("stack ")?;
    let command = rest.split(" #").next().unwrap_or(rest);
    let placeholder = command.contains(['[', '|', '…'])
        || command.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        });
    (!placeholder).then_some("a `stack` command")
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
        let (found, problems) = blocks(&name, &text);
        failures.extend(problems);
        for (n, b) in found.into_iter().enumerate() {
            if !b.run {
                if b.reason.as_deref().is_none_or(str::is_empty) {
                    failures.push(format!(
                        "{}:{}: a no-run block needs its reason (```sh no-run: why, or `<!-- no-run: why -->` above)",
                        b.file, b.line
                    ));
                }
                skipped += b.commands.len().max(1);
                continue;
            }
            let tmp = tempfile::tempdir().unwrap();
            workspace(root, tmp.path());
            if b.kind == Kind::Shell {
                let (code, text) = run(&format!("set -e\n{}", b.script), tmp.path());
                executed += 1;
                if code != 0 {
                    failures.push(format!(
                        "{}:{}: the sh block exited {code}:\n{text}",
                        b.file, b.line
                    ));
                }
                continue;
            }
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

#[test]
fn examples_outside_runnable_blocks_are_found() {
    let text = "Text\n\n    stack check stacks/demo.yaml\n\n    stack check RECIPE [--cluster DIR]\n\n```text\n$ stack list\n```\n\n```sh no-run: needs a cluster\nsrun stack build x\n```\n";
    let (found, problems) = blocks("t.md", text);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].contains("t.md:3: a `stack` command"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].contains("t.md:8: a `$ ` command in a ```text block"),
        "{}",
        problems[1]
    );
    assert_eq!(found.len(), 1);
    assert!(!found[0].run);
    assert_eq!(found[0].reason.as_deref(), Some("needs a cluster"));
}
