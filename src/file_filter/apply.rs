//! Applying a [`FileFilter`] to a file in a source tree.

use std::path::{Component, Path, PathBuf};

use regex::{Captures, Regex};

use super::{FileFilter, pyre};

#[derive(Debug, thiserror::Error)]
pub enum FilterError {
    #[error("filter of `{file}`: the path must be relative and stay inside the source tree")]
    Path { file: String },
    #[error("filter of `{file}`: no such file in the source tree")]
    Missing { file: String },
    #[error("filter of `{file}`: regex `{regex}`: {why}")]
    Regex {
        file: String,
        regex: String,
        why: String,
    },
    #[error("filter of `{file}`: replacement `{replace}` names group {group}, which {why}")]
    Group {
        file: String,
        replace: String,
        group: usize,
        why: &'static str,
    },
    #[error("filter of `{}`: the file is not UTF-8 text", .path.display())]
    NotText { path: PathBuf },
    #[error("filter of `{}`: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The compiled pattern of a filter (Python semantics, see [`pyre`]).
pub fn compile(f: &FileFilter) -> Result<Regex, FilterError> {
    let why = |why: String| FilterError::Regex {
        file: f.file.clone(),
        regex: f.regex.clone(),
        why,
    };
    let pattern = if f.string {
        regex::escape(&f.regex)
    } else {
        pyre::translate(&f.regex).map_err(why)?
    };
    Regex::new(&pattern).map_err(|e| why(e.to_string()))
}

/// Edit `root/f.file` in place; returns how many lines changed. Like Spack's
/// `filter_file`: the file is read with universal newlines (`\r\n` and `\r`
/// become `\n`) and every line (with its `\n`) is substituted on its own.
pub fn apply(root: &Path, f: &FileFilter) -> Result<usize, FilterError> {
    let rel = Path::new(&f.file);
    if f.file.is_empty()
        || rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(FilterError::Path {
            file: f.file.clone(),
        });
    }
    let path = root.join(rel);
    let io = |source| FilterError::Io {
        path: path.clone(),
        source,
    };
    if !path.is_file() {
        if f.ignore_absent {
            return Ok(0);
        }
        return Err(FilterError::Missing {
            file: f.file.clone(),
        });
    }
    let re = compile(f)?;
    let bytes = fs_err::read(&path).map_err(io)?;
    let text = String::from_utf8(bytes).map_err(|_| FilterError::NotText { path: path.clone() })?;
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out = String::with_capacity(text.len());
    let mut changed = 0;
    for line in text.split_inclusive('\n') {
        let new = substitute(&re, f, line)?;
        changed += usize::from(new != line);
        out.push_str(&new);
    }
    fs_err::write(&path, out).map_err(io)?;
    Ok(changed)
}

/// Python's `re.sub(pattern, repl, line)`: non-overlapping matches left to
/// right; an empty match right after another match is allowed, the search
/// moves one character on after an empty match.
fn substitute(re: &Regex, f: &FileFilter, line: &str) -> Result<String, FilterError> {
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while at <= line.len() {
        let Some(caps) = re.captures_at(line, at) else {
            break;
        };
        let m = caps.get(0).expect("group 0");
        out.push_str(&line[copied..m.start()]);
        out.push_str(&replacement(&caps, f)?);
        copied = m.end();
        at = if m.is_empty() {
            match line[m.end()..].chars().next() {
                Some(c) => m.end() + c.len_utf8(),
                None => break,
            }
        } else {
            m.end()
        };
    }
    out.push_str(&line[copied..]);
    Ok(out)
}

/// Spack's replacement rule: `\\` becomes `\`, then `\1`…`\9` become the
/// groups; nothing else is special.
fn replacement(caps: &Captures, f: &FileFilter) -> Result<String, FilterError> {
    let unescaped = f.replace.replace(r"\\", "\\");
    let mut out = String::new();
    let mut chars = unescaped.chars().peekable();
    while let Some(c) = chars.next() {
        let digit = chars.peek().and_then(|d| d.to_digit(10)).filter(|d| *d > 0);
        match (c, digit) {
            ('\\', Some(g)) => {
                chars.next();
                let group = g as usize;
                let err = |why| FilterError::Group {
                    file: f.file.clone(),
                    replace: f.replace.clone(),
                    group,
                    why,
                };
                if group >= caps.len() {
                    return Err(err("the regex does not have"));
                }
                out.push_str(
                    caps.get(group)
                        .ok_or_else(|| err("did not match"))?
                        .as_str(),
                );
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(regex: &str, replace: &str, string: bool) -> FileFilter {
        FileFilter {
            file: "Makefile".into(),
            regex: regex.into(),
            replace: replace.into(),
            string,
            ignore_absent: false,
        }
    }

    fn sub(f: &FileFilter, line: &str) -> String {
        substitute(&compile(f).unwrap(), f, line).unwrap()
    }

    #[test]
    fn substitution_follows_python() {
        // Each expectation is what `re.sub` of Python 3.11 gives.
        let f = filter(r"^CC\s*=.*$", "CC = cc", false);
        assert_eq!(sub(&f, "CC = gcc\n"), "CC = cc\n");
        assert_eq!(sub(&f, "XCC = gcc\n"), "XCC = gcc\n");
        let f = filter("x*", "-", false);
        assert_eq!(sub(&f, "abxd"), "-a-b--d-");
        let f = filter(r"(\w+)=(\d+)", r"\2=\1 \\1", false);
        assert_eq!(sub(&f, "a=1 b=2\n"), "1=a a 2=b b\n");
        let f = filter("$(CC)", "${CC}", true);
        assert_eq!(sub(&f, "\t$(CC) -o x\n"), "\t${CC} -o x\n");
        let f = filter(r"\s*$", "", false);
        assert_eq!(sub(&f, "a  \n"), "a");
    }

    #[test]
    fn files_are_edited_with_universal_newlines() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("Makefile"), "CC = gcc\r\nall:\r\n").unwrap();
        let n = apply(dir.path(), &filter("gcc", "cc", true)).unwrap();
        assert_eq!(n, 1);
        let text = fs_err::read_to_string(dir.path().join("Makefile")).unwrap();
        assert_eq!(text, "CC = cc\nall:\n");
        let bad = FileFilter {
            file: "../x".into(),
            ..filter("a", "b", true)
        };
        assert!(matches!(
            apply(dir.path(), &bad),
            Err(FilterError::Path { .. })
        ));
    }
}
