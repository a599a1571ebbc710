//! Load-time check of what recipe templates refer to, so that `stack check`
//! rejects what rendering a build job would reject: a `{{ deps.X… }}` where
//! no package or virtual `X` exists, a `variants.V` the package does not
//! define, an unknown top-level name in a `{{ … }}` interpolation. (Syntax
//! is checked where templates are read, `recipes::read::check_templates`.)

use crate::diag::{Code, Diagnostic, Diagnostics, Loc, SourceFile};
use crate::recipes::{ArgList, InstallAction, PackageRecipe, PackageRepo, Setting};

/// The names every template sees (see `pipeline::render`).
const ROOTS: &[&str] = &[
    "name", "version", "prefix", "target", "jobs", "spec", "variants", "compiler", "deps",
];

/// The templates of an argument list.
fn list<'a>(l: &'a ArgList, out: &mut Vec<(&'a str, &'a Loc)>) {
    for c in l {
        out.extend(c.value.iter().map(|t| (t.as_str(), &c.loc)));
    }
}

/// Every template of a package recipe with its location.
fn templates(pkg: &PackageRecipe) -> Vec<(&str, &Loc)> {
    let mut out: Vec<(&str, &Loc)> = Vec::new();
    let b = &pkg.build;
    for (_, setting) in &b.system.settings {
        match setting {
            Setting::Args(l) => list(l, &mut out),
            Setting::Relocate(rel) => {
                for n in &rel.needed {
                    out.push((n.add.as_str(), &n.loc));
                }
                for (_, v) in &rel.placeholders {
                    out.push((v.as_str(), &b.loc));
                }
            }
            _ => {}
        }
    }
    for s in &b.steps {
        out.extend(s.argv.iter().map(|t| (t.as_str(), &s.loc)));
    }
    for i in &b.install {
        match &i.action {
            InstallAction::Copy { from, to } => {
                out.extend([(from.as_str(), &i.loc), (to.as_str(), &i.loc)])
            }
            InstallAction::Mkdir { path } => out.push((path.as_str(), &i.loc)),
            InstallAction::Symlink { target, at } => {
                out.extend([(target.as_str(), &i.loc), (at.as_str(), &i.loc)])
            }
        }
    }
    for f in &b.filters {
        out.extend([f.file.as_str(), f.regex.as_str(), f.replace.as_str()].map(|t| (t, &f.loc)));
    }
    for e in b
        .build_env
        .iter()
        .chain(&pkg.env)
        .chain(&pkg.dependent_build_env)
    {
        out.push((e.value.as_str(), &e.loc));
    }
    out
}

/// Dotted names (`deps.mpi.prefix`) inside `{{ … }}` and `{% … %}`, each
/// with whether it is a whole interpolation (`{{ a.b }}`).
fn references(template: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{']) {
        let after = &rest[open + 1..];
        let close = match after.as_bytes().first() {
            Some(b'{') => "}}",
            Some(b'%') => "%}",
            _ => {
                rest = after;
                continue;
            }
        };
        let Some(end) = after[1..].find(close) else {
            break;
        };
        let inner = after[1..1 + end].trim_matches(|c: char| c == ' ' || c == '-');
        let whole = close == "}}";
        let mut token = String::new();
        let mut in_string = None;
        for c in inner.chars().chain([' ']) {
            if let Some(q) = in_string {
                if c == q {
                    in_string = None;
                }
                continue;
            }
            if c == '"' || c == '\'' {
                in_string = Some(c);
            } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                token.push(c);
                continue;
            }
            if token.contains('.') && token.starts_with(|c: char| c.is_ascii_alphabetic()) {
                out.push((token.clone(), whole && token == inner));
            } else if whole && token == inner && !token.is_empty() {
                out.push((token.clone(), true));
            }
            token.clear();
        }
        rest = &after[1 + end + close.len()..];
    }
    out
}

/// Problems with what the templates of `pkg` refer to.
pub fn check_package(pkg: &PackageRecipe, repo: &PackageRepo, diags: &mut Diagnostics) {
    // The recipe's text only shows a problem's place: read when one is found.
    let source = std::cell::OnceCell::new();
    for (template, loc) in templates(pkg) {
        // Loops and `set` bind names of their own: only `deps.`/`variants.`
        // are checked in such templates.
        let binds = ["for ", "set ", "macro "].iter().any(|k| {
            template.contains(&format!("{{% {k}")) || template.contains(&format!("{{%- {k}"))
        });
        for (name, whole) in references(template) {
            let mut parts = name.split('.');
            let root = parts.next().unwrap_or_default();
            let second = parts.next();
            let problem = match (root, second) {
                ("deps", Some(dep))
                    if !repo.contains(dep)
                        && !repo.is_virtual(dep)
                        && !pkg
                            .dependencies
                            .iter()
                            .any(|d| d.elsewhere && d.name() == dep) =>
                {
                    Some((
                        format!("`{name}`: no package or virtual `{dep}` exists"),
                        "`deps.<name>` names a dependency (or a virtual it provides)".to_string(),
                    ))
                }
                ("variants", Some(v)) if pkg.variant(v).is_none() => Some((
                    format!("`{name}`: `{}` has no variant `{v}`", pkg.name),
                    unknown_variant_help(pkg, v),
                )),
                (root, _) if whole && !binds && !ROOTS.contains(&root) => Some((
                    format!("`{name}`: templates know no `{root}`"),
                    format!("templates see {}", ROOTS.join(", ")),
                )),
                _ => None,
            };
            if let Some((message, help)) = problem {
                let mut d = Diagnostic::error(Code::BadTemplate, message)
                    .at(loc, "in this template")
                    .with_help(help);
                if let Some(src) = source.get_or_init(|| SourceFile::read(&pkg.file).ok()) {
                    d.attach_source(src);
                }
                diags.push(d);
            }
        }
    }
}

/// The help of a `variants.V` the package lacks: its variants, and for a
/// name with `-` (`variants.use-prometheus` reads as `variants.use` minus
/// `prometheus`) the subscript form that names it.
fn unknown_variant_help(pkg: &PackageRecipe, v: &str) -> String {
    let names: Vec<&str> = pkg.variants.iter().map(|v| v.name.as_str()).collect();
    let mut help = format!("variants of `{}`: {}", pkg.name, names.join(", "));
    let dashed = format!("{v}-");
    if let Some(full) = names.iter().find(|n| n.starts_with(&dashed)) {
        help.push_str(&format!(
            "\n`variants.{full}` reads as `variants.{v}` minus `{}`: write `variants['{full}']`",
            &full[dashed.len()..]
        ));
    }
    help
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_in_interpolations_and_tags() {
        let r = references(
            "-DX={{ deps.mpi.prefix }} {% if variants.cuda and x %}on{% endif %} {{ jobs }} {{ \"a.b\" }}",
        );
        assert_eq!(
            r,
            [
                ("deps.mpi.prefix".to_string(), true),
                ("variants.cuda".to_string(), false),
                ("jobs".to_string(), true),
            ]
        );
        assert!(references("plain text").is_empty());
        assert_eq!(references("{{ nope }}"), [("nope".to_string(), true)]);
    }

    /// `variants.use-prometheus` (a Spack variant name with `-`, dynolog) is
    /// `variants.use` minus `prometheus` to the template engine: the help
    /// names the subscript form.
    #[test]
    fn a_dashed_variant_name_gets_the_subscript_form_in_the_help() {
        use crate::recipes::{RepoDir, RepoOrigin};
        let tmp = tempfile::tempdir().unwrap();
        fs_err::write(
            tmp.path().join("dyno.yaml"),
            "name: dyno\ndescription: d\nversions: [{version: \"1\", git: \"https://x/y.git\", tag: v1}]\n\
             variants: {use-prom: {default: true}}\n\
             build: {system: cmake, cmake_args: [\"-DP={% if variants.use-prom %}ON{% endif %}\"]}\n",
        )
        .unwrap();
        let repo = PackageRepo::load(vec![RepoDir {
            path: tmp.path().to_path_buf(),
            origin: RepoOrigin::Flag,
        }]);
        let mut diags = Diagnostics::new();
        check_package(repo.get("dyno").unwrap(), &repo, &mut diags);
        let d = diags.iter().next().expect("an error");
        assert_eq!(d.message, "`variants.use`: `dyno` has no variant `use`");
        let help = d.help.as_deref().unwrap_or_default();
        assert!(
            help.ends_with("`variants.use-prom` reads as `variants.use` minus `prom`: write `variants['use-prom']`"),
            "{help}"
        );
    }
}
