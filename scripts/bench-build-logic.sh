#!/usr/bin/env bash
# What running a package's own build logic (`build: system: spack`) costs per package: the
# same small Makefile project (tests/fixtures/spack-py/src/mkedit-1.0) built RUNS times as a
# `system: spack` recipe whose package.py `edit`s the Makefile, and RUNS times as the
# equivalent `system: makefile` recipe (`make_args`). Prints the mean `build_seconds` of each
# (from BUILD/logs/*.json: the package's build, fetch excluded) and their difference, the
# Python layer's cost for one package (interpreter start, the layer, the package file,
# the phases).
#
#   bash scripts/bench-build-logic.sh [RUNS] [path/to/stack]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
stack=${2:-$here/target/release/stack}
[ -x "$stack" ] || { echo "no stack binary at $stack (cargo build --release)" >&2; exit 2; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fx=$here/tests/fixtures/spack-py

mkdir -p "$t/src" "$t/recipes" "$t/spack/bench/mkedit" "$t/stacks" "$t/cluster-configs"
cp -r "$here/cluster-configs/local" "$t/cluster-configs/"
tar --sort=name --mtime=@0 --owner=0 --group=0 -czf "$t/src/mkedit-1.0.tar.gz" -C "$fx/src" mkedit-1.0
src_sha=$(sha256sum "$t/src/mkedit-1.0.tar.gz" | cut -d' ' -f1)
cp "$fx/packages/mkedit/package.py" "$t/spack/bench/mkedit/package.py"
py_sha=$(sha256sum "$t/spack/bench/mkedit/package.py" | cut -d' ' -f1)
versions="versions:
  - {version: \"1.0\", url: $t/src/mkedit-1.0.tar.gz, sha256: $src_sha}
variants:
  answer: {default: \"42\", values: [\"42\", \"7\"], description: the answer}
"
cat >"$t/recipes/mkedit.yaml" <<EOF
name: mkedit
description: the build-logic fixture, its package.py run
$versions
build:
  system: spack
  package: {file: bench/mkedit/package.py, sha256: $py_sha}
EOF
cat >"$t/recipes/mkyaml.yaml" <<EOF
name: mkyaml
description: the same project, as a reviewed YAML recipe
$versions
build:
  system: makefile
  build_targets: [all]
  make_args: ["CXX={{ compiler.cxx }}", "PREFIX={{ prefix }}", "ANSWER={{ variants.answer }}"]
EOF
for name in mkedit mkyaml; do
  cat >"$t/stacks/$name.yaml" <<EOF
name: $name
version: "1"
compiler: gcc
repos: [../recipes]
environments:
  e:
    specs: [$name]
EOF
done

mean_build_seconds() {
  local name=$1 sum=0 n
  for n in $(seq "$runs"); do
    rm -rf "$t/build-$name"
    (cd "$t" && "$stack" --color never build "stacks/$name.yaml" --cluster cluster-configs/local \
      --cache cache --build "build-$name" -j 1 >"$t/log-$name" 2>&1) ||
      { cat "$t/log-$name" >&2; exit 1; }
    s=$(python3 -c 'import json,glob,sys; print(sum(json.load(open(f))["build_seconds"] for f in glob.glob(sys.argv[1] + "/logs/*.json")))' "$t/build-$name")
    sum=$(python3 -c "print($sum + $s)")
  done
  python3 -c "print(f'{$sum / $runs:.3f}')"
}

py=$(mean_build_seconds mkedit)
yaml=$(mean_build_seconds mkyaml)
echo "package.py (system: spack): $py s per build (mean of $runs)"
echo "YAML (system: makefile):    $yaml s per build (mean of $runs)"
python3 -c "print(f'the build logic layer costs {($py - $yaml) * 1000:.0f} ms per package')"
