#!/usr/bin/env bash
# The figures of docs/distribution.md, side by side in one run, against Debian's docker-registry on
# loopback (plain HTTP, no auth, filesystem storage in a temporary directory):
#   1. push and pull of a SIZE_MIB image (default 1024) with `stack`, with curl (the registry API by hand:
#      POST + one PUT of the file; GET of the blob; the digest is computed beforehand, untimed) and with
#      the oras Python client (PyPI `oras`);
#   2. the demo and cxi-mini stacks built into a new build directory from scratch (pushing to a binary
#      cache), then into another new build directory from the warm cache.
# Usage: scripts/bench-registry.sh [SIZE_MIB]      (STACK=path/to/stack, default target/release/stack)
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-1024}
stack=${STACK:-target/release/stack}
[ -x "$stack" ] || { echo "build it first: cargo build --release --bin stack" >&2; exit 2; }
work=$(mktemp -d /var/tmp/stack-bench-registry.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
host=127.0.0.1:$port
cat > "$work/config.yml" <<CFG
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $work/data}, delete: {enabled: true}}
http: {addr: $host}
CFG
docker-registry serve "$work/config.yml" 2>"$work/registry.log" & pid=$!
until curl -sf "http://$host/v2/" >/dev/null; do sleep 0.1; done

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
rate() { awk -v s="$1" -v m="$size_mib" 'BEGIN { printf "%.0f MiB/s", m / s }'; }
row() { printf '%-34s %8s s  %s\n' "$1" "$2" "$(rate "$2")"; }

mkdir -p "$work/img/meta"
echo '{"name":"bench"}' > "$work/img/meta/env.json"
head -c "$((size_mib << 20))" /dev/urandom > "$work/img/store.squashfs"
digest=sha256:$(sha256sum "$work/img/store.squashfs" | cut -d' ' -f1)
echo "image: $size_mib MiB, registry docker-registry $(docker-registry --version | awk '{print $3}') on $host"

t=$(now); "$stack" push "$work/img" "$host/bench/sys/zen3/stack/1.0:v1" --plain-http -q >/dev/null
row "stack push" "$(secs "$t" "$(now)")"
t=$(now); loc=$(curl -sf -X POST -D - -o /dev/null "http://$host/v2/bench/sys/zen3/curl/1.0/blobs/uploads/" \
  | tr -d '\r' | awk 'tolower($1)=="location:" {print $2}')
case $loc in http*) ;; *) loc=http://$host$loc ;; esac
sep='?'; case $loc in *\?*) sep='&' ;; esac
curl -sf -X PUT -H 'Content-Type: application/octet-stream' -T "$work/img/store.squashfs" \
  "$loc${sep}digest=$digest" -o /dev/null
row "curl upload (POST + PUT)" "$(secs "$t" "$(now)")"
cat > "$work/oras_bench.py" <<'PY'
import sys, oras.provider
r = oras.provider.Registry(insecure=True)
if sys.argv[1] == "push":
    import os; os.chdir(sys.argv[3])
    r.push(sys.argv[2], files=["store.squashfs"], disable_path_validation=True, quiet=True)
else:
    r.pull(sys.argv[2], outdir=sys.argv[3])
PY
t=$(now); python3 "$work/oras_bench.py" push "$host/bench/sys/zen3/oras/1.0:v1" "$work/img"
row "oras (Python) push" "$(secs "$t" "$(now)")"

rm -rf "$work/out"; mkdir -p "$work/out"
t=$(now); "$stack" pull "$host/bench/sys/zen3/stack/1.0:v1" --to "$work/out/stack" --plain-http --allow-unsigned -q >/dev/null
row "stack pull" "$(secs "$t" "$(now)")"
t=$(now); curl -sf "http://$host/v2/bench/sys/zen3/curl/1.0/blobs/$digest" -o "$work/out/curl.squashfs"
row "curl download (GET)" "$(secs "$t" "$(now)")"
t=$(now); python3 "$work/oras_bench.py" pull "$host/bench/sys/zen3/oras/1.0:v1" "$work/out/oras"
row "oras (Python) pull" "$(secs "$t" "$(now)")"
for f in "$work/out/stack/store.squashfs" "$work/out/curl.squashfs" "$work/out/oras/store.squashfs"; do
  cmp -s "$f" "$work/img/store.squashfs" || { echo "mismatch: $f" >&2; exit 1; }
done
rm -rf "$work/out" "$work/img"

sources=$work/sources
for recipe in demo cxi-mini; do
  echo "$recipe stack, a new build directory each time (-j 2):"
  b1=$work/$recipe-scratch b2=$work/$recipe-cached
  t=$(now); "$stack" --color never build "stacks/$recipe.yaml" --cluster cluster-configs/local --build "$b1" \
    --cache "$sources" -j 2 --binary-cache "oci://$host/cache" --plain-http >/dev/null 2>"$b1.log" \
    || { cat "$b1.log" >&2; exit 1; }
  scratch=$(secs "$t" "$(now)")
  t=$(now); "$stack" --color never build "stacks/$recipe.yaml" --cluster cluster-configs/local --build "$b2" \
    --cache "$sources" -j 2 --binary-cache "oci://$host/cache" --plain-http --allow-unsigned --no-push \
    >/dev/null 2>"$b2.log" || { cat "$b2.log" >&2; exit 1; }
  warm=$(secs "$t" "$(now)")
  grep -q "^0 built, " "$b2.log" || { cat "$b2.log" >&2; exit 1; }
  cmp -s "$b1/store.squashfs" "$b2/store.squashfs" || { echo "$recipe: images differ" >&2; exit 1; }
  printf '  %-32s %8s s  (%s)\n' "from scratch, pushing" "$scratch" "$(grep -m1 ' built, ' "$b1.log")"
  printf '  %-32s %8s s  (%s)\n' "from the warm binary cache" "$warm" "$(grep -m1 ' built, ' "$b2.log")"
  awk -v a="$scratch" -v b="$warm" 'BEGIN { printf "  %-32s %8.1fx, the same store.squashfs\n", "speed-up", a / b }'
done
