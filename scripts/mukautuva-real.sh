#!/usr/bin/env bash
# The real mukautuva (recipes/mukautuva.yaml, the pinned commit) over Debian's MPICH and Open MPI
# as externals in /usr, from a local git mirror of github.com/jeffhammond/mukautuva (issue 13,
# item 20). Not in CI: mukautuva is third-party and the suite is offline; tests/it/mpi_abi.rs runs
# the same recipe over the fixture shim tests/fixtures/mpi-abi/mini-muk-1.0 instead.
#
#   scripts/mukautuva-real.sh MIRROR      MIRROR: a clone (bare or not) holding the pinned commit
#   STACK=target/release/stack scripts/mukautuva-real.sh /srv/git/mukautuva
#
# For each implementation: `stack build` of mukautuva, then tests/fixtures/mpi-abi/hello-mpi.c
# compiled against mukautuva's mpi.h (its ABI) and libmuk.so, run with `mpiexec -n 2` in the
# built store (`stack run --view default`); prints the ranks' lines and checks them.
# Needs: mpich libmpich-dev openmpi-bin libopenmpi-dev (scripts/install-deps.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mirror=$(cd "${1:?usage: $0 MIRROR}" && pwd)
stack=${STACK:-$root/target/debug/stack}
[ -x "$stack" ] || { echo "no stack binary at $stack (cargo build, or set STACK)" >&2; exit 2; }
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/mukautuva-real.XXXXXX")}
mkdir -p "$work/recipes"
# The shipped recipe, fetched from the mirror instead of GitHub.
sed "s|https://github.com/jeffhammond/mukautuva.git|file://$mirror|" \
    "$root/recipes/mukautuva.yaml" > "$work/recipes/mukautuva.yaml"
cp "$root/tests/fixtures/mpi-abi/hello-mpi.c" "$work/"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
# name  package  version  soname  spec  mpiexec  expected library
for row in "mpich mpich 4.0.2 libmpich.so.12 mukautuva mpiexec.mpich MPICH" \
           "ompi openmpi 4.1.4 libmpi.so.40 wrapper=ompi mpiexec.openmpi--oversubscribe Open_MPI"; do
    read -r name package version soname variant mpiexec expect <<<"$row"
    spec=mukautuva; [ "$variant" = mukautuva ] || spec="mukautuva $variant"
    mpiexec=${mpiexec//--/ --}; expect=${expect//_/ }
    dir="$work/$name"
    mkdir -p "$dir/cluster" "$dir/stacks"
    cat > "$dir/cluster/cluster.yaml" <<YAML
name: $name
target: $(uname -m)
compilers:
  - {spec: gcc@12.2.0, cc: /usr/bin/gcc, cxx: /usr/bin/g++}
packages:
  $package: {buildable: false, externals: [{spec: $package@$version, prefix: /usr}]}
  mpi: {require: $package}
audit: {allow: [$soname]}
YAML
    cat > "$dir/stacks/s.yaml" <<YAML
name: mukautuva-$name
version: "1"
compiler: gcc
repos: [$work/recipes]
environments:
  e:
    specs: ["$spec"]
    views:
      default: {link: roots}
YAML
    echo "== mukautuva over Debian $package ($soname)"
    (cd "$dir" && time "$stack" --color never build stacks/s.yaml --cluster cluster --build build \
        --cache "$work/cache" -j "$(nproc)")
    view=/user-environment/env/default
    out=$(cd "$work" && "$stack" run "$dir/build" --view default -- sh -c \
        "echo MPI_LIB=\$MPI_LIB >&2; gcc -I$view/include hello-mpi.c -L$view/lib -lmuk -Wl,-rpath,$view/lib -o hello-$name && $mpiexec -n 2 ./hello-$name")
    echo "$out"
    want=$(printf 'rank 0 of 2: sum 3 over %s\nrank 1 of 2: sum 3 over %s' "$expect" "$expect")
    if [ "$(sort <<<"$out")" = "$want" ]; then echo "ok: $name"; else echo "FAILED: $name"; status=1; fi
done
exit $status
