//! # stack — self-contained HPC software stacks, shipped as uenv images
//!
//! `stack` turns a stack recipe into a mounted-path software tree, packs it as
//! `store.squashfs` with uenv metadata, and proves with a loader-faithful audit
//! that nothing in it links against the host.
//!
//! ## Pipeline
//!
//! Data flows one way; each stage is a function from the previous stage's
//! output type to the next one, and no module imports a later stage.
//!
//! | stage   | module                          | input → output |
//! |---------|---------------------------------|----------------|
//! | import  | [`import`]                      | Spack `package.py` → package recipes (`stack import spack`, run before all else) |
//! | import  | [`stackinator`]                  | stackinator recipe + cluster dirs → stack recipe + cluster YAML (Spack repos through [`import`], cached) |
//! | load    | [`stacks`], [`cluster`], [`recipes`] | YAML files → `StackRecipe`, `Cluster`, `PackageRepo` (diagnostics in [`diag`]) |
//! | spec    | [`spec`]                        | text → `Spec`, `Version`, `VersionConstraint`, variants |
//! | resolve | [`resolve`]                     | recipe + cluster + repo → `Plan` (hashed DAG, `stack.lock`) |
//! | fetch   | [`fetch`]                       | sources → verified files in the content-addressed cache, extracted stages |
//! | patch   | [`patch`]                       | staged source trees → patched source trees |
//! | build   | [`build`]                       | plan + sources → installed prefixes (scheduler, compiler wrapper, build systems) |
//! | build   | [`build_logic`]                 | a `spack` package's own `package.py` methods, run at build time by stack's Python package API layer (embedded), from a request the build stage writes |
//! | render  | [`render`]                      | plan + package recipes → build jobs: every template of a recipe's `build:` rendered (tera), `when:` decided, compiler flags, the build logic's request, the dependencies' run environments |
//! | install | [`store`]                       | staged prefix → installed prefix (atomic, metadata, relocation) |
//! | view    | [`view`]                        | installed prefixes → views, modules, `meta/env.json` |
//! | image   | [`image`]                       | store → reproducible `store.squashfs` |
//! | audit   | [`audit`]                       | directory or squashfs → `AuditReport` |
//! | report  | [`report`]                      | plan + run record + sizes + audit → `<build>/report.html` (self-contained HTML) |
//! | ship    | [`oci`], [`binary_cache`] | image ⇄ OCI registry; installed prefixes ⇄ binary cache (bytes via [`registry`], trust via [`sign`]) |
//!
//! Every tera template (package recipes, hooks, module templates) is
//! rendered by [`template`]: no environment, files, time or randomness.
//! Every HTTPS connection (registry, sources, mirrors, git remotes) trusts
//! what [`tls`] says: the built-in roots, the system's store, `SSL_CERT_FILE`
//! and `--ca-file`. Every lock a process takes (a source cache entry, the
//! build directory) is an advisory file lock of [`lock`]; `stack.lock` is
//! not one of them but the resolved plan's lock file ([`resolve::lockfile`]).
//! | remote builds | [`remote`] | packages still to build → Slurm jobs, GitLab CI pipelines (handed over through the binary cache) |
//!
//! Above the stages: [`pipeline`] runs them in order for `stack build` (a
//! session of named steps) and owns the lock file rules; [`ops`] has one
//! operation per command (check, resolve, fetch, mirror, build), which is
//! all the CLI calls for those commands.
//!
//! `stack build` ([`pipeline`]) runs them in this order with two
//! refinements: the post-install hook runs after the views, and the audit
//! runs after the hook and *before* the image is packed, on the store exactly
//! as it is packed (its report goes into the image's `meta/audit/`).
//!
//! Allowed imports (the exact matrix is checked by a unit test,
//! `src/architecture_tests.rs`): a module may use [`diag`], [`spec`] and
//! [`settings`] and any *earlier* stage in the table, with two edges the
//! matrix names: [`build`] registers prefixes in [`store`], and [`build`] and
//! [`view`] run commands and hooks in a [`sandbox`] (namespaces, below both), and the build
//! system kinds of [`build_kinds`] sit below both [`recipes`] and [`build`], with
//! [`build_logic`] (the Python layer, its request, the interpreter) below them and
//! [`resolve`] (node hashes cover the layer's version); [`audit`] depends on nothing but [`diag`]
//! so that it can run alone in CI. The binary (`src/main.rs`, `src/cli/`) parses
//! arguments, renders progress (indicatif) and errors (miette) and calls the
//! library; the library never prints. Progress is reported through reporter
//! traits defined next to the stage that reports; logs go through `tracing`.
//!
//! ## Files on disk
//!
//! | path | owner | what |
//! |------|-------|------|
//! | `recipes/<name>.yaml` | [`recipes`] | package recipes (the built-in repository) |
//! | `patches/<name>/*.patch` | [`recipes`], [`patch`] | patches referenced by package recipes, with sha256 |
//! | `spack/<ns>/<dir>/package.py` | [`recipes`], [`build_logic`] | package files a `system: spack` recipe runs at build time, with sha256 |
//! | `<build>/build-logic/<api>/` | [`build_logic`] | the Python layer, written out once, read-only |
//! | `<prefix>/.stack/run-env.json` | [`build`], [`view`] (through [`pipeline`]) | a `spack` package's `setup_run_environment` |
//! | `cluster-configs/<c>/cluster.yaml` | [`cluster`] | target, compilers, externals, policies, loader facts |
//! | `stacks/<s>.yaml` | [`stacks`] | stack recipes given to `stack build` |
//! | `stack.lock` (beside the recipe) | [`resolve`] | the whole plan, git refs pinned |
//! | `~/.cache/stack/sources-v1/` | [`fetch`] | content-addressed source cache |
//! | `<build>/store/` | [`store`] | what is mounted at the mount point |
//! | `<build>/build.lock`, `<cache>/.locks/` | [`lock`] | advisory file locks: the build directory, source cache entries |
//! | `<build>/store.squashfs`, `<build>/meta/` | [`image`], [`view`] | the uenv image |
//! | `<build>/run.json`, `<build>/report.html`, `meta/sizes.json` | [`report`] | what a run did (times, slots, routes, failures), its report, installed sizes |

//!
//! ## Architecture: where new things go
//!
//! | new … | goes | notes |
//! |-------|------|-------|
//! | command | `src/cli/<name>.rs` + one line in `src/cli/mod.rs` | turns arguments into options, calls one library operation, renders the outcome; exit status from the error's class ([`diag::Classify`], mapped once in `src/cli/error.rs`); settings from [`settings::Settings::resolve`] (`src/cli/settings.rs`) |
//! | step of `stack build` | a method of the session in `src/pipeline/session/` (the steps after the build in `finish.rs`) | timed and reported as a [`pipeline::Stage`]; if it reads a new input, add a field to [`pipeline::ImageInputs`] (the image fingerprint) |
//! | lock file rule | `src/pipeline/plan.rs` ([`pipeline::LockRules`]) | the one place resolve, fetch and build read, check, pin and write `stack.lock` |
//! | recipe key | the recipe model (`src/recipes/package.rs`, `build.rs`), its loader (`load/mod.rs`/`load/build.rs`), its writer (`src/recipes/write.rs`), then rendering (`src/render/mod.rs`) and `docs/recipes.md`; a stack recipe key: `src/stacks/model.rs`, its loader `src/stacks/load/` (views and modules in their own files), `src/stacks/write.rs` | the round-trip tests (`recipes::write`, `stacks::write`: every recipe of `recipes/`, `stacks/` and the fixtures, load → write → load) fail when the writer misses a key; anything rendering would reject must be rejected at load time, so `stack check` reports it (template syntax: `recipes::read`; what templates name: `stacks/template_refs.rs`) |
//! | environment variable | a function in [`settings`] (a setting a flag can also give: a field of [`settings::Env`], its rule in `src/settings/rules.rs` and a row of its table test), a row in docs/cli.md's environment table | `std::env::var*` elsewhere is denied (`clippy.toml`); `settings::rules::tests` checks the docs' table |
//! | top-level module | `src/lib.rs` and its row in `src/architecture_tests.rs` | the import matrix test fails on any undeclared edge |
//! | build system | a file `src/build_kinds/<kind>.rs` implementing [`build_kinds::BuildKind`] and its line in [`build_kinds::KINDS`]: name, `build:` keys with their value types ([`build_kinds::KeyType`]), host tools, phases (configure/build/install commands, through [`build_kinds::Phases`]) | nothing else names a kind: the recipe loader, writer, checks, node hash, `stack info` and rendering work by key type; a new key *type* is a variant of [`recipes::Setting`] and its arms there. The phase skeleton (`build/phases.rs`) is shared: `install:` steps run after every kind's own install. `pipeline::kind_tests` proves it with a test-only kind |
//! | base tool (a host program every build may run undeclared) | `BASE_TOOLS` in `src/build/host_tools.rs` and the list in docs/build.md ("Declared tools only") | keep it minimal: everything else is a declared build dependency (a `/usr` external lists its programs under `executables:`) |
//! | stage error | the stage's `thiserror` enum, a variant of [`pipeline::PipelineError`] and its arm in `class()`; an error a command meets directly implements [`diag::Classify`] | input (exit 2) or failure (exit 1), decided once, in the library |
//! | build executor | an implementation of the executor trait in `src/build/executor.rs` (today: `LocalExecutor`, a thread under the jobserver) | jobs are plain serialisable [`build::BuildJob`] values; the scheduler decides when, the executor where |
//! | binary cache | an implementation of [`build::PrefixCache`] set in [`build::BuildOptions::prefix_cache`] | consulted before a node is built, fed after: [`build::LocalStore`] (the store itself) and [`binary_cache::CachePrefixes`] (the OCI binary cache; the pipeline also asks it before fetching sources); `flock`s are host-local |
//! | remote executor (batch system, CI) | an implementation of [`remote::RemoteBuilder`] in `src/remote/` (today: Slurm), set in [`pipeline::BuildRequest::remote`] | builds what the binary cache lacks elsewhere, each job `stack build --only PKG`; the session then installs it all from the cache |
//! | compiler kind built by a stack (`compilers:`) | its programs and runtime library dirs in `render::built_compiler_programs` (by package name) | the resolver makes it a node (`resolve/compilers.rs`); node hashes cover its hash, a cluster compiler's `cc` path and fingerprint, `os` and `libc` |
//! | importer (Spack `package.py`, stackinator) | a new top-level module producing recipe files or the recipe model | nothing downstream of [`resolve`] may see it |
//! | package API the build logic supports (Python) | `src/build_logic/python/` (embedded by `build.rs`: a new file needs no Rust edit) and its `API.txt` | changes [`build_logic::API_VERSION`], so every `spack` package rebuilds; a new request field: `src/build_logic/request.rs` and `job.rs` |

#![deny(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::disallowed_methods,
    clippy::too_many_lines
)]

pub mod audit;
pub mod beneath;
pub mod binary_cache;
pub mod build;
pub mod build_kinds;
pub mod build_logic;
pub mod cluster;
pub mod diag;
pub mod fetch;
pub mod file_filter;
pub mod image;
pub mod import;
pub mod lock;
pub mod oci;
pub mod ops;
pub mod patch;
pub mod pipeline;
pub mod recipes;
pub mod registry;
pub mod remote;
pub mod render;
pub mod report;
pub mod resolve;
pub mod sandbox;
pub mod settings;
pub mod sign;
pub mod spec;
pub mod stackinator;
pub mod stacks;
pub mod store;
pub mod template;
pub mod tls;
pub mod verify;
pub mod view;

#[cfg(test)]
mod architecture_tests;
#[cfg(test)]
mod drawing_tests;
#[cfg(test)]
mod function_length_tests;
