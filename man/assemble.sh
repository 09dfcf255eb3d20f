#!/bin/sh
# Builds man/probetop.1 from its parts: head, the feature fragments, the KEYS
# section printed by the binary from its key tables, and the tail.
#   man/assemble.sh BUILD/probetop [OUT]
set -eu
here=$(dirname "$0")
bin=$1
out=${2:-$here/probetop.1}
tmp=$out.tmp.$$
{
    cat "$here/probetop.1.head"
    for part in overflow parallel trace compare lanes follow; do
        [ -f "$here/probetop.1.$part" ] && cat "$here/probetop.1.$part"
    done
    "$bin" --keys-man
    cat "$here/probetop.1.tail"
} > "$tmp"
mv "$tmp" "$out"
