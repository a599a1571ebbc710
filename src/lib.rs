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
//! | load    | [`recipe`], [`cluster`], [`repo`] | YAML files → `StackRecipe`, `Cluster`, `PackageRepo` (diagnostics in [`diag`]) |
//! | spec    | [`spec`]                        | text → `Spec`, `Version`, `VersionConstraint`, variants |
//! | resolve | [`resolve`]                     | recipe + cluster + repo → `Plan` (hashed DAG, `stack.lock`) |
//! | fetch   | [`fetch`]                       | sources → verified files in the content-addressed cache, extracted stages |
//! | patch   | [`patch`]                       | staged source trees → patched source trees |
//! | build   | [`build`]                       | plan + sources → installed prefixes (scheduler, compiler wrapper, build systems) |
//! | install | [`store`]                       | staged prefix → installed prefix (atomic, metadata, relocation) |
//! | view    | [`view`]                        | installed prefixes → views, modules, `meta/env.json` |
//! | image   | [`image`]                       | store → reproducible `store.squashfs` |
//! | audit   | [`audit`]                       | directory or squashfs → `AuditReport` |
//!
//! Allowed imports: a module may use [`diag`] and [`spec`] and any *earlier*
//! stage in the table; [`audit`] depends on nothing but [`diag`] so that it
//! can run alone in CI. The binary (`src/main.rs`, `src/cli/`) parses
//! arguments, renders progress (indicatif) and errors (miette) and calls the
//! library; the library never prints. Progress is reported through reporter
//! traits defined next to the stage that reports; logs go through `tracing`.
//!
//! ## Files on disk
//!
//! | path | owner | what |
//! |------|-------|------|
//! | `recipes/<name>.yaml` | [`repo`] | package recipes (the built-in repository) |
//! | `patches/<name>/*.patch` | [`repo`], [`patch`] | patches referenced by package recipes, with sha256 |
//! | `cluster-configs/<c>/cluster.yaml` | [`cluster`] | target, compilers, externals, policies, loader facts |
//! | `stacks/<s>.yaml` | [`recipe`] | stack recipes given to `stack build` |
//! | `stack.lock` (beside the recipe) | [`resolve`] | the whole plan, git refs pinned |
//! | `~/.cache/stack/sources-v1/` | [`fetch`] | content-addressed source cache |
//! | `<build>/store/` | [`store`] | what is mounted at the mount point |
//! | `<build>/store.squashfs`, `<build>/meta/` | [`image`], [`view`] | the uenv image |

pub mod audit;
pub mod build;
pub mod cluster;
pub mod diag;
pub mod fetch;
pub mod image;
pub mod import;
pub mod patch;
pub mod pipeline;
pub mod recipe;
pub mod repo;
pub mod resolve;
pub mod spec;
pub mod store;
pub mod view;
