#!/usr/bin/env bash
# alps-uenv's prgenv-gnu built for real on this machine (issue #35): the recipe directory as it is,
# a cluster directory derived from alps-cluster-config's eiger (scripts/uenv-cluster.py), sources
# from a local mirror (scripts/uenv-mirror.py), the binary cache on a loopback registry (Debian's
# docker-registry) so that a later run, in this or a fresh build directory, rebuilds nothing done.
#
#   scripts/uenv-build.sh [cluster|mirror|build|all|rebuild] [-- extra stack build arguments]
#
# `rebuild` builds the same plan into a fresh build directory ($UENV_WORK/build-rebuild, removed
# first) with the binary cache as the only source of prefixes that built before, then compares
# the two images' sha256: the image must be the same, byte for byte.
#
# Everything lives under $UENV_WORK (default /work/uenv), nothing in this repository:
#   cluster/      the derived cluster directory (cluster/eiger)
#   mirror/       the source mirror, overlay/ its recipe overlay (--repo overlay/recipes)
#   registry/     the loopback registry (127.0.0.1:$UENV_REGISTRY_PORT, default 5035) and its data
#   build/        the build directory (stack build --build), logs/ one log per run
#   keys/uenv.*   the key pushed prefixes are signed with (stack key generate)
# Inputs: $ALPS_UENV (alps-uenv checkout), $ALPS_CLUSTER_CONFIG, $STACK_SPACK_PACKAGES, and the
# bare repositories of upstream projects under $UENV_REPOS (default /work/.mirror). The build
# runs under `nice -n ${UENV_NICE:-19}` at -j ${JOBS:-2}.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${UENV_WORK:-/work/uenv}
alps_uenv=${ALPS_UENV:-/work/data/alps-uenv}
alps_cc=${ALPS_CLUSTER_CONFIG:-/work/data/alps-cluster-config}
export STACK_SPACK_PACKAGES=${STACK_SPACK_PACKAGES:-/work/data/spack-packages}
export STACK_CACHE=${STACK_CACHE:-$work/cache}
stack=${STACK:-$here/target/debug/stack}
recipe=$alps_uenv/recipes/prgenv-gnu/26.3/mc
cluster=$work/cluster/eiger
port=${UENV_REGISTRY_PORT:-5035}
step=${1:-all}
shift || true
[ "${1:-}" = "--" ] && shift

registry() {
  mkdir -p "$work/registry/data"
  if ! curl -sf "http://127.0.0.1:$port/v2/" >/dev/null; then
    cat > "$work/registry/config.yml" <<CFG
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $work/registry/data}, delete: {enabled: true}}
http: {addr: 127.0.0.1:$port}
CFG
    (cd "$work/registry" && setsid nohup docker-registry serve config.yml >registry.log 2>&1 &
     echo $! >registry.pid)
    for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/v2/" >/dev/null && break; sleep 0.2; done
  fi
  [ -f "$work/keys/uenv.key" ] || "$stack" key generate "$work/keys/uenv"
}

case $step in
  cluster|all) python3 "$here/scripts/uenv-cluster.py" "$alps_cc" "$work/cluster" ;;&
  mirror|all)
    python3 "$here/scripts/uenv-mirror.py" --stack "$stack" --recipe "$recipe" --cluster "$cluster" \
      --mirror "$work/mirror" --overlay "$work/overlay" --repos "${UENV_REPOS:-/work/.mirror}" \
      --work "$work/mirror-work" --table "$work/mirror-table.txt" || true ;;&
  build|all|rebuild)
    registry
    mkdir -p "$work/logs"
    build=$work/build
    if [ "$step" = rebuild ]; then
      [ -f "$work/build/store.squashfs" ] || { echo "no image in $work/build to compare with" >&2; exit 2; }
      build=$work/build-rebuild
      rm -rf "$build"
    fi
    log=$work/logs/$step-$(date +%Y%m%d-%H%M%S).log
    echo "log: $log"
    start=$(date +%s)
    set +e
    nice -n "${UENV_NICE:-19}" "$stack" build "$recipe" --cluster "$cluster" --repo "$work/overlay/recipes" \
      --mirror "file://$work/mirror" --build "$build" -j "${JOBS:-2}" \
      --binary-cache "oci://127.0.0.1:$port/prgenv-gnu" --plain-http \
      --sign-key "$work/keys/uenv.key" --trusted-key "$work/keys/uenv.pub" "$@" >"$log" 2>&1
    rc=$?
    set -e
    echo "stack build: exit $rc after $(( $(date +%s) - start )) s (log: $log)"
    if [ "$step" = rebuild ] && [ -f "$build/store.squashfs" ]; then
      a=$(sha256sum <"$work/build/store.squashfs" | cut -d' ' -f1)
      b=$(sha256sum <"$build/store.squashfs" | cut -d' ' -f1)
      echo "image  $a  $work/build/store.squashfs"
      echo "image  $b  $build/store.squashfs"
      if [ "$a" = "$b" ]; then echo "identical"; else echo "DIFFERENT"; rc=1; fi
    fi
    exit $rc ;;
  cluster|mirror) ;;
  *) echo "usage: $0 [cluster|mirror|build|all|rebuild] [-- stack build arguments]" >&2; exit 2 ;;
esac
