//! Spack's base classes: which build system each one means and the
//! directives it adds to every package that derives from it, written down
//! here as directive calls (facts: names, defaults, values) and read with
//! the same reader as package files.

use crate::import::spack::directives::model::Directive;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::import::spack::directives::class_body::read_base;
use crate::import::spack::evaluator::value::{Scope, Value};

/// Base classes and the build system they select (`None`: a mix-in).
pub fn build_system_of(base: &str) -> Option<&'static str> {
    Some(match base {
        "CMakePackage" | "CachedCMakePackage" => "cmake",
        "AutotoolsPackage" => "autotools",
        "MesonPackage" => "meson",
        "MakefilePackage" => "makefile",
        "PythonPackage" => "python_pip",
        "Package" => "generic",
        "BundlePackage" => "bundle",
        "CargoPackage" => "cargo",
        "GoPackage" => "go",
        "PerlPackage" => "perl",
        "RPackage" => "r",
        "SConsPackage" => "scons",
        "WafPackage" => "waf",
        "QMakePackage" => "qmake",
        "SIPPackage" => "sip",
        "LuaPackage" => "lua",
        "OctavePackage" => "octave",
        "MavenPackage" => "maven",
        "RacketPackage" => "racket",
        "RubyPackage" => "ruby",
        "NMakePackage" => "nmake",
        "MSBuildPackage" => "msbuild",
        "IntelOneApiPackage" | "IntelOneApiLibraryPackage" => "oneapi",
        _ => return None,
    })
}

const CMAKE: &str = r#"
class CMakePackage:
    build_system("cmake")
    with when("build_system=cmake"):
        variant("build_type", default="Release", description="CMake build type", values=("Debug", "Release", "RelWithDebInfo", "MinSizeRel"))
        variant("ipo", default=False, description="CMake interprocedural optimization")
        variant("generator", default="make", values=("make", "ninja"), description="the build system generator to use")
        depends_on("cmake", type="build")
        depends_on("ninja", type="build", when="generator=ninja")
"#;

const AUTOTOOLS: &str = r#"
class AutotoolsPackage:
    build_system("autotools")
"#;

const MESON: &str = r#"
class MesonPackage:
    build_system("meson")
    with when("build_system=meson"):
        variant("buildtype", default="release", description="Meson build type", values=("plain", "debug", "debugoptimized", "release", "minsize"))
        variant("default_library", default="shared", values=("shared", "static"), multi=True, description="Build shared libs, static libs or both")
        variant("strip", default=False, description="Strip targets on install")
        depends_on("meson", type="build")
        depends_on("ninja", type="build")
        depends_on("pkgconfig", type="build")
        conflicts("^python@3.12:", when="%meson@:1.0")
"#;

const MAKEFILE: &str = r#"
class MakefilePackage:
    build_system("makefile")
"#;

const PYTHON: &str = r#"
class PythonPackage:
    build_system("python_pip")
    with when("build_system=python_pip"):
        extends("python")
        depends_on("py-pip", type="build")
        depends_on("py-wheel", type="build")
"#;

const PERL: &str = r#"
class PerlPackage:
    build_system("perl")
    with when("build_system=perl"):
        extends("perl")
"#;

const R: &str = r#"
class RPackage:
    build_system("r")
    extends("r")
"#;

const CARGO: &str = r#"
class CargoPackage:
    build_system("cargo")
    with when("build_system=cargo"):
        depends_on("rust", type="build")
"#;

const GO: &str = r#"
class GoPackage:
    build_system("go")
    with when("build_system=go"):
        depends_on("go", type="build")
"#;

const OCTAVE: &str = r#"
class OctavePackage:
    build_system("octave")
    with when("build_system=octave"):
        extends("octave")
"#;

const MAVEN: &str = r#"
class MavenPackage:
    build_system("maven")
    with when("build_system=maven"):
        depends_on("java", type=("build", "run"))
        depends_on("maven", type="build")
"#;

const QMAKE: &str = r#"
class QMakePackage:
    build_system("qmake")
    depends_on("qmake", type="build", when="build_system=qmake")
"#;

const WAF: &str = r#"
class WafPackage:
    build_system("waf")
    depends_on("python@2.5:", type="build", when="build_system=waf")
"#;

const NMAKE: &str = r#"
class NMakePackage:
    build_system("nmake")
    conflicts("platform=linux", when="build_system=nmake")
    conflicts("platform=darwin", when="build_system=nmake")
"#;

const MSBUILD: &str = r#"
class MSBuildPackage:
    build_system("msbuild")
    conflicts("platform=linux", when="build_system=msbuild")
    conflicts("platform=darwin", when="build_system=msbuild")
    conflicts("platform=freebsd", when="build_system=msbuild")
"#;

const ONEAPI: &str = r#"
class IntelOneApiPackage:
    build_system("oneapi")
    conflicts("target=ppc64:", msg="This package in only available for x86_64 and Linux")
    conflicts("target=ppc64le:", msg="This package in only available for x86_64 and Linux")
    conflicts("target=aarch64:", msg="This package in only available for x86_64 and Linux")
    conflicts("platform=darwin", msg="This package in only available for x86_64 and Linux")
    conflicts("platform=windows", msg="This package in only available for x86_64 and Linux")
    variant("envmods", default=True, description="Toggles environment modifications")
"#;

const ONEAPI_LIBRARY: &str = r#"
class IntelOneApiLibraryPackage:
    build_system("oneapi")
    conflicts("target=ppc64:", msg="This package in only available for x86_64 and Linux")
    conflicts("target=ppc64le:", msg="This package in only available for x86_64 and Linux")
    conflicts("target=aarch64:", msg="This package in only available for x86_64 and Linux")
    conflicts("platform=darwin", msg="This package in only available for x86_64 and Linux")
    conflicts("platform=windows", msg="This package in only available for x86_64 and Linux")
    variant("envmods", default=True, description="Toggles environment modifications")
    depends_on("c", type="build")
"#;

const GENERIC: &str = r#"
class Package:
    build_system("generic")
"#;

const BUNDLE: &str = r#"
class BundlePackage:
    build_system("bundle")
"#;

const CUDA: &str = r#"
class CudaPackage:
    variant("cuda", default=False, description="Build with CUDA")
    variant("cuda_arch", description="CUDA architecture", values=any_combination_of("10", "11", "12", "13", "20", "21", "30", "32", "35", "37", "50", "52", "53", "60", "61", "62", "70", "72", "75", "80", "86", "87", "89", "90", "90a", "100", "100a", "100f", "101", "101a", "101f", "103", "103a", "103f", "110", "110a", "110f", "120", "120a", "120f", "121", "121a", "121f"), sticky=True, when="+cuda")
    depends_on("cuda", when="+cuda")
    # the CUDA releases that support each architecture
    depends_on("cuda@:6.0", when="cuda_arch=10")
    depends_on("cuda@:6.5", when="cuda_arch=11")
    depends_on("cuda@2.1:6.5", when="cuda_arch=12")
    depends_on("cuda@2.1:6.5", when="cuda_arch=13")
    depends_on("cuda@3.0:8.0", when="cuda_arch=20")
    depends_on("cuda@3.2:8.0", when="cuda_arch=21")
    depends_on("cuda@5.0:10.2", when="cuda_arch=30")
    depends_on("cuda@5.0:10.2", when="cuda_arch=32")
    depends_on("cuda@5.0:11.8", when="cuda_arch=35")
    depends_on("cuda@6.5:11.8", when="cuda_arch=37")
    depends_on("cuda@6.0:12.9", when="cuda_arch=50")
    depends_on("cuda@6.5:12.9", when="cuda_arch=52")
    depends_on("cuda@6.5:12.9", when="cuda_arch=53")
    depends_on("cuda@8.0:12.9", when="cuda_arch=60")
    depends_on("cuda@8.0:12.9", when="cuda_arch=61")
    depends_on("cuda@8.0:12.9", when="cuda_arch=62")
    depends_on("cuda@9.0:12.9", when="cuda_arch=70")
    depends_on("cuda@9.0:", when="cuda_arch=72")
    depends_on("cuda@10.0:", when="cuda_arch=75")
    depends_on("cuda@11.0:", when="cuda_arch=80")
    depends_on("cuda@11.1:", when="cuda_arch=86")
    depends_on("cuda@11.4:", when="cuda_arch=87")
    depends_on("cuda@11.8:", when="cuda_arch=89")
    depends_on("cuda@12.0:", when="cuda_arch=90")
    depends_on("cuda@12.0:", when="cuda_arch=90a")
    depends_on("cuda@12.8:", when="cuda_arch=100")
    depends_on("cuda@12.8:", when="cuda_arch=100a")
    depends_on("cuda@12.9:", when="cuda_arch=100f")
    depends_on("cuda@12.9:", when="cuda_arch=103")
    depends_on("cuda@12.9:", when="cuda_arch=103a")
    depends_on("cuda@12.9:", when="cuda_arch=103f")
    depends_on("cuda@12.8:12.9", when="cuda_arch=101")
    depends_on("cuda@12.8:12.9", when="cuda_arch=101a")
    depends_on("cuda@12.9", when="cuda_arch=101f")
    depends_on("cuda@13.0:", when="cuda_arch=110")
    depends_on("cuda@13.0:", when="cuda_arch=110a")
    depends_on("cuda@13.0:", when="cuda_arch=110f")
    depends_on("cuda@12.8:", when="cuda_arch=120")
    depends_on("cuda@12.8:", when="cuda_arch=120a")
    depends_on("cuda@12.9:", when="cuda_arch=120f")
    depends_on("cuda@12.9:", when="cuda_arch=121")
    depends_on("cuda@12.9:", when="cuda_arch=121a")
    depends_on("cuda@12.9:", when="cuda_arch=121f")
"#;

const ROCM: &str = r#"
class ROCmPackage:
    variant("rocm", default=False, description="Enable ROCm support")
    variant("amdgpu_target", description="AMD GPU architecture", values=any_combination_of("gfx701", "gfx801", "gfx802", "gfx803", "gfx900", "gfx900:xnack-", "gfx902", "gfx904", "gfx906", "gfx906:xnack-", "gfx908", "gfx908:xnack-", "gfx909", "gfx90a", "gfx90a:xnack-", "gfx90a:xnack+", "gfx90c", "gfx940", "gfx941", "gfx942", "gfx950", "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200", "gfx1201", "gfx1250", "gfx1251"), sticky=True, when="+rocm")
    depends_on("llvm-amdgpu", type="build", when="+rocm")
    depends_on("hsa-rocr-dev", when="+rocm")
    depends_on("hip +rocm", when="+rocm")
    conflicts("amdgpu_target=none", when="+rocm")
    # the ROCm releases that support each architecture
    depends_on("llvm-amdgpu@5.2.0:", when="amdgpu_target=gfx940")
    depends_on("llvm-amdgpu@5.7.0:", when="amdgpu_target=gfx941")
    depends_on("llvm-amdgpu@5.7.0:", when="amdgpu_target=gfx942")
    depends_on("llvm-amdgpu@5.2.0:", when="amdgpu_target=gfx1036")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1100")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1101")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1102")
    depends_on("llvm-amdgpu@5.3.0:", when="amdgpu_target=gfx1103")
"#;

/// Class constants of the bases that packages loop over
/// (`for arch in CudaPackage.cuda_arch_values:`), from the same facts.
pub fn base_constants(scope: &mut Scope) {
    static CONSTANTS: OnceLock<Vec<(String, Value)>> = OnceLock::new();
    let constants = CONSTANTS.get_or_init(|| {
        let mut out = Vec::new();
        for (base, name, variant) in [
            ("CudaPackage", "cuda_arch_values", "cuda_arch"),
            ("ROCmPackage", "amdgpu_targets", "amdgpu_target"),
        ] {
            let values = base_directives(base)
                .unwrap_or_default()
                .into_iter()
                .find(|d| d.arg_str(0) == Some(variant))
                .and_then(|d| d.kw("values").cloned());
            if let Some(Value::Call(c)) = values {
                out.push((format!("{base}.{name}"), Value::List(c.args.clone())));
            }
        }
        out
    });
    for (k, v) in constants {
        scope.set(k, v.clone());
    }
}

/// Each base's directives, read once.
fn read_bases() -> &'static HashMap<&'static str, Vec<Directive>> {
    static BASES: OnceLock<HashMap<&'static str, Vec<Directive>>> = OnceLock::new();
    BASES.get_or_init(|| {
        let mut map = HashMap::new();
        for (name, src) in [
            ("cmake", CMAKE),
            ("autotools", AUTOTOOLS),
            ("meson", MESON),
            ("makefile", MAKEFILE),
            ("python", PYTHON),
            ("perl", PERL),
            ("r", R),
            ("cargo", CARGO),
            ("go", GO),
            ("octave", OCTAVE),
            ("maven", MAVEN),
            ("qmake", QMAKE),
            ("generic", GENERIC),
            ("bundle", BUNDLE),
            ("cuda", CUDA),
            ("rocm", ROCM),
            ("waf", WAF),
            ("nmake", NMAKE),
            ("msbuild", MSBUILD),
            ("oneapi", ONEAPI),
            ("oneapi-library", ONEAPI_LIBRARY),
        ] {
            let class = src
                .lines()
                .find_map(|l| l.strip_prefix("class "))
                .unwrap_or("")
                .trim_end_matches(':');
            let mut pkg = read_base(class, src);
            for d in &mut pkg.directives {
                d.line = 0;
            }
            debug_assert!(pkg.untranslated.is_empty(), "{:?}", pkg.untranslated);
            map.insert(name, pkg.directives);
        }
        map
    })
}

/// The directives a base class adds, or `None` for a base the importer
/// does not know.
pub fn base_directives(base: &str) -> Option<Vec<Directive>> {
    let key = match base {
        "CMakePackage" | "CachedCMakePackage" => "cmake",
        "AutotoolsPackage" => "autotools",
        "MesonPackage" => "meson",
        "MakefilePackage" => "makefile",
        "PythonPackage" => "python",
        "PerlPackage" => "perl",
        "RPackage" => "r",
        "CargoPackage" => "cargo",
        "GoPackage" => "go",
        "OctavePackage" => "octave",
        "MavenPackage" => "maven",
        "QMakePackage" => "qmake",
        "Package" => "generic",
        "BundlePackage" => "bundle",
        "CudaPackage" => "cuda",
        "ROCmPackage" => "rocm",
        "WafPackage" => "waf",
        "NMakePackage" => "nmake",
        "MSBuildPackage" => "msbuild",
        "IntelOneApiPackage" => "oneapi",
        "IntelOneApiLibraryPackage" => "oneapi-library",
        "GNUMirrorPackage" | "SourceforgePackage" | "SourcewarePackage" | "PythonExtension"
        | "CompilerPackage" | "PackageBase" => return Some(Vec::new()),
        // `PackageBase` mix-ins, not build systems: ROCmLibrary detects an
        // external ROCm's version (rocm-gdb is `(ROCmLibrary,
        // AutotoolsPackage)`), XorgPackage gives the x.org mirror URLs
        // (xorgproto is `(MesonPackage, XorgPackage)`).
        "ROCmLibrary" | "XorgPackage" => return Some(Vec::new()),
        other => {
            let system = build_system_of(other)?;
            return Some(vec![Directive {
                name: "build_system".into(),
                line: 0,
                args: vec![crate::import::spack::evaluator::value::Value::Str(
                    system.into(),
                )],
                kwargs: Vec::new(),
            }]);
        }
    };
    read_bases().get(key).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_base_reads_without_untranslated_constructs() {
        for base in [
            "CMakePackage",
            "AutotoolsPackage",
            "MesonPackage",
            "MakefilePackage",
            "PythonPackage",
            "PerlPackage",
            "RPackage",
            "CargoPackage",
            "GoPackage",
            "Package",
            "BundlePackage",
            "CudaPackage",
            "ROCmPackage",
        ] {
            let d = base_directives(base).unwrap();
            assert!(!d.is_empty(), "{base}");
        }
        let cuda = base_directives("CudaPackage").unwrap();
        assert!(cuda.iter().any(|d| d.arg_str(0) == Some("cuda_arch")));
        assert!(base_directives("NoSuchPackage").is_none());
    }
}

#[cfg(test)]
mod mixin_tests {
    use super::*;

    #[test]
    fn rocm_library_and_xorg_package_are_mixins_not_build_systems() {
        for base in ["ROCmLibrary", "XorgPackage"] {
            assert_eq!(build_system_of(base), None, "{base}");
            assert_eq!(base_directives(base).map(|d| d.len()), Some(0), "{base}");
        }
        assert_eq!(build_system_of("AutotoolsPackage"), Some("autotools"));
    }
}
