//! The class body → directives (inside `with when(…)`, loops, base
//! classes, imported classes) → the recipe's versions, variants,
//! dependencies, conflicts, patches and resources.

pub(crate) mod attribute_kinds;
pub(crate) mod bases;
pub(crate) mod blocks;
pub(crate) mod class_body;
pub(crate) mod conditional_values;
pub(crate) mod conditions;
pub(crate) mod directive_call;
pub(crate) mod external_only;
pub(crate) mod imports;
pub(crate) mod lists;
pub(crate) mod local_bases;
pub(crate) mod machine;
pub mod model;
pub(crate) mod module;
pub(crate) mod own_variants;
pub(crate) mod repeated_atoms;
pub(crate) mod resource;
pub(crate) mod sections;
pub(crate) mod sibling_bases;
pub(crate) mod translate;
pub(crate) mod url_attrs;
pub(crate) mod variant_kind;
pub(crate) mod variants;
pub(crate) mod versions;
