//! Building one package: stage → (bootstrap) → configure → build → install
//! → (relocate) → register.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use super::build_env;
use super::build_id;
use super::build_paths;
use super::command::Runner;
use super::env::{self, EnvInputs, PathMap, RealTools, StageDirs};
use super::error::{PackageError, PhaseError};
use super::graph::JobId;
use super::host_tools;
use super::job::{BuildJob, BuildSystem};
use super::jobserver::JobServer;
use super::log::BuildLog;
use super::phases;
use super::relocate;
use super::report::Phase;
use super::tree::copy_tree;
use super::wrapper::Dtags;
use crate::sandbox::Namespace;
use crate::store::{self, BuildFacts, InstalledRecord, RecordDep};

/// What every package build shares.
pub(crate) struct Shared<'a> {
    pub build_dir: PathBuf,
    pub map: PathMap,
    pub jobserver: &'a JobServer,
    pub namespace: Option<Arc<Namespace>>,
    pub keep_stage: bool,
    pub wrapper_log: bool,
    pub source_date_epoch: i64,
    pub dtags: Dtags,
}

/// Events to the scheduler thread: from the jobserver helper and the workers.
pub(crate) enum Event {
    Token(std::io::Result<jobserver::Acquired>),
    Phase(JobId, Phase),
    /// A job ended; its token comes back with it, so the scheduler learns
    /// the outcome before the token can start another job.
    Done(JobId, Box<Outcome>, super::jobserver::Token),
}

/// The result of one package build.
pub(crate) struct Outcome {
    pub result: Result<(), PhaseError>,
    pub log: PathBuf,
    pub wall: Duration,
    pub children: Duration,
    pub cpu: Duration,
    pub phases: Vec<(Phase, Duration)>,
}

/// CPU time consumed by the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = nix::libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec.
    unsafe { nix::libc::clock_gettime(nix::libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The wrapper directory of a build, below the build directory.
pub(crate) const WRAP_DIR: &str = "wrap";

/// What the wrapper maps a stage directory to in compiler output
/// (`-ffile-prefix-map=<build>/stage/<slug>=/stack-stage/<slug>`).
pub(crate) const STAGE_MAP: &str = "/stack-stage";

/// Stage directory of a job.
pub(crate) fn stage_root(build_dir: &Path, job: &BuildJob) -> PathBuf {
    build_dir.join("stage").join(job.slug())
}

/// Log file of a job.
pub(crate) fn log_path(build_dir: &Path, job: &BuildJob) -> PathBuf {
    build_dir.join("logs").join(format!("{}.log", job.slug()))
}

/// Build time record of a job (beside its log).
pub(crate) fn facts_path(build_dir: &Path, job: &BuildJob) -> PathBuf {
    build_dir.join("logs").join(format!("{}.json", job.slug()))
}

/// The per-package context the build systems work with.
pub(crate) struct PkgCtx<'a> {
    pub job: &'a BuildJob,
    pub stage: StageDirs,
    pub host_prefix: PathBuf,
    pub runner: Runner<'a>,
    pub jobserver: &'a JobServer,
    /// The RPATH entries the wrapper adds (own lib dirs, link dependencies).
    pub rpaths: Vec<PathBuf>,
    /// The real programs behind the compiler wrappers.
    pub real: &'a RealTools,
    phase: Phase,
    phase_start: Instant,
    phases: Vec<(Phase, Duration)>,
    id: JobId,
    events: &'a Sender<Event>,
}

impl PkgCtx<'_> {
    /// The phases' durations, the current one closed (zero ones dropped).
    fn finished_phases(&mut self) -> Vec<(Phase, Duration)> {
        let mut phases = std::mem::take(&mut self.phases);
        phases.push((self.phase, Instant::now() - self.phase_start));
        phases.retain(|(_, d)| !d.is_zero());
        phases
    }

    /// Enter a phase: time it and report it.
    pub fn enter(&mut self, phase: Phase) {
        let now = Instant::now();
        self.phases.push((self.phase, now - self.phase_start));
        self.phase = phase;
        self.phase_start = now;
        self.runner.log.line(&format!("==> phase {phase}"));
        let _ = self.events.send(Event::Phase(self.id, phase));
    }

    /// Run extra recipe steps in the source directory.
    pub fn hooks(&self, steps: &[Vec<String>]) -> Result<(), PackageError> {
        for argv in steps {
            self.runner.run(argv, &self.stage.src)?;
        }
        Ok(())
    }

    /// Run a command with the jobserver.
    pub fn run(&self, argv: Vec<String>, cwd: &Path) -> Result<(), PackageError> {
        self.runner.run(&argv, cwd)
    }

    /// Find a program on the build `PATH`.
    pub fn which(&self, name: &str) -> Option<PathBuf> {
        let path = self.runner.env.get(std::ffi::OsStr::new("PATH"))?;
        std::env::split_paths(path)
            .map(|d| d.join(name))
            .find(|p| is_executable(p))
    }

    pub fn prefix_str(&self) -> String {
        self.job.prefix.to_string_lossy().into_owned()
    }
}

/// The host programs of a job's build `PATH`: the base tools, then the
/// executables of its build dependencies in system prefixes.
pub(crate) fn job_host_tools(job: &BuildJob) -> Vec<host_tools::HostTool> {
    let mut tools = host_tools::base_tools();
    tools.extend(host_tools::system_tools(&job.system));
    for d in &job.deps {
        if d.kind == super::job::DepKind::Build && !d.executables.is_empty() {
            tools.extend(host_tools::external_tools(&d.prefix, &d.executables));
        }
    }
    tools
}

/// Keep the package's environment in its stage for `stack build-env`.
fn record_build_env(shared: &Shared<'_>, ctx: &PkgCtx<'_>) -> std::io::Result<()> {
    let sandbox = shared
        .namespace
        .as_ref()
        .filter(|ns| !ns.is_processes_only())
        .map(|_| build_env::SandboxRecord {
            build_dir: shared.build_dir.clone(),
            store: shared.map.host_root.clone(),
            mount: shared.map.mount.clone(),
            keep: fs_err::read_link(ctx.stage.wrap.join("cc"))
                .map(|exe| super::compiler_tools::wrapper_dirs(&exe))
                .unwrap_or_default(),
        });
    build_env::write(&build_env::BuildEnvRecord {
        package: ctx.job.name.clone(),
        version: ctx.job.version.clone(),
        prefix: ctx.job.prefix.clone(),
        stage: ctx.stage.root.clone(),
        cwd: ctx.stage.build.clone(),
        env: ctx
            .runner
            .env
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            })
            .collect(),
        sandbox,
    })
}

/// A command that failed because a program was not found (in its output,
/// or the program itself): the error names the tool and the recipe. The
/// end of the log first; else anywhere in it, with the line (a configure
/// script that only warns, `config.status: perl: command not found`, and a
/// make that fails hundreds of lines later).
fn name_missing_tool(job: &BuildJob, log: &Path, error: PackageError) -> PackageError {
    let (tool, argv, line) = match &error {
        PackageError::Command { argv, .. } => {
            let tail = super::log::tail(log, 40).join("\n");
            let whole = || {
                let text = std::fs::read(log).ok()?;
                host_tools::undeclared_tool_in_log(&String::from_utf8_lossy(&text))
            };
            match host_tools::undeclared_tool(&tail) {
                Some(t) => (t, argv.clone(), None),
                None => match whole() {
                    Some((t, n)) => (t, argv.clone(), Some(n)),
                    None => return error,
                },
            }
        }
        PackageError::Spawn { program, source }
            if source.kind() == std::io::ErrorKind::NotFound && !program.contains('/') =>
        {
            (program.clone(), program.clone(), None)
        }
        _ => return error,
    };
    PackageError::UndeclaredTool(Box::new(super::error::UndeclaredTool {
        package: job.name.clone(),
        recipe: job.recipe.clone(),
        host: host_tools::on_host(&tool),
        tool,
        argv,
        line,
    }))
}

pub(crate) fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Build and install one job. Never panics on build problems; the error is in the outcome.
pub(crate) fn build_one(
    shared: &Shared<'_>,
    id: JobId,
    job: &BuildJob,
    tools: &RealTools,
    events: &Sender<Event>,
) -> Outcome {
    let t0 = Instant::now();
    let cpu0 = thread_cpu();
    let _span = tracing::info_span!("build", package = %job.name).entered();
    let log_path = log_path(&shared.build_dir, job);
    let log = match BuildLog::create(&log_path) {
        Ok(l) => l,
        Err(e) => {
            return Outcome {
                result: Err(PhaseError {
                    phase: Phase::Stage,
                    error: e.into(),
                }),
                log: log_path,
                wall: t0.elapsed(),
                children: Duration::ZERO,
                cpu: thread_cpu().saturating_sub(cpu0),
                phases: Vec::new(),
            };
        }
    };
    log_header(&log, job);
    let (stage, dep_dirs) = stage_and_dep_dirs(shared, job);
    let host_prefix = shared.map.to_host(&job.prefix);
    // The run environments the dependencies recorded (they are installed).
    let (dep_env, dep_env_error) = match env::recorded_dep_env(&job.dep_env, &shared.map) {
        Ok(ops) => (ops, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let environment = env::build_environment(&EnvInputs {
        job,
        dep_env: &dep_env,
        stage: &stage,
        deps: &dep_dirs,
        tools,
        source_date_epoch: shared.source_date_epoch,
        wrapper_log: shared.wrapper_log.then(|| stage.root.join("wrapper.log")),
    });
    // The package may write only its stage and its own prefix.
    let sandbox = shared
        .namespace
        .as_ref()
        .map(|ns| ns.for_package(&stage.root, &job.prefix));
    let runner = Runner::new(environment, &log, shared.jobserver, sandbox.as_ref());
    let mut ctx = PkgCtx {
        job,
        stage,
        host_prefix,
        runner,
        jobserver: shared.jobserver,
        rpaths: dep_dirs
            .wrap
            .as_ref()
            .map(|w| w.rpaths.clone())
            .unwrap_or_default(),
        real: tools,
        phase: Phase::Stage,
        phase_start: t0,
        phases: Vec::new(),
        id,
        events,
    };
    let _ = events.send(Event::Phase(id, Phase::Stage));
    let result = match dep_env_error {
        Some(e) => Err(PackageError::Io(std::io::Error::other(format!(
            "the run environment of a dependency: {e}"
        )))),
        None => run_phases(shared, &mut ctx),
    };
    let result = result.map_err(|error| PhaseError {
        phase: ctx.phase,
        error: name_missing_tool(job, &log_path, error),
    });
    // On success the stage is removed later, after the token is returned
    // (`cleanup_stage`); on failure it stays for inspection, and whatever
    // the failed install wrote into the prefix goes: nothing half-installed
    // reaches a partial image or a later run.
    if let Err(e) = &result {
        log.line(&format!(
            "==> {} failed in phase {}: {}",
            job.name, e.phase, e.error
        ));
        if let Err(w) = store::wipe(&ctx.host_prefix) {
            log.line(&format!(
                "==> could not remove the partial prefix {}: {w}",
                ctx.host_prefix.display()
            ));
        }
    }
    let phases = ctx.finished_phases();
    Outcome {
        result,
        log: log_path,
        wall: t0.elapsed(),
        children: ctx.runner.children(),
        cpu: thread_cpu().saturating_sub(cpu0),
        phases,
    }
}

/// The first lines of a package's log: what is built where, with which
/// patches.
fn log_header(log: &BuildLog, job: &BuildJob) {
    log.line(&format!(
        "==> {} {} ({}) into {}",
        job.name,
        job.version,
        job.system.keyword(),
        job.prefix.display()
    ));
    for p in &job.patches {
        log.line(&format!(
            "==> patched with {} (sha256 {}, -p{})",
            p.patch, p.sha256, p.level
        ));
    }
}

/// The package's stage directories and its dependencies' directories (the
/// wrapper maps the stage to a fixed path).
fn stage_and_dep_dirs(shared: &Shared<'_>, job: &BuildJob) -> (StageDirs, env::DepDirs) {
    let out_of_source =
        super::phases::of(&job.system).is_ok_and(|k| k.out_of_source(&job.system.settings));
    let stage = StageDirs::new(
        stage_root(&shared.build_dir, job),
        out_of_source,
        shared.build_dir.join(WRAP_DIR),
    );
    let mut dep_dirs = env::dep_dirs(job, &shared.map, shared.dtags);
    if let Some(w) = dep_dirs.wrap.as_mut() {
        // Debug info and __FILE__ name the stage by a fixed path, not by the
        // build directory: two builds of one lockfile give the same bytes.
        w.prefix_maps
            .push((stage.root.clone(), Path::new(STAGE_MAP).join(job.slug())));
    }
    (stage, dep_dirs)
}

/// After the install: a `binary` package's tree relocated; a compiled
/// package's RPATHs checked (see [`relocate::ensure_rpaths`]) and its build
/// IDs recomputed from the installed bytes.
fn relocate_installed(shared: &Shared<'_>, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    let job = ctx.job;
    if let Some(rel) = &job.relocate {
        ctx.enter(Phase::Relocate);
        ctx.runner
            .log
            .line(&format!("==> relocating {}", job.prefix.display()));
        let r = relocate::relocate(rel, &job.prefix, &ctx.host_prefix, &shared.map, &ctx.runner)?;
        ctx.runner.log.line(&format!(
            "==> relocated: RPATH set on {} files, {} NEEDED added, placeholders replaced in {} files",
            r.rpath_set, r.needed_added, r.placeholder_files
        ));
    } else if compiled(&job.system) {
        // Some installers rewrite RPATHs (meson drops entries equal to its own
        // build RPATHs, which include dependency dirs): put the wrapper's back.
        ctx.enter(Phase::Relocate);
        let r = relocate::ensure_rpaths(
            &ctx.rpaths,
            &ctx.host_prefix,
            &shared.build_dir,
            &shared.map,
            &ctx.runner,
        )?;
        if r.rpath_set > 0 {
            ctx.runner.log.line(&format!(
                "==> RPATH fixed on {} files (entries the installer dropped restored, absent directories and the build directory's removed)",
                r.rpath_set
            ));
        }
        let n = build_id::normalize(&ctx.host_prefix)?;
        if n > 0 {
            ctx.runner.log.line(&format!(
                "==> build IDs recomputed from the installed bytes of {n} files"
            ));
        }
    }
    Ok(())
}

fn run_phases(shared: &Shared<'_>, ctx: &mut PkgCtx<'_>) -> Result<(), PackageError> {
    let job = ctx.job;
    // Stage: a leftover prefix of an interrupted build goes first.
    store::wipe(&ctx.host_prefix)?;
    remove_tree(&ctx.stage.root)?;
    copy_tree(&job.source_dir, &ctx.stage.src)?;
    for f in &job.filters {
        let n = crate::file_filter::apply(&ctx.stage.src, f)?;
        ctx.runner.log.line(&format!(
            "==> filtered {} ({n} lines changed): {} → {}",
            f.file, f.regex, f.replace
        ));
    }
    for d in [&ctx.stage.build, &ctx.stage.home, &ctx.stage.tmp] {
        fs_err::create_dir_all(d)?;
    }
    host_tools::populate(&ctx.stage.tools, &job_host_tools(job))?;
    record_build_env(shared, ctx)?;
    fs_err::create_dir_all(&ctx.host_prefix)?;

    phases::run(ctx)?;
    if job.system.logic.is_some() {
        keep_run_env(ctx)?;
    }
    scrub_build_paths(shared, ctx)?;

    relocate_installed(shared, ctx)?;

    ctx.enter(Phase::Register);
    store::normalize_modes(&ctx.host_prefix)?;
    let manifest = store::manifest(&ctx.host_prefix)?;
    let mut deps: Vec<RecordDep> = Vec::new();
    for d in &job.deps {
        if !d.executables.is_empty() {
            continue; // a tool in /usr: not part of the store
        }
        let rd = RecordDep {
            name: d.name.clone(),
            hash: d.hash.clone(),
            kind: d.kind.as_str().into(),
            prefix: d.prefix.clone(),
        };
        if !deps.contains(&rd) {
            deps.push(rd);
        }
    }
    let mut record = InstalledRecord {
        format: 0,
        name: job.name.clone(),
        version: job.version.clone(),
        hash: job.hash.clone(),
        spec: job.spec.clone(),
        prefix: job.prefix.clone(),
        build_system: job.system.keyword().into(),
        deps,
        manifest_entries: 0,
        manifest_sha256: String::new(),
        patches: job.patches.clone(),
    };
    let facts = BuildFacts {
        name: job.name.clone(),
        hash: job.hash.clone(),
        built_at: jiff::Timestamp::now().to_string(),
        build_seconds: ctx.phases.iter().map(|(_, d)| d.as_secs_f64()).sum::<f64>()
            + ctx.phase_start.elapsed().as_secs_f64(),
        log: ctx.runner.log.path().to_path_buf(),
    };
    ctx.runner.log.line(&format!(
        "==> installed {} files into {}",
        manifest.len(),
        job.prefix.display()
    ));
    store::write_facts(&facts_path(&shared.build_dir, job), &facts)?;
    store::register(&ctx.host_prefix, &mut record, &manifest)?;
    Ok(())
}

/// Replace the stage's tool and wrapper paths in installed text files
/// ([`build_paths`]); log what still names the build directory.
fn scrub_build_paths(shared: &Shared<'_>, ctx: &PkgCtx<'_>) -> Result<(), PackageError> {
    let paths = build_paths::BuildPaths::new(&ctx.stage, ctx.real, &shared.build_dir)?;
    let s = build_paths::scrub(&ctx.host_prefix, &paths)?;
    if s.files > 0 {
        ctx.runner.log.line(&format!(
            "==> build paths (host tools, compiler wrappers) replaced in {} installed files",
            s.files
        ));
    }
    if !s.remaining.is_empty() {
        let shown: Vec<String> = s
            .remaining
            .iter()
            .take(5)
            .map(|p| p.display().to_string())
            .collect();
        tracing::warn!(
            "{}: {} installed files still name the build directory: {}",
            ctx.job.name,
            s.remaining.len(),
            shown.join(", ")
        );
        ctx.runner.log.line(&format!(
            "==> warning: {} installed files still name the build directory: {}",
            s.remaining.len(),
            shown.join(", ")
        ));
    }
    Ok(())
}

/// Keep the run environment the build logic wrote (its package's
/// `setup_run_environment`) as `<prefix>/.stack/run-env.json`, checked.
fn keep_run_env(ctx: &PkgCtx<'_>) -> Result<(), PackageError> {
    use crate::build_logic::{BuildLogicError, RUN_ENV_FILE, job::stage_dir, run_env};
    let path = stage_dir(&ctx.stage.root).join(RUN_ENV_FILE);
    let bad = |message: String| BuildLogicError::BadRunEnv {
        package: ctx.job.name.clone(),
        path: path.clone(),
        message,
    };
    let bytes = fs_err::read(&path).map_err(|e| bad(format!("not written: {e}")))?;
    let ops = run_env::parse(&bytes).map_err(bad)?;
    let mut text = serde_json::to_vec_pretty(&ops).map_err(std::io::Error::other)?;
    text.push(b'\n');
    // Never through a link the build left at `.stack`.
    let meta =
        store::Beneath::open(&ctx.host_prefix)?.ensure_real_dir(Path::new(store::META_DIR))?;
    store::atomic::write_atomic(&meta.join(RUN_ENV_FILE), &text)?;
    ctx.runner.log.line(&format!(
        "==> run environment: {} operations (.stack/{RUN_ENV_FILE})",
        ops.len()
    ));
    Ok(())
}

fn compiled(system: &BuildSystem) -> bool {
    super::phases::of(system).is_ok_and(|k| k.compiles())
}

/// After a successful build (and after its token is back): remove the stage.
/// Deferred so the removal (several ms on a busy disk) delays no dependent.
pub(crate) fn cleanup_stage(shared: &Shared<'_>, job: &BuildJob) {
    if !shared.keep_stage {
        let _ = remove_tree(&stage_root(&shared.build_dir, job));
    }
}

/// Remove a directory tree if it exists (making read-only dirs writable first).
pub(crate) fn remove_tree(p: &Path) -> std::io::Result<()> {
    match store::wipe(p) {
        Ok(()) => Ok(()),
        Err(store::StoreError::Io(e)) => Err(e),
        Err(e) => Err(std::io::Error::other(e.to_string())),
    }
}
