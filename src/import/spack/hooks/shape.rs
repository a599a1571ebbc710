//! Method bodies of a known shape: an `autoreconf` that only bootstraps, a
//! hook that only caches test sources, a method under `@when(SPEC)`.

use crate::import::spack::directives::model::Method;

/// The condition of a method defined under `@when("SPEC")` (Spack's
/// multimethod: the method exists only for matching specs); `Err` for other
/// decorators.
pub(crate) fn method_when(m: &Method) -> Result<Option<String>, ()> {
    match m.decorators.as_slice() {
        [] => Ok(None),
        [d] => d
            .strip_prefix("when(\"")
            .and_then(|r| r.strip_suffix("\")"))
            .filter(|spec| !spec.contains('"'))
            .map(|spec| Some(crate::import::spack::evaluator::cond::normalize(spec)))
            .ok_or(()),
        _ => Err(()),
    }
}

/// An `autoreconf` method that only runs `./autogen.sh` (→ `autogen`) or
/// `autoreconf -fi`-like commands (→ `autoreconf`); `None` for anything else.
pub(crate) fn bootstrap_kind(body: &str) -> Option<&'static str> {
    let mut kind = None;
    let after_def = body
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("def "));
    for line in after_def.skip(1) {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l == "pass" {
            continue;
        }
        let neutral = l.contains("= which(\"bash\"")
            || l.contains("= which(\"sh\"")
            || l.contains("= which(\"autoreconf\"")
            || l.contains("= Executable(\"./autogen.sh\")")
            // The stack bootstraps in `source_subdir` (the configure directory).
            || l == "with working_dir(self.configure_directory):";
        if neutral {
            continue;
        }
        if l.contains("autogen.sh") || l == "autogen()" {
            kind = Some("autogen");
        } else if l.starts_with("autoreconf(") {
            kind = kind.or(Some("autoreconf"));
        } else {
            return None;
        }
    }
    kind
}

/// An `install()` whose body is only `make("install")`, the install the
/// build system does anyway: `Some(false)` when it passes `parallel=False`
/// (the install must run serially), `Some(true)` otherwise.
pub(crate) fn plain_make_install(body: &str) -> Option<bool> {
    let mut lines = body
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("def "))
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let parallel = match lines.next()? {
        "make(\"install\")" | "make(\"install\", parallel=True)" => true,
        "make(\"install\", parallel=False)" => false,
        _ => return None,
    };
    lines.next().is_none().then_some(parallel)
}

/// A hook whose body only calls `cache_extra_test_sources(…)`: it copies
/// sources for `spack test run` into the prefix, which the stack never runs.
pub(crate) fn only_caches_tests(body: &str) -> bool {
    let Some(def) = body.find("def ") else {
        return false;
    };
    let after = &body[def..];
    let Some(colon) = after.find("):") else {
        return false;
    };
    let mut rest = after[colon + 2..].trim_start();
    for quote in ["\"\"\"", "'''"] {
        if let Some(doc) = rest.strip_prefix(quote) {
            match doc.find(quote) {
                Some(end) => rest = doc[end + 3..].trim_start(),
                None => return false,
            }
        }
    }
    let mut calls = 0;
    while let Some(args) = rest.strip_prefix("cache_extra_test_sources(") {
        let mut depth = 1;
        let Some(end) = args.find(|c| {
            depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            depth == 0
        }) else {
            return false;
        };
        rest = args[end + 1..].trim_start();
        calls += 1;
    }
    calls > 0 && rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn autoreconf_methods_that_only_bootstrap_are_translated() {
        let autogen = "def autoreconf(self, spec, prefix):\n    bash = which(\"bash\")\n    bash(\"./autogen.sh\")\n";
        assert_eq!(bootstrap_kind(autogen), Some("autogen"));
        let reconf =
            "def autoreconf(self, spec, prefix):\n    autoreconf(\"--install\", \"--force\")\n";
        assert_eq!(bootstrap_kind(reconf), Some("autoreconf"));
        let when = "@when(\"@master\")\ndef autoreconf(self, spec, prefix):\n    sh = which(\"sh\", required=True)\n    sh(\"autogen.sh\")\n";
        assert_eq!(bootstrap_kind(when), Some("autogen"));
        let other = "def autoreconf(self, spec, prefix):\n    filter_file(\"a\", \"b\", \"c\")\n";
        assert_eq!(bootstrap_kind(other), None);
    }

    #[test]
    fn hooks_that_only_cache_test_sources_are_test_only() {
        let doc = "@run_after(\"install\")\ndef cache_test_sources(self):\n    \"\"\"Copy.\"\"\"\n    cache_extra_test_sources(self, join_path(\"a\", \"b\"))\n";
        assert!(only_caches_tests(doc));
        let more =
            "def c(self):\n    cache_extra_test_sources(self, \"t\")\n    install(\"x\", prefix)\n";
        assert!(!only_caches_tests(more));
        assert!(!only_caches_tests("def c(self):\n    pass\n"));
    }
}
