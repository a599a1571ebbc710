#!/usr/bin/env bash
# The GPU half of stacks/alps-cxi.yaml's public parts, built for real on the `local` cluster (Debian 12,
# no GPU needed) from upstream git through a local mirror: libfabric 2.2.0 +cxi ~cuda (with libcxi,
# cassini-headers and cxi-driver 13.0.0), CUDA 13.0.2 assembled from NVIDIA's PyPI wheels, NCCL
# 2.28.9-1 (cuda_arch=90) and aws-ofi-nccl 1.21.1 +cuda; then the audit, and per-package times.
# libfabric is built +cuda against the wheel CUDA: with --enable-cuda-dlopen (the recipe's default
# +cuda_dlopen), since the wheels carry no libcuda stub; the script checks that no libfabric
# library has libcuda.so or libcudart.so in DT_NEEDED.
# Not run by CI (NCCL alone takes about 16 minutes on 2 cores).
#
#   scripts/gpu-real.sh --work DIR --wheels DIR \
#       --libfabric REPO --nccl REPO --aws-ofi-nccl REPO \
#       --cassini-headers REPO --cxi-driver REPO --libcxi REPO
#   scripts/gpu-real.sh --only libfabric-cuda --work DIR --libfabric REPO
#       (only libfabric 2.2.0 fabrics=tcp,rxm,shm +cuda over the wheel CUDA: no NCCL, no CXI, no apt)
#   scripts/gpu-real.sh --only aws-ofi-nccl-cuda --work DIR --libfabric REPO --aws-ofi-nccl REPO
#       (that libfabric, and aws-ofi-nccl 1.21.1 +cuda over it and the wheel CUDA, with Debian's
#       hwloc and a site NCCL as externals: the plugin builds against its bundled NCCL headers and
#       links no libnccl, so the NCCL external is an empty prefix here; no NCCL build)
#
# Each REPO is a clone (bare or not) of the upstream repository, e.g. made with
# `git clone --mirror https://github.com/NVIDIA/nccl.git`; the wheels directory holds the seven CUDA
# wheels of recipes/cuda.yaml (scripts/install-deps.sh downloads them). The script contains and
# downloads no third-party code: it writes git tarballs of the pinned commits from the given
# repositories into a Spack-layout mirror under DIR, links the wheels into it, and writes a stack
# recipe, a few package recipes that take NCCL and libfabric from git instead of release tarballs,
# and a cluster configuration with Debian's libraries as externals (it apt-installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD

work="" only="" wheels="${STACK_TEST_WHEELS:-$HOME/.cache/stack-test/cuda-wheels}"
declare -A repo=()
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --wheels) wheels=$2; shift 2 ;;
    --libfabric|--nccl|--aws-ofi-nccl|--cassini-headers|--cxi-driver|--libcxi)
      repo[${1#--}]=$2; shift 2 ;;
    *) echo "unknown argument: $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
case "$only" in
  "") needed=(libfabric nccl aws-ofi-nccl cassini-headers cxi-driver libcxi) ;;
  libfabric-cuda) needed=(libfabric) ;;
  aws-ofi-nccl-cuda) needed=(libfabric aws-ofi-nccl) ;;
  *) echo "--only: libfabric-cuda or aws-ofi-nccl-cuda (got $only)" >&2; exit 2 ;;
esac
for k in "${needed[@]}"; do
  [ -n "${repo[$k]:-}" ] || { echo "missing --$k REPO" >&2; exit 2; }
done
[ -n "$work" ] || { echo "missing --work DIR" >&2; exit 2; }
mkdir -p "$work"
work=$(cd "$work" && pwd)

# Debian's libraries as externals (what a site does for the CXI stack's leaf libraries).
debs=(libhwloc-dev libjson-c-dev libcurl4-openssl-dev libfuse-dev libconfig-dev libuv1-dev libyaml-dev
      libnl-3-dev libnl-genl-3-dev libnuma-dev libsensors-dev python3)
missing=()
[ "$only" = libfabric-cuda ] && debs=()
[ "$only" = aws-ofi-nccl-cuda ] && debs=(libhwloc-dev)
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
debver() { dpkg-query -W -f='${Version}' "$1" | sed -E 's/^[0-9]+://; s/[-+~].*//'; }

# The mirror: git tarballs of the pinned commits, the wheels by content.
mirror=$work/mirror
git_tarball() { # upstream-url-path repo ref
  local commit; commit=$(git -C "$2" rev-parse "$3^{commit}")
  local out="$mirror/_source-cache/git/$1/$commit.tar.gz"
  if [ ! -s "$out" ]; then
    mkdir -p "$(dirname "$out")"
    git -C "$2" archive --format=tar --prefix=src/ "$commit" | gzip -n > "$out.tmp"
    mv "$out.tmp" "$out"
  fi
  echo "$commit"
}
c_libfabric=$(git_tarball ofiwg/libfabric.git "${repo[libfabric]}" v2.2.0)
c_nccl=none
if [ -z "$only" ]; then
  c_nccl=$(git_tarball NVIDIA/nccl.git "${repo[nccl]}" v2.28.9-1)
  git_tarball aws/aws-ofi-nccl.git "${repo[aws-ofi-nccl]}" v1.21.1 >/dev/null
  git_tarball HewlettPackard/shs-cassini-headers.git "${repo[cassini-headers]}" release/shs-13.0.0 >/dev/null
  git_tarball HewlettPackard/shs-cxi-driver.git "${repo[cxi-driver]}" release/shs-13.0.0 >/dev/null
  git_tarball HewlettPackard/shs-libcxi.git "${repo[libcxi]}" release/shs-13.0.0 >/dev/null
elif [ "$only" = aws-ofi-nccl-cuda ]; then
  git_tarball aws/aws-ofi-nccl.git "${repo[aws-ofi-nccl]}" v1.21.1 >/dev/null
fi
n=0
for w in "$wheels"/nvidia_*"$(uname -m)".whl; do
  [ -e "$w" ] || continue
  sha=$(sha256sum "$w" | cut -d' ' -f1)
  mkdir -p "$mirror/_source-cache/archive/${sha:0:2}"
  ln -f "$w" "$mirror/_source-cache/archive/${sha:0:2}/$sha.whl" 2>/dev/null \
    || cp "$w" "$mirror/_source-cache/archive/${sha:0:2}/$sha.whl"
  n=$((n+1))
done
[ "$n" -ge 7 ] || { echo "$n CUDA wheels in $wheels; run scripts/install-deps.sh" >&2; exit 2; }

# Package recipes that take NCCL and libfabric from git (the shipped ones use release tarballs);
# the rest of each recipe is the shipped one.
recipes=$work/gpu-recipes
mkdir -p "$recipes"
ln -sfn "$here/patches" "$work/patches"   # `file:` patches are found beside the repository
python3 - "$here/recipes" "$recipes" "$c_nccl" "$c_libfabric" <<'EOF'
import re, sys
src, dst, c_nccl, c_fabric = sys.argv[1:]
def versions(text, entry):
    return re.sub(r"(?ms)^versions:\n(  - .*?\n)+(?=\S)", "versions:\n  - " + entry + "\n", text, count=1)
if c_nccl != "none":  # --only: no NCCL from git (the shipped recipe, or an external)
    t = open(f"{src}/nccl.yaml").read()
    t = versions(t, '{version: "2.28.9-1", git: "https://github.com/NVIDIA/nccl.git", tag: v2.28.9-1, commit: %s}' % c_nccl)
    open(f"{dst}/nccl.yaml", "w").write(t)
t = open(f"{src}/libfabric.yaml").read()
t = versions(t, '{version: "2.2.0", git: "https://github.com/ofiwg/libfabric.git", tag: v2.2.0, commit: %s}' % c_fabric)
t = t.replace('when: "@main"', 'when: "@2.2.0"')  # a git checkout has no configure: bootstrap it
open(f"{dst}/libfabric.yaml", "w").write(t)
EOF

# The cluster: `local` plus Debian's libraries as externals.
cluster=$work/cluster
mkdir -p "$cluster"
ext() { echo "  $1: {buildable: false, externals: [{spec: $1@$2, prefix: /usr}]}"; }
{
  sed -n '1,/^packages:/p' cluster-configs/local/cluster.yaml
  ext hwloc "$(debver libhwloc-dev)"
  ext json-c "$(debver libjson-c-dev)"
  ext curl "$(debver libcurl4-openssl-dev)"
  ext libfuse "$(debver libfuse-dev)"
  ext libconfig "$(debver libconfig-dev)"
  ext libuv "$(debver libuv1-dev)"
  ext libyaml "$(debver libyaml-dev)"
  ext libnl "$(debver libnl-3-dev)"
  ext numactl "$(debver libnuma-dev)"
  ext lm-sensors "$(debver libsensors-dev)"
  sed -n '/^packages:/,$p' cluster-configs/local/cluster.yaml | tail -n +2 | sed '/^audit:/d'
  # the externals' libraries are the host's by choice: allowed, not leaks
  echo "audit: {allow: [libhwloc.so*, libjson-c.so*, libcurl.so*, libfuse.so*, libconfig.so*, libuv.so*, libyaml-0.so*, libnl-3.so*, libnl-genl-3.so*, libnuma.so*, libsensors.so*]}"
} > "$cluster/cluster.yaml"

cat > "$work/gpu.yaml" <<EOF
# The GPU half of stacks/alps-cxi.yaml (written by scripts/gpu-real.sh)
name: alps-cxi-gpu
version: "1"
description: libfabric +cxi, NCCL and aws-ofi-nccl from upstream git, CUDA from PyPI wheels
mount: /user-environment
compiler: gcc
repos: [$recipes]
environments:
  network:
    specs:
      # +cuda with +cuda_dlopen (the default): the wheels have no libcuda stub to link
      - "libfabric@2.2.0 fabrics=cxi,shm,rxm,tcp +cuda"
      - "libcxi@13.0.0"
      - "cuda@13.0.2-wheels"
      - "nccl@2.28.9-1 fabrics=auto cuda_arch=90"
      - "aws-ofi-nccl@1.21.1 +cuda"
    unify: true
    views:
      default:
        link: roots
        prefix_paths:
          PATH: [bin]
          LD_LIBRARY_PATH: [lib, lib64]
        env_vars:
          set:
            - {NCCL_NET: "AWS Libfabric"}
            - {FI_PROVIDER: "cxi"}
default_view: default
modules: {flavour: lmod, projections: {all: "{name}/{version}"}, hide_implicits: true}
EOF
if [ "$only" = libfabric-cuda ]; then
  cat > "$work/gpu.yaml" <<EOF
# libfabric +cuda over the wheel CUDA (written by scripts/gpu-real.sh --only libfabric-cuda)
name: libfabric-cuda
version: "1"
mount: /user-environment
compiler: gcc
repos: [$recipes]
environments:
  network:
    specs: ["libfabric@2.2.0 fabrics=tcp,rxm,shm +cuda", "cuda@13.0.2-wheels"]
EOF
  cluster=$here/cluster-configs/local
fi
if [ "$only" = aws-ofi-nccl-cuda ]; then
  mkdir -p "$work/site-nccl"
  cluster=$work/cluster-plugin
  mkdir -p "$cluster"
  sed "s|^packages:\$|packages:\n$(ext hwloc "$(debver libhwloc-dev)")\n  nccl: {buildable: false, externals: [{spec: \"nccl@2.28.9-1 fabrics=auto cuda_arch=90\", prefix: $work/site-nccl}]}|" \
    cluster-configs/local/cluster.yaml | sed 's|^audit: {allow: \[\]}|audit: {allow: [libhwloc.so*]}|' > "$cluster/cluster.yaml"
  cat > "$work/gpu.yaml" <<EOF
# aws-ofi-nccl +cuda over libfabric +cuda and the wheel CUDA (scripts/gpu-real.sh --only aws-ofi-nccl-cuda)
name: aws-ofi-nccl-cuda
version: "1"
mount: /user-environment
compiler: gcc
repos: [$recipes]
environments:
  network:
    specs: ["libfabric@2.2.0 fabrics=tcp,rxm,shm +cuda", "cuda@13.0.2-wheels", "aws-ofi-nccl@1.21.1 +cuda"]
EOF
fi

stack=${STACK:-$here/target/debug/stack}
[ -x "$stack" ] || cargo build --quiet
build=$work/build
start=$(date +%s)
set +e
"$stack" build "$work/gpu.yaml" --cluster "$cluster" --build "$build" --cache "$work/cache" \
  --mirror "$mirror" -j "${JOBS:-2}"
rc=$?
set -e
echo
echo "wall: $(( $(date +%s) - start )) s, exit $rc"
# libfabric +cuda must dlopen CUDA: no libcuda/libcudart in any DT_NEEDED of its libraries
for so in "$build"/store/*/libfabric-*/lib/libfabric.so*; do
  [ -f "$so" ] && [ ! -L "$so" ] || continue
  needed=$(readelf -d "$so" | grep NEEDED || true)
  echo "$so:"; echo "$needed" | sed 's/^/    /'
  if echo "$needed" | grep -q 'libcuda'; then echo "FAIL: $so links CUDA (DT_NEEDED)"; rc=1; fi
done
echo "per-package build times (from $build/logs/*.json):"
python3 - "$build/logs" <<'EOF'
import json, pathlib, sys
rows = []
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    try:
        d = json.loads(f.read_text())
    except Exception:
        continue
    rows.append((d.get("build_seconds", 0.0), f.stem))
for s, name in sorted(rows, reverse=True):
    print(f"  {s:8.1f} s  {name}")
EOF
exit $rc
