#!/bin/sh
# The man page is current (man/assemble.sh reproduces it from its parts and
# the binary's key tables) and renders without a groff warning.
set -u
bin=$1 man=$2
tmp=${TMPDIR:-/tmp}/probetop-man.$$
sh "$man/assemble.sh" "$bin" "$tmp" || exit 1
if ! cmp -s "$tmp" "$man/probetop.1"; then
    echo "man/probetop.1 is stale: run man/assemble.sh $bin"; diff "$man/probetop.1" "$tmp" | head -20
    rm -f "$tmp"; exit 1
fi
rm -f "$tmp"
command -v groff >/dev/null || { echo "groff absent: rendering not checked"; exit 77; }
warn=$(groff -ww -man -Tutf8 -z "$man/probetop.1" 2>&1)
[ -z "$warn" ] || { echo "groff warnings:"; echo "$warn"; exit 1; }
echo "1 passed, 0 failed"
