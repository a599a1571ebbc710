//! `stack stackinator convert`: a stackinator recipe and cluster written
//! once as a directory a site can commit — the stack recipe, the cluster
//! configuration, the hooks and `extra/`, and the translated package
//! recipes the stack reaches (with their patches and package files), all
//! by relative paths, and a README saying how to convert again.
//!
//! The translations themselves (and the spack-packages export they are
//! made from) stay in the cache; only what the stack needs is copied.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::import::yaml_out::Yaml;
use crate::stackinator::{Labels, TranslateOptions, Translation, translate, write};
use crate::stacks::{InputOptions, Inputs};

use super::{OpError, input_error, load_translation, translation_cache, work_dir};

/// What `stack stackinator convert` wrote.
#[derive(Clone, Debug)]
pub struct Converted {
    /// The output directory.
    pub dir: PathBuf,
    /// The stack recipe.
    pub recipe: PathBuf,
    /// The cluster configuration directory (holding cluster.yaml).
    pub cluster: PathBuf,
    /// Translated package recipes copied, per layer (`recipe`, a site
    /// repository's name, `spack-packages`).
    pub recipes: Vec<(String, usize)>,
    /// Bytes written in all.
    pub bytes: u64,
    pub warnings: Diagnostics,
}

/// One translated package repository of the stack, and where its
/// recipes go in the output.
struct Layer {
    /// `recipe`, `alps`, `spack-packages`: `repos/<label>/` in the output.
    label: String,
    /// The translation's `recipes/` (in the cache).
    recipes: PathBuf,
    fallback: bool,
    kept: BTreeSet<String>,
}

/// The names of the files this module writes into the output directory
/// (replaced on every run; anything else there is left alone).
const GENERATED: &[&str] = &["repos", "post-install", "pre-install", "extra", "README.md"];

/// Convert `recipe` with `cluster` into the directory `out` (or, for a
/// `.yaml` path, into its directory with that recipe file name).
pub fn convert(
    recipe: &Path,
    cluster: &Path,
    out: &Path,
    spack_packages: Option<PathBuf>,
) -> Result<Converted, OpError> {
    let abs = |p: &Path| fs_err::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if !crate::stackinator::is_recipe_dir(recipe) {
        return Err(input_error(
            format!("{}: not a stackinator recipe directory", recipe.display()),
            "a recipe directory holds config.yaml, compilers.yaml and environments.yaml",
        ));
    }
    if !crate::stackinator::is_cluster_dir(cluster) {
        return Err(input_error(
            format!(
                "{}: not a stackinator cluster directory (no packages.yaml)",
                cluster.display()
            ),
            "e.g. alps-cluster-config/daint",
        ));
    }
    let (dir, stack_file) = out_dir(out);
    fs_err::create_dir_all(&dir).map_err(|e| {
        input_error(
            format!("cannot create {}: {e}", dir.display()),
            "give a writable --out",
        )
    })?;
    let dir = abs(&dir);
    let (recipe, cluster) = (abs(recipe), abs(cluster));
    let base = translation_cache();
    let mut t = translate(&TranslateOptions {
        recipe: recipe.clone(),
        cluster: cluster.clone(),
        spack_packages: spack_packages.map(|p| abs(&p)),
        cache: Some(base.join("repos")),
    })
    .map_err(OpError::Inputs)?;
    // What the stack reaches, from the translation as `stack check` loads it.
    let opts = InputOptions::default();
    let inputs = load_translation(&t, &opts, &work_dir(&base, &recipe, &cluster), "stack.yaml")?;
    let mut layers = layers(&t);
    keep(&inputs, &mut layers);
    let fail = |e: std::io::Error| {
        input_error(
            format!("cannot write into {}: {e}", dir.display()),
            "give a writable --out",
        )
    };
    let ours: Vec<PathBuf> = GENERATED
        .iter()
        .chain([&t.cluster_name.as_str(), &stack_file.as_str()])
        .map(|n| dir.join(n))
        .collect();
    may_replace(&dir, &ours, &[&recipe, &cluster])?;
    for p in &ours {
        remove(p).map_err(fail)?;
    }
    for l in layers.iter().filter(|l| !l.kept.is_empty()) {
        copy_layer(l, &dir.join("repos").join(&l.label)).map_err(fail)?;
    }
    relative_paths(&mut t, &layers);
    if let Some(extra) = &t.extra {
        copy_tree(extra, &dir.join("extra")).map_err(fail)?;
    }
    if let Some(pre) = &t.pre_install {
        fs_err::copy(pre, dir.join("pre-install")).map_err(fail)?;
    }
    let labels = Labels {
        recipe: relative(&dir, &recipe).display().to_string(),
        cluster: relative(&dir, &cluster).display().to_string(),
    };
    let written = write(&t, &dir, &stack_file, &labels).map_err(fail)?;
    let readme = readme(&t, &labels, &stack_file, &layers, &inputs);
    fs_err::write(dir.join("README.md"), readme).map_err(fail)?;
    let mut bytes = 0;
    for p in &ours {
        bytes += size(p).map_err(fail)?;
    }
    let converted = Converted {
        dir: dir.clone(),
        recipe: written.stack.path().to_path_buf(),
        cluster: written.cluster_dir.clone(),
        recipes: layers
            .iter()
            .filter(|l| !l.kept.is_empty())
            .map(|l| (l.label.clone(), l.kept.len()))
            .collect(),
        bytes,
        warnings: t.warnings.clone(),
    };
    self_check(&converted, &inputs)?;
    Ok(converted)
}

/// `--out DIR` → (DIR, `stack.yaml`); `--out DIR/NAME.yaml` → (DIR, `NAME.yaml`).
fn out_dir(out: &Path) -> (PathBuf, String) {
    let is_file = out.extension().is_some_and(|e| e == "yaml" || e == "yml");
    if !is_file {
        return (out.to_path_buf(), "stack.yaml".into());
    }
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = out
        .file_name()
        .map_or("stack.yaml".into(), |n| n.to_string_lossy().into_owned());
    (parent.to_path_buf(), name)
}

/// The translated repositories, in the stack's search order, named for
/// the output (`recipe` for the recipe's `repo/`, a site repository's
/// directory name, `spack-packages`).
fn layers(t: &Translation) -> Vec<Layer> {
    let mut out: Vec<Layer> = Vec::new();
    for (i, repo) in t.repos.iter().enumerate() {
        let mut label = if i == 0 && repo.spack.starts_with(&t.recipe_dir) {
            "recipe".to_string()
        } else {
            repo.spack
                .file_name()
                .map_or("site".into(), |n| n.to_string_lossy().into_owned())
        };
        if label == "spack-packages" || out.iter().any(|l| l.label == label) {
            label = format!("{label}-{i}");
        }
        out.push(Layer {
            label,
            recipes: repo.recipes.clone(),
            fallback: false,
            kept: BTreeSet::new(),
        });
    }
    if let Some(repo) = &t.fallback {
        out.push(Layer {
            label: "spack-packages".into(),
            recipes: repo.recipes.clone(),
            fallback: true,
            kept: BTreeSet::new(),
        });
    }
    out
}

/// The packages whose recipe the stack takes from a translated layer: every
/// package it reaches, and those its policies name (they are checked
/// against the repositories too).
fn keep(inputs: &Inputs, layers: &mut [Layer]) {
    let mut names: BTreeSet<String> = inputs.packages.clone();
    let policies = std::iter::once(&inputs.cluster.packages)
        .chain(inputs.recipe.environments.iter().map(|e| &e.packages));
    for p in policies {
        for (name, pol) in &p.entries {
            names.insert(name.clone());
            let specs = pol
                .require
                .iter()
                .flatten()
                .chain(pol.prefer.iter().flatten());
            names.extend(specs.filter_map(|s| s.name().map(str::to_string)));
            names.extend(
                pol.externals
                    .iter()
                    .flatten()
                    .filter_map(|e| e.spec.name().map(str::to_string)),
            );
        }
    }
    let repo = &inputs.repo;
    let mut virtuals = Vec::new();
    for name in &names {
        if repo.is_virtual(name) && !repo.contains(name) {
            virtuals.push(name.clone());
            continue;
        }
        keep_file(repo.file(name), name, layers);
    }
    // A virtual a policy names needs one provider in some repository.
    for v in virtuals {
        let providers: Vec<&str> = repo
            .providers(&v)
            .iter()
            .map(|p| p.package.as_str())
            .collect();
        if providers.iter().any(|p| names.contains(*p)) {
            continue;
        }
        if let Some(p) = providers.first() {
            keep_file(repo.file(p), p, layers);
        }
    }
}

fn keep_file(file: Option<&Path>, name: &str, layers: &mut [Layer]) {
    let Some(file) = file else { return };
    if let Some(l) = layers
        .iter_mut()
        .find(|l| file.parent() == Some(l.recipes.as_path()))
    {
        l.kept.insert(name.to_string());
    }
}

/// Copy a layer's kept recipes into `to` (`recipes/`, `patches/<name>/`
/// and the `spack/` package files their build runs); returns the bytes.
fn copy_layer(l: &Layer, to: &Path) -> std::io::Result<u64> {
    let root = l.recipes.parent().unwrap_or(&l.recipes);
    let mut bytes = 0;
    fs_err::create_dir_all(to.join("recipes"))?;
    for name in &l.kept {
        let file = l.recipes.join(format!("{name}.yaml"));
        let text = fs_err::read_to_string(&file)?;
        fs_err::write(to.join("recipes").join(format!("{name}.yaml")), &text)?;
        bytes += text.len() as u64;
        let patches = root.join("patches").join(name);
        if patches.is_dir() {
            bytes += copy_tree(&patches, &to.join("patches").join(name))?;
        }
        for f in package_files(&file, &text) {
            let from = root.join("spack").join(&f);
            if from.is_file() {
                let dest = to.join("spack").join(&f);
                if let Some(p) = dest.parent() {
                    fs_err::create_dir_all(p)?;
                }
                bytes += fs_err::copy(&from, &dest)?;
            }
        }
    }
    Ok(bytes)
}

/// The package files a recipe's build runs (`build: {package: {file},
/// imports: [{file}]}`, relative to `<repo>/spack/`), as safe relative
/// paths (no `..`, not absolute).
fn package_files(file: &Path, text: &str) -> Vec<PathBuf> {
    let src = crate::diag::SourceFile::new(file, text);
    let Ok(root) = crate::diag::yaml::parse(&src) else {
        return Vec::new();
    };
    let get =
        |n: &crate::diag::yaml::Node, k: &str| n.as_mapping().and_then(|m| m.get_node(k)).cloned();
    let Some(build) = get(&root, "build") else {
        return Vec::new();
    };
    let mut files = Vec::new();
    let scalar = |n: Option<crate::diag::yaml::Node>| {
        n.and_then(|n| n.as_scalar().map(|s| s.as_str().to_string()))
    };
    if let Some(p) = get(&build, "package") {
        files.extend(scalar(get(&p, "file")));
    }
    if let Some(items) = get(&build, "imports").and_then(|n| n.as_sequence().cloned()) {
        for i in items.iter() {
            files.extend(scalar(get(i, "file")));
        }
    }
    files
        .into_iter()
        .map(PathBuf::from)
        .filter(|p| p.components().all(|c| matches!(c, Component::Normal(_))))
        .collect()
}

/// The stack recipe's paths, relative to the output directory.
fn relative_paths(t: &mut Translation, layers: &[Layer]) {
    let path = |l: &Layer| Yaml::str(format!("repos/{}/recipes", l.label));
    let used = |fallback: bool| {
        let v: Vec<Yaml> = layers
            .iter()
            .filter(|l| l.fallback == fallback && !l.kept.is_empty())
            .map(path)
            .collect();
        (!v.is_empty()).then_some(Yaml::Seq(v))
    };
    t.set_stack_key("repos", used(false));
    t.set_stack_key("fallback_repos", used(true));
    let extra = t.extra.as_ref().map(|_| Yaml::str("extra"));
    t.set_stack_key("extra", extra);
    let pre = t.pre_install.as_ref().map(|_| Yaml::str("pre-install"));
    t.set_stack_key("pre_install", pre);
}

/// The README of the output: what it is and how to convert again.
fn readme(
    t: &Translation,
    labels: &Labels,
    stack_file: &str,
    layers: &[Layer],
    inputs: &Inputs,
) -> String {
    let name = &inputs.recipe.name.value;
    let cluster = &t.cluster_name;
    let pin = t
        .packages_pin
        .as_deref()
        .map_or("(none pinned)".to_string(), |p| format!("`{p}`"));
    let exported = t
        .fallback
        .as_ref()
        .and_then(|r| crate::import::checkout_commit(&r.spack));
    let mut s = format!(
        "# {name}: {MARK}\n\n\
         Written by `stack stackinator convert` (stack {version}) from the stackinator recipe\n\
         `{recipe}` and the cluster configuration `{cluster_dir}` (paths relative to this\n\
         directory). Nothing here names a path outside this directory.\n\n\
         | file | what |\n|---|---|\n\
         | `{stack_file}` | the stack recipe |\n\
         | `{cluster}/cluster.yaml` | the cluster configuration |\n\
         | `post-install` | the hook that writes `<mount>/config/packages.yaml` (and runs the recipe's own post-install) |\n",
        version = env!("CARGO_PKG_VERSION"),
        recipe = labels.recipe,
        cluster_dir = labels.cluster,
    );
    if t.pre_install.is_some() {
        s += "| `pre-install` | the recipe's pre-install hook |\n";
    }
    if t.extra.is_some() {
        s += "| `extra/` | the recipe's `extra/`, copied to `<mount>/meta/extra/` |\n";
    }
    for l in layers.iter().filter(|l| !l.kept.is_empty()) {
        let what = match l.label.as_str() {
            "recipe" => "the recipe's `repo/`".to_string(),
            "spack-packages" => format!("spack-packages at {pin}"),
            other => format!("the site repository `{other}`"),
        };
        s += &format!(
            "| `repos/{}/` | {} package recipe{} translated from {what} that the stack reaches, with their patches |\n",
            l.label,
            l.kept.len(),
            if l.kept.len() == 1 { "" } else { "s" }
        );
    }
    s += &format!(
        "\nEvery other package comes from stack's own recipes (the built-in repository).\n\n\
         Check it and pin its plan:\n\n\
         ```sh no-run: an example for the directory convert wrote\n\
         stack check {stack_file} --cluster {cluster}\n\
         stack resolve {stack_file} --cluster {cluster} --lock\n\
         ```\n\n\
         ## Converting again\n\n\
         When the recipe pins another spack-packages commit (`config.yaml`: `spack.packages.commit`,\n\
         now {pin}{exported}), or the recipe or the cluster configuration change, run the same\n\
         command again from this directory, with `STACK_SPACK_PACKAGES` naming a spack-packages\n\
         checkout whose history has the new commit (`git -C <checkout> fetch origin <commit>`):\n\n\
         ```sh no-run: an example for the directory convert wrote\n\
         STACK_SPACK_PACKAGES=<checkout> stack stackinator convert {recipe} {cluster_dir} --out .\n\
         ```\n\n\
         It rewrites `{stack_file}`, `{cluster}/`, `repos/`, the hooks, `extra/` and this README\n\
         (changes made to them by hand are lost; anything else here is kept). Review the result\n\
         with `git diff`, check it, and commit it.\n",
        recipe = labels.recipe,
        cluster_dir = labels.cluster,
        exported = exported
            .map(|c| format!(", commit {}", &c[..12.min(c.len())]))
            .unwrap_or_default(),
    );
    s
}

/// The written directory must load as the translation did, reaching the
/// same packages: else something it needs was not copied.
fn self_check(c: &Converted, translated: &Inputs) -> Result<(), OpError> {
    let opts = InputOptions {
        recipe: c.recipe.clone(),
        cluster: Some(c.cluster.clone()),
        ..InputOptions::default()
    };
    let problem = match crate::stacks::load_inputs(&opts) {
        Ok(i) if i.packages == translated.packages => return Ok(()),
        Ok(i) => format!(
            "it reaches {} packages, the translation {}",
            i.packages.len(),
            translated.packages.len()
        ),
        Err(d) => d.to_string(),
    };
    let mut d = Diagnostics::new();
    d.push(
        Diagnostic::error(
            Code::Io,
            format!(
                "the converted directory {} does not load as its translation does: {problem}",
                c.dir.display()
            ),
        )
        .with_help("this is a bug of `stack stackinator convert`; please report it"),
    );
    Err(OpError::Inputs(d))
}

/// The first line of the README convert writes: a directory with it was
/// written by convert, and convert may replace what it wrote there.
const MARK: &str = "a stack recipe converted from stackinator";

/// Whether convert may write into `dir`: it is empty, or convert wrote it
/// (its README says so) — and it neither holds nor lies inside the
/// directories converted (`inputs`).
fn may_replace(dir: &Path, ours: &[PathBuf], inputs: &[&Path]) -> Result<(), OpError> {
    for i in inputs {
        if i.starts_with(dir) && ours.iter().any(|o| i.starts_with(o)) || dir.starts_with(i) {
            return Err(input_error(
                format!(
                    "--out {}: converting would overwrite the input {}",
                    dir.display(),
                    i.display()
                ),
                "give an output directory outside the recipe and the cluster directories",
            ));
        }
    }
    let written_by_us = fs_err::read_to_string(dir.join("README.md"))
        .is_ok_and(|t| t.lines().next().is_some_and(|l| l.contains(MARK)));
    let clash = ours.iter().find(|p| p.exists());
    match clash {
        Some(p) if !written_by_us => Err(input_error(
            format!(
                "--out {}: {} exists and the directory was not written by `stack stackinator convert`",
                dir.display(),
                p.display()
            ),
            "give an empty (or new) directory, or one that convert wrote",
        )),
        _ => Ok(()),
    }
}

fn remove(p: &Path) -> std::io::Result<()> {
    match fs_err::symlink_metadata(p) {
        Ok(m) if m.is_dir() => fs_err::remove_dir_all(p),
        Ok(_) => fs_err::remove_file(p),
        Err(_) => Ok(()),
    }
}

/// Copy a directory tree (files and directories; links as the files they
/// point to); returns the bytes copied.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<u64> {
    let mut bytes = 0;
    for e in walkdir::WalkDir::new(from).follow_links(true) {
        let e = e.map_err(std::io::Error::other)?;
        let rel = e.path().strip_prefix(from).unwrap_or(e.path());
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            fs_err::create_dir_all(&dest)?;
        } else {
            bytes += fs_err::copy(e.path(), &dest)?;
        }
    }
    Ok(bytes)
}

fn size(path: &Path) -> std::io::Result<u64> {
    let mut n = 0;
    for e in walkdir::WalkDir::new(path).into_iter().flatten() {
        if e.file_type().is_file() {
            n += e.metadata().map_err(std::io::Error::other)?.len();
        }
    }
    Ok(n)
}

/// `to` relative to the directory `from` (both absolute).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_ancestor() {
        assert_eq!(
            relative(Path::new("/a/b/out"), Path::new("/a/c/recipe")),
            PathBuf::from("../../c/recipe")
        );
        assert_eq!(
            relative(Path::new("/a"), Path::new("/a")),
            PathBuf::from(".")
        );
        assert_eq!(
            relative(Path::new("/a"), Path::new("/a/x")),
            PathBuf::from("x")
        );
    }

    #[test]
    fn out_is_a_directory_or_a_recipe_file_in_one() {
        assert_eq!(
            out_dir(Path::new("site/prgenv")),
            ("site/prgenv".into(), "stack.yaml".into())
        );
        assert_eq!(
            out_dir(Path::new("site/prgenv/gnu.yaml")),
            ("site/prgenv".into(), "gnu.yaml".into())
        );
    }

    /// A kept recipe comes with its patches and the package files its
    /// build runs (`<repo>/spack/…`, the importer's layout); a recipe the
    /// stack does not reach stays behind.
    #[test]
    fn a_layer_copies_kept_recipes_with_their_patches_and_package_files() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("cache/repo");
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            fs_err::create_dir_all(p.parent().unwrap()).unwrap();
            fs_err::write(p, text).unwrap();
        };
        write(
            "recipes/p.yaml",
            "name: p\nbuild:\n  system: spack\n  package: {file: builtin/p/package.py, sha256: x}\n  imports: [{file: builtin/base/package.py, sha256: y}]\n",
        );
        write("recipes/unused.yaml", "name: unused\n");
        write("spack/builtin/p/package.py", "class P: pass\n");
        write("spack/builtin/base/package.py", "class Base: pass\n");
        write("spack/builtin/unused/package.py", "class Unused: pass\n");
        write("patches/p/fix.patch", "--- a\n+++ b\n");
        let layer = Layer {
            label: "spack-packages".into(),
            recipes: root.join("recipes"),
            fallback: true,
            kept: ["p".to_string()].into(),
        };
        let to = t.path().join("out/repos/spack-packages");
        copy_layer(&layer, &to).unwrap();
        let mut files: Vec<String> = walkdir::WalkDir::new(&to)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| e.path().strip_prefix(&to).unwrap().display().to_string())
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                "patches/p/fix.patch",
                "recipes/p.yaml",
                "spack/builtin/base/package.py",
                "spack/builtin/p/package.py"
            ]
        );
    }

    #[test]
    fn package_files_are_read_from_the_build_section_and_kept_inside() {
        let text = "name: p\nbuild:\n  system: spack\n  package: {file: builtin/p/package.py, sha256: x}\n  imports:\n    - {file: builtin/base/package.py, sha256: y}\n    - {file: ../../etc/passwd, sha256: z}\n";
        let files = package_files(Path::new("/r/p.yaml"), text);
        assert_eq!(
            files,
            [
                PathBuf::from("builtin/p/package.py"),
                PathBuf::from("builtin/base/package.py")
            ]
        );
    }
}
