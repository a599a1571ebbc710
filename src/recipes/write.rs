//! A package recipe written back out as our YAML: [`PackageRecipe::to_yaml`]
//! gives text that [`super::parse_package`] reads back into the same model
//! (locations aside). Defaults are left out, so a recipe keeps the shape a
//! person would write.
//!
//! A new recipe key is added in four places that a test ties together: the
//! model (`package.rs`/`build.rs`), its loader (`load/mod.rs`/`load/build.rs`),
//! this writer, and `docs/recipes.md`. The round-trip test below reads
//! every recipe of the repository and of the test fixtures, writes it and
//! reads it again: a key the writer forgets makes the two models differ.

use crate::build_kinds::KeyType;
use crate::diag::yaml_out::Yaml;

use super::build::{
    Build, BuildSystem, Filter, InstallAction, PackageFileRef, Phase, Relocate, Setting, Toggle,
    plain_words,
};
use super::env::{EnvOp, EnvOpKind};
use super::imported::Imported;
use super::located::{ArgList, When};
use super::package::*;

impl PackageRecipe {
    /// The recipe as a YAML document.
    pub fn to_yaml(&self) -> String {
        let mut top: Vec<(&str, Option<Yaml>)> = vec![
            ("name", Some(Yaml::str(&self.name))),
            ("description", Some(Yaml::str(&self.description))),
            ("homepage", self.homepage.as_deref().map(Yaml::str)),
            (
                "versions",
                Some(Yaml::Seq(self.versions.iter().map(version).collect())),
            ),
        ];
        let mut variants: Vec<(String, Yaml)> = Vec::new();
        for v in &self.variants {
            match variants.iter_mut().find(|(n, _)| *n == v.name) {
                // Several definitions (per `when`): a list.
                Some((_, Yaml::Seq(defs))) => defs.push(variant(v)),
                Some((_, first)) => {
                    let one = std::mem::replace(first, Yaml::Seq(Vec::new()));
                    *first = Yaml::Seq(vec![one, variant(v)]);
                }
                None => variants.push((v.name.clone(), variant(v))),
            }
        }
        top.push((
            "variants",
            some_if(!variants.is_empty(), Yaml::Map(variants)),
        ));
        let lists: [(&str, Vec<Yaml>); 7] = [
            (
                "dependencies",
                self.dependencies.iter().map(dependency).collect(),
            ),
            ("conflicts", self.conflicts.iter().map(conflict).collect()),
            ("patches", self.patches.iter().map(patch).collect()),
            ("resources", self.resources.iter().map(resource).collect()),
            ("provides", self.provides.iter().map(provide).collect()),
            (
                "executables",
                self.executables.iter().map(Yaml::str).collect(),
            ),
            ("libraries", self.libraries.iter().map(Yaml::str).collect()),
        ];
        for (key, items) in lists {
            top.push((key, some_if(!items.is_empty(), Yaml::Seq(items))));
        }
        top.push(("build_tool", some_if(self.build_tool, Yaml::Bool(true))));
        top.push(("build", Some(build(&self.build))));
        top.push(("env", env_ops(&self.env)));
        top.push(("dependent_build_env", env_ops(&self.dependent_build_env)));
        top.push(("imported", self.imported.as_ref().map(imported)));
        Yaml::map(top).to_document()
    }
}

fn when(w: &Option<When>) -> Option<Yaml> {
    w.as_ref().map(|w| Yaml::str(&w.text))
}

fn some_if<T>(keep: bool, value: T) -> Option<T> {
    keep.then_some(value)
}

fn version(v: &VersionEntry) -> Yaml {
    let mut m: Vec<(&str, Option<Yaml>)> = vec![("version", Some(Yaml::str(&v.text)))];
    match &v.source {
        Source::Archive(a) => {
            m.push(("url", Some(Yaml::str(&a.url_text))));
            m.push(("sha256", a.sha256.as_deref().map(Yaml::str)));
            m.push(("expand", some_if(!a.expand, Yaml::Bool(false))));
            m.push(("max_size", a.max_size.as_ref().map(|s| Yaml::str(&s.text))));
            let resources: Vec<Yaml> = a.resources.iter().map(resource).collect();
            m.push((
                "resources",
                some_if(!resources.is_empty(), Yaml::Seq(resources)),
            ));
        }
        Source::Git(g) => {
            m.push(("git", Some(Yaml::str(&g.repo_text))));
            let (key, value) = match &g.reference {
                GitRef::Tag(t) => ("tag", t),
                GitRef::Branch(b) => ("branch", b),
                GitRef::Commit(c) => ("commit", c),
            };
            m.push((key, Some(Yaml::str(value))));
            if key != "commit" {
                m.push(("commit", g.commit.as_deref().map(Yaml::str)));
            }
            m.push(("submodules", some_if(g.submodules, Yaml::Bool(true))));
        }
        Source::None => m.push(("source", Some(Yaml::str("none")))),
    }
    m.push(("preferred", some_if(v.preferred, Yaml::Bool(true))));
    Yaml::map(m)
}

fn variant(v: &VariantDef) -> Yaml {
    let (default, values, multi) = match &v.kind {
        VariantKind::Bool { default } => (Yaml::Bool(*default), None, None),
        VariantKind::Single { default, values } => {
            (Yaml::str(default), values.as_deref().map(Yaml::strs), None)
        }
        VariantKind::Multi { default, values } => {
            let default: Vec<&String> = default.iter().collect();
            (
                Yaml::strs(&default),
                values.as_deref().map(Yaml::strs),
                Some(Yaml::Bool(true)),
            )
        }
    };
    Yaml::map([
        ("default", Some(default)),
        ("values", values),
        ("multi", multi),
        ("description", v.description.as_deref().map(Yaml::str)),
        ("when", when(&v.when)),
    ])
}

fn dependency(d: &Dependency) -> Yaml {
    if d.types == DepTypes::DEFAULT && d.when.is_none() && !d.elsewhere {
        return Yaml::str(&d.spec.text);
    }
    Yaml::map([
        ("spec", Some(Yaml::str(&d.spec.text))),
        (
            "type",
            some_if(d.types != DepTypes::DEFAULT, Yaml::strs(&d.types.names())),
        ),
        ("when", when(&d.when)),
        ("elsewhere", some_if(d.elsewhere, Yaml::Bool(true))),
    ])
}

fn conflict(c: &Conflict) -> Yaml {
    Yaml::map([
        ("when", Some(Yaml::str(&c.when.text))),
        ("message", c.message.as_deref().map(Yaml::str)),
    ])
}

fn patch(p: &Patch) -> Yaml {
    let (key, source) = match &p.source {
        PatchSource::File(f) => ("file", &f.text),
        PatchSource::Url(u) => ("url", &u.value),
    };
    Yaml::map([
        (key, Some(Yaml::str(source))),
        ("sha256", Some(Yaml::str(&p.sha256))),
        (
            "level",
            some_if(p.level != 1, Yaml::Int(i64::from(p.level))),
        ),
        ("working_dir", p.working_dir.as_deref().map(Yaml::str)),
        ("when", when(&p.when)),
    ])
}

fn resource(r: &ExtraFile) -> Yaml {
    let mut m: Vec<(&str, Option<Yaml>)> = vec![("name", r.name.as_deref().map(Yaml::str))];
    match &r.git {
        None => m.push(("url", Some(Yaml::str(&r.url_text)))),
        Some(g) => {
            m.push(("git", Some(Yaml::str(&r.url_text))));
            let (key, value) = match &g.reference {
                GitRef::Tag(t) => ("tag", t),
                GitRef::Branch(b) => ("branch", b),
                GitRef::Commit(c) => ("commit", c),
            };
            m.push((key, Some(Yaml::str(value))));
            if key != "commit" {
                m.push(("commit", g.commit.as_deref().map(Yaml::str)));
            }
            m.push(("submodules", some_if(g.submodules, Yaml::Bool(true))));
        }
    }
    let placement = match &r.placement {
        Placement::Merge => None,
        Placement::Dir(d) => Some(Yaml::str(d)),
        Placement::Files(files) => Some(Yaml::Map(
            files
                .iter()
                .map(|(from, to)| (from.clone(), Yaml::str(to)))
                .collect(),
        )),
    };
    m.extend([
        ("sha256", r.sha256.as_deref().map(Yaml::str)),
        ("expand", some_if(!r.expand, Yaml::Bool(false))),
        ("strip", some_if(!r.strip, Yaml::Bool(false))),
        ("destination", r.destination.as_deref().map(Yaml::str)),
        ("placement", placement),
        ("when", when(&r.when)),
        ("max_size", r.max_size.as_ref().map(|s| Yaml::str(&s.text))),
    ]);
    Yaml::map(m)
}

fn provide(p: &Provide) -> Yaml {
    let virt = if p.versions.is_any() {
        p.name.clone()
    } else {
        format!("{}@{}", p.name, p.versions)
    };
    match &p.when {
        None => Yaml::str(virt),
        Some(_) => Yaml::map([("virtual", Some(Yaml::str(virt))), ("when", when(&p.when))]),
    }
}

/// `configure_args:` and friends: plain templates, or `{when, args}` blocks.
fn arg_list(args: &ArgList) -> Option<Yaml> {
    let mut items = Vec::new();
    for c in args {
        match &c.when {
            None => items.extend(c.value.iter().map(Yaml::str)),
            Some(w) => items.push(Yaml::map([
                ("when", Some(Yaml::str(&w.text))),
                ("args", Some(Yaml::strs(&c.value))),
            ])),
        }
    }
    some_if(!items.is_empty(), Yaml::Seq(items))
}

fn toggle(t: &Toggle) -> Option<Yaml> {
    match t {
        Toggle::Off => None,
        Toggle::On => Some(Yaml::Bool(true)),
        Toggle::When(w) => Some(Yaml::map([("when", Some(Yaml::str(&w.text)))])),
    }
}

/// The keys of the build system's own settings, by type: a value equal to
/// the key's default is left out.
fn system_keys(system: &BuildSystem) -> Vec<(&'static str, Option<Yaml>)> {
    let kind_keys = system.kind.keys();
    system
        .settings
        .iter()
        .map(|(key, setting)| {
            let yaml = match setting {
                Setting::Toggle(t) => toggle(t),
                Setting::Flag(b) => b.then_some(Yaml::Bool(true)),
                Setting::Args(a) => arg_list(a),
                Setting::Text(t) => t.as_deref().map(Yaml::str),
                Setting::Words(w) => {
                    let default = kind_keys.iter().find(|k| k.name == *key).map(|k| k.ty);
                    let is_default = matches!(default, Some(KeyType::Words(d))
                        if plain_words(w).is_some_and(|w| w == d));
                    // `[]` differs from a default that is not empty.
                    some_if(!is_default, arg_list(w).unwrap_or(Yaml::Seq(Vec::new())))
                }
                Setting::Relocate(r) => relocate(r),
                Setting::File(f) => f.as_ref().map(package_file),
                Setting::Files(list) => some_if(
                    !list.is_empty(),
                    Yaml::Seq(list.iter().map(package_file).collect()),
                ),
            };
            (*key, yaml)
        })
        .collect()
}

fn package_file(f: &PackageFileRef) -> Yaml {
    Yaml::map([
        ("file", Some(Yaml::str(&f.file))),
        ("sha256", Some(Yaml::str(&f.sha256))),
    ])
}

fn relocate(r: &Relocate) -> Option<Yaml> {
    let rpath: Vec<&String> = r.rpath.iter().map(|s| &s.value).collect();
    let needed: Vec<Yaml> = r
        .needed
        .iter()
        .map(|n| {
            Yaml::map([
                ("file", Some(Yaml::str(&n.file))),
                ("add", Some(Yaml::str(&n.add))),
                ("when", when(&n.when)),
            ])
        })
        .collect();
    let placeholders: Vec<(String, Yaml)> = r
        .placeholders
        .iter()
        .map(|(k, v)| (k.clone(), Yaml::str(v)))
        .collect();
    let m = Yaml::map([
        ("rpath", some_if(!rpath.is_empty(), Yaml::strs(&rpath))),
        ("needed", some_if(!needed.is_empty(), Yaml::Seq(needed))),
        (
            "placeholders",
            some_if(!placeholders.is_empty(), Yaml::Map(placeholders)),
        ),
    ]);
    some_if(m != Yaml::Map(Vec::new()), m)
}

fn build(b: &Build) -> Yaml {
    let mut m = vec![("system", Some(Yaml::str(b.system.name())))];
    m.extend(system_keys(&b.system));
    let install: Vec<Yaml> = b
        .install
        .iter()
        .map(|s| {
            let mut step = match &s.action {
                InstallAction::Copy { from, to } => {
                    vec![("copy", Some(Yaml::str(from))), ("to", Some(Yaml::str(to)))]
                }
                InstallAction::Mkdir { path } => vec![("mkdir", Some(Yaml::str(path)))],
                InstallAction::Symlink { target, at } => vec![
                    ("symlink", Some(Yaml::str(target))),
                    ("at", Some(Yaml::str(at))),
                ],
            };
            step.push(("when", when(&s.when)));
            Yaml::map(step)
        })
        .collect();
    m.push(("install", some_if(!install.is_empty(), Yaml::Seq(install))));
    m.push(("build_env", env_ops(&b.build_env)));
    let steps: Vec<(String, Yaml)> = Phase::ALL
        .into_iter()
        .filter_map(|phase| {
            let items: Vec<Yaml> = b
                .steps
                .iter()
                .filter(|s| s.phase == phase)
                .map(|s| match &s.when {
                    None => Yaml::strs(&s.argv),
                    Some(w) => Yaml::map([
                        ("when", Some(Yaml::str(&w.text))),
                        ("args", Some(Yaml::strs(&s.argv))),
                    ]),
                })
                .collect();
            (!items.is_empty()).then(|| (phase.key().to_string(), Yaml::Seq(items)))
        })
        .collect();
    m.push(("steps", some_if(!steps.is_empty(), Yaml::Map(steps))));
    m.push(("filter", filters(&b.filters)));
    m.push(("flags", flags(&b.flags)));
    Yaml::map(m)
}

/// `flags:`: one map per flag list.
fn flags(list: &[super::FlagEntry]) -> Option<Yaml> {
    let items: Vec<Yaml> = list
        .iter()
        .map(|f| {
            Yaml::map([
                (f.name.key(), Some(Yaml::strs(&f.values))),
                (
                    "via",
                    (f.via != super::FlagVia::Inject).then(|| Yaml::str(f.via.key())),
                ),
                ("when", when(&f.when)),
            ])
        })
        .collect();
    some_if(!items.is_empty(), Yaml::Seq(items))
}

/// `filter:`: one map per file edit.
fn filters(list: &[Filter]) -> Option<Yaml> {
    let items: Vec<Yaml> = list
        .iter()
        .map(|f| {
            Yaml::map([
                ("file", Some(Yaml::str(&f.file))),
                ("regex", Some(Yaml::str(&f.regex))),
                ("replace", Some(Yaml::str(&f.replace))),
                ("string", f.string.then_some(Yaml::Bool(true))),
                ("ignore_absent", f.ignore_absent.then_some(Yaml::Bool(true))),
                ("when", when(&f.when)),
            ])
        })
        .collect();
    some_if(!items.is_empty(), Yaml::Seq(items))
}

/// `env:` and `build_env:`: one entry per operation.
pub(crate) fn env_ops(ops: &[EnvOp]) -> Option<Yaml> {
    let items: Vec<Yaml> = ops
        .iter()
        .map(|op| {
            let value = match op.kind {
                EnvOpKind::Unset => Yaml::str(&op.var),
                _ => Yaml::Map(vec![(op.var.clone(), Yaml::str(&op.value))]),
            };
            Yaml::map([(op.kind.key(), Some(value)), ("when", when(&op.when))])
        })
        .collect();
    some_if(!items.is_empty(), Yaml::Seq(items))
}

fn imported(i: &Imported) -> Yaml {
    let untranslated: Vec<Yaml> = i
        .untranslated
        .iter()
        .map(|u| {
            Yaml::map([
                ("line", Some(Yaml::Int(i64::from(u.line)))),
                ("kind", Some(Yaml::str(&u.kind))),
                ("construct", Some(Yaml::str(&u.construct))),
                ("detail", u.detail.as_deref().map(Yaml::str)),
            ])
        })
        .collect();
    Yaml::map([
        ("from", Some(Yaml::str(&i.from))),
        ("file", i.file.as_deref().map(Yaml::str)),
        ("commit", i.commit.as_deref().map(Yaml::str)),
        ("reviewed", some_if(i.reviewed, Yaml::Bool(true))),
        (
            "languages",
            some_if(
                !i.languages.is_empty(),
                Yaml::Seq(i.languages.iter().map(language).collect()),
            ),
        ),
        (
            "untranslated",
            some_if(!untranslated.is_empty(), Yaml::Seq(untranslated)),
        ),
    ])
}

fn language(l: &super::imported::Language) -> Yaml {
    match &l.when {
        None => Yaml::str(&l.name),
        Some(w) => Yaml::map([
            ("language", Some(Yaml::str(&l.name))),
            ("when", Some(Yaml::str(w))),
        ]),
    }
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
