//! `stack info PKG`: everything a package recipe says, like `spack info`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use stack::build_kinds::KeyType;
use stack::recipes::*;

use super::lookup::{latest, load_repo};
use super::output::diagnostics as render;
use super::output::{Format, print_json};
use super::{CliError, Global};

/// Show everything a package recipe says.
///
/// Description, homepage, versions with their sources, variants (defaults,
/// allowed values, conditions), dependencies (types, conditions), conflicts,
/// patches, provided virtuals, build system and arguments, run environment.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  stack info libfabric
  stack info cray-mpich --repo ./site-recipes
  stack info mpi            # a virtual: lists its providers
  stack info hwloc --stack my-stack.yaml   # with the recipe's `repos:`
  stack info zlib --format json | jq '.versions[].version'

Exit status: 0 shown, 2 unknown package (with the nearest names) or a recipe
with errors (shown after the information).")]
pub struct Args {
    /// The package (or virtual) to show.
    #[arg(value_name = "PKG")]
    pub package: String,
    /// An extra package repository, searched before the others (repeatable).
    #[arg(long = "repo", value_name = "DIR")]
    pub repos: Vec<PathBuf>,
    /// Look the package up as this stack recipe does (its `repos:`, the
    /// `recipes/` above it).
    #[arg(long, value_name = "RECIPE")]
    pub stack: Option<PathBuf>,
    /// Output format: text, or json (the recipe as one object; a virtual
    /// as {virtual, providers}).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: Args, _global: &Global) -> Result<ExitCode, CliError> {
    let repo = load_repo(args.repos, args.stack.as_deref())?;
    render(repo.problems());
    let name = args.package.as_str();
    if !repo.contains(name) {
        if repo.is_virtual(name) && args.format == Format::Json {
            let providers: Vec<_> = repo
                .providers(name)
                .iter()
                .map(|p| serde_json::json!({"package": p.package, "when": p.when.as_ref().map(|w| &w.text)}))
                .collect();
            print_json(&serde_json::json!({"virtual": name, "providers": providers}));
            return Ok(ExitCode::SUCCESS);
        }
        if repo.is_virtual(name) {
            let mut out = String::new();
            let _ = writeln!(out, "{name} (virtual package)\n\nProviders:");
            for p in repo.providers(name) {
                let _ = writeln!(out, "    {}{}", p.package, when_suffix(p.when.as_ref()));
            }
            super::output::out_bytes(out.as_bytes());
            return Ok(ExitCode::SUCCESS);
        }
        let help = match repo.suggest(name) {
            Some(s) => format!("did you mean `{s}`? (`stack list` shows all packages)"),
            None => "`stack list` shows all packages; `--repo DIR` adds a repository".into(),
        };
        let dirs: Vec<String> = repo
            .dirs()
            .iter()
            .map(|d| d.path.display().to_string())
            .collect();
        return Err(CliError::input(miette::miette!(
            help = help,
            "unknown package `{name}` (searched: {})",
            if dirs.is_empty() {
                "no repositories".into()
            } else {
                dirs.join(", ")
            }
        )));
    }
    let diags = repo.check(name);
    if let (Some(recipe), Format::Json) = (repo.get(name), args.format) {
        let mut v = recipe.to_json();
        v["overlays"] = serde_json::json!(repo.overlays(name));
        v["hides"] = serde_json::json!(repo.shadowed(name));
        v["diagnostics"] = diags.to_json();
        print_json(&v);
    } else if let Some(recipe) = repo.get(name) {
        let mut out = String::new();
        describe(&mut out, recipe, &repo);
        super::output::out_bytes(out.as_bytes());
    }
    if args.format == Format::Text {
        render(&diags);
    }
    if diags.has_errors() {
        return Err(CliError::input(miette::miette!(
            "the recipe of `{name}` has {} error{}",
            diags.error_count(),
            if diags.error_count() == 1 { "" } else { "s" }
        )));
    }
    Ok(ExitCode::SUCCESS)
}

fn when_suffix(w: Option<&When>) -> String {
    w.map(|w| format!("  when {}", w.text)).unwrap_or_default()
}

fn describe(out: &mut String, r: &PackageRecipe, repo: &PackageRepo) {
    let _ = writeln!(out, "{}: {}", r.name, r.description.trim());
    if let Some(h) = &r.homepage {
        let _ = writeln!(out, "Homepage:      {h}");
    }
    let _ = writeln!(out, "Recipe:        {}", stack::diag::display_path(&r.file));
    if let Some(v) = latest(r) {
        let _ = writeln!(out, "Latest:        {}", v.text);
    }
    for o in repo.overlays(&r.name) {
        let _ = writeln!(out, "Overlay:       {}", stack::diag::display_path(o));
    }
    for s in repo.shadowed(&r.name) {
        let _ = writeln!(out, "Hides:         {}", stack::diag::display_path(s));
    }
    describe_versions(out, r);
    describe_variants(out, r);
    describe_dependencies(out, r, repo);
    describe_rest(out, r);
}

fn describe_versions(out: &mut String, r: &PackageRecipe) {
    let _ = writeln!(out, "\nVersions:");
    let width = r.versions.iter().map(|v| v.text.len()).max().unwrap_or(0);
    for v in r.versions_newest_first() {
        let pref = if v.preferred { "  (preferred)" } else { "" };
        match &v.source {
            Source::Archive(a) => {
                let _ = writeln!(out, "    {:<width$}  {}{pref}", v.text, a.url_text);
                let sha = a.sha256.as_deref().unwrap_or("(none: unverified)");
                let keep = if a.expand { "" } else { "  (not extracted)" };
                let _ = writeln!(out, "    {:<width$}  sha256 {sha}{keep}", "");
                for res in &a.resources {
                    let sha = res.sha256.as_deref().unwrap_or("(none: unverified)");
                    let into = res
                        .destination
                        .as_deref()
                        .map(|d| format!("  (into {d}/)"))
                        .unwrap_or_default();
                    let _ = writeln!(out, "    {:<width$}  + {}{into}", "", res.url_text);
                    let _ = writeln!(out, "    {:<width$}    sha256 {sha}", "");
                }
            }
            Source::Git(g) => {
                let reference = match &g.reference {
                    GitRef::Tag(t) => format!("tag {t}"),
                    GitRef::Branch(b) => format!("branch {b}"),
                    GitRef::Commit(c) => format!("commit {c}"),
                };
                let pin = g
                    .commit
                    .as_ref()
                    .map(|c| format!(" @ {c}"))
                    .unwrap_or_default();
                let sub = if g.submodules {
                    " (with submodules)"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "    {:<width$}  git {} {reference}{pin}{sub}{pref}",
                    v.text, g.repo_text
                );
            }
            Source::None => {
                let _ = writeln!(out, "    {:<width$}  no source{pref}", v.text);
            }
        }
    }
}

fn describe_variants(out: &mut String, r: &PackageRecipe) {
    let _ = writeln!(out, "\nVariants:");
    if r.variants.is_empty() {
        let _ = writeln!(out, "    (none)");
    }
    for v in &r.variants {
        let (default, allowed) = match &v.kind {
            VariantKind::Bool { default } => (default.to_string(), "true, false".to_string()),
            VariantKind::Single { default, values } => (
                default.clone(),
                values.as_ref().map_or("any value".into(), |v| v.join(", ")),
            ),
            VariantKind::Multi { default, values } => (
                default.iter().cloned().collect::<Vec<_>>().join(","),
                format!(
                    "{} (several allowed)",
                    values
                        .as_ref()
                        .map_or("any values".into(), |v| v.join(", "))
                ),
            ),
        };
        let _ = writeln!(
            out,
            "    {} [default: {default}]{}",
            v.name,
            when_suffix(v.when.as_ref())
        );
        let _ = writeln!(out, "        values: {allowed}");
        if let Some(d) = &v.description {
            let _ = writeln!(out, "        {d}");
        }
    }
}

fn describe_dependencies(out: &mut String, r: &PackageRecipe, repo: &PackageRepo) {
    let _ = writeln!(out, "\nDependencies:");
    if r.dependencies.is_empty() {
        let _ = writeln!(out, "    (none)");
    }
    let width = r
        .dependencies
        .iter()
        .map(|d| d.spec.text.len())
        .max()
        .unwrap_or(0);
    for d in &r.dependencies {
        let virt = if repo.is_virtual(d.name()) && !repo.contains(d.name()) {
            "  (virtual)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "    {:<width$}  [{}]{}{virt}",
            d.spec.text,
            d.types.names().join(", "),
            when_suffix(d.when.as_ref())
        );
    }
}

fn describe_rest(out: &mut String, r: &PackageRecipe) {
    if !r.conflicts.is_empty() {
        let _ = writeln!(out, "\nConflicts:");
        for c in &r.conflicts {
            let msg = c
                .message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default();
            let _ = writeln!(out, "    {}{msg}", c.when.text);
        }
    }

    if !r.patches.is_empty() {
        let _ = writeln!(out, "\nPatches (applied in this order):");
        for p in &r.patches {
            let src = match &p.source {
                PatchSource::File(f) => f.text.clone(),
                PatchSource::Url(u) => u.value.clone(),
            };
            let dir = p
                .working_dir
                .as_deref()
                .map(|d| format!("  (in {d}/)"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {src}  -p{}{dir}{}",
                p.level,
                when_suffix(p.when.as_ref())
            );
            let _ = writeln!(out, "        sha256 {}", p.sha256);
        }
    }

    if !r.resources.is_empty() {
        let _ = writeln!(
            out,
            "\nResources (unpacked into the source tree, in order):"
        );
        for res in &r.resources {
            let into = res
                .destination
                .as_deref()
                .map(|d| format!("  (into {d}/)"))
                .unwrap_or_default();
            let name = res
                .name
                .as_deref()
                .map(|n| format!("{n}: "))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {name}{}{into}{}",
                res.url_text,
                when_suffix(res.when.as_ref())
            );
            let check = match (&res.git, &res.sha256) {
                (Some(g), _) => match g.pinned() {
                    Some(c) => format!("commit {c}"),
                    None => "(no commit: unverified)".to_string(),
                },
                (None, Some(sha)) => format!("sha256 {sha}"),
                (None, None) => "(none: unverified)".to_string(),
            };
            let _ = writeln!(out, "        {check}");
        }
    }

    if !r.provides.is_empty() {
        let _ = writeln!(out, "\nProvides:");
        for p in &r.provides {
            let _ = writeln!(out, "    {}{}", p.name, when_suffix(p.when.as_ref()));
        }
    }

    describe_build(out, &r.build);

    if !r.env.is_empty() {
        let _ = writeln!(out, "\nRun environment:");
        for e in &r.env {
            let _ = writeln!(out, "    {e}{}", when_suffix(e.when.as_ref()));
        }
    }
    if !r.dependent_build_env.is_empty() {
        let _ = writeln!(out, "\nIn the builds of its dependents:");
        for e in &r.dependent_build_env {
            let _ = writeln!(out, "    {e}{}", when_suffix(e.when.as_ref()));
        }
    }
}

fn describe_build(out: &mut String, b: &Build) {
    let _ = writeln!(out, "\nBuild system: {}", b.system);
    let args = |out: &mut String, key: &str, list: &ArgList| {
        if list.is_empty() {
            return;
        }
        let _ = writeln!(out, "    {key}:");
        for c in list {
            let _ = writeln!(
                out,
                "        {}{}",
                c.value.join(" "),
                when_suffix(c.when.as_ref())
            );
        }
    };
    let toggle = |out: &mut String, key: &str, t: &Toggle| match t {
        Toggle::Off => {}
        Toggle::On => {
            let _ = writeln!(out, "    {key}: yes");
        }
        Toggle::When(w) => {
            let _ = writeln!(out, "    {key}: when {}", w.text);
        }
    };
    describe_system(out, &b.system, &args, &toggle);
    for s in &b.steps {
        let _ = writeln!(
            out,
            "    {}: {}{}",
            s.phase.key(),
            s.argv.join(" "),
            when_suffix(s.when.as_ref())
        );
    }
    for i in &b.install {
        let what = match &i.action {
            InstallAction::Copy { from, to } => format!("copy {from} -> {to}"),
            InstallAction::Mkdir { path } => format!("mkdir {path}"),
            InstallAction::Symlink { target, at } => format!("symlink {at} -> {target}"),
        };
        let _ = writeln!(out, "    install: {what}{}", when_suffix(i.when.as_ref()));
    }
    for e in &b.build_env {
        let _ = writeln!(out, "    build env: {e}{}", when_suffix(e.when.as_ref()));
    }
}

fn describe_system(
    out: &mut String,
    system: &BuildSystem,
    args: &dyn Fn(&mut String, &str, &ArgList),
    toggle: &dyn Fn(&mut String, &str, &Toggle),
) {
    let kind_keys = system.kind.keys();
    for (key, setting) in &system.settings {
        let label = key.replace('_', " ");
        match setting {
            Setting::Toggle(t) => toggle(out, key, t),
            Setting::Flag(true) => {
                let _ = writeln!(out, "    {label}: yes");
            }
            Setting::Flag(false) | Setting::Text(None) => {}
            Setting::Text(Some(t)) => {
                let _ = writeln!(out, "    {label}: {t}");
            }
            Setting::Args(list) => args(out, key, list),
            Setting::Words(w) if !w.is_empty() => match plain_words(w) {
                Some(words) => {
                    let _ = writeln!(out, "    {label}: {}", words.join(" "));
                }
                None => args(out, key, w),
            },
            Setting::Words(_) => {
                // Empty where the default is not: say so (`install targets: (none)`).
                let default = kind_keys.iter().find(|k| k.name == *key).map(|k| k.ty);
                if matches!(default, Some(KeyType::Words(d)) if !d.is_empty()) {
                    let _ = writeln!(out, "    {label}: (none)");
                }
            }
            Setting::Relocate(rl) => describe_relocate(out, rl),
            Setting::File(f) => {
                if let Some(f) = f {
                    let _ = writeln!(out, "    {label}: spack/{} (runs at build time)", f.file);
                }
            }
            Setting::Files(list) => {
                for f in list {
                    let _ = writeln!(out, "    {label}: spack/{}", f.file);
                }
            }
        }
    }
}

fn describe_relocate(out: &mut String, rl: &Relocate) {
    if !rl.rpath.is_empty() {
        let names: Vec<&str> = rl.rpath.iter().map(|s| s.value.as_str()).collect();
        let _ = writeln!(out, "    rpath to: {}", names.join(", "));
    }
    for n in &rl.needed {
        let _ = writeln!(
            out,
            "    add NEEDED {} to {}{}",
            n.add,
            n.file,
            when_suffix(n.when.as_ref())
        );
    }
    for (k, v) in &rl.placeholders {
        let _ = writeln!(out, "    replace {k} with {v}");
    }
}
