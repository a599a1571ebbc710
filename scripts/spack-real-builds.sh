#!/bin/bash
# Proof by real builds of packages imported from Spack (docs/import.md, "Real builds"):
# imports PKG@VERSION… from a spack-packages checkout into WORK/repo, writes a stack recipe naming
# them, and runs `stack build` against a Spack-layout source MIRROR (prepared beforehand from the
# real upstream sources, e.g. `stack mirror create` on a connected machine; nothing fetched is
# kept in this repository). Prints one line per package: name, build system, result, wall time.
#
#   scripts/spack-real-builds.sh SPACK_PACKAGES MIRROR WORK lz4@1.10.0 tinyxml2@10.0.0 …
#
# Every recipe reached must load (`stack check`): Python packages also need py-pip, py-setuptools,
# py-wheel (and their dependencies) imported and reviewed, meson packages a meson recipe.
# A recipe placed in WORK/repo/recipes beforehand wins over recipes/ (the stack's `repos:`): e.g. a
# copy whose version is a git source pinned to the tag's commit, when the release tarball Spack
# checksums is not reachable. PKG may carry variants: "libzip@1.11.1 ~gnutls".
set -euo pipefail
SPACK=$1 MIRROR=$2 WORK=$3
shift 3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STACK=${STACK:-$ROOT/target/debug/stack}
CLUSTER=${CLUSTER:-$ROOT/cluster-configs/local}
mkdir -p "$WORK/repo"
names=()
for spec in "$@"; do names+=("${spec%%@*}"); done
# Packages with a hand-written or reviewed recipe in recipes/ are built from it.
import=()
for n in "${names[@]}"; do
  [ -f "$ROOT/recipes/$n.yaml" ] || import+=("$n")
done
if [ ${#import[@]} -gt 0 ]; then
  "$STACK" import spack --from "$SPACK" --out "$WORK/repo/recipes" "${import[@]}" >"$WORK/import.log" 2>&1
fi
{
  echo "name: spack-real-builds"
  echo "version: \"1\""
  echo "description: packages imported from Spack, built from their upstream sources"
  echo "mount: $WORK/mnt"
  echo "compiler: gcc"
  echo "repos: [$WORK/repo/recipes]"
  echo "environments:"
  for spec in "$@"; do
    env=$(echo "${spec%%@*}" | tr -c 'a-z0-9\n' '_')
    echo "  e_$env:"
    echo "    specs: [\"$spec\"]"
  done
} >"$WORK/stack.yaml"
"$STACK" check "$WORK/stack.yaml" --cluster "$CLUSTER"
start=$(date +%s)
set +e
nice -n 19 "$STACK" build "$WORK/stack.yaml" --cluster "$CLUSTER" --build "$WORK/build" \
  --mirror "$MIRROR" -j 2 >"$WORK/build.log" 2>&1
rc=$?
set -e
echo "stack build: exit $rc in $(( $(date +%s) - start )) s (log: $WORK/build.log)"
for n in "${names[@]}"; do
  f="$WORK/repo/recipes/$n.yaml"; [ -f "$f" ] || f="$ROOT/recipes/$n.yaml"
  sys=$(sed -n '/^imported:/,$s/^  build_system: *//p' "$f" | head -1)
  # a package reused from an earlier run has no line (grep fails: pipefail)
  line=$({ grep -E "(built|failed) $n@" "$WORK/build.log" || true; } | tail -1 | sed 's/^ *//')
  echo "$n | ${sys:-?} | ${line:-no build line (reused from an earlier run, or not reached)}"
done
grep -E "^audit:" "$WORK/build.log" || true
