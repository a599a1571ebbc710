#!/usr/bin/env bash
# gcc built for real by `stack` from upstream sources (recipes/gcc.yaml: no bootstrap, no multilib,
# C, C++ and Fortran), on the `local` cluster (Debian 12, system gcc 12.2.0), then a small C++ and
# Fortran package (tests/fixtures/compilers/mixed) built with that gcc as its environment's compiler,
# and the audit: libstdc++ and libgfortran must come from the stack's gcc, not the host's.
# Not run by CI (gcc alone takes an hour or more on 2 shared cores).
#
#   scripts/gcc-real.sh --work DIR --tarball FILE --version V [--phase gcc|all]
#
# FILE is a gcc release tarball (or a distribution's copy of one, e.g. the gcc-12.2.0-dfsg.tar.xz
# inside Debian's gcc-12-source package; its sha256 differs from upstream's, so the script writes a
# gcc recipe overlay with the version's sha256 replaced by the file's). The script downloads and
# contains no third-party code: it links FILE into a Spack-layout mirror under DIR, writes the
# overlay, a cluster configuration with Debian's gmp, mpfr, mpc and zstd as externals (it
# apt-installs them) and a stack recipe, and runs `stack build`. Wall time and installed size are
# printed at the end. `--phase gcc` builds gcc alone (an environment with the spec gcc@V);
# `--phase all` (the default) lists it under `compilers:` and builds the fixture with it.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD

work="" tarball="" version="" phase=all
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=$2; shift 2 ;;
    --tarball) tarball=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    --phase) phase=$2; shift 2 ;;
    *) echo "unknown argument: $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
[ -n "$work" ] && [ -f "$tarball" ] && [ -n "$version" ] \
  || { echo "usage: $0 --work DIR --tarball FILE --version V [--phase gcc|all]" >&2; exit 2; }
mkdir -p "$work"
work=$(cd "$work" && pwd)

debs=(libgmp-dev libmpfr-dev libmpc-dev libzstd-dev flex)
missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
debver() { dpkg-query -W -f='${Version}' "$1" | sed -E 's/^[0-9]+://; s/[-+~].*//'; }

# The mirror: the tarball by content.
sha=$(sha256sum "$tarball" | cut -d' ' -f1)
ext=${tarball##*.tar.}
mirror=$work/mirror
mkdir -p "$mirror/_source-cache/archive/${sha:0:2}"
ln -f "$tarball" "$mirror/_source-cache/archive/${sha:0:2}/$sha.tar.$ext" 2>/dev/null \
  || cp "$tarball" "$mirror/_source-cache/archive/${sha:0:2}/$sha.tar.$ext"

# The gcc recipe with this one version and the file's sha256.
recipes=$work/recipes
mkdir -p "$recipes"
python3 - "$here/recipes/gcc.yaml" "$recipes/gcc.yaml" "$version" "$sha" <<'PY'
import re, sys
src, dst, version, sha = sys.argv[1:]
t = open(src).read()
entry = '{version: "%s", url: "https://ftp.gnu.org/gnu/gcc/gcc-%s/gcc-%s.tar.xz", sha256: %s}' % (
    version, version, version, sha)
t = re.sub(r"(?ms)^versions:\n(  - .*?\n)+(?=\S)", "versions:\n  - " + entry + "\n", t, count=1)
# Debian's -dfsg tree lacks the GFDL hook documentation that `make install` re-checks
# (genhooks: "No place specified to document hook …" in s-tm-texi): mark that check done.
t = t.replace("  make_args:", "    pre_install:\n      - [touch, _build/gcc/s-tm-texi]\n  make_args:", 1)
# From gcc 13 on the check also runs in the build (`all-gcc`): the -dfsg tm.texi.in is an empty
# stub, so make the s-tm-texi stamp a plain stamp and move the check to a target nothing asks for.
stamp = ("      - [sed, -i, -e, 's|^s-tm-texi: build/genhooks|s-tm-texi:\\n\\t$(STAMP) $@\\n"
         "dfsg-unused-tm-texi: build/genhooks|', gcc/Makefile.in]\n")
t = t.replace("    pre_configure:\n", "    pre_configure:\n" + stamp, 1)
open(dst, "w").write(t)
PY

# The C++/Fortran fixture as a tarball of the mirror, and its recipe.
mkdir -p "$work/staging"
rm -rf "$work/staging/mixed-lang-1.0"
cp -r "$here/tests/fixtures/compilers/mixed-lang" "$work/staging/mixed-lang-1.0"
tar --sort=name --mtime=@0 --owner=0 --group=0 -czf "$work/mixed-lang-1.0.tar.gz" -C "$work/staging" mixed-lang-1.0
msha=$(sha256sum "$work/mixed-lang-1.0.tar.gz" | cut -d' ' -f1)
cat > "$recipes/mixed-lang.yaml" <<YAML
name: mixed-lang
description: a C++ program calling Fortran (tests/fixtures/compilers/mixed-lang)
versions:
  - {version: "1.0", url: "$work/mixed-lang-1.0.tar.gz", sha256: $msha}
build:
  system: makefile
  make_args: ["PREFIX={{ prefix }}"]
  install_targets: [install]
YAML

cluster=$work/cluster
mkdir -p "$cluster"
ext() { echo "  $1: {buildable: false, externals: [{spec: $1@$2, prefix: /usr}]}"; }
{
  sed -n '1,/^packages:/p' "$here/cluster-configs/local/cluster.yaml"
  ext gmp "$(debver libgmp-dev)"
  ext mpfr "$(debver libmpfr-dev)"
  ext mpc "$(debver libmpc-dev)"
  ext zstd "$(debver libzstd-dev)"
  sed -n '/^packages:/,$p' "$here/cluster-configs/local/cluster.yaml" | tail -n +2 | sed '/^audit:/d'
  # the externals' libraries (linked by cc1, cc1plus, f951, lto1) are the host's by choice
  echo "audit: {allow: [libgmp.so*, libmpfr.so*, libmpc.so*, libzstd.so*]}"
} > "$cluster/cluster.yaml"

if [ "$phase" = gcc ]; then
  cat > "$work/gcc.yaml" <<YAML
# written by scripts/gcc-real.sh --phase gcc
name: gcc-real
version: "1"
mount: /user-environment
repos: [$recipes]
environments:
  compilers:
    specs: ["gcc@$version"]
    views:
      default: {link: roots, prefix_paths: {PATH: [bin], LD_LIBRARY_PATH: [lib64]}}
YAML
else
  cat > "$work/gcc.yaml" <<YAML
# written by scripts/gcc-real.sh
name: gcc-real
version: "1"
mount: /user-environment
repos: [$recipes]
compilers: ["gcc@$version"]
environments:
  mixed:
    compiler: "gcc@$version"
    specs: ["mixed-lang"]
    views:
      default:
        link: roots
        add_compilers: true
        prefix_paths: {PATH: [bin]}
YAML
fi

stack=${STACK:-$here/target/debug/stack}
export STACK_BUILTIN_REPO=${STACK_BUILTIN_REPO:-$here/recipes}
[ -x "$stack" ] || cargo build --quiet
build=$work/build
start=$(date +%s)
set +e
"$stack" build "$work/gcc.yaml" --cluster "$cluster" --build "$build" --cache "$work/cache" \
  --mirror "$mirror" -j "${JOBS:-2}"
rc=$?
set -e
echo
echo "wall: $(( $(date +%s) - start )) s, exit $rc"
for p in "$build"/store/*/gcc-*; do
  [ -d "$p" ] && echo "installed size of $(basename "$p"): $(du -sh "$p" | cut -f1)"
done
for m in "$build"/store/*/mixed-lang-*/bin/mixed-lang; do
  [ -x "$m" ] || continue
  echo "$m:"
  readelf -d "$m" | grep -E "NEEDED|RUNPATH|RPATH"
done
exit $rc
