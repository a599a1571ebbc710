//! Evaluating Python: literal values (strings, lists, f-strings,
//! comprehensions, calls the importer knows), spec conditions, and the
//! statements of method bodies (argument lists, environment changes, file
//! filters, `url_for_version`), each feeding what its consumer collects.
//!
//! One evaluator walks expressions (`value::Evaluator`); a consumer takes
//! part through its `hook::Hook`: the version in `url_for_version`,
//! class-level calls, templates and conditions on the spec
//! (`exprs`). One walker runs statements (`walk::Collector`).

pub(crate) mod calls;
pub(crate) mod collected;
pub(crate) mod compiler_flags;
pub(crate) mod cond;
pub(crate) mod dates;
pub(crate) mod exprs;
pub(crate) mod filters;
pub(crate) mod hook;
pub(crate) mod loops;
pub(crate) mod pystr;
pub(crate) mod regex;
pub(crate) mod scope;
pub(crate) mod spec_spelling;
pub(crate) mod statements;
pub(crate) mod str_methods;
pub(crate) mod url;
pub(crate) mod url_method;
pub(crate) mod value;
pub(crate) mod variant_info;
pub(crate) mod version_parts;
pub(crate) mod walk;
