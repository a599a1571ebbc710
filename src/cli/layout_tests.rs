//! The shape of `src/cli/`: a command's file (one with `pub fn run`) uses
//! the shared argument groups, the settings, the output module and the
//! library, never another command (what two commands share lives in a
//! shared file: `inputs.rs`, `lookup.rs`, `loader_args.rs`, `output.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The files of `dir` and its folders, without the `*_tests.rs` files (the
/// tables that parse every command line are tests of all commands).
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in fs_err::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if !path.to_string_lossy().ends_with("_tests.rs") {
                out.push(path);
            }
        }
    }
    out
}

/// The command modules of `src/cli/`: files and folders with a `pub fn run`.
fn commands(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in fs_err::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let file = if path.is_dir() {
            path.join("mod.rs")
        } else {
            path.clone()
        };
        let Ok(text) = fs_err::read_to_string(&file) else {
            continue;
        };
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem != "mod" && text.contains("\npub fn run(") {
            out.insert(stem);
        }
    }
    out
}

#[test]
fn no_command_uses_another_command() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let commands = commands(&dir);
    assert!(commands.contains("build") && commands.contains("check"));
    let mut found = Vec::new();
    for path in sources(&dir) {
        let own = path
            .strip_prefix(&dir)
            .unwrap()
            .components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default();
        let text = fs_err::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for part in code.split("super::").skip(1) {
                let module: String = part
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                // `build::cache` is an argument group of `build`, not the
                // command itself.
                let rest = &part[module.len()..];
                let child = rest
                    .strip_prefix("::")
                    .map(|r| r.split("::").next().unwrap_or_default())
                    .is_some_and(|c| dir.join(&module).join(format!("{c}.rs")).is_file());
                if module != own && commands.contains(&module) && !child {
                    found.push(format!("{}:{}: {module}", path.display(), i + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "commands using other commands (move what they share to a shared file):\n{}",
        found.join("\n")
    );
}

/// The library modules `src/cli/` may name (`stack::<module>`): `ops` (one
/// operation per command), `settings`, `diag` (the diagnostics the output
/// module renders) and the modules of the types commands render or
/// implement (the reporters progress bars draw, a recipe's fields, a build's
/// statuses) — never a stage's functions. The list only shrinks: a command
/// that stops using a module removes it here (the test fails until it
/// does), and no command starts using a new one.
const LIBRARY_MODULES: &[&str] = &[
    "ops",
    "settings",
    "diag",
    // types rendered or implemented
    "build",
    "build_kinds",
    "fetch",
    "recipes",
    "remote",
];

/// `stack::<module>` paths in `code` (comments aside), also in groups
/// (`stack::{a, b::C}`).
fn library_modules(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let code = line.split("//").next().unwrap_or_default();
        for part in code.split("stack::").skip(1) {
            match part.strip_prefix('{') {
                Some(group) => {
                    let group = group.split('}').next().unwrap_or_default();
                    out.extend(group.split(',').map(|g| ident(g.trim())));
                }
                None => {
                    out.insert(ident(part));
                }
            }
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

#[test]
fn commands_name_only_the_allowed_library_modules() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut unexpected = Vec::new();
    for path in sources(&dir) {
        let text = fs_err::read_to_string(&path).unwrap();
        for module in library_modules(&text) {
            if !LIBRARY_MODULES.contains(&module.as_str()) {
                unexpected.push(format!("{}: stack::{module}", path.display()));
            }
            used.insert(module);
        }
    }
    assert!(
        unexpected.is_empty(),
        "commands naming a library module beyond `ops` and the list (add an operation to `ops` instead):\n{}",
        unexpected.join("\n")
    );
    let unused: Vec<_> = LIBRARY_MODULES
        .iter()
        .filter(|m| !used.contains(**m))
        .collect();
    assert!(
        unused.is_empty(),
        "no command names these any more: take them off LIBRARY_MODULES: {unused:?}"
    );
}

#[test]
fn library_modules_reads_paths_and_groups() {
    let code = "use stack::ops::X;\nlet y = stack::fetch::f(); // stack::audit\nuse stack::{diag, settings::Env};\n";
    let got: Vec<String> = library_modules(code).into_iter().collect();
    assert_eq!(got, ["diag", "fetch", "ops", "settings"]);
}
