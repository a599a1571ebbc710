#!/usr/bin/env bash
# Runs the unit tests of stack's package API layer (src/build_logic/python) under the oldest Python it
# supports, 3.9 (Debian bullseye's), so that CI catches newer syntax or library use.
#
# Python 3.9 comes from Debian's archive through apt with a private configuration: the .debs of
# bullseye's python3.9 are downloaded and unpacked with `dpkg -x` into a cache directory; nothing is
# installed system-wide. Set PYTHON_OLDEST to use another interpreter instead.
#
#   scripts/python-oldest.sh            # all tests
#   scripts/python-oldest.sh 'test_spec*.py'
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${STACK_TEST_CACHE:-$HOME/.cache/stack-test}/python3.9"
python="${PYTHON_OLDEST:-}"

if [ -z "$python" ]; then
  python="$cache/root/usr/bin/python3.9"
  if [ ! -x "$python" ]; then
    mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/debs" "$cache/root"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-bullseye-stable.gpg] http://deb.debian.org/debian bullseye main" \
      > "$cache/apt/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
              -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache::Archives=$cache/apt/archives"
              -o "Dir::State::Status=/dev/null" -o "APT::Get::List-Cleanup=false"
              -o "Debug::NoLocking=true" -o "APT::Sandbox::User=$(id -un)")
    apt-get "${apt_opts[@]}" -qq update
    # the interpreter, its standard library, and the libraries its C modules link that bookworm
    # ships under other sonames
    (cd "$cache/debs" && apt-get "${apt_opts[@]}" -qq download \
      python3.9-minimal libpython3.9-minimal libpython3.9-stdlib libffi7 libssl1.1 libmpdec3)
    for deb in "$cache"/debs/*.deb; do dpkg -x "$deb" "$cache/root"; done
  fi
fi

if [ ! -x "$python" ]; then
  echo "python-oldest: no Python 3.9 at $python" >&2
  exit 1
fi

libs="$cache/root/usr/lib/x86_64-linux-gnu:$cache/root/usr/lib/aarch64-linux-gnu:$cache/root/lib/x86_64-linux-gnu:$cache/root/lib/aarch64-linux-gnu"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the unpacked interpreter finds its standard library relative to its own location
"$python" -c 'import sys; assert sys.version_info[:2] == (3, 9), sys.version; print("python", sys.version.split()[0])'
exec "$python" -I "$root/src/build_logic/python/run_tests.py" "$@"
