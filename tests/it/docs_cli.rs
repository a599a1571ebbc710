//! Docs that cannot drift from the CLI: docs/cli.md has a section for every
//! subcommand and names every option; every `stack …` command line shown in
//! docs/*.md and README.md parses (run with `--help` appended: an unknown
//! subcommand, flag or value fails).

use std::path::Path;
use std::process::Command;

use crate::harness::Stack;

/// The subcommands listed by `stack --help` (and their own subcommands).
fn subcommands() -> Vec<Vec<String>> {
    let listed = |args: &[&str]| -> Vec<String> {
        let (_, out, _) = Stack::bare()
            .args([args, &["--help"]].concat())
            .env("COLUMNS", "200")
            .run()
            .parts();
        let Some(start) = out.find("Commands:\n") else {
            return Vec::new();
        };
        out[start + 10..]
            .lines()
            .take_while(|l| l.starts_with("  "))
            // Continuation lines of wrapped descriptions are indented more.
            .filter(|l| !l.starts_with("   "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|c| *c != "help")
            .map(str::to_string)
            .collect()
    };
    let mut out = Vec::new();
    for c in listed(&[]) {
        let subs = listed(&[c.as_str()]);
        if subs.is_empty() {
            out.push(vec![c]);
        } else {
            out.extend(subs.into_iter().map(|s| vec![c.clone(), s]));
        }
    }
    out
}

fn long_options(help: &str) -> Vec<String> {
    help.lines()
        // Option lines are indented 2 (`-j, --jobs`) or 6 (`--lock`)
        // spaces; descriptions more.
        .filter(|l| (2..8).contains(&(l.len() - l.trim_start().len())))
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix("-")
                .filter(|_| l.len() > 3 && l.as_bytes()[2] == b',')
                .map(|_| &l[4..])
                .unwrap_or(l);
            l.strip_prefix("--")
                .map(|rest| format!("--{}", rest.split([' ', '=', '.']).next().unwrap_or("")))
        })
        .filter(|o| o != "--help" && o != "--version")
        .collect()
}

#[test]
fn cli_md_covers_every_subcommand_and_option() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cli = fs_err::read_to_string(root.join("docs/cli.md")).unwrap();
    let mut missing = Vec::new();
    let cmds = subcommands();
    assert!(cmds.len() > 10, "{cmds:?}");
    for cmd in &cmds {
        let words = cmd.join(" ");
        if !cli.contains(&format!("## `stack {words}")) {
            missing.push(format!("no section `## stack {words}`"));
        }
        let args: Vec<&str> = cmd.iter().map(String::as_str).chain(["--help"]).collect();
        let (code, help, _) = Stack::bare()
            .args(&args)
            .env("COLUMNS", "200")
            .run()
            .parts();
        assert_eq!(code, 0, "{words}");
        if words != "completions" && !help.contains("Examples:") {
            missing.push(format!("`stack {words} --help` has no examples"));
        }
        for opt in long_options(&help) {
            if !cli.contains(&opt) {
                missing.push(format!("`stack {words} {opt}` is not in docs/cli.md"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// `stack …` command lines in the Markdown files: fenced code blocks and
/// indented lines, `$ ` prompts and trailing comments removed; synopsis
/// lines (with `[`, `<`, `…`, `|`) skipped.
fn documented_commands(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && !line.starts_with("    ") {
            continue;
        }
        let l = line.trim();
        let l = l.strip_prefix("$ ").unwrap_or(l);
        // Leading VAR=value assignments.
        let l = l
            .split_whitespace()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect::<Vec<_>>()
            .join(" ");
        let l = l.split("  #").next().unwrap().split(" # ").next().unwrap();
        let l = l.split(['|', '>']).next().unwrap();
        for part in l.split("&&").map(str::trim) {
            // Output lines that start with `stack ` (`stack \`demo\` for …`)
            // and synopsis lines are not commands.
            if !part.starts_with("stack ")
                || ['[', '<', '…', '`'].iter().any(|c| part.contains(*c))
                || part.ends_with('\\')
            {
                continue;
            }
            out.push((i + 1, part.to_string()));
        }
    }
    out
}

#[test]
fn every_documented_command_line_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for e in fs_err::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    files.sort();
    let mut bad = Vec::new();
    let mut count = 0;
    for f in &files {
        let text = fs_err::read_to_string(f).unwrap();
        for (line, cmd) in documented_commands(&text) {
            count += 1;
            let words: Vec<&str> = cmd
                .split_whitespace()
                .skip(1)
                .map(|w| w.trim_matches(['\'', '"']))
                .collect();
            // `--help` before a `--` (after it, it belongs to the command run).
            let mut args = words.clone();
            let at = args.iter().position(|w| *w == "--").unwrap_or(args.len());
            args.insert(at, "--help");
            let (code, _, err) = Stack::bare()
                .args(&args)
                .env("COLUMNS", "200")
                .run()
                .parts();
            if code != 0 {
                bad.push(format!(
                    "{}:{line}: `{cmd}`: {}",
                    f.strip_prefix(root).unwrap().display(),
                    err.lines()
                        .find(|l| l.contains("error"))
                        .unwrap_or(err.trim())
                ));
            }
        }
    }
    assert!(count >= 40, "only {count} command lines found");
    assert!(
        bad.is_empty(),
        "{} of {count} documented command lines do not parse:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The README's command table names every subcommand (issue 36: it lacked
/// `import`, `push`, `pull`, `verify`, `key`, `images`), and the README says
/// where `cargo build` puts the binary and how to put it on `PATH`.
#[test]
fn the_readme_lists_every_command_and_how_to_install_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs_err::read_to_string(root.join("README.md")).unwrap();
    let table: String = readme
        .split("## What it does")
        .nth(1)
        .expect("a `## What it does` section")
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with('|'))
        .collect::<Vec<_>>()
        .join("\n");
    let missing: Vec<String> = subcommands()
        .iter()
        .map(|c| c.join(" "))
        .filter(|c| !table.contains(&format!("`stack {c}")))
        .collect();
    assert!(
        missing.is_empty(),
        "README's command table lacks: {}",
        missing.join(", ")
    );
    for needle in [
        "target/release/stack",
        "PATH",
        "stack-wrap",
        "cargo install --path .",
    ] {
        assert!(
            readme.contains(needle),
            "the README does not mention {needle}"
        );
    }
}

/// docs/benchmarks.md is what scripts/benchmarks-page.sh writes from the
/// recorded runs (benches/results/*.tsv): every figure with its command.
#[test]
fn the_benchmarks_page_is_generated_from_the_recorded_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join("scripts/benchmarks-page.sh"))
        .arg("--check")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for f in fs_err::read_dir(root.join("benches/results")).unwrap() {
        let p = f.unwrap().path();
        let text = fs_err::read_to_string(&p).unwrap();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.starts_with('#'))
        {
            let fields: Vec<&str> = line.split('\t').collect();
            assert!(
                fields.len() == 5 && fields.iter().all(|f| !f.trim().is_empty()),
                "{}:{}: expected section, what, figure, command, when",
                p.display(),
                i + 1
            );
        }
    }
}
