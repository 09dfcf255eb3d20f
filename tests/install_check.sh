#!/bin/sh
# `cmake --install` puts the binary and every man page in place (GNU
# directories under a fresh prefix), the installed binary runs, and each
# installed page renders (when man is there).
#   tests/install_check.sh BUILD_DIR
set -u
build=$1
prefix=${TMPDIR:-/tmp}/probetop-install.$$
trap 'rm -rf "$prefix"' EXIT INT TERM
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "cmake --install failed"; exit 1; }
fail=0
for f in bin/probetop share/man/man1/probetop.1 share/man/man5/probetop-formats.5 share/man/man7/probetop-rules.7; do
    [ -f "$prefix/$f" ] || { echo "not installed: $f"; fail=1; }
done
[ $fail = 0 ] || exit 1
"$prefix/bin/probetop" --version | grep -q '^probetop [0-9]' || { echo "installed probetop --version failed"; exit 1; }
if command -v man >/dev/null; then
    for p in "$prefix"/share/man/man*/*; do
        out=$(MANWIDTH=80 man -l "$p" 2>&1) || { echo "man -l $p failed: $out"; exit 1; }
        [ -n "$out" ] || { echo "man -l $p printed nothing"; exit 1; }
    done
fi
echo "1 passed, 0 failed"
