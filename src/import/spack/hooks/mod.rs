//! Methods of the package and builder classes → the recipe's `build:`
//! section (arguments, flags, targets, install steps, filters) and `env:`.

pub(crate) mod build_section;
pub(crate) mod flags;
pub(crate) mod install;
pub(crate) mod layout;
pub(crate) mod patch;
pub(crate) mod property;
pub(crate) mod run;
pub(crate) mod shape;
