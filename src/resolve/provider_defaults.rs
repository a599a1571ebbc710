//! The providers a virtual prefers when no package policy says otherwise:
//! Spack's defaults (`packages: all: providers:` and `iconv: prefer:` of
//! Spack's `etc/spack/defaults/base/packages.yaml`), by package name. They
//! come after the stack's and the cluster's `packages: <virtual>: prefer:`
//! and before the name order (see docs/resolve.md, "Providers").
//!
//! Only names count here: Spack's `zlib-ng+compat` and `mesa+glx` are
//! written as `zlib-ng` and `mesa` (the variant is a requirement of the
//! provider's own `provides: … when:`, which the solver applies anyway).
//!
//! Two defaults of Spack's are left out. `zlib-api: [zlib-ng+compat, zlib]`:
//! the shipped stacks resolve `zlib-api` to `zlib` (the first by name), and
//! their plans and hashes stay as they were; a stack that wants Spack's
//! choice writes `packages: zlib-api: prefer: [zlib-ng]`. `mpi: [openmpi,
//! mpich]`: the MPI is the network's choice (`network.mpi`, the cluster's
//! `mpi: require:`), and without one the first by name (`cray-mpich`) is
//! the Alps one.

/// Virtual → its preferred providers, most preferred first.
pub(crate) const DEFAULT_PROVIDERS: &[(&str, &[&str])] = &[
    ("awk", &["gawk"]),
    ("armci", &["armcimpi"]),
    ("blas", &["openblas"]),
    ("c", &["gcc", "llvm", "intel-oneapi-compilers"]),
    ("cuda-lang", &["cuda"]),
    ("cxx", &["gcc", "llvm", "intel-oneapi-compilers"]),
    ("daal", &["intel-oneapi-daal"]),
    ("elf", &["elfutils"]),
    ("fftw-api", &["fftw", "amdfftw"]),
    ("flame", &["libflame", "amdlibflame"]),
    ("fortran", &["gcc", "llvm", "intel-oneapi-compilers"]),
    ("fortran-rt", &["gcc-runtime", "intel-oneapi-runtime"]),
    ("fuse", &["libfuse"]),
    ("gl", &["glx", "osmesa"]),
    ("glu", &["mesa-glu", "openglu"]),
    ("golang", &["go", "gcc"]),
    ("go-or-gccgo-bootstrap", &["go-bootstrap", "gcc"]),
    ("hip-lang", &["llvm-amdgpu"]),
    ("iconv", &["libiconv"]),
    ("ipp", &["intel-oneapi-ipp"]),
    ("java", &["openjdk", "jdk"]),
    ("jpeg", &["libjpeg-turbo", "libjpeg"]),
    ("lapack", &["openblas"]),
    ("libc", &["glibc", "musl"]),
    ("libgfortran", &["gcc-runtime"]),
    ("libglx", &["mesa"]),
    ("libifcore", &["intel-oneapi-runtime"]),
    ("libllvm", &["llvm"]),
    ("lua-lang", &["lua", "lua-luajit-openresty", "lua-luajit"]),
    ("luajit", &["lua-luajit-openresty", "lua-luajit"]),
    ("mariadb-client", &["mariadb-c-client", "mariadb"]),
    ("mkl", &["intel-oneapi-mkl"]),
    ("mpe", &["mpe2"]),
    ("mysql-client", &["mysql", "mariadb-c-client"]),
    ("opencl", &["pocl"]),
    ("onedal", &["intel-oneapi-dal"]),
    ("pbs", &["openpbs", "torque"]),
    ("pil", &["py-pillow"]),
    ("pkgconfig", &["pkgconf", "pkg-config"]),
    ("qmake", &["qt-base", "qt"]),
    ("rpc", &["libtirpc"]),
    ("scalapack", &["netlib-scalapack", "amdscalapack"]),
    ("sycl", &["hipsycl"]),
    ("szip", &["libaec", "libszip"]),
    ("tbb", &["intel-tbb", "intel-oneapi-tbb"]),
    ("unwind", &["libunwind"]),
    ("uuid", &["util-linux-uuid", "libuuid"]),
    ("wasi-sdk", &["wasi-sdk-prebuilt"]),
    ("xkbdata-api", &["xkeyboard-config", "xkbdata"]),
    ("xxd", &["xxd-standalone", "vim"]),
    ("yacc", &["bison", "byacc"]),
    ("ziglang", &["zig"]),
];

/// The default providers of `virtual_name`, most preferred first.
pub(crate) fn default_providers(virtual_name: &str) -> &'static [&'static str] {
    DEFAULT_PROVIDERS
        .iter()
        .find(|(v, _)| *v == virtual_name)
        .map_or(&[], |(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iconv_prefers_libiconv_and_unknown_virtuals_have_none() {
        assert_eq!(default_providers("iconv"), ["libiconv"]);
        assert_eq!(default_providers("uuid"), ["util-linux-uuid", "libuuid"]);
        assert!(default_providers("mpi").is_empty());
        assert!(default_providers("no-such-virtual").is_empty());
    }

    #[test]
    fn each_virtual_is_listed_once() {
        let mut names: Vec<&str> = DEFAULT_PROVIDERS.iter().map(|(v, _)| *v).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
