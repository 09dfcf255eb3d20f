#!/bin/sh
# The man pages: probetop.1 is current (man/assemble.sh reproduces it from its
# parts and the binary's key tables); every page (probetop.1,
# probetop-formats.5, probetop-rules.7) renders without a groff warning; and
# every section a code comment cites ("probetop-rules(7), VERDICTS") exists.
set -u
bin=$1 man=$2
src=$(dirname "$man")
pages="probetop.1 probetop-formats.5 probetop-rules.7"
tmp=${TMPDIR:-/tmp}/probetop-man.$$
sh "$man/assemble.sh" "$bin" "$tmp" || exit 1
if ! cmp -s "$tmp" "$man/probetop.1"; then
    echo "man/probetop.1 is stale: run man/assemble.sh $bin"; diff "$man/probetop.1" "$tmp" | head -20
    rm -f "$tmp"; exit 1
fi
rm -f "$tmp"
fail=0
for p in $pages; do
    [ -f "$man/$p" ] || { echo "man/$p is missing"; fail=1; }
done
# Citations: "probetop-PAGE(N), SECTION" names a .SH of man/probetop-PAGE.N,
# optionally followed by ": " and a .SS of it (matched case-insensitively).
cites=$(grep -rhoE 'probetop-(formats|rules)\([57]\), [A-Z][A-Z0-9 .]*[A-Z0-9.](: [A-Za-z][A-Za-z0-9 .-]*[A-Za-z0-9])?' \
            "$src/src" "$src/model" "$src/views" "$src/ui" "$src/tests" 2>/dev/null | sort -u)
n=0
if [ -n "$cites" ]; then
    while IFS= read -r c; do
        n=$((n + 1))
        page=${c%%(*}; num=${c#*(}; num=${num%%)*}
        rest=${c#*), }; sh_=${rest%%: *}
        f="$man/$page.$num"
        if ! grep -qxF ".SH $sh_" "$f" 2>/dev/null; then
            echo "cited section missing: $c (no .SH $sh_ in man/$page.$num)"; fail=1; continue
        fi
        case $rest in
        *": "*) ss=${rest#*: }
            grep -qix "\.SS \"\{0,1\}$ss\"\{0,1\}" "$f" || { echo "cited subsection missing: $c"; fail=1; } ;;
        esac
    done <<EOF
$cites
EOF
fi
[ $fail = 0 ] || exit 1
command -v groff >/dev/null || { echo "groff absent: rendering not checked ($n citations checked)"; exit 77; }
for p in $pages; do
    warn=$(groff -ww -man -Tutf8 -z "$man/$p" 2>&1)
    [ -z "$warn" ] || { echo "groff warnings in man/$p:"; echo "$warn"; exit 1; }
done
echo "$(echo $pages | wc -w) pages, $n citations: 1 passed, 0 failed"
