//! `stack check`'s warnings for calls in package files that stack's package
//! API does not implement (`stack::unsupported-api`): the build would stop
//! there. The calls come from the importer's static reader (its collector
//! for package files run at build time, seam §5), applied to the package
//! files of every reachable `system: spack` recipe, each file once.
//!
//! [`COLLECTOR`] is that reader (`crate::import::spack::api_check` against
//! the shipped layer's `API.txt`); no Python runs at check time.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostic, Loc};
use crate::stacks::Inputs;

/// One call the layer lacks, as the collector reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedCall {
    /// Line in the package file (1-based).
    pub line: usize,
    /// The call or attribute as written (`spec.tree`, `sbang_install_path`).
    pub call: String,
}

/// Reads one package file statically; the calls the layer does not
/// implement (`API.txt` is the list of what it does), or why it could not
/// read the file.
pub type Collector = fn(&Path) -> Result<Vec<UnsupportedCall>, String>;

/// The importer's collector (seam §5).
pub const COLLECTOR: Option<Collector> = Some(importer_collector);

/// The importer's static reader against the shipped layer's `API.txt`:
/// `import X` for a module, the name or attribute as written otherwise;
/// cached under `settings::cache_base()` ([`super::api_check_cache`]).
fn importer_collector(path: &Path) -> Result<Vec<UnsupportedCall>, String> {
    let cache = Some(crate::settings::cache_base().join(super::api_check_cache::CACHE_DIR));
    super::api_check_cache::collect_cached(read_package_file, path, cache.as_deref())
}

/// [`importer_collector`] without the cache.
fn read_package_file(path: &Path) -> Result<Vec<UnsupportedCall>, String> {
    let gaps = crate::import::spack::api_check::package_file_gaps(path)?;
    Ok(gaps
        .into_iter()
        .map(|g| {
            let call = match g.what.split_once(' ') {
                Some(("module", m)) => format!("import {m}"),
                Some(("name" | "attribute", n)) => n.to_string(),
                _ => g.what,
            };
            UnsupportedCall { line: g.line, call }
        })
        .collect())
}

/// The warnings for the package files of the reachable packages whose
/// build logic runs at build time.
pub fn warnings(inputs: &Inputs, collect: Collector) -> Vec<Diagnostic> {
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut out = Vec::new();
    for name in &inputs.packages {
        let Some(recipe) = inputs.repo.get(name) else {
            continue;
        };
        if !recipe.build.system.kind.runs_build_logic() {
            continue;
        }
        for f in recipe.build.system.package_files() {
            if !seen.insert(f.path.clone()) {
                continue;
            }
            match collect(&f.path) {
                Ok(calls) => out.extend(calls.into_iter().map(|c| {
                    Diagnostic::warning(
                        Code::UnsupportedApi,
                        format!(
                            "`{}` is not implemented by stack's package API: building `{name}` stops here",
                            c.call
                        ),
                    )
                    .at(&Loc::new(f.path.clone(), c.line, 1), "not implemented")
                    .with_help(
                        "translate this method into the recipe's YAML, or change the package file \
                         (docs/import.md#supported-api lists what the layer implements)",
                    )
                    .about(name.clone())
                })),
                Err(why) => out.push(
                    Diagnostic::warning(
                        Code::UnsupportedApi,
                        format!("cannot check the calls of {}: {why}", f.file),
                    )
                    .at(&f.loc, "package file")
                    .about(name.clone()),
                ),
            }
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::stacks::{InputOptions, load_inputs};

    /// A collector for tests: each `spec.tree()` line is a call the
    /// layer lacks.
    pub(in crate::ops) fn collect(path: &Path) -> Result<Vec<UnsupportedCall>, String> {
        let text = fs_err::read_to_string(path).map_err(|e| e.to_string())?;
        Ok(text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains("spec.tree()"))
            .map(|(i, _)| UnsupportedCall {
                line: i + 1,
                call: "Spec.tree".into(),
            })
            .collect())
    }

    /// Each reachable package file is read once; every call becomes a
    /// warning at its package.py line, about the package.
    #[test]
    fn calls_become_warnings_at_their_package_file_lines() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        let file = t.join("spack/ns/p/package.py");
        fs_err::create_dir_all(file.parent().unwrap()).unwrap();
        let text = "class P:\n    def install(self, spec, prefix):\n        print(spec.tree())\n";
        fs_err::write(&file, text).unwrap();
        let sha = {
            use sha2::Digest;
            hex::encode(sha2::Sha256::digest(text.as_bytes()))
        };
        fs_err::create_dir_all(t.join("recipes")).unwrap();
        fs_err::write(
            t.join("recipes/p.yaml"),
            format!(
                "name: p\ndescription: d\nversions: [{{version: \"1\", url: \"https://e.org/p.tgz\", sha256: {}}}]\n\
                 build:\n  system: spack\n  package: {{file: ns/p/package.py, sha256: {sha}}}\n  \
                 imports: [{{file: ns/p/package.py, sha256: {sha}}}]\n",
                "0".repeat(64)
            ),
        )
        .unwrap();
        fs_err::write(
            t.join("s.yaml"),
            "name: s\nenvironments:\n  e: {specs: [p]}\n",
        )
        .unwrap();
        let inputs = load_inputs(&InputOptions {
            recipe: t.join("s.yaml"),
            cluster: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster-configs/local")),
            repos: vec![t.join("recipes")],
            ..InputOptions::default()
        })
        .unwrap_or_else(|d| panic!("{d:#?}"));
        let w = warnings(&inputs, collect);
        assert_eq!(w.len(), 1, "{w:#?}");
        let text = w[0].to_string();
        assert!(text.contains("package.py:3:"), "{text}");
        assert!(text.contains("`Spec.tree` is not implemented"), "{text}");
        assert_eq!(w[0].code, Code::UnsupportedApi);
        assert_eq!(w[0].subject.as_deref(), Some("p"));
    }
}
