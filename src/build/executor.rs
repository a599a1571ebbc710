//! The seams where work leaves this process and this host.
//!
//! The scheduler (`run.rs`) decides *when* a job may start: its
//! dependencies are done and a jobserver token is held. Two traits decide
//! the rest:
//!
//! - an [`Executor`] decides *where and how* a started job runs: `start`
//!   begins it and returns at once; the scheduler waits for its outcome on
//!   its event channel (`Event::Done`, with the token). [`LocalExecutor`] —
//!   a worker thread on this host under the shared jobserver, in the build's
//!   namespace — is today's only one; a Slurm or CI executor submits the
//!   (serialisable) [`BuildJob`] and reports back the same way.
//! - a [`PrefixCache`] is consulted before a node is built (`restore`: can
//!   the prefix be had without building it?) and fed after it was built
//!   (`keep`). [`LocalStore`] — the prefix already installed in this store —
//!   is today's only one; a binary cache (OCI registry) restores prefixes
//!   other machines built.
//!
//! Locks that must hold *across machines* are not the ones this host takes:
//! `<build>/build.lock` and the source cache's entry locks are `flock`s,
//! which some shared file systems (NFS without lock daemons, Lustre with
//! `localflock`) honour per host only. An executor or cache that shares a
//! build directory, a store or a source cache between machines must bring
//! its own cross-machine lock (the registry's, the batch system's). The
//! host-local ones say so in their docs (`lock::BuildLock`, the source
//! cache's entry locks).

use std::path::Path;
use std::sync::mpsc::Sender;
use std::thread::Scope;

use super::env::RealTools;
use super::graph::JobId;
use super::job::BuildJob;
use super::jobserver::Token;
use super::package::{self, Event, Shared};
use crate::store::{self, PrefixState, StoreError};

/// One job the scheduler has decided to start.
pub(crate) struct JobStart<'a> {
    pub id: JobId,
    pub job: &'a BuildJob,
    pub shared: &'a Shared<'a>,
    pub tools: &'a RealTools,
    /// Phase changes and the outcome go here.
    pub events: Sender<Event>,
    /// Handed back with the outcome.
    pub token: Token,
}

/// Where and how started jobs run.
pub(crate) trait Executor: Sync {
    /// Begin `start.job` and return at once; send `Event::Done` with its
    /// outcome and token when it ends (the scheduler waits for that).
    fn start<'scope, 'env: 'scope>(
        &'env self,
        scope: &'scope Scope<'scope, 'env>,
        start: JobStart<'env>,
    );
}

/// Today's executor: a worker thread on this host, sharing the jobserver.
pub(crate) struct LocalExecutor;

impl Executor for LocalExecutor {
    fn start<'scope, 'env: 'scope>(
        &'env self,
        scope: &'scope Scope<'scope, 'env>,
        start: JobStart<'env>,
    ) {
        scope.spawn(move || {
            let JobStart {
                id,
                job,
                shared,
                tools,
                events,
                token,
            } = start;
            let out = package::build_one(shared, id, job, tools, &events);
            let ok = out.result.is_ok();
            let _ = events.send(Event::Done(id, Box::new(out), token));
            if ok {
                package::cleanup_stage(shared, job);
            }
        });
    }
}

/// Finished prefixes from elsewhere: consulted before a node is built, fed
/// after it was built.
pub trait PrefixCache: Send + Sync + std::fmt::Debug {
    /// Make the prefix of `job` (with its `installed.json`) appear at
    /// `host_prefix` without building it; `Ok(true)` when it did.
    fn restore(&self, job: &BuildJob, host_prefix: &Path) -> Result<bool, StoreError>;
    /// `job` was built (in `build_seconds`, `None` when it was not built
    /// in this run) and registered at `host_prefix`; keep it for others.
    fn keep(
        &self,
        job: &BuildJob,
        host_prefix: &Path,
        build_seconds: Option<f64>,
    ) -> Result<(), StoreError>;
}

/// The store itself: a prefix is there when its record names the job's
/// hash; a built prefix is already kept.
#[derive(Debug)]
pub struct LocalStore;

impl PrefixCache for LocalStore {
    fn restore(&self, job: &BuildJob, host_prefix: &Path) -> Result<bool, StoreError> {
        Ok(matches!(
            store::inspect(host_prefix, &job.hash),
            PrefixState::Installed(_)
        ))
    }

    fn keep(
        &self,
        _job: &BuildJob,
        _host_prefix: &Path,
        _secs: Option<f64>,
    ) -> Result<(), StoreError> {
        Ok(())
    }
}
