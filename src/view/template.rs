//! The tera templates of generated files (built in, or a file given by the
//! recipe for module files).

use std::path::Path;

use tera::{Context, Tera};

use super::error::ViewError;

pub(crate) const ACTIVATE: &str = "activate.sh";
pub(crate) const MODULE_LUA: &str = "modulefile.lua";
pub(crate) const MODULE_TCL: &str = "modulefile.tcl";

const BUILTIN: &[(&str, &str)] = &[
    (ACTIVATE, include_str!("templates/activate.sh.tera")),
    (MODULE_LUA, include_str!("templates/modulefile.lua.tera")),
    (MODULE_TCL, include_str!("templates/modulefile.tcl.tera")),
];

pub(crate) struct Templates {
    tera: Tera,
}

impl Templates {
    /// The built-in templates.
    pub fn builtin() -> Self {
        let mut tera = crate::template::tera();
        tera.autoescape_on(vec![]);
        for (name, body) in BUILTIN {
            tera.add_raw_template(name, body)
                .expect("built-in templates parse");
        }
        Templates { tera }
    }

    /// Replace the template `name` with the contents of `file`.
    pub fn override_with(&mut self, name: &str, file: &Path) -> Result<(), ViewError> {
        let body = fs_err::read_to_string(file)?;
        self.tera
            .add_raw_template(name, &body)
            .map_err(|e| ViewError::template(&file.display().to_string(), &e))
    }

    pub fn render(&self, name: &str, ctx: &Context) -> Result<String, ViewError> {
        self.tera
            .render(name, ctx)
            .map_err(|e| ViewError::template(name, &e))
    }
}
