#!/usr/bin/env bash
# docs/stackinator.md's alps-uenv table: for every recipe family's newest version and every
# architecture of it, `stack check` and `stack resolve` of the stackinator recipe against the
# matching alps-cluster-config cluster. Prints one Markdown table row per recipe.
#
#   STACK_SPACK_PACKAGES=~/src/spack-packages bash scripts/stackinator-alps.sh \
#       ~/src/alps-uenv ~/src/alps-cluster-config [path/to/stack]
set -u
uenv=${1:?alps-uenv checkout}
clusters=${2:?alps-cluster-config checkout}
stack=${3:-target/debug/stack}

cluster_of() {
  case "$1" in
    gh200|aarch64) echo daint ;;
    a100) echo bristen ;;
    mc|zen2|x86_64) echo eiger ;;
    amdgpu|mi200|mi300|hip54) echo beverin ;;
    zen3) echo balfrin ;;
    *) echo eiger ;;
  esac
}

first_error() {
  local line
  line=$(grep -m1 -E '^  x ' "$1")
  # a resolution failure: `error: cannot resolve environment …` and the reason on the next line
  [ -n "$line" ] || line=$(grep -m1 -A1 -E '^error: ' "$1" | tail -1)
  echo "$line" | sed -e 's/^  x //' -e 's/^  //' -e 's/|/\\|/g' | cut -c1-110
}

row() {
  local family=$1 version=$2 arch=$3 dir=$4
  local cluster; cluster=$(cluster_of "$arch")
  local log; log=$(mktemp)
  local check resolve secs
  if "$stack" --color never check "$dir" --cluster "$clusters/$cluster" >"$log" 2>&1; then
    check=ok
    local t0; t0=$(date +%s.%N)
    if "$stack" --color never resolve "$dir" --cluster "$clusters/$cluster" >"$log" 2>&1; then
      resolve=resolves
    else
      resolve="fails: $(first_error "$log")"
    fi
    secs=$(echo "$(date +%s.%N) - $t0" | bc)
  else
    check="fails: $(first_error "$log") ($(grep -c -E '^  x ' "$log") errors)"
    resolve="-"
    secs="-"
  fi
  echo "| $family | $version | $arch | $cluster | $check | $resolve |"
  rm -f "$log"
}

echo "| family | version | arch | cluster | stack check | stack resolve |"
echo "|---|---|---|---|---|---|"
for fam in "$uenv"/recipes/*/; do
  family=$(basename "$fam")
  # newest version: names that start with a digit or `v` (not repo/, packages/, common/)
  version=$(ls "$fam" | grep -E '^(v?[0-9]|hip)' | sort -V | tail -1)
  [ -n "$version" ] || { echo "| $family | - | - | - | no versioned recipe | - |"; continue; }
  vdir="$fam$version"
  if [ -f "$vdir/config.yaml" ]; then
    row "$family" "$version" "$version" "$vdir"
    continue
  fi
  found=0
  for a in "$vdir"/*/; do
    [ -f "$a/config.yaml" ] || continue
    found=1
    row "$family" "$version" "$(basename "$a")" "${a%/}"
  done
  [ $found = 1 ] || echo "| $family | $version | - | - | no recipe directory (config.yaml) | - |"
done
