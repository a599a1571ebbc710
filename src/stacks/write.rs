//! A stack recipe written back out as our YAML: [`StackRecipe::to_yaml`]
//! gives text that [`super::parse_stack_recipe`] reads back into the same
//! model (locations aside); defaults are left out.
//!
//! A new stack recipe key goes into the model (`model.rs`), the loader
//! (`load.rs`), this writer and `docs/recipes.md`; the round-trip test over
//! every stack recipe of `stacks/` and the fixtures fails when the writer
//! misses one.

use crate::cluster::{AuditConfig, Network, Policies};
use crate::diag::yaml_out::Yaml;
use crate::recipes::{EnvOp, EnvOpKind, SpecRef};

use super::model::*;

fn some_if<T>(keep: bool, value: T) -> Option<T> {
    keep.then_some(value)
}

fn specs(specs: &[SpecRef]) -> Yaml {
    Yaml::Seq(specs.iter().map(|s| Yaml::str(&s.text)).collect())
}

impl StackRecipe {
    /// The recipe as a YAML document.
    pub fn to_yaml(&self) -> String {
        let environments: Vec<(String, Yaml)> = self
            .environments
            .iter()
            .map(|e| (e.name.value.clone(), environment(e)))
            .collect();
        let repos: Vec<&String> = self.repos.iter().map(|r| &r.text).collect();
        let fallback: Vec<&String> = self.fallback_repos.iter().map(|r| &r.text).collect();
        let mirrors: Vec<&String> = self.mirrors.iter().map(|m| &m.text).collect();
        let path = |p: &Option<crate::recipes::PathRef>| p.as_ref().map(|p| Yaml::str(&p.text));
        Yaml::map([
            ("name", Some(Yaml::str(&self.name.value))),
            ("version", self.version.as_deref().map(Yaml::str)),
            ("description", self.description.as_deref().map(Yaml::str)),
            (
                "mount",
                some_if(
                    self.mount.as_os_str() != DEFAULT_MOUNT,
                    Yaml::str(self.mount.display().to_string()),
                ),
            ),
            (
                "compiler",
                self.compiler.as_ref().map(|c| Yaml::str(&c.text)),
            ),
            ("repos", some_if(!repos.is_empty(), Yaml::strs(&repos))),
            (
                "fallback_repos",
                some_if(!fallback.is_empty(), Yaml::strs(&fallback)),
            ),
            (
                "mirrors",
                some_if(!mirrors.is_empty(), Yaml::strs(&mirrors)),
            ),
            (
                "allow_unverified",
                some_if(self.allow_unverified, Yaml::Bool(true)),
            ),
            ("environments", Some(Yaml::Map(environments))),
            (
                "default_view",
                self.default_view.as_ref().map(|v| Yaml::str(&v.value)),
            ),
            ("modules", self.modules.as_ref().map(modules)),
            ("pre_install", path(&self.pre_install)),
            ("post_install", path(&self.post_install)),
            ("extra", path(&self.extra)),
            ("audit", audit(&self.audit)),
        ])
        .to_document()
    }
}

fn environment(e: &Environment) -> Yaml {
    let views: Vec<(String, Yaml)> = e
        .views
        .iter()
        .map(|v| (v.name.value.clone(), view(v)))
        .collect();
    Yaml::map([
        // Always written: an environment needs `specs` or `network`.
        ("specs", Some(specs(&e.specs))),
        ("network", e.network.as_ref().map(network)),
        (
            "variants",
            some_if(!e.variants.is_empty(), specs(&e.variants)),
        ),
        ("packages", policies(&e.packages)),
        ("views", some_if(!views.is_empty(), Yaml::Map(views))),
    ])
}

fn network(n: &Network) -> Yaml {
    Yaml::map([
        ("mpi", n.mpi.as_ref().map(|s| Yaml::str(&s.text))),
        ("specs", some_if(!n.specs.is_empty(), specs(&n.specs))),
    ])
}

/// A `packages:` block.
fn policies(p: &Policies) -> Option<Yaml> {
    let entries: Vec<(String, Yaml)> = p
        .entries
        .values()
        .map(|pol| {
            let externals = pol.externals.as_ref().map(|xs| {
                Yaml::Seq(
                    xs.iter()
                        .map(|x| {
                            Yaml::map([
                                ("spec", Some(Yaml::str(&x.spec.text))),
                                ("prefix", Some(Yaml::str(x.prefix.display().to_string()))),
                            ])
                        })
                        .collect(),
                )
            });
            let versions = pol
                .version
                .as_ref()
                .map(|vs| Yaml::Seq(vs.iter().map(|v| Yaml::str(&v.value)).collect()));
            let entry = Yaml::map([
                ("buildable", pol.buildable.map(Yaml::Bool)),
                ("externals", externals),
                ("require", pol.require.as_deref().map(specs)),
                ("prefer", pol.prefer.as_deref().map(specs)),
                ("version", versions),
            ]);
            (pol.name.clone(), entry)
        })
        .collect();
    some_if(!entries.is_empty(), Yaml::Map(entries))
}

fn view(v: &View) -> Yaml {
    let select: Vec<&String> = v.select.iter().map(|s| &s.value).collect();
    let exclude: Vec<&String> = v.exclude.iter().map(|s| &s.value).collect();
    let prefix_paths: Vec<(String, Yaml)> = v
        .prefix_paths
        .iter()
        .map(|(var, dirs)| (var.clone(), Yaml::strs(dirs)))
        .collect();
    let env_vars = env_vars(&v.env_vars);
    Yaml::map([
        (
            "link",
            some_if(v.link != ViewLink::Roots, Yaml::str(v.link.name())),
        ),
        ("select", some_if(!select.is_empty(), Yaml::strs(&select))),
        (
            "exclude",
            some_if(!exclude.is_empty(), Yaml::strs(&exclude)),
        ),
        ("description", v.description.as_deref().map(Yaml::str)),
        (
            "prefix_paths",
            some_if(!prefix_paths.is_empty(), Yaml::Map(prefix_paths)),
        ),
        (
            "env_vars",
            some_if(!env_vars.is_empty(), Yaml::Map(env_vars)),
        ),
        ("add_compilers", some_if(v.add_compilers, Yaml::Bool(true))),
    ])
}

/// `env_vars:` (views) and a module environment: `set`, `unset`,
/// `prepend_path`, `append_path` lists.
fn env_vars(ops: &[EnvOp]) -> Vec<(String, Yaml)> {
    let mut out = Vec::new();
    for kind in [
        EnvOpKind::Set,
        EnvOpKind::Unset,
        EnvOpKind::PrependPath,
        EnvOpKind::AppendPath,
    ] {
        let items: Vec<Yaml> = ops
            .iter()
            .filter(|op| op.kind == kind)
            .map(|op| match kind {
                EnvOpKind::Unset => Yaml::str(&op.var),
                _ => Yaml::Map(vec![(op.var.clone(), Yaml::str(&op.value))]),
            })
            .collect();
        if !items.is_empty() {
            out.push((kind.key().to_string(), Yaml::Seq(items)));
        }
    }
    out
}

fn modules(m: &Modules) -> Yaml {
    let projections: Vec<(String, Yaml)> = m
        .projections
        .iter()
        .map(|(k, v)| (k.clone(), Yaml::str(v)))
        .collect();
    Yaml::map([
        (
            "flavour",
            some_if(m.flavour == ModuleFlavour::Tcl, Yaml::str("tcl")),
        ),
        (
            "projections",
            some_if(!projections.is_empty(), Yaml::Map(projections)),
        ),
        (
            "hide_implicits",
            some_if(!m.hide_implicits, Yaml::Bool(false)),
        ),
        (
            "exclude_implicits",
            some_if(m.exclude_implicits, Yaml::Bool(true)),
        ),
        ("autoload", some_if(!m.autoload, Yaml::str("none"))),
        (
            "prefix_inspections",
            some_if(
                !m.prefix_inspections.is_empty(),
                Yaml::Map(
                    m.prefix_inspections
                        .iter()
                        .map(|(d, vars)| (d.clone(), Yaml::strs(vars)))
                        .collect(),
                ),
            ),
        ),
        ("exclude", some_if(!m.exclude.is_empty(), specs(&m.exclude))),
        ("include", some_if(!m.include.is_empty(), specs(&m.include))),
        (
            "environment",
            some_if(
                !m.environment.is_empty(),
                Yaml::Map(
                    m.environment
                        .iter()
                        .map(|(k, ops)| (k.value.clone(), Yaml::Map(env_vars(ops))))
                        .collect(),
                ),
            ),
        ),
    ])
}

fn audit(a: &AuditConfig) -> Option<Yaml> {
    let allow: Vec<&String> = a.allow.iter().map(|s| &s.value).collect();
    some_if(
        !allow.is_empty(),
        Yaml::map([("allow", Some(Yaml::strs(&allow)))]),
    )
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::diag::{Diagnostics, SourceFile, debug_without_locs};
    use crate::stacks::parse_stack_recipe;

    /// Every `*.yaml` below `dir` with a top-level `environments:`.
    fn stack_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                stack_files(&path, out);
            } else if path.extension().is_some_and(|x| x == "yaml")
                && fs_err::read_to_string(&path)
                    .is_ok_and(|t| t.lines().any(|l| l.starts_with("environments:")))
            {
                out.push(path);
            }
        }
    }

    #[test]
    fn every_stack_recipe_reads_back_as_the_same_model() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        stack_files(&root.join("stacks"), &mut files);
        stack_files(&root.join("tests/fixtures"), &mut files);
        files.sort();
        let mut checked = 0;
        for path in &files {
            let mut diags = Diagnostics::new();
            let src = SourceFile::read_input(path, "a stack recipe").unwrap();
            let Some(recipe) = parse_stack_recipe(&src, &mut diags) else {
                continue;
            };
            if diags.has_errors() {
                continue; // a fixture of errors
            }
            let text = recipe.to_yaml();
            let mut again = Diagnostics::new();
            let back = parse_stack_recipe(&SourceFile::new(path, text.clone()), &mut again);
            assert!(
                !again.has_errors(),
                "{}: the written recipe does not load:\n{text}",
                path.display()
            );
            assert_eq!(
                debug_without_locs(&recipe),
                debug_without_locs(&back.expect("loads")),
                "{}: written as\n{text}",
                path.display()
            );
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} of {} checked", files.len());
    }
}
