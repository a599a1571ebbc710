//! The compiler programs a node is built with: a cluster compiler's paths,
//! or those of a compiler the stack builds, by its package name.

use std::path::Path;

use petgraph::graph::NodeIndex;

use crate::build::CompilerPaths;
use crate::resolve::Plan;

/// The programs of the compilers node `idx` is built with: per language
/// (`%fortran=nvhpc` takes `fc` from nvhpc), the runtime library dirs of
/// every one of them.
pub fn compiler_paths(plan: &Plan, idx: NodeIndex) -> CompilerPaths {
    let node = plan.node(idx);
    let mut paths = programs_of(plan, &node.compiler);
    for (lang, c) in &node.languages {
        let other = programs_of(plan, c);
        match lang.as_str() {
            "c" => paths.cc = other.cc,
            "cxx" => paths.cxx = other.cxx,
            "fortran" => paths.fc = other.fc,
            _ => continue,
        }
        paths.built |= other.built;
        for dir in other.runtime_libdirs {
            if !paths.runtime_libdirs.contains(&dir) {
                paths.runtime_libdirs.push(dir);
            }
        }
    }
    paths
}

/// The programs of `compiler`: a cluster compiler's paths, or those of a
/// compiler the stack builds ([`built_compiler_programs`]).
fn programs_of(plan: &Plan, compiler: &crate::resolve::NodeCompiler) -> CompilerPaths {
    if let Some(hash) = compiler.built_hash()
        && let Some(c) = plan.find_hash(hash)
    {
        let c = plan.node(c);
        let mut paths = built_compiler_programs(&compiler.name, &c.prefix);
        // gcc without its Fortran front end: no `FC` (configure scripts
        // would find a compiler that does not exist)
        if let Some(crate::spec::VariantValue::Values(langs)) = c.variants.get("languages")
            && !langs.contains("fortran")
        {
            paths.fc = None;
        }
        return paths;
    }
    let c = plan.cluster_compiler_of(compiler);
    CompilerPaths {
        cc: c.cc.path.clone(),
        cxx: c.cxx.as_ref().map(|p| p.path.clone()),
        fc: c.fc.as_ref().map(|p| p.path.clone()),
        built: false,
        runtime_libdirs: Vec::new(),
    }
}

/// The programs and runtime library dirs of a compiler package installed at
/// `prefix`, by the package's name: `gcc` (gcc, g++, gfortran), `llvm`
/// (clang, clang++, flang), `llvm-amdgpu` (amdclang, amdclang++, amdflang),
/// `nvhpc` (nvc, nvc++, nvfortran below `Linux_<arch>/<version>/compilers`),
/// `intel-oneapi-compilers` (icx, icpx, ifx in Intel's installer layout,
/// `compiler/latest/bin`, before 2024 `compiler/latest/linux/bin`),
/// anything else as gcc.
pub fn built_compiler_programs(name: &str, prefix: &Path) -> CompilerPaths {
    let (dir, cc, cxx, fc) = match name {
        "llvm" => (prefix.join("bin"), "clang", "clang++", "flang"),
        "llvm-amdgpu" => (prefix.join("bin"), "amdclang", "amdclang++", "amdflang"),
        "nvhpc" => (prefix.join("compilers/bin"), "nvc", "nvc++", "nvfortran"),
        "intel-oneapi-compilers" => {
            let old = prefix.join("compiler/latest/linux/bin");
            let dir = if old.is_dir() {
                old
            } else {
                prefix.join("compiler/latest/bin")
            };
            (dir, "icx", "icpx", "ifx")
        }
        _ => (prefix.join("bin"), "gcc", "g++", "gfortran"),
    };
    let lib_root = dir.parent().unwrap_or(prefix);
    CompilerPaths {
        cc: dir.join(cc),
        cxx: Some(dir.join(cxx)),
        fc: Some(dir.join(fc)),
        built: true,
        runtime_libdirs: vec![lib_root.join("lib64"), lib_root.join("lib")],
    }
}
