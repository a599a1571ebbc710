//! Compiler flag properties for templates: `{{ compiler.openmp_flag }}`,
//! `cc_pic_flag`, `c99_flag`, `cxx17_flag`, … — Spack's
//! `self.compiler.<x>_flag`, with the values of Spack's compiler packages
//! (`pic_flag`, `openmp_flag`, `_standard_flag`) for the compiler of the
//! flag's language. A compiler without the flag (an unknown compiler, a
//! standard its version lacks) has no such key, and a template naming it
//! fails to render.

use serde_json::{Map, Value};

use crate::resolve::Node;
use crate::spec::VersionConstraint;

/// The property names, with the language whose compiler decides them.
const PROPERTIES: &[(&str, Lang)] = &[
    ("openmp_flag", Lang::C),
    ("cc_pic_flag", Lang::C),
    ("cxx_pic_flag", Lang::Cxx),
    ("f77_pic_flag", Lang::Fortran),
    ("fc_pic_flag", Lang::Fortran),
    ("c99_flag", Lang::C),
    ("c11_flag", Lang::C),
    ("c17_flag", Lang::C),
    ("c23_flag", Lang::C),
    ("cxx98_flag", Lang::Cxx),
    ("cxx11_flag", Lang::Cxx),
    ("cxx14_flag", Lang::Cxx),
    ("cxx17_flag", Lang::Cxx),
    ("cxx20_flag", Lang::Cxx),
    ("cxx23_flag", Lang::Cxx),
];

#[derive(Clone, Copy)]
enum Lang {
    C,
    Cxx,
    Fortran,
}

impl Lang {
    fn key(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Cxx => "cxx",
            Lang::Fortran => "fortran",
        }
    }
}

/// The flag properties of a node's compilers, as `compiler.*` entries.
pub fn flag_properties(node: &Node) -> Map<String, Value> {
    let mut out = Map::new();
    for (prop, lang) in PROPERTIES {
        let c = node.languages.get(lang.key()).unwrap_or(&node.compiler);
        if let Some(flag) = flag(&c.name, &c.version.to_string(), prop) {
            out.insert((*prop).to_string(), Value::String(flag.to_string()));
        }
    }
    out
}

/// `(version range, flag)` choices: the first range holding the version wins.
type Choices = &'static [(&'static str, &'static str)];

/// The value of `prop` for compiler `name` at `version`.
fn flag(name: &str, version: &str, prop: &str) -> Option<&'static str> {
    let family = match name {
        "gcc" => Family::Gcc,
        "llvm" | "clang" | "llvm-amdgpu" => Family::Llvm,
        "nvhpc" => Family::Nvhpc,
        "cce" => Family::Cce,
        "intel-oneapi-compilers" | "oneapi" => Family::Oneapi,
        _ => return None,
    };
    match prop {
        "openmp_flag" => Some(match family {
            Family::Nvhpc => "-mp",
            Family::Oneapi => "-fiopenmp",
            _ => "-fopenmp",
        }),
        "cc_pic_flag" | "cxx_pic_flag" | "f77_pic_flag" | "fc_pic_flag" => Some(match family {
            Family::Nvhpc => "-fpic",
            _ => "-fPIC",
        }),
        _ => {
            let std = prop.strip_suffix("_flag")?;
            let choices = standard(family, std)?;
            choices
                .iter()
                .find(|(range, _)| {
                    VersionConstraint::parse(range)
                        .ok()
                        .zip(crate::spec::Version::parse(version).ok())
                        .is_some_and(|(c, v)| c.contains(&v))
                })
                .map(|(_, f)| *f)
        }
    }
}

#[derive(Clone, Copy)]
enum Family {
    Gcc,
    Llvm,
    Nvhpc,
    Cce,
    Oneapi,
}

/// Spack's `_standard_flag` tables (spack-packages: `gcc`, `llvm`, `nvhpc`,
/// `cce`, `intel-oneapi-compilers`).
fn standard(family: Family, std: &str) -> Option<Choices> {
    Some(match (family, std) {
        (Family::Gcc, "cxx98") => &[("6:", "-std=c++98"), (":5", "")],
        (Family::Gcc, "cxx11") => &[("4.3:4.6", "-std=c++0x"), ("4.7:", "-std=c++11")],
        (Family::Gcc, "cxx14") => &[("4.8", "-std=c++1y"), ("4.9:", "-std=c++14")],
        (Family::Gcc, "cxx17") => &[("5", "-std=c++1z"), ("6:", "-std=c++17")],
        (Family::Gcc, "cxx20") => &[("8:10", "-std=c++2a"), ("11:", "-std=c++20")],
        (Family::Gcc, "cxx23") => &[("11:13", "-std=c++2b"), ("14:", "-std=c++23")],
        (Family::Gcc, "c99") => &[("4.5:", "-std=c99")],
        (Family::Gcc, "c11") => &[("4.7:", "-std=c11")],
        (Family::Gcc, "c17") => &[("8:", "-std=c17")],
        (Family::Gcc, "c23") => &[("14:", "-std=c23")],
        (Family::Llvm, "cxx11") => &[("3.3:", "-std=c++11")],
        (Family::Llvm, "cxx14") => &[("3.5:", "-std=c++14")],
        (Family::Llvm, "cxx17") => &[("3.5:4", "-std=c++1z"), ("5:", "-std=c++17")],
        (Family::Llvm, "cxx20") => &[("5:10", "-std=c++2a"), ("11:", "-std=c++20")],
        (Family::Llvm, "cxx23") => &[("12:16", "-std=c++2b"), ("17:", "-std=c++23")],
        (Family::Llvm, "c99") => &[(":", "-std=c99")],
        (Family::Llvm, "c11") => &[("3.1:", "-std=c11")],
        (Family::Llvm, "c17") => &[("6:", "-std=c17")],
        (Family::Llvm, "c23") => &[("9:17", "-std=c2x"), ("18:", "-std=c23")],
        (Family::Nvhpc, "cxx11") => &[(":", "--c++11")],
        (Family::Nvhpc, "cxx14") => &[(":", "--c++14")],
        (Family::Nvhpc, "cxx17") => &[(":", "--c++17")],
        (Family::Nvhpc, "c99") => &[(":", "-c99")],
        (Family::Nvhpc, "c11") => &[(":", "-c11")],
        (Family::Cce, "cxx11") => &[(":", "-std=c++11")],
        (Family::Cce, "cxx14") => &[(":", "-std=c++14")],
        (Family::Cce, "cxx17") => &[(":", "-std=c++17")],
        (Family::Cce, "c99") => &[(":", "-std=c99")],
        (Family::Cce, "c11") => &[(":", "-std=c11")],
        (Family::Oneapi, "cxx11") => &[(":", "-std=c++11")],
        (Family::Oneapi, "cxx14") => &[(":", "-std=c++14")],
        (Family::Oneapi, "cxx17") => &[(":", "-std=c++17")],
        (Family::Oneapi, "cxx20") => &[(":", "-std=c++20")],
        (Family::Oneapi, "c99") => &[(":", "-std=c99")],
        (Family::Oneapi, "c11") => &[(":", "-std=c1x")],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_spacks_compiler_packages() {
        assert_eq!(flag("gcc", "12.3.0", "openmp_flag"), Some("-fopenmp"));
        assert_eq!(flag("gcc", "12.3.0", "cc_pic_flag"), Some("-fPIC"));
        assert_eq!(flag("gcc", "12.3.0", "c99_flag"), Some("-std=c99"));
        assert_eq!(flag("gcc", "4.6.3", "cxx11_flag"), Some("-std=c++0x"));
        assert_eq!(flag("gcc", "5.4.0", "cxx98_flag"), Some(""));
        assert_eq!(flag("gcc", "13.2.0", "cxx23_flag"), Some("-std=c++2b"));
        assert_eq!(flag("gcc", "7.5.0", "c17_flag"), None);
        assert_eq!(flag("nvhpc", "24.3", "openmp_flag"), Some("-mp"));
        assert_eq!(flag("nvhpc", "24.3", "fc_pic_flag"), Some("-fpic"));
        assert_eq!(flag("nvhpc", "24.3", "c99_flag"), Some("-c99"));
        assert_eq!(flag("llvm", "17.0.6", "c23_flag"), Some("-std=c2x"));
        assert_eq!(flag("llvm", "17.0.6", "cxx98_flag"), None);
        assert_eq!(flag("mystery", "1", "openmp_flag"), None);
    }
}
