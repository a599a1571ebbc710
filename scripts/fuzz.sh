#!/usr/bin/env bash
# Fuzz every parser that reads outside input (tests/it/parsers_fuzz.rs: spec
# text, recipe YAML, ELF, ld.so.cache, squashfs, archives) for a fixed budget
# of generated inputs each, and print executions, crashes and time per target.
#
#   scripts/fuzz.sh            # 10x the smoke budget of the normal test run
#   scripts/fuzz.sh 100        # 100x
#
# A crash is a failing property (a panic, or an archive writing outside its
# stage); proptest prints the minimal input that reproduces it.
set -uo pipefail
cd "$(dirname "$0")/.."
factor=${1:-10}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-2}
# Build once and run the test binary itself: a crash is then never a
# rebuild of sources edited meanwhile.
bin=$(cargo test --test it --no-run 2>&1 | grep -o 'target/[a-z]*/deps/it-[0-9a-f]*' | tail -1)
[ -x "$bin" ] || { echo "cannot build tests/it/parsers_fuzz.rs" >&2; exit 2; }

# target test name and its smoke budget (see tests/it/parsers_fuzz.rs)
targets=${FUZZ_TARGETS:-"spec_text:2000 recipe_yaml:300 elf_files:500 ld_so_cache:1000 squashfs_images:150 archives:300"}
printf '%-16s %12s %8s %9s\n' target executions crashes seconds
crashes_total=0
for t in $targets; do
  name=${t%%:*}
  cases=$(( ${t##*:} * factor ))
  start=$(date +%s.%N)
  out=$(STACK_FUZZ_CASES=$cases "$bin" "parsers_fuzz::$name" --exact --nocapture 2>&1)
  rc=$?
  end=$(date +%s.%N)
  execs=$(printf '%s\n' "$out" | sed -n 's/^fuzz [^:]*: \([0-9]*\) executions$/\1/p' | tail -1)
  crashes=0
  if [ $rc -ne 0 ]; then
    crashes=1
    crashes_total=$((crashes_total + 1))
    mkdir -p target/fuzz
    printf '%s\n' "$out" > "target/fuzz/$name.log"
    echo "$name failed (exit $rc): target/fuzz/$name.log" >&2
  fi
  printf '%-16s %12s %8s %9.1f\n' "$name" "${execs:-?}" "$crashes" "$(awk "BEGIN{print $end - $start}")"
done
exit $(( crashes_total > 0 ))
