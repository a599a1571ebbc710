#!/usr/bin/env bash
# Smoke checks of a prgenv-gnu image built by scripts/uenv-build.sh (issue #35): inside
# `stack run IMAGE --view default` and through the modules with Lmod,
#   1. a C, a C++ and a Fortran program using hdf5, netcdf-fortran, fftw, openblas and kokkos
#      compile against the view with the stack's gcc and run;
#   2. an MPI hello on 2 ranks (mpicc, mpiexec of the stack's MPI);
#   3. python3 imports the modules built against the stack's libraries;
#   4. cmake and ninja from the view configure and build a small project;
#   5. `stack audit` of the image is clean, and libstdc++/libgfortran resolve into the stack's gcc.
#
#   scripts/uenv-smoke.sh IMAGE_OR_BUILD_DIR
#
# Prints each check with ok/FAILED and exits non-zero if one failed. Nothing is written outside a
# temporary directory. STACK=path/to/stack (default target/debug/stack).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
stack=${STACK:-$here/target/debug/stack}
image=${1:?usage: $0 IMAGE_OR_BUILD_DIR}
case $image in */store.squashfs|*.squashfs) build_dir=$(dirname "$image") ;; *) build_dir=$image ;; esac
tmp=$(mktemp -d /tmp/uenv-smoke.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

# The test programs (written here, small and ours).
mkdir -p "$tmp/src/cmk"
cat > "$tmp/src/libs.c" <<'C'
#include <stdio.h>
#include <math.h>
#include <hdf5.h>
#include <fftw3.h>
#include <cblas.h>
int main(void) {
  /* openblas: C = A*B */
  double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {0};
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
  if (c[0] != 19 || c[3] != 50) { printf("dgemm wrong\n"); return 1; }
  /* fftw: the transform of a constant is a spike */
  fftw_complex in[8], out[8];
  for (int i = 0; i < 8; i++) { in[i][0] = 1; in[i][1] = 0; }
  fftw_plan p = fftw_plan_dft_1d(8, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  if (fabs(out[0][0] - 8) > 1e-12 || fabs(out[1][0]) > 1e-12) { printf("fft wrong\n"); return 1; }
  /* hdf5: write and read back */
  hsize_t dims[1] = {4};
  int w[4] = {1, 2, 3, 4}, r[4] = {0};
  hid_t f = H5Fcreate("t.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t s = H5Screate_simple(1, dims, NULL);
  hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, w);
  H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r);
  H5Dclose(d); H5Sclose(s); H5Fclose(f);
  if (r[3] != 4) { printf("hdf5 wrong\n"); return 1; }
  unsigned maj, min, rel;
  H5get_libversion(&maj, &min, &rel);
  printf("C: openblas dgemm ok, fftw ok, hdf5 %u.%u.%u ok\n", maj, min, rel);
  return 0;
}
C
cat > "$tmp/src/nc.f90" <<'F'
program nc
  use netcdf
  implicit none
  integer :: ncid, dimid, varid, i
  integer :: v(5) = [(i, i = 1, 5)], back(5)
  call check(nf90_create("t.nc", NF90_NETCDF4, ncid))
  call check(nf90_def_dim(ncid, "x", 5, dimid))
  call check(nf90_def_var(ncid, "v", NF90_INT, [dimid], varid))
  call check(nf90_enddef(ncid))
  call check(nf90_put_var(ncid, varid, v))
  call check(nf90_close(ncid))
  call check(nf90_open("t.nc", NF90_NOWRITE, ncid))
  call check(nf90_get_var(ncid, varid, back))
  call check(nf90_close(ncid))
  if (any(back /= v)) stop 1
  print '(a,a)', "Fortran: netcdf-fortran ok, netcdf ", trim(nf90_inq_libvers())
contains
  subroutine check(status)
    integer, intent(in) :: status
    if (status /= nf90_noerr) then
      print *, trim(nf90_strerror(status))
      stop 2
    end if
  end subroutine
end program
F
cat > "$tmp/src/cmk/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(kk LANGUAGES CXX)
find_package(Kokkos REQUIRED)
add_executable(kk kk.cpp)
target_link_libraries(kk Kokkos::kokkos)
CM
cat > "$tmp/src/cmk/kk.cpp" <<'CPP'
#include <Kokkos_Core.hpp>
#include <cstdio>
int main(int argc, char **argv) {
  Kokkos::initialize(argc, argv);
  {
    double sum = 0;
    Kokkos::parallel_reduce("sum", 1000, KOKKOS_LAMBDA(int i, double &s) { s += i; }, sum);
    std::printf("C++: kokkos %s, sum %.0f %s\n", Kokkos::DefaultExecutionSpace::name(), sum,
                sum == 499500 ? "ok" : "WRONG");
    if (sum != 499500) return 1;
  }
  Kokkos::finalize();
  return 0;
}
CPP
cat > "$tmp/src/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, size, len;
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Get_library_version(v, &len);
  if (rank == 0) printf("MPI: %d ranks, allreduce %d, %.40s\n", size, total, v);
  MPI_Finalize();
  return total == size ? 0 : 1;
}
C

# The checks, run inside the image. $1: view or modules.
cat > "$tmp/checks.sh" <<'SH'
set -u
mode=$1 src=$2
cd "$(mktemp -d)"
fails=0
check() { local name=$1; shift; if out=$("$@" 2>&1); then echo "ok      $name: $(echo "$out" | tail -1)"; else echo "FAILED  $name"; echo "$out" | tail -15 | sed 's/^/        /'; fails=$((fails+1)); fi; }
if [ "$mode" = modules ]; then
  # Lmod reads the stack's module tree (Tcl or Lua)
  . /usr/share/lmod/lmod/init/bash
  module use /user-environment/modules
  check "module avail" bash -c 'module -t avail 2>&1 | grep -c /'
  # In this shell, not in check's subshell: the loads must change this environment.
  if module load gcc hdf5 netcdf-c netcdf-fortran fftw openblas kokkos cmake ninja python meson cray-mpich 2>load.err; then
    echo "ok      module load: $(module -t list 2>&1 | tr '\n' ' ')"
  else
    echo "FAILED  module load"; tail -15 load.err | sed 's/^/        /'; fails=$((fails+1))
  fi
  prefix_of() { dirname "$(dirname "$(command -v "$1")")"; }
  inc="" lib=""
  # hdf5 is built with MPI: its headers include mpi.h (the view has it in its one include/).
  for t in h5cc nc-config nf-config mpicc; do p=$(prefix_of $t); inc="$inc -I$p/include"; lib="$lib -L$p/lib -Wl,-rpath,$p/lib"; done
  for pc in fftw3 openblas; do inc="$inc $(pkg-config --cflags $pc)"; lib="$lib $(pkg-config --libs-only-L $pc | sed 's/-L\([^ ]*\)/-L\1 -Wl,-rpath,\1/g')"; done
else
  inc="-I/user-environment/env/default/include" lib="-L/user-environment/env/default/lib -Wl,-rpath,/user-environment/env/default/lib -L/user-environment/env/default/lib64 -Wl,-rpath,/user-environment/env/default/lib64"
fi
check "gcc is the stack's" bash -c 'command -v gcc | grep -q "^/user-environment/" && gcc --version | head -1'
check "C: hdf5, fftw, openblas" bash -c "gcc $src/libs.c $inc $lib -lhdf5 -lfftw3 -lopenblas -lm -o libs && ./libs"
check "Fortran: netcdf-fortran" bash -c "gfortran $src/nc.f90 $inc $lib -lnetcdff -lnetcdf -o nc && ./nc"
check "C++: kokkos (cmake + ninja)" bash -c "cmake -G Ninja -S $src/cmk -B kk -DCMAKE_CXX_COMPILER=g++ >cmake.log && ninja -C kk >ninja.log && OMP_NUM_THREADS=2 ./kk/kk"
check "libstdc++/libgfortran from the stack's gcc" bash -c "test -x ./kk/kk && test -x ./nc && ldd ./kk/kk ./nc | grep -E 'libstdc|libgfortran' | awk '{print \$3}' | sort -u | tee /dev/stderr | grep -v '^/user-environment/' && exit 1 || test -x ./kk/kk -a -x ./nc"
check "MPI hello on 2 ranks" bash -c "mpicc $src/hello.c -o hello && mpiexec -n 2 ./hello | tr '\\n' ' ' | grep 'MPI: 2 ranks, allreduce 2'"
check "cmake, ninja are the stack's" bash -c 'for t in cmake ninja; do command -v $t | grep -q "^/user-environment/" || { echo "$t: $(command -v $t || echo missing)"; exit 1; }; done; echo "$(cmake --version | head -1), ninja $(ninja --version)"'
check "python3 imports" python3 -c 'import ssl, zlib, bz2, lzma, ctypes, readline, curses, xml.parsers.expat, mesonbuild; import sys; print(sys.version.split()[0], ssl.OPENSSL_VERSION)'
check "python3 is the stack's" bash -c 'command -v python3 | grep "^/user-environment/"'
exit $fails
SH

echo "== inside \`stack run $image --view default\`"
"$stack" run "$image" --view default -- bash "$tmp/checks.sh" view "$tmp/src"; fails=$((fails + $?))
echo "== through the modules with Lmod"
"$stack" run "$image" -- bash "$tmp/checks.sh" modules "$tmp/src"; fails=$((fails + $?))
echo "== stack audit"
img=$image; [ -d "$image" ] && img=$build_dir/store.squashfs
if "$stack" audit "$img" >"$tmp/audit.txt" 2>&1; then echo "ok      audit: $(tail -1 "$tmp/audit.txt")"; else echo "FAILED  audit"; tail -30 "$tmp/audit.txt"; fails=$((fails + 1)); fi
echo "== $fails failed"
exit $(( fails > 0 ))
