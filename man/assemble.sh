#!/bin/sh
# Builds man/probetop.1 from its parts: head, the feature fragments, the KEYS
# section printed by the binary from its key tables, and the tail.  In the
# head, the line `.\" FORMATS...' becomes the --format list: for each row of
# the reader table (src/io/formats.c), in its order (the order detection
# breaks ties in), .TP, .B NAME and man/probetop.1.format.NAME.  The names
# are the ones `--format` takes, as the binary's own message lists them; a
# row without its paragraph, or a paragraph without its row, is an error.
#   man/assemble.sh BUILD/probetop [OUT]
set -eu
here=$(dirname "$0")
bin=$1
out=${2:-$here/probetop.1}
tmp=$out.tmp.$$
names=$("$bin" info --format '?' . 2>&1 | sed -n "s/^probetop info: --format takes auto, \(.*\), not '?'\$/\1/p" |
        sed 's/ or /, /' | tr -d ' ' | tr ',' ' ') || true
[ -n "$names" ] || { echo "assemble.sh: $bin info --format '?' did not list the formats" >&2; exit 1; }
for n in $names; do
    [ -f "$here/probetop.1.format.$n" ] ||
        { echo "assemble.sh: the reader table has a row $n but man/probetop.1.format.$n is missing" >&2; exit 1; }
done
for f in "$here"/probetop.1.format.*; do
    n=${f##*/probetop.1.format.}
    case " $names " in *" $n "*) ;; *)
        echo "assemble.sh: $f describes $n, which is no row of the reader table ($names)" >&2; exit 1 ;;
    esac
done
{
    while IFS= read -r line; do
        case $line in
        '.\" FORMATS'*)
            for n in $names; do
                printf '.TP\n.B %s\n' "$n"
                cat "$here/probetop.1.format.$n"
            done ;;
        *) printf '%s\n' "$line" ;;
        esac
    done < "$here/probetop.1.head"
    for part in overflow parallel trace curves compare report snapshot lanes pipeline follow; do
        [ -f "$here/probetop.1.$part" ] && cat "$here/probetop.1.$part"
    done
    "$bin" --keys-man
    cat "$here/probetop.1.tail"
} > "$tmp"
mv "$tmp" "$out"
