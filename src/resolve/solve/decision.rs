//! What the search decides for a package, and why a candidate or a slot
//! fails.

use std::sync::Arc;

use crate::cluster::External;
use crate::diag::Loc;
use crate::recipes::{Conflict, DepTypes, Dependency, PackageRecipe, VersionEntry};
use crate::spec::{Spec, Version};

use super::super::requirement::Clash;
use super::super::variants::VariantProblem;

/// A decided package.
#[derive(Clone, Debug)]
pub(crate) struct Concrete<'a> {
    pub recipe: &'a Arc<PackageRecipe>,
    pub version: Version,
    pub entry: Option<&'a VersionEntry>,
    pub external: Option<&'a External>,
    /// Name, exact version, every variant, compiler, target, os, platform.
    pub spec: Spec,
    /// Active dependencies: target slot (a package or a virtual) and types.
    pub deps: Vec<(usize, DepTypes)>,
    /// `conflicts:` whose condition names dependencies (`wrapper=mpich
    /// ^openmpi`) and whose own part holds: checked once the dependencies
    /// are decided.
    pub deferred: Vec<&'a Conflict>,
    /// Build-only dependencies on build tools that get a build of their own
    /// ([`super::EnvSetup::separate`]): not in `deps`, resolved after the
    /// environment (`resolve/separate.rs`).
    pub separate: Vec<&'a Dependency>,
    /// Variants that take their other value to avoid a conflict (only in
    /// the second pass over a package's candidates, see [`super::Alt::Flipped`]).
    pub flipped: Vec<Flip<'a>>,
}

/// A variant nothing asked for, set to `value` (not what the defaults
/// give) because `why` holds otherwise.
#[derive(Clone, Debug)]
pub(crate) struct Flip<'a> {
    pub variant: String,
    /// The value it takes.
    pub value: crate::spec::VariantValue,
    /// The value it had (its default), if it existed.
    pub from: Option<crate::spec::VariantValue>,
    pub why: FlipReason<'a>,
}

/// What a [`Flip`] avoids.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FlipReason<'a> {
    /// A `conflicts:` entry of the package.
    Conflict(&'a Conflict),
    /// A dependency whose requirement clashed with the others on its
    /// package (`depends_on("hdf5@1.8", when="+hdf5_compat")` against
    /// another package's `hdf5@1.12:`).
    Dependency(&'a Dependency),
}

impl Concrete<'_> {
    pub fn label(&self) -> String {
        format!("{}@{}", self.recipe.name, self.version)
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Decision<'a> {
    Node(Box<Concrete<'a>>),
    /// The package slot chosen to provide a virtual.
    Provider {
        slot: usize,
    },
}

/// Why a candidate was rejected without deciding anything.
#[derive(Clone, Debug)]
pub(crate) enum Reject<'a> {
    Variant {
        cand: String,
        problem: VariantProblem<'a>,
    },
    Conflict {
        cand: String,
        conflict: &'a Conflict,
    },
    /// An external whose spec does not meet the requirements.
    External { external: &'a External },
    /// An external without an exact version.
    ExternalVersion { external: &'a External },
    /// Applying it puts a demand on an already decided slot that it does
    /// not meet (only within dependency cycles).
    Late {
        cand: String,
        slot: usize,
        wanted: String,
    },
    /// Applying it asks a package for versions (`asked`: the requirement
    /// in words, with its place) that a requirement already on it
    /// (`other`, in words, and its place) excludes.
    Clash {
        cand: String,
        asked: String,
        other: (String, Option<Loc>),
    },
    /// Applying it needs a package no repository has a recipe for.
    Missing { cand: String, dep: &'a Dependency },
}

/// Why a slot could not be opened.
#[derive(Clone, Debug)]
pub(crate) enum OpenFailure {
    Missing,
    NoProvider,
    /// The requirements on a virtual ask for versions (`mpi@3.1`) that no
    /// provider provides (`provides: [mpi@:3.0]`); `None`: versions no
    /// single version satisfies.
    NoProviderVersion(Option<crate::spec::VersionConstraint>),
    Clash(Clash),
    /// Requirement `req` asks for another target.
    Target(usize),
    /// Requirement `req` asks for another compiler.
    Compiler(usize),
    NoCandidate {
        wanted: Spec,
        external_only: bool,
    },
}
