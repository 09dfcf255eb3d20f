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
# Citations: "probetop-PAGE(N), SECTION" must name a .SH of man/probetop-PAGE.N;
# when ": Capitalised words" follow, they must begin with a .SS title under
# that section.  Comments may wrap, so each file is read as one line.
# Files: every tracked C/Python/CMake file of a git checkout, else the code folders.
files() {
    if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$src" ls-files -- '*.[ch]' '*.py' '*.txt' | sed "s|^|$src/|"
    else
        find "$src/src" "$src/model" "$src/views" "$src/ui" "$src/tests" "$src/CMakeLists.txt" -type f \
             \( -name '*.[ch]' -o -name '*.py' -o -name '*.txt' \) 2>/dev/null
    fi
}
cites=$(files | while IFS= read -r f; do [ -f "$f" ] && tr '\n' ' ' < "$f"; echo; done |
        sed 's/probetop-\(formats\|rules\)(/\n&/g' |
        grep -oE 'probetop-(formats|rules)\([57]\),[ *]+[^;()]{0,80}' | sort -u)
n=$(printf '%s' "$cites" | grep -c . || true)
if [ -n "$cites" ]; then
    printf '%s\n' "$cites" | awk -v man="$man" '
        function load(page, file,   line, sh) {
            while ((getline line < file) > 0) {
                if (line ~ /^\.SH /) { sh = substr(line, 5); gsub(/"/, "", sh); SH[page, sh] = 1 }
                if (line ~ /^\.SS /) { ss = substr(line, 5); gsub(/"/, "", ss); SS[page, sh, ss] = 1 }
            }
            close(file)
        }
        BEGIN { load("probetop-formats(5)", man "/probetop-formats.5"); load("probetop-rules(7)", man "/probetop-rules.7") }
        {
            page = substr($0, 1, index($0, ",") - 1)
            rest = substr($0, index($0, ",") + 1); sub(/^[ *]+/, "", rest); gsub(/[ *]+/, " ", rest)
            best = ""
            for (k in SH) { split(k, a, SUBSEP)
                if (a[1] == page && index(rest, a[2]) == 1 && substr(rest, length(a[2]) + 1, 1) !~ /[A-Z0-9]/ &&
                    length(a[2]) > length(best)) best = a[2] }
            if (best == "") { print "cited section missing: " $0; bad = 1; next }
            tail = substr(rest, length(best) + 1)
            if (tail ~ /^: [A-Z]/) {
                tail = substr(tail, 3); ok = 0
                for (k in SS) { split(k, a, SUBSEP)
                    if (a[1] == page && a[2] == best && index(tail, a[3]) == 1) ok = 1 }
                if (!ok) { print "cited subsection missing: " $0; bad = 1 }
            }
        }
        END { exit bad }' || fail=1
fi
[ $fail = 0 ] || exit 1
command -v groff >/dev/null || { echo "groff absent: rendering not checked ($n citations checked)"; exit 77; }
for p in $pages; do
    warn=$(groff -ww -man -Tutf8 -z "$man/$p" 2>&1)
    [ -z "$warn" ] || { echo "groff warnings in man/$p:"; echo "$warn"; exit 1; }
done
echo "$(echo $pages | wc -w) pages, $n citations: 1 passed, 0 failed"
