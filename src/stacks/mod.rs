//! Stack recipes (`stacks/<name>.yaml`, the file given to `stack build`):
//! environments of root specs, network specs, variants applied to all
//! packages, package policies, views, modules and hooks.
//!
//! - [`load_stack_recipe`] reads one file on its own.
//! - [`load_inputs`] is what `stack check` (and every later stage) runs: it
//!   loads the recipe, its cluster configuration and the package
//!   repositories, checks them against each other and returns [`Inputs`]
//!   or every diagnostic found.

mod external_roots;
mod inputs;
mod load;
pub mod lookup;
mod model;
mod policy_checks;
mod template_refs;
mod unreviewed;
mod write;

pub use inputs::{InputOptions, Inputs, load_inputs, load_inputs_from, reachable};
pub use load::{load_stack_recipe, parse_stack_recipe};
pub use model::{
    COMPILERS_ENVIRONMENT, DEFAULT_MOUNT, Duplicates, Environment, ModuleFlavour, Modules,
    StackRecipe, View, ViewLink,
};

#[cfg(test)]
mod tests;
