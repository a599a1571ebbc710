#!/usr/bin/env bash
# Build the self-contained binary the README documents ("Installing on a cluster") and prove it:
# no NEEDED entry (no shared library at all), no GLIBC_ version requirement, and `stack --version`
# runs. Prints the sizes. Then the musl route: built the same way where the Rust musl target is
# installed; otherwise says exactly what is missing (exit status still 0: the glibc static route is
# the documented one).
#
#   scripts/static-binary.sh            # x86_64 (or aarch64 on an aarch64 machine)
#
# Needs: perl, make, a C compiler, cmake (OpenSSL and libgit2 built from source), readelf.
set -euo pipefail
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
arch=${host%%-*}

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
