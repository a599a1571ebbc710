#!/usr/bin/env bash
# Build the self-contained binary the README documents ("Installing on a cluster") and prove it:
# no NEEDED entry (no shared library at all), no GLIBC_ version requirement, and `stack --version`
# runs. Prints the sizes. Then the musl route: built the same way where the Rust musl target is
# installed; otherwise says exactly what is missing (exit status still 0: the glibc static route is
# the documented one).
#
#   scripts/static-binary.sh            # x86_64 (or aarch64 on an aarch64 machine)
#   SKIP_DEMO=1 scripts/static-binary.sh  # without the demo build in the namespace
#
# Then, in a user+mount namespace (`unshare -rm`):
# - `stack --version` in a chroot that holds nothing but the binary (no ld.so, no libc);
# - `stack check` and `stack resolve` of the demo with the host's liblzma hidden (and libssl and
#   libcrypto, which no build of stack links; /dev/null bound over them);
# - `stack build stacks/demo.yaml` with the static stack and stack-wrap, and `stack audit` of it
#   (not with the libraries hidden: the host's cmake, a build tool of the demo, links libssl).
#
# Needs: make, a C compiler, cmake (libgit2 and liblzma built from source), readelf,
# unshare (util-linux) and unprivileged user namespaces.
set -euo pipefail
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
arch=${host%%-*}

# Before: what the default build (`cargo build`, same dependencies as `--release`) needs.
if [ -x target/debug/stack ]; then
    echo "== before: target/debug/stack (default features, dynamic)"
    readelf -d target/debug/stack | sed -n 's/.*(NEEDED).*\[\(.*\)\]/  NEEDED \1/p'
    echo "  newest glibc symbol version: $(readelf -V target/debug/stack | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
fi

echo "== glibc static: RUSTFLAGS=\"-C target-feature=+crt-static\" cargo build --profile dist --features static --target $host"
RUSTFLAGS="-C target-feature=+crt-static" cargo build --locked --profile dist --features static --target "$host"
check() {
    local dir=$1
    for exe in stack stack-wrap; do
        local f="$dir/$exe"
        if readelf -d "$f" | grep -q NEEDED; then
            echo "FAIL: $f has NEEDED entries:"; readelf -d "$f" | grep NEEDED; exit 1
        fi
        if readelf -V "$f" | grep -q 'GLIBC_'; then
            echo "FAIL: $f requires a glibc version"; exit 1
        fi
        echo "$f: $(stat -c %s "$f") bytes, $(file -b "$f" | cut -d, -f1-2), no NEEDED, no GLIBC_ version"
    done
    # runs with an empty environment, as on a login node without anything set
    env -i "$dir/stack" --version
}
check "target/$host/dist"

dist="$PWD/target/$host/dist"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
echo "== a chroot with nothing but the binary: unshare -rm chroot DIR /stack --version"
mkdir -p "$root/chroot"
cp "$dist/stack" "$root/chroot/stack"
unshare -rm chroot "$root/chroot" /stack --version

echo "== with the host's libssl/libcrypto/liblzma hidden (/dev/null bound over them): check, resolve"
hide=""
for l in libssl.so.3 libcrypto.so.3 liblzma.so.5; do
    for d in /usr/lib/$arch-linux-gnu /usr/lib64 /lib/$arch-linux-gnu; do
        if [ -e "$d/$l" ]; then hide="$hide mount --bind /dev/null $d/$l;"; fi
    done
done
unshare -rm sh -c "$hide
    if [ -x /usr/bin/curl ] && /usr/bin/curl --version >/dev/null 2>&1; then
        echo 'FAIL: libssl still loads (curl, linked with it, runs)'; exit 1
    fi
    echo 'hidden: curl no longer starts'
    '$dist/stack' check stacks/demo.yaml --cluster cluster-configs/local &&
    '$dist/stack' resolve stacks/demo.yaml --cluster cluster-configs/local >/dev/null && echo 'resolve: ok'"

if [ -z "${SKIP_DEMO:-}" ]; then
    # Not with the libraries hidden: the host's cmake (a build tool of the demo) links libssl.
    echo "== the demo build and its audit with the static stack and stack-wrap"
    "$dist/stack" build stacks/demo.yaml --cluster cluster-configs/local --build "$root/demo"
    "$dist/stack" audit "$root/demo/store.squashfs"
fi

musl="$arch-unknown-linux-musl"
echo "== musl: cargo build --profile dist --features static --target $musl"
if rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    cargo build --locked --profile dist --features static --target "$musl"
    check "target/$musl/dist"
else
    echo "SKIPPED: the Rust standard library for $musl is not installed (\`rustup target list --installed\`:" \
        "$(rustup target list --installed 2>/dev/null | tr '\n' ' ')). \`rustup target add $musl\` downloads it" \
        "from the Rust distribution server, which this machine cannot reach; no Debian package ships it for this" \
        "toolchain ($(rustc --version)). The glibc static binary above is the documented route."
fi
