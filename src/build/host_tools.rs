//! The host programs a build may run: the base tools, and the executables
//! of build dependencies that are externals in system prefixes.
//!
//! A build's `PATH` does not hold the host's `/usr/bin`: a tool the recipe
//! did not declare is not found, and the failure names it
//! ([`undeclared_tool`]). What every build needs (a POSIX shell and
//! utilities, `make`, archivers, binutils) is the fixed [`BASE_TOOLS`] set,
//! exposed as symlinks in a private directory of the stage (`<stage>/tools`),
//! together with the programs of the build system itself (`cmake` for
//! `system: cmake`, `meson` and `ninja` for meson) and the executables of
//! build dependencies installed in `/usr` (a recipe's `executables:`, by
//! default the package name).

use std::path::{Path, PathBuf};

use super::job::BuildSystem;

/// Where host programs are looked for, in order.
pub const HOST_BIN_DIRS: &[&str] = &["/usr/bin", "/bin"];

/// The programs every build may use without declaring them (docs/build.md).
pub const BASE_TOOLS: &[&str] = &[
    // shells and POSIX utilities
    "sh",
    "bash",
    "dash",
    "env",
    "cat",
    "cp",
    "mv",
    "rm",
    "ln",
    "ls",
    "mkdir",
    "rmdir",
    "chmod",
    "touch",
    "install",
    "sed",
    "grep",
    "egrep",
    "fgrep",
    "awk",
    "gawk",
    "mawk",
    "find",
    "xargs",
    "sort",
    "uniq",
    "head",
    "tail",
    "tr",
    "cut",
    "wc",
    "expr",
    "test",
    "[",
    "true",
    "false",
    "echo",
    "printf",
    "basename",
    "dirname",
    "readlink",
    "realpath",
    "pwd",
    "date",
    "sleep",
    "tee",
    "cmp",
    "diff",
    "comm",
    "uname",
    "hostname",
    "id",
    "whoami",
    "mktemp",
    "od",
    "stat",
    "sync",
    "nproc",
    "getconf",
    "which",
    "join",
    "paste",
    "fold",
    "seq",
    "md5sum",
    "sha256sum",
    "chown",
    "ldd",
    "file",
    "kill",
    "nice",
    "timeout",
    "tput",
    // the rest of GNU coreutils (NCCL's Makefiles run `fmt`, others `tac`, `nl`, …)
    "fmt",
    "nl",
    "pr",
    "tac",
    "split",
    "csplit",
    "base64",
    "cksum",
    "sum",
    "sha1sum",
    "sha224sum",
    "sha384sum",
    "sha512sum",
    "truncate",
    "dd",
    "du",
    "df",
    "shuf",
    "tsort",
    "printenv",
    "yes",
    "expand",
    "unexpand",
    "numfmt",
    "chgrp",
    "link",
    "unlink",
    "tty",
    "logname",
    // make and archives
    "make",
    "gmake",
    "tar",
    "gzip",
    "gunzip",
    "zcat",
    "bzip2",
    "xz",
    "unxz",
    "patch",
    // binutils
    "ar",
    "as",
    "ld",
    "ld.bfd",
    "ld.gold",
    "nm",
    "ranlib",
    "strip",
    "objcopy",
    "objdump",
    "readelf",
    "strings",
    "size",
    "c++filt",
    "addr2line", // stack's own relocation step
    "patchelf",
];

/// The programs a build system runs itself (a recipe with `system: cmake`
/// declares CMake by that), when no dependency provides them first.
pub fn build_system_tools(system: &BuildSystem) -> &'static [&'static str] {
    system.kind().map_or(&[], |k| k.tools())
}

/// The [`build_system_tools`] found on this host.
pub fn system_tools(system: &BuildSystem) -> Vec<HostTool> {
    build_system_tools(system)
        .iter()
        .filter_map(|name| find_in(name, HOST_BIN_DIRS.iter().map(Path::new)))
        .collect()
}

/// A host program to expose: its name on the build `PATH` and its target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostTool {
    pub name: String,
    pub target: PathBuf,
}

/// The base tools found on this host.
pub fn base_tools() -> Vec<HostTool> {
    BASE_TOOLS
        .iter()
        .filter_map(|name| find_in(name, HOST_BIN_DIRS.iter().map(Path::new)))
        .collect()
}

/// The executables of a package installed in the system prefix `prefix`:
/// each name of `executables` in `<prefix>/bin` (a trailing `*` matches
/// every program starting with the rest, e.g. `aclocal-*`).
pub fn external_tools(prefix: &Path, executables: &[String]) -> Vec<HostTool> {
    let bin = prefix.join("bin");
    let mut out = Vec::new();
    for exe in executables {
        if let Some(stem) = exe.strip_suffix('*') {
            let Ok(rd) = std::fs::read_dir(&bin) else {
                continue;
            };
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(stem))
                .collect();
            names.sort();
            out.extend(names.iter().filter_map(|n| find_in(n, [bin.as_path()])));
        } else if let Some(t) = find_in(exe, [bin.as_path()]) {
            out.push(t);
        }
    }
    out
}

fn find_in<'a>(name: &str, dirs: impl IntoIterator<Item = &'a Path>) -> Option<HostTool> {
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| super::package::is_executable(p))
        .map(|target| HostTool {
            name: name.to_string(),
            target,
        })
}

/// Fill `dir` (created, emptied first) with a symlink per tool (the first
/// of a name wins).
pub fn populate(dir: &Path, tools: &[HostTool]) -> std::io::Result<()> {
    if dir.exists() {
        fs_err::remove_dir_all(dir)?;
    }
    fs_err::create_dir_all(dir)?;
    for t in tools {
        let link = dir.join(&t.name);
        if link.symlink_metadata().is_err() {
            fs_err::os::unix::fs::symlink(&t.target, &link)?;
        }
    }
    Ok(())
}

/// The program a failed command could not find, from its output (`text`,
/// the end of the log): the shells' `X: command not found` / `X: not found`
/// and make's `make: X: No such file or directory`. Only plain names
/// count (a path that does not exist is not a missing tool).
pub fn undeclared_tool(text: &str) -> Option<String> {
    text.lines().rev().find_map(missing_in_line)
}

/// The last program a whole log says was not found, with its line (from
/// 1): for a tool whose absence only warned (`config.status: perl: command
/// not found`) and made the build fail much later.
pub fn undeclared_tool_in_log(text: &str) -> Option<(String, usize)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| missing_in_line(l).map(|t| (t, i + 1)))
        .last()
}

fn missing_in_line(line: &str) -> Option<String> {
    let line = line.trim_end();
    // meson: `Did not find pkg-config by name 'pkg-config'`
    if let Some(rest) = line.strip_prefix("Did not find pkg-config by name '") {
        return rest.strip_suffix('\'').map(str::to_string);
    }
    let before = line
        .strip_suffix(": command not found")
        .or_else(|| line.strip_suffix(": not found"))
        .or_else(|| {
            line.starts_with("make")
                .then(|| line.strip_suffix(": No such file or directory"))
                .flatten()
        })?;
    let name = before.rsplit(": ").next()?.trim();
    let plain = !name.is_empty()
        && !name.contains('/')
        && !name.contains(' ')
        && !name.starts_with("make")
        && !name.contains('*');
    plain.then(|| name.to_string())
}

/// Whether `name` is a program of the host (in [`HOST_BIN_DIRS`]).
pub fn on_host(name: &str) -> Option<PathBuf> {
    find_in(name, HOST_BIN_DIRS.iter().map(Path::new)).map(|t| t.target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_tools_from_shell_and_make_output() {
        assert_eq!(
            undeclared_tool("./build.sh: line 3: autoreconf: command not found\n").as_deref(),
            Some("autoreconf")
        );
        assert_eq!(
            undeclared_tool("sh: 1: python3: not found\n==> failed: exit status 127").as_deref(),
            Some("python3")
        );
        assert_eq!(
            undeclared_tool(
                "make: m4: No such file or directory\nmake: *** [Makefile:2: all] Error 127"
            )
            .as_deref(),
            Some("m4")
        );
        assert_eq!(
            undeclared_tool("Did not find pkg-config by name 'pkg-config'\nFound Pkg-config: NO")
                .as_deref(),
            Some("pkg-config")
        );
        assert_eq!(undeclared_tool("sh: 1: ./configure: not found"), None);
        let log = "checking for perl... \n./config.status: line 2061: perl: command not found\n\
                   noise\nmake: *** [all] Error 1\n";
        assert_eq!(
            undeclared_tool_in_log(log),
            Some(("perl".to_string(), 2)),
            "the last missing tool of the whole log, with its line"
        );
        assert_eq!(
            undeclared_tool("cc: error: x.c: No such file or directory"),
            None
        );
        assert_eq!(undeclared_tool("all good"), None);
    }

    #[test]
    fn populate_links_base_and_external_tools() {
        let d = tempfile::tempdir().unwrap();
        let prefix = d.path().join("usr");
        fs_err::create_dir_all(prefix.join("bin")).unwrap();
        for n in ["aclocal", "aclocal-1.16", "automake", "other"] {
            let p = prefix.join("bin").join(n);
            fs_err::write(&p, "#!/bin/sh\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            fs_err::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let ext = external_tools(&prefix, &["automake".into(), "aclocal*".into()]);
        let names: Vec<&str> = ext.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["automake", "aclocal", "aclocal-1.16"]);
        let mut tools = base_tools();
        assert!(tools.iter().any(|t| t.name == "sh"), "{tools:?}");
        tools.extend(ext);
        let dir = d.path().join("tools");
        populate(&dir, &tools).unwrap();
        assert_eq!(
            fs_err::read_link(dir.join("automake")).unwrap(),
            prefix.join("bin/automake")
        );
        assert!(dir.join("sh").exists() && !dir.join("other").exists());
    }
}
