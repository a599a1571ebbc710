//! Checks of specs against package recipes: `when:` conditions name the
//! package's own variants, dependencies name known packages with existing
//! variants and allowed values.

use crate::diag::yaml::Cx;
use crate::diag::{Code, Diagnostic, Diagnostics, Loc, Severity, SourceFile, did_you_mean};
use crate::spec::Spec;

use super::package::{PackageRecipe, Source, VariantValueError};
use super::{PackageRepo, Setting, SpecRef, Toggle, When};

/// Every `when:` in a recipe.
pub(crate) fn conditions(r: &PackageRecipe) -> Vec<&When> {
    let mut out: Vec<&When> = Vec::new();
    out.extend(r.variants.iter().filter_map(|v| v.when.as_ref()));
    out.extend(r.dependencies.iter().filter_map(|d| d.when.as_ref()));
    out.extend(r.conflicts.iter().map(|c| &c.when));
    out.extend(r.patches.iter().filter_map(|p| p.when.as_ref()));
    out.extend(r.resources.iter().filter_map(|x| x.when.as_ref()));
    for v in &r.versions {
        if let Source::Archive(a) = &v.source {
            out.extend(a.resources.iter().filter_map(|x| x.when.as_ref()));
        }
    }
    out.extend(r.provides.iter().filter_map(|p| p.when.as_ref()));
    out.extend(r.env.iter().filter_map(|e| e.when.as_ref()));
    out.extend(r.dependent_build_env.iter().filter_map(|e| e.when.as_ref()));
    out.extend(r.build.build_env.iter().filter_map(|e| e.when.as_ref()));
    out.extend(r.build.steps.iter().filter_map(|s| s.when.as_ref()));
    out.extend(r.build.install.iter().filter_map(|s| s.when.as_ref()));
    out.extend(r.build.flags.iter().filter_map(|f| f.when.as_ref()));
    for (_, setting) in &r.build.system.settings {
        match setting {
            Setting::Toggle(Toggle::When(w)) => out.push(w),
            Setting::Args(list) => out.extend(list.iter().filter_map(|c| c.when.as_ref())),
            Setting::Relocate(rel) => out.extend(rel.needed.iter().filter_map(|n| n.when.as_ref())),
            _ => {}
        }
    }
    out
}

/// `when:` conditions may only name this package's variants, with allowed
/// values (checked while reading the file).
pub(crate) fn check_own_conditions(recipe: &PackageRecipe, cx: &mut Cx) {
    for when in conditions(recipe) {
        check_variants(
            cx,
            &when.spec,
            recipe,
            when,
            &format!("package `{}`", recipe.name),
        );
    }
}

/// Checks of `recipe` that need the other packages of `repo`. For a
/// `fallback` recipe (translated from Spack on the fly and not reviewed:
/// in `fallback_repos:`, or an unreviewed import) the problems of conditional dependencies
/// and of `^` constraints in conditions are warnings: they name Spack
/// packages or variants that the searched repositories lack, and matter
/// only when the condition holds — then resolving fails at that package
/// (an unknown package or variant there is never satisfied).
pub(crate) fn check_against_repo(
    recipe: &PackageRecipe,
    source: &SourceFile,
    repo: &PackageRepo,
    fallback: bool,
    diags: &mut Diagnostics,
) {
    let mut lenient = Diagnostics::new();
    {
        let mut cx = Cx::new(source, &mut lenient);
        for dep in recipe
            .dependencies
            .iter()
            .filter(|d| fallback && d.when.is_some())
        {
            check_spec(&mut cx, repo, &dep.spec, None, "conditional dependency");
        }
        for when in conditions(recipe).into_iter().filter(|_| fallback) {
            for d in &when.spec.deps {
                check_named(&mut cx, repo, d, when, "`^` constraint");
            }
        }
    }
    diags.extend(lenient.into_iter().map(|mut d| {
        d.severity = Severity::Warning;
        d.help = Some(format!(
            "{}{}a Spack recipe translated on the fly: this matters only when its condition holds; resolving fails there then",
            d.help.as_deref().unwrap_or(""),
            if d.help.is_some() { "; " } else { "" },
        ));
        d
    }));
    let mut cx = Cx::new(source, diags);
    // `elsewhere: true`: a package the searched repositories may lack
    let elsewhere = |name: &str| {
        !repo.knows(name)
            && recipe
                .dependencies
                .iter()
                .any(|d| d.elsewhere && d.name() == name)
    };
    for dep in &recipe.dependencies {
        if fallback && dep.when.is_some() || elsewhere(dep.name()) {
            continue;
        }
        if dep.name() == recipe.name {
            cx.error(
                Code::InvalidValue,
                &dep.spec.loc,
                format!("package `{}` depends on itself", recipe.name),
                "self-dependency",
                None,
            );
            continue;
        }
        check_spec(&mut cx, repo, &dep.spec, None, "dependency");
    }
    if let Some(chain) = super::cycles::cycle_through(repo, &recipe.name)
        && let Some(first) = recipe.dependencies.iter().find(|d| d.name() == chain[1])
    {
        cx.error(
            Code::InvalidValue,
            &first.spec.loc,
            format!(
                "dependency cycle: {} (resolving would fail)",
                chain.join(" → ")
            ),
            "starts a cycle",
            Some("remove one of the dependencies, or make it conditional (`when:`)".into()),
        );
    }
    for when in conditions(recipe).into_iter().filter(|_| !fallback) {
        for d in &when.spec.deps {
            if !d.name.as_deref().is_some_and(elsewhere) {
                check_named(&mut cx, repo, d, when, "`^` constraint");
            }
        }
    }
    check_relocate_rpaths(&mut cx, recipe);
}

/// `relocate.rpath` names dependencies only.
fn check_relocate_rpaths(cx: &mut Cx, recipe: &PackageRecipe) {
    let relocations = recipe
        .build
        .system
        .settings
        .iter()
        .filter_map(|(_, s)| match s {
            Setting::Relocate(r) => Some(r),
            _ => None,
        });
    for rel in relocations {
        for r in &rel.rpath {
            if !recipe.dependencies.iter().any(|d| d.name() == r.value) {
                cx.error(
                    Code::UnknownPackage,
                    &r.loc,
                    format!(
                        "`relocate.rpath` names `{}`, which is not a dependency",
                        r.value
                    ),
                    "not in `dependencies`",
                    did_you_mean(&r.value, recipe.dependencies.iter().map(|d| d.name())),
                );
            }
        }
    }
}

/// Check a spec written in some file against the repository: its name (if
/// any) is a known package or virtual, its variants exist in that package
/// (or, for an anonymous spec, in `owner`), and the same for `^dep` parts.
pub fn check_spec(
    cx: &mut Cx,
    repo: &PackageRepo,
    spec: &SpecRef,
    owner: Option<&PackageRecipe>,
    what: &str,
) {
    match spec.spec.name.as_deref() {
        Some(_) => check_named(cx, repo, &spec.spec, spec, what),
        None => {
            if let Some(owner) = owner {
                check_variants(cx, &spec.spec, owner, spec, &format!("`{}`", owner.name));
            }
        }
    }
    for d in &spec.spec.deps {
        check_named(cx, repo, d, spec, "`^` constraint");
    }
}

fn check_named(cx: &mut Cx, repo: &PackageRepo, spec: &Spec, written: &SpecRef, what: &str) {
    let Some(name) = spec.name.as_deref() else {
        return;
    };
    if let Some(pkg) = repo.get(name) {
        check_variants(cx, spec, pkg, written, &format!("package `{name}`"));
        check_provides(cx, repo, spec, name, written);
    } else if !repo.knows(name) {
        let loc = locate(cx, written, name);
        let help = match repo.suggest(name) {
            Some(s) => format!("did you mean `{s}`?"),
            None => "run `stack list` to see the available packages, or add a repository with `--repo DIR`".into(),
        };
        cx.push(
            Diagnostic::error(
                Code::UnknownPackage,
                format!("unknown package `{name}` in {what} `{}`", written.text),
            )
            .at(&loc, "no recipe for this package")
            .with_help(help)
            .about(name),
        );
    }
}

/// `%libllvm=llvm`, `^[virtuals=gl] osmesa`: the package must provide the
/// virtuals it is named for (some version of it, under some condition).
fn check_provides(cx: &mut Cx, repo: &PackageRepo, spec: &Spec, name: &str, written: &SpecRef) {
    for v in &spec.virtuals {
        if repo.providers(v).iter().any(|p| p.package == name) {
            continue;
        }
        let loc = locate(cx, written, v);
        let others: Vec<String> = repo
            .providers(v)
            .iter()
            .map(|p| format!("`{}`", p.package))
            .collect();
        let help = if others.is_empty() {
            format!("no package provides `{v}`")
        } else {
            format!("providers of `{v}`: {}", others.join(", "))
        };
        cx.error(
            Code::BadSpec,
            &loc,
            format!("`{name}` does not provide `{v}` (in `{}`)", written.text),
            "not a provider of this virtual",
            Some(help),
        );
    }
}

/// Check the variants set in `spec` against `pkg`'s declarations.
fn check_variants(cx: &mut Cx, spec: &Spec, pkg: &PackageRecipe, written: &SpecRef, whose: &str) {
    for (name, value) in &spec.variants {
        let Some(def) = pkg.variant(name) else {
            let loc = locate(cx, written, name);
            let help = did_you_mean(name, pkg.variant_names()).unwrap_or_else(|| {
                let names: Vec<_> = pkg.variant_names().map(|n| format!("`{n}`")).collect();
                if names.is_empty() {
                    format!("`{}` has no variants", pkg.name)
                } else {
                    format!("variants of `{}`: {}", pkg.name, names.join(", "))
                }
            });
            let help = Some(with_recipe_note(help, pkg, written));
            cx.error(
                Code::UnknownVariant,
                &loc,
                format!("{whose} has no variant `{name}` (in `{}`)", written.text),
                "unknown variant",
                help,
            );
            continue;
        };
        // Defined once per condition: any definition may accept the value.
        if pkg.variant_defs(name).any(|d| d.check_value(value).is_ok()) {
            continue;
        }
        if let Err(e) = def.check_value(value) {
            let loc = locate(cx, written, name);
            let allowed = def
                .allowed_values()
                .map(|v| v.join(", "))
                .unwrap_or_else(|| "any value".into());
            let (msg, label, help) = match e {
                VariantValueError::NotBool => (
                    format!("variant `{name}` of `{}` is a bool variant", pkg.name),
                    "not a bool value".to_string(),
                    Some(format!("write `+{name}` or `~{name}`")),
                ),
                VariantValueError::NotValued => (
                    format!("variant `{name}` of `{}` takes a value", pkg.name),
                    "`+`/`~` only work for bool variants".to_string(),
                    Some(format!("write `{name}=<value>`; allowed: {allowed}")),
                ),
                VariantValueError::SingleValued => (
                    format!("variant `{name}` of `{}` takes a single value", pkg.name),
                    "several values".to_string(),
                    None,
                ),
                VariantValueError::NotAllowed(bad) => {
                    let vals = def.allowed_values().unwrap_or_default();
                    (
                        format!(
                            "`{bad}` is not an allowed value of variant `{name}` of `{}`",
                            pkg.name
                        ),
                        format!("allowed: {allowed}"),
                        did_you_mean(&bad, vals),
                    )
                }
            };
            let help = match help {
                Some(h) => Some(with_recipe_note(h, pkg, written)),
                None if *written.loc.file != pkg.file => Some(recipe_note(pkg)),
                None => None,
            };
            cx.error(Code::UnknownVariantValue, &loc, msg, label, help);
        }
    }
}

/// `help`, plus which file defines `pkg` when the spec is written elsewhere.
fn with_recipe_note(help: String, pkg: &PackageRecipe, written: &SpecRef) -> String {
    if *written.loc.file == pkg.file {
        help
    } else {
        format!("{help}\n{}", recipe_note(pkg))
    }
}

/// Which file defines `pkg`, for messages about it.
fn recipe_note(pkg: &PackageRecipe) -> String {
    format!(
        "`{}` is defined by {}",
        pkg.name,
        crate::diag::display_path(&pkg.file)
    )
}

/// The location of `word` inside a written spec (whole-word match), or the
/// whole spec.
fn locate(cx: &Cx, written: &SpecRef, word: &str) -> Loc {
    let text = &written.text;
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut start = 0;
    while let Some(i) = text[start..].find(word) {
        let at = start + i;
        let end = at + word.len();
        let before_ok = text[..at].chars().next_back().is_none_or(|c| !is_word(c));
        let after_ok = text[end..].chars().next().is_none_or(|c| !is_word(c));
        if before_ok && after_ok {
            return cx.sub_loc(&written.loc, text, at, word.len());
        }
        start = end;
    }
    written.loc.clone()
}
