//! What the evaluator knows of a package's variants when it turns
//! `self.spec.satisfies("+x")`, `self.define_from_variant(…)` and
//! `spec.variants["x"].value` into conditions and templates.

/// What the hook translator needs to know about a variant.
#[derive(Clone, Debug)]
pub struct VariantInfo {
    pub name: String,
    pub is_bool: bool,
    /// Allowed values of a valued variant (`None`: any).
    pub values: Option<Vec<String>>,
    pub multi: bool,
    pub when: Option<String>,
    /// Line of the declaration (0: a base class's).
    pub line: usize,
}

/// A template's reference to variant `name`: `variants.name`, or
/// `variants['name']` when the name is not an identifier (`gni-cookie`,
/// which `variants.gni-cookie` would read as a subtraction).
pub(crate) fn variant_ref(name: &str) -> String {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if ident {
        format!("variants.{name}")
    } else {
        format!("variants['{name}']")
    }
}
