//! Filters of recipe templates beyond tera's built-in ones (registered by
//! [`super::Renderer`]).

use std::collections::HashMap;

use serde_json::Value;

/// The tera filter `up_to(n=N)`: the first N components of a version
/// (`3.12.4` → `3.12` for N=2).
pub fn up_to(value: &Value, args: &HashMap<String, Value>) -> tera::Result<Value> {
    let text = value
        .as_str()
        .ok_or_else(|| tera::Error::msg("`up_to` takes a version string"))?;
    let n = args
        .get("n")
        .and_then(Value::as_u64)
        .ok_or_else(|| tera::Error::msg("`up_to` takes a count: up_to(n=2)"))?;
    let version = crate::spec::Version::parse(text).map_err(|e| tera::Error::msg(e.to_string()))?;
    let cut = version.up_to(n as usize).ok_or_else(|| {
        tera::Error::msg(format!("version `{text}` has fewer than {n} components"))
    })?;
    Ok(Value::String(cut.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_to_keeps_the_first_components() {
        let mut tera = tera::Tera::default();
        tera.register_filter("up_to", up_to);
        let mut cx = tera::Context::new();
        cx.insert("v", "3.12.4");
        let mut render = |t: &str| {
            tera.render_str(t, &cx)
                .map_err(|e| crate::diag::error_chain(&e))
        };
        assert_eq!(render("{{ v | up_to(n=2) }}").unwrap(), "3.12");
        assert_eq!(render("{{ v | up_to(n=1) }}").unwrap(), "3");
        assert_eq!(render("{{ v | up_to(n=3) }}").unwrap(), "3.12.4");
        let err = render("{{ v | up_to(n=4) }}").unwrap_err();
        assert!(err.contains("fewer than 4 components"), "{err}");
        let err = render("{{ v | up_to }}").unwrap_err();
        assert!(err.contains("up_to(n=2)"), "{err}");
    }
}
