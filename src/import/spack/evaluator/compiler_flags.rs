//! Spack's compiler flag properties (`self.compiler.openmp_flag`,
//! `self["c"].pic_flag`, `self["cxx"].standard_flag(…)`) as the names of the
//! template values `{{ compiler.<p> }}` (their values per compiler:
//! `pipeline::compiler_flags`).

/// Spack's compiler flag properties (`self.compiler.<p>`), template values
/// `{{ compiler.<p> }}` (see `pipeline::compiler_flags`).
const COMPILER_FLAGS: &[&str] = &[
    "openmp_flag",
    "cc_pic_flag",
    "cxx_pic_flag",
    "f77_pic_flag",
    "fc_pic_flag",
    "c99_flag",
    "c11_flag",
    "c17_flag",
    "c23_flag",
    "cxx98_flag",
    "cxx11_flag",
    "cxx14_flag",
    "cxx17_flag",
    "cxx20_flag",
    "cxx23_flag",
];

/// `self.compiler.openmp_flag` (or `self.pkg.compiler.…`) → `openmp_flag`.
pub(crate) fn compiler_flag(t: &str) -> Option<&'static str> {
    // Spack's compiler packages by language: `self["c"].pic_flag`,
    // `self["cxx"].standard_flag(language="cxx", standard="14")`.
    let quoted = t.replace('\'', "\"");
    let by_lang = [
        ("self[\"c\"].pic_flag", "cc_pic_flag"),
        ("self[\"cxx\"].pic_flag", "cxx_pic_flag"),
        ("self[\"fortran\"].pic_flag", "fc_pic_flag"),
        ("self[\"c\"].openmp_flag", "openmp_flag"),
    ];
    if let Some((_, p)) = by_lang.iter().find(|(s, _)| *s == quoted) {
        return Some(p);
    }
    if let Some(p) = standard_flag_call(&quoted) {
        return Some(p);
    }
    let p = t
        .strip_prefix("self.compiler.")
        .or_else(|| t.strip_prefix("self.pkg.compiler."))?;
    COMPILER_FLAGS.iter().copied().find(|f| *f == p)
}

/// `self["cxx"].standard_flag(language="cxx", standard="14")` → `cxx14_flag`.
fn standard_flag_call(t: &str) -> Option<&'static str> {
    let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let rest = compact
        .strip_prefix("self[\"c\"].standard_flag(")
        .or_else(|| compact.strip_prefix("self[\"cxx\"].standard_flag("))?
        .strip_suffix(')')?;
    let mut lang = None;
    let mut std = None;
    for arg in rest.split(',') {
        let (k, v) = arg.split_once('=')?;
        let v = v.trim_matches('"');
        match k {
            "language" => lang = Some(v),
            "standard" => std = Some(v),
            _ => return None,
        }
    }
    let name = format!("{}{}_flag", lang?, std?);
    COMPILER_FLAGS.iter().copied().find(|f| *f == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_flag_properties_by_language() {
        assert_eq!(
            compiler_flag("self.compiler.openmp_flag"),
            Some("openmp_flag")
        );
        assert_eq!(compiler_flag("self['c'].pic_flag"), Some("cc_pic_flag"));
        assert_eq!(
            compiler_flag("self[\"cxx\"].standard_flag(language=\"cxx\", standard=\"14\")"),
            Some("cxx14_flag")
        );
        assert_eq!(compiler_flag("self.compiler.debug_flags"), None);
    }
}
