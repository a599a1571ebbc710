//! From a plan node and its recipe to a [`BuildJob`]: every template of the
//! recipe's `build:` section rendered with tera, every `when:` decided.
//!
//! Templates see `name`, `version`, `prefix`, `target`, `jobs`,
//! `compiler.{name,version,cc,cxx,fc}` and the compiler's flag properties
//! (`compiler.openmp_flag`, `cc_pic_flag`, `c99_flag`, … — `compiler_flags`), `spec` (the
//! node's concrete spec text), `variants.<v>` (bool, string for single-valued,
//! list for multi-valued variants) and `deps.<name>.{prefix,version,hash}` for
//! every dependency (direct ones of any type and the link closure; a provider
//! is also listed under each virtual it provides, e.g. `deps.mpi`). The test
//! `satisfies` decides a spec condition: `{% if spec is satisfies("+cuda") %}`;
//! the filter `up_to(n=N)` keeps the first N components of a version, as
//! Spack's `Version.up_to` (`{{ deps.python.version | up_to(n=2) }}` → `3.12`).
//!
//! A template that contains a block (`{% … %}`) may render to several words; it
//! is split on whitespace and empty words are dropped. Any other template is
//! exactly one argument.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use petgraph::graph::NodeIndex;
use serde_json::{Value, json};

use crate::build::{self, BuildJob, DepKind, DepPrefix};
use crate::build_logic::job::LogicRuntime;
use crate::diag::Loc;
use crate::recipes::{self, ArgList, DepTypes, EnvOpKind, InstallAction, When};
use crate::resolve::{Node, Plan};
use crate::spec::{Spec, VariantValue};

mod compiler_flags;
mod compilers;
mod dep_env;
mod filters;
mod flags;
mod logic;

pub use compilers::{built_compiler_programs, compiler_paths};

/// A template that did not render.
#[derive(Debug, thiserror::Error)]
#[error("{loc}: cannot render `{template}` for {package}: {reason}")]
pub struct RenderError {
    pub package: String,
    pub template: String,
    pub loc: Loc,
    pub reason: String,
}

/// Renders the templates of one node.
pub struct Renderer<'a> {
    node: &'a Node,
    tera: tera::Tera,
    context: tera::Context,
    deps: BTreeMap<String, PathBuf>,
}

impl<'a> Renderer<'a> {
    pub fn new(plan: &'a Plan, idx: NodeIndex, jobs: usize) -> Self {
        let node = plan.node(idx);
        let deps = template_deps(plan, idx);
        let mut context = tera::Context::new();
        context.insert("name", &node.name);
        context.insert("version", &node.version.to_string());
        context.insert("prefix", &node.prefix.display().to_string());
        context.insert("target", &node.target);
        context.insert("jobs", &jobs);
        context.insert("spec", &node.spec.to_string());
        context.insert("variants", &variants_value(node));
        let cc = compiler_paths(plan, idx);
        let mut compiler = json!({
            "name": node.compiler.name,
            "version": node.compiler.version.to_string(),
            "cc": cc.cc.display().to_string(),
            "cxx": cc.cxx.as_ref().map(|p| p.display().to_string()),
            "fc": cc.fc.as_ref().map(|p| p.display().to_string()),
        });
        if let Value::Object(m) = &mut compiler {
            m.extend(compiler_flags::flag_properties(node));
        }
        context.insert("compiler", &compiler);
        let deps_value: serde_json::Map<String, Value> = deps
            .iter()
            .map(|(name, dep)| {
                let n = plan.node(*dep);
                (
                    name.clone(),
                    json!({
                        "prefix": n.prefix.display().to_string(),
                        "version": n.version.to_string(),
                        "hash": n.hash,
                        // an external in /usr, /usr/local or /: its dirs are
                        // searched by default and must never be passed as
                        // -I/-isystem/-L (`{% if not deps.x.system %}`)
                        "system": is_system_prefix(&n.prefix),
                        "external": n.is_external(),
                        "variants": variants_value(n),
                    }),
                )
            })
            .collect();
        context.insert("deps", &Value::Object(deps_value));
        // No environment, time, randomness or files (`crate::template`).
        let mut tera = crate::template::tera();
        let spec = node.spec.clone();
        tera.register_tester(
            "satisfies",
            move |_value: Option<&Value>, args: &[Value]| -> tera::Result<bool> {
                let Some(Value::String(cond)) = args.first() else {
                    return Err(
                        "`satisfies` takes one spec string, e.g. satisfies(\"+cuda\")".into(),
                    );
                };
                let cond = Spec::parse(cond).map_err(|e| tera::Error::msg(e.to_string()))?;
                Ok(spec.satisfies(&cond))
            },
        );
        tera.register_filter("up_to", filters::up_to);
        let dep_prefixes = deps
            .iter()
            .map(|(k, v)| (k.clone(), plan.node(*v).prefix.clone()))
            .collect();
        Renderer {
            node,
            tera,
            context,
            deps: dep_prefixes,
        }
    }

    /// Whether a recipe condition holds for this node.
    pub fn holds(&self, when: &Option<When>) -> bool {
        when.as_ref().is_none_or(|w| self.node.satisfies(&w.spec))
    }

    /// Render one template.
    pub fn render(&mut self, template: &str, loc: &Loc) -> Result<String, RenderError> {
        if !template.contains("{{") && !template.contains("{%") {
            return Ok(template.to_string());
        }
        self.tera
            .render_str(template, &self.context)
            .map_err(|e| RenderError {
                package: self.node.name.clone(),
                template: template.to_string(),
                loc: loc.clone(),
                reason: crate::diag::error_chain(&e),
            })
    }

    /// Render a conditional argument list into argv elements.
    pub fn args(&mut self, list: &ArgList) -> Result<Vec<String>, RenderError> {
        let mut out = Vec::new();
        for entry in list {
            if !self.holds(&entry.when) {
                continue;
            }
            for template in &entry.value {
                let text = self.render(template, &entry.loc)?;
                if template.contains("{%") {
                    out.extend(text.split_whitespace().map(str::to_string));
                } else {
                    out.push(text);
                }
            }
        }
        Ok(out)
    }

    /// The prefix of a dependency named in the recipe (package or virtual).
    pub fn dep_prefix(&self, name: &str) -> Option<&Path> {
        self.deps.get(name).map(PathBuf::as_path)
    }
}

/// The node's variants for templates and the build logic: bool, string
/// (single-valued) or list (multi-valued).
pub(super) fn variants_value(node: &Node) -> Value {
    let mut map = serde_json::Map::new();
    for (name, value) in &node.variants {
        let multi = node.recipe.variant(name).is_some_and(|d| d.is_multi());
        let v = match value {
            VariantValue::Bool(b) => Value::Bool(*b),
            VariantValue::Values(set) if multi => {
                Value::Array(set.iter().cloned().map(Value::String).collect())
            }
            VariantValue::Values(set) => {
                Value::String(set.iter().next().cloned().unwrap_or_default())
            }
        };
        map.insert(name.clone(), v);
    }
    Value::Object(map)
}

/// Dependencies visible to templates: direct ones (any type) and the link
/// closure, each also under the virtuals it provides.
fn template_deps(plan: &Plan, idx: NodeIndex) -> BTreeMap<String, NodeIndex> {
    let mut out = BTreeMap::new();
    let mut add = |dep: NodeIndex| {
        let n = plan.node(dep);
        out.entry(n.name.clone()).or_insert(dep);
        for p in &n.recipe.provides {
            out.entry(p.name.clone()).or_insert(dep);
        }
    };
    for (dep, _) in plan.deps(idx) {
        add(dep);
    }
    for dep in plan.closure(idx, link_only()) {
        if dep != idx {
            add(dep);
        }
    }
    out
}

fn link_only() -> DepTypes {
    DepTypes {
        build: false,
        link: true,
        run: false,
        test: false,
    }
}

/// Prefixes a build must not add as `-I`/`-L`/RPATH: the system's own.
fn is_system_prefix(prefix: &Path) -> bool {
    matches!(prefix.to_str(), Some("/" | "/usr" | "/usr/local"))
}

/// The libraries a job may link from the host: the `libraries:` of the
/// externals in system prefixes in its link closure (sorted, once each). A
/// build tool's libraries are not linked: an external pkgconf or python
/// that a package only runs adds nothing.
fn host_libraries(plan: &Plan, idx: NodeIndex) -> Vec<String> {
    let mut out: Vec<String> = plan
        .closure(idx, link_only())
        .into_iter()
        .filter(|&d| d != idx)
        .map(|d| plan.node(d))
        .filter(|n| n.is_external() && is_system_prefix(&n.prefix))
        .flat_map(|n| n.recipe.library_names())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The dependency prefixes of a job: the transitive link closure (link), the
/// direct build dependencies (build) and direct run dependencies (run).
/// Externals in system prefixes are left out (they are found by default),
/// except as build dependencies: their `executables` are the build's tools.
pub fn dep_prefixes(plan: &Plan, idx: NodeIndex) -> Vec<DepPrefix> {
    let mut out: Vec<DepPrefix> = Vec::new();
    let mut push = |dep: NodeIndex, kind: DepKind| {
        let n = plan.node(dep);
        // A build tool in a system prefix stays: its programs go on the
        // build PATH (one by one, not the whole `/usr/bin`).
        if is_system_prefix(&n.prefix) && kind != DepKind::Build {
            return;
        }
        if out.iter().any(|d| d.hash == n.hash && d.kind == kind) {
            return;
        }
        let executables = match &n.recipe.executables {
            _ if !is_system_prefix(&n.prefix) => Vec::new(),
            list if list.is_empty() => vec![n.name.clone()],
            list => list.clone(),
        };
        out.push(DepPrefix {
            name: n.name.clone(),
            hash: n.hash.clone(),
            prefix: n.prefix.clone(),
            kind,
            executables,
        });
    };
    for dep in plan.closure(idx, link_only()) {
        if dep != idx {
            push(dep, DepKind::Link);
        }
    }
    for (dep, types) in plan.deps(idx) {
        // A test dependency is there for the package's own checks (steps).
        if types.build || types.test {
            push(dep, DepKind::Build);
        }
        if types.run {
            push(dep, DepKind::Run);
        }
    }
    out
}

/// Everything `build` needs for one node, rendered; build logic (a
/// `spack` node) with the default [`LogicRuntime`] (`python3`).
pub fn build_job(
    plan: &Plan,
    idx: NodeIndex,
    source_dir: PathBuf,
    jobs: usize,
) -> Result<BuildJob, RenderError> {
    build_job_with(plan, idx, source_dir, jobs, &LogicRuntime::default())
}

/// Everything `build` needs for one node, rendered; build logic runs
/// from `runtime`.
pub fn build_job_with(
    plan: &Plan,
    idx: NodeIndex,
    source_dir: PathBuf,
    jobs: usize,
    runtime: &LogicRuntime,
) -> Result<BuildJob, RenderError> {
    let node = plan.node(idx);
    let b = &node.recipe.build;
    let mut r = Renderer::new(plan, idx, jobs);
    let install = install_steps(&mut r, &b.install)?;
    let (mut system, relocate) = system(&mut r, node, install)?;
    system.logic = logic::logic_job(plan, idx, runtime);
    // Build logic hands the spec's flags to the package's `flag_handler`.
    let no_flags = BTreeMap::new();
    let spec_flags = match system.logic {
        Some(_) => &no_flags,
        None => &node.spec.flags,
    };
    let (system, flag_env) = flags::apply(&mut r, &b.flags, spec_flags, system)?;
    let mut build_env = flag_env;
    for op in &b.build_env {
        if r.holds(&op.when) {
            let value = r.render(&op.value, &op.loc)?;
            build_env.push(env_op(op.kind, &op.var, value));
        }
    }
    Ok(BuildJob {
        name: node.name.clone(),
        version: node.version.to_string(),
        hash: node.hash.clone(),
        spec: node.spec.to_string(),
        prefix: node.prefix.clone(),
        source_dir,
        system,
        dep_env: dep_env::dependency_env(plan, idx, jobs)?,
        build_env,
        steps: phase_steps(&mut r, &b.steps)?,
        filters: file_filters(&mut r, &b.filters)?,
        relocate,
        deps: dep_prefixes(plan, idx),
        host_libraries: host_libraries(plan, idx),
        compiler: compiler_paths(plan, idx),
        cost: None,
        patches: recorded_patches(node),
        recipe: Some(node.recipe.file.clone()),
    })
}

/// The patches applied to the node's source, as its prefix records them.
fn recorded_patches(node: &crate::resolve::Node) -> Vec<crate::store::RecordPatch> {
    node.patches
        .iter()
        .map(|p| crate::store::RecordPatch {
            patch: match &p.source {
                recipes::PatchSource::File(f) => f.text.clone(),
                recipes::PatchSource::Url(u) => u.value.clone(),
            },
            sha256: p.sha256.clone(),
            level: p.level,
        })
        .collect()
}

/// The recipe's `install:` steps whose `when:` holds, rendered.
fn install_steps(
    r: &mut Renderer<'_>,
    steps: &[recipes::InstallStep],
) -> Result<Vec<build::InstallStep>, RenderError> {
    let mut install = Vec::new();
    for step in steps {
        if !r.holds(&step.when) {
            continue;
        }
        install.push(match &step.action {
            InstallAction::Copy { from, to } => build::InstallStep::Copy {
                from: r.render(from, &step.loc)?,
                to: PathBuf::from(r.render(to, &step.loc)?),
            },
            InstallAction::Mkdir { path } => build::InstallStep::Mkdir {
                path: PathBuf::from(r.render(path, &step.loc)?),
            },
            InstallAction::Symlink { target, at } => build::InstallStep::Symlink {
                target: PathBuf::from(r.render(target, &step.loc)?),
                at: PathBuf::from(r.render(at, &step.loc)?),
            },
        });
    }
    Ok(install)
}

/// The build system with its settings rendered, by type (toggles decided,
/// arguments and word lists rendered, `relocate:` into the job's
/// relocation); every system takes the explicit install steps (after its
/// own install, if it has one).
fn system(
    r: &mut Renderer<'_>,
    node: &Node,
    install: Vec<build::InstallStep>,
) -> Result<(build::BuildSystem, Option<build::Relocation>), RenderError> {
    let b = &node.recipe.build;
    let mut system = build::BuildSystem::new(b.system.name());
    system.install = install;
    let mut relocate = None;
    for (key, setting) in &b.system.settings {
        let value: build::JobValue = match setting {
            recipes::Setting::Toggle(t) => toggle(r, t).into(),
            recipes::Setting::Flag(f) => (*f).into(),
            recipes::Setting::Args(a) => r.args(a)?.into(),
            recipes::Setting::Text(Some(t)) => r.render(t, &b.loc)?.into(),
            recipes::Setting::Text(None) => continue,
            recipes::Setting::Words(w) => r.args(w)?.into(),
            recipes::Setting::Relocate(rel) => {
                relocate = Some(relocation(r, node, rel)?);
                continue;
            }
            // Into the job's build logic (`render_logic`).
            recipes::Setting::File(_) | recipes::Setting::Files(_) => continue,
        };
        system.settings.set(key, value);
    }
    Ok((system, relocate))
}

/// The relocation of a `binary` package: RPATHs to named dependencies,
/// added `DT_NEEDED` entries, placeholder substitutions.
fn relocation(
    r: &mut Renderer<'_>,
    node: &Node,
    rel: &recipes::Relocate,
) -> Result<build::Relocation, RenderError> {
    let mut rpath = Vec::new();
    for dep in &rel.rpath {
        let Some(prefix) = r.dep_prefix(&dep.value) else {
            return Err(RenderError {
                package: node.name.clone(),
                template: dep.value.clone(),
                loc: dep.loc.clone(),
                reason: "relocate.rpath names a package that is not a dependency of this node"
                    .into(),
            });
        };
        rpath.push(prefix.join("lib"));
        rpath.push(prefix.join("lib64"));
    }
    let mut needed = Vec::new();
    for n in &rel.needed {
        if r.holds(&n.when) {
            needed.push(build::AddNeeded {
                files: n.file.clone(),
                add: vec![r.render(&n.add, &n.loc)?],
            });
        }
    }
    let mut placeholders = BTreeMap::new();
    for (key, value) in &rel.placeholders {
        placeholders.insert(key.clone(), r.render(value, &node.recipe.build.loc)?);
    }
    Ok(build::Relocation {
        rpath,
        needed,
        placeholders,
    })
}

/// The recipe's `steps:`, rendered, by phase.
fn phase_steps(
    r: &mut Renderer<'_>,
    recipe_steps: &[recipes::Step],
) -> Result<build::Steps, RenderError> {
    let mut steps = build::Steps::default();
    for step in recipe_steps {
        if !r.holds(&step.when) {
            continue;
        }
        let mut argv = Vec::with_capacity(step.argv.len());
        for a in &step.argv {
            argv.push(r.render(a, &step.loc)?);
        }
        let slot = match step.phase {
            recipes::Phase::PreBootstrap => &mut steps.pre_bootstrap,
            recipes::Phase::PreConfigure => &mut steps.pre_configure,
            recipes::Phase::PostConfigure => &mut steps.post_configure,
            recipes::Phase::PreBuild => &mut steps.pre_build,
            recipes::Phase::PostBuild => &mut steps.post_build,
            recipes::Phase::PreInstall => &mut steps.pre_install,
            recipes::Phase::PostInstall => &mut steps.post_install,
        };
        slot.push(argv);
    }
    Ok(steps)
}

/// The `filter:` entries whose `when` holds, rendered.
fn file_filters(
    r: &mut Renderer<'_>,
    list: &[recipes::Filter],
) -> Result<Vec<crate::file_filter::FileFilter>, RenderError> {
    let mut out = Vec::new();
    for f in list {
        if !r.holds(&f.when) {
            continue;
        }
        out.push(crate::file_filter::FileFilter {
            file: r.render(&f.file, &f.loc)?,
            regex: r.render(&f.regex, &f.loc)?,
            replace: r.render(&f.replace, &f.loc)?,
            string: f.string,
            ignore_absent: f.ignore_absent,
        });
    }
    Ok(out)
}

fn toggle(r: &Renderer<'_>, t: &recipes::Toggle) -> bool {
    match t {
        recipes::Toggle::Off => false,
        recipes::Toggle::On => true,
        recipes::Toggle::When(w) => r.holds(&Some(w.clone())),
    }
}

/// A rendered environment operation for the build stage.
pub fn env_op(kind: EnvOpKind, var: &str, value: String) -> build::EnvOp {
    match kind {
        EnvOpKind::Set => build::EnvOp::Set(var.to_string(), value),
        EnvOpKind::Unset => build::EnvOp::Unset(var.to_string()),
        EnvOpKind::PrependPath => build::EnvOp::PrependPath(var.to_string(), value),
        EnvOpKind::AppendPath => build::EnvOp::AppendPath(var.to_string(), value),
        EnvOpKind::AppendFlags => build::EnvOp::AppendFlags(var.to_string(), value),
    }
}

/// The run environment of a node (`env:`), rendered, for views and modules.
pub fn run_env(
    plan: &Plan,
    idx: NodeIndex,
    jobs: usize,
) -> Result<Vec<(EnvOpKind, String, String)>, RenderError> {
    env_ops(plan, idx, jobs, &plan.node(idx).recipe.env)
}

/// What a node sets in its dependents' builds (`dependent_build_env:`),
/// rendered with the node's own template context.
pub fn dependent_build_env(
    plan: &Plan,
    idx: NodeIndex,
    jobs: usize,
) -> Result<Vec<(EnvOpKind, String, String)>, RenderError> {
    env_ops(plan, idx, jobs, &plan.node(idx).recipe.dependent_build_env)
}

fn env_ops(
    plan: &Plan,
    idx: NodeIndex,
    jobs: usize,
    ops: &[crate::recipes::EnvOp],
) -> Result<Vec<(EnvOpKind, String, String)>, RenderError> {
    let mut r = Renderer::new(plan, idx, jobs);
    let mut out = Vec::new();
    for op in ops {
        if r.holds(&op.when) {
            let value = r.render(&op.value, &op.loc)?;
            out.push((op.kind, op.var.clone(), value));
        }
    }
    Ok(out)
}
