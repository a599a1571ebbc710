//! Rendering a [`Plan`](super::Plan) for people and programs: an indented
//! tree ([`render_tree`]), JSON ([`render_json`]) and graphviz dot
//! ([`render_dot`]). Each returns a `String`; the CLI prints it.

mod dot;
mod json;
mod tree;

pub use dot::render_dot;
pub use json::{
    JsonCompiler, JsonDep, JsonNode, JsonPatch, JsonResource, JsonSource, json_node, render_json,
    variant_value,
};
pub use tree::render_tree;
