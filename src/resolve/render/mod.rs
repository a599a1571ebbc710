//! Rendering a [`Plan`](super::Plan) for people and programs: an indented
//! tree ([`render_tree`]), JSON ([`render_json`]) and graphviz dot
//! ([`render_dot`]), and the solver's choices ([`render_choices`]). Each returns a `String`; the CLI prints it.

mod choices;
mod dot;
mod json;
mod tree;

pub use choices::render_choices;
pub use dot::render_dot;
pub use json::{
    JsonCompiler, JsonDep, JsonNode, JsonPatch, JsonResource, JsonSource, json_node, render_json,
    variant_value,
};
pub(crate) use json::{placement_json, resource_git};
pub use tree::render_tree;
