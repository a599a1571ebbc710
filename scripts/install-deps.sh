#!/usr/bin/env bash
# Installs the system tools stack's test suite and demo build use (Debian/Ubuntu).
# slurm-wlm and munge: tests/it/slurm starts its own single-node cluster (the packages' own
# services are not used). mpich, openmpi-bin and their -dev packages: tests/it/mpi_abi.rs builds the
# mukautuva recipe over both as externals and runs `mpiexec -n 2`. r-base-core: R, for the R
# packages of the build-logic tests (tests/it/build_logic_lang.rs, src/build_logic/python/tests). chromium:
# tests/it/report renders the build report in headless Chromium (Debian's package; no browser is
# downloaded).
# Safe to rerun; skips apt when everything is already present.
set -euo pipefail
need=(cmake meson ninja-build autoconf automake libtool pkg-config make gcc g++ patch patchelf
      squashfs-tools squashfuse fuse3 lmod bzip2 xz-utils zstd git libssl-dev libtree zlib1g-dev
      libhwloc-dev docker-registry skopeo apache2-utils openssl python3 python3-pip util-linux
      passwd slurm-wlm munge mpich libmpich-dev openmpi-bin libopenmpi-dev gfortran clang r-base-core
      chromium python3-yaml)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The registry tests' interop client: oras (PyPI).
if ! python3 -c "import oras.provider" 2>/dev/null; then
  python3 -m pip install --quiet --break-system-packages "oras>=0.2.25,<0.3" 2>/dev/null \
    || python3 -m pip install --quiet "oras>=0.2.25,<0.3"
fi

# CUDA 13.0.2 (Update 2) as NVIDIA's redistributable PyPI wheels, for tests/it/cuda_wheels.rs, which
# serves them to `stack build` from a local mirror (the recipe's cuda@13.0.2-wheels-<arch>).
# About 100 MB; downloaded once into the cache. Versions must match recipes/cuda.yaml.
wheels="${STACK_TEST_WHEELS:-$HOME/.cache/stack-test/cuda-wheels}"
if ! ls "$wheels"/nvidia_nvml_dev-13.0.87-*"$(uname -m)".whl >/dev/null 2>&1; then
  mkdir -p "$wheels"
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform "manylinux2014_$(uname -m)" --python-version 3.11 -d "$wheels" \
    nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 \
    nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85 nvidia-nvtx==13.0.85 \
    nvidia-nvml-dev==13.0.87
fi

# Python 3.9, the oldest the build-logic layer supports (Debian bullseye's, from Debian's archive,
# unpacked into ~/.cache/stack-test/python3.9 without installing anything): scripts/python-oldest.sh
# fetches it (and runs a few of the layer's tests with it); tests/it/build_logic_python.rs builds a
# package with it.
if [ ! -x "${STACK_TEST_CACHE:-$HOME/.cache/stack-test}/python3.9/root/usr/bin/python3.9" ]; then
  "$(dirname "$0")/python-oldest.sh" 'test_version*.py' >/dev/null
fi
