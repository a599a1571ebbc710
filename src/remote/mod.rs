//! Builds beyond one machine: the packages a plan still needs, handed to
//! batch systems and CI pipelines, with the binary cache as the only
//! hand-over between machines (no shared file system needed).
//!
//! ```text
//! plan + what the cache lacks → Work (packages, their deps among them)
//!   → Work::groups       packages grouped into jobs by estimated cost
//!   → gitlab::pipeline   a child pipeline, one job per group (`stack ci generate`)
//!   → slurm::Slurm       sbatch jobs with --dependency=afterok (`stack build --executor slurm`)
//! each job: stack build RECIPE --locked --only PKG [--only PKG2 …] --binary-cache URL
//!           (deps pulled from the cache, its packages built and pushed)
//! last:     stack build RECIPE --locked (everything from the cache) → views, audit, image
//! ```
//!
//! Since every prefix of the final image comes out of the binary cache as
//! the bytes its job pushed, and the views, modules, audit and image are
//! made by the same code as a local build, a distributed build gives the
//! same image as a local build of the same lock file.

mod error;
pub mod gitlab;
mod group;
pub mod simulate;
pub mod slurm;
mod work;
mod yaml;

pub use error::DistributedError;
pub use group::{DEFAULT_GROUP_SECONDS, Group};
pub use work::{JobCommand, NoopRemoteReporter, Package, RemoteBuilder, RemoteReporter, Work};
pub use yaml::to_yaml;
