#!/bin/sh
# The man pages: probetop.1 is current (man/assemble.sh reproduces it from its
# parts and the binary's key tables); every page (probetop.1,
# probetop-formats.5, probetop-rules.7) renders without a groff warning; and
# every section a code comment cites ("probetop-rules(7), VERDICTS") exists;
# and every path of the tree a comment or document names ("src/io/dump/
# ovf_origin.h", "model/cube/cube.h", "tests/unit/test_*.c") exists, so a
# file moved or renamed leaves no comment pointing at nothing.
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
# Cited paths: a word that begins with a top folder of the tree (src/, model/,
# views/, ui/, tests/, man/, screenshots/, .ci/) and is not part of a longer
# path ("$src/x", "a/src/x"), in the code, its build and CI files, the man
# pages and README.md (the READMEs beside test data name where it came from,
# in its own project's tree).  It exists when it names a tracked file or a
# folder holding one; a module without its extension ("model/graph/layermap") when
# a .c, .h, .py or .sh of that name exists; a pattern ("tests/unit/test_*.c",
# "screenshots/NAME.svg": a capitalised placeholder, a shell variable
# ("man/probetop.1.format.$n") or "<name>" is any name,
# "src/io/{dump,trace}/" each of its choices) when a file matches it.
# Reported as FILE:LINE: PATH.
tracked() {
    if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$src" ls-files
    else
        (cd "$src" && find . -type f ! -path './build*' | sed 's|^\./||')
    fi
}
paths_cited() {
    tracked | grep -E '\.([ch]|py|sh|txt|yml|[157])$|^README\.md$|^man/|^\.ci/' | grep -vE '^(tests/data|screenshots)/' |
    while IFS= read -r f; do
        [ -f "$src/$f" ] && grep -noE '(^|[^A-Za-z0-9_./$-])(src|model|views|ui|tests|man|screenshots|\.ci)/[A-Za-z0-9_./*{},<>$-]*[A-Za-z0-9_*}>]' "$src/$f" |
            sed "s|^|$f:|"
    done
}
stale=$( { tracked; echo "--"; paths_cited; } | awk '
    function glob_re(p,   r) {   # a shell pattern as an anchored regex
        r = p; gsub(/[.+^$()|]/, "\\\\&", r); gsub(/\*/, "[^/]*", r); gsub(/\?/, "[^/]", r); return "^" r "$"
    }
    function found(p,   i, n, alt, pre, post, b, k, seg, q, re, c) {
        if ((b = index(p, "{")) && (k = index(p, "}")) > b) {   # each choice of the first {a,b}
            pre = substr(p, 1, b - 1); post = substr(p, k + 1)
            n = split(substr(p, b + 1, k - b - 1), alt, ",")
            for (i = 1; i <= n; i++) if (!found(pre alt[i] post)) return 0
            return 1
        }
        sub(/\/$/, "", p)
        if (p in F || p ".c" in F || p ".h" in F || p ".py" in F || p ".sh" in F) return 1
        q = ""; seg = ""   # placeholders (NAME, PAGE, N) between / . _ -
        for (i = 1; i <= length(p) + 1; i++) {
            c = substr(p, i, 1)
            if (c != "" && index("/._-", c) == 0) { seg = seg c; continue }
            q = q (seg ~ /^([A-Z][A-Z0-9]*|[$][A-Za-z_]+|<[A-Za-z_]+>)$/ ? "*" : seg) c; seg = ""
        }
        if (q !~ /[*?]/) return 0
        re = glob_re(q)
        for (k in F) if (k ~ re) return 1
        return 0
    }
    !files && $0 == "--" { files = 1; next }
    !files { F[$0] = 1; n = split($0, d, "/"); q = d[1]; for (i = 2; i <= n; i++) { F[q] = 1; q = q "/" d[i] } next }
    {
        f = $0; sub(/:.*/, "", f); rest = substr($0, length(f) + 2)
        line = rest; sub(/:.*/, "", line); p = substr(rest, length(line) + 2); sub(/^[^A-Za-z0-9_.]/, "", p)
        if (!found(p)) print f ":" line ": " p
    }') || { echo "the check of cited paths failed"; fail=1; }
if [ -n "$stale" ]; then
    echo "paths cited but not in the tree (file:line: path):"; printf '%s\n' "$stale"; fail=1
fi
[ $fail = 0 ] || exit 1
command -v groff >/dev/null || { echo "groff absent: rendering not checked ($n citations checked)"; exit 77; }
for p in $pages; do
    warn=$(groff -ww -man -Tutf8 -z "$man/$p" 2>&1)
    [ -z "$warn" ] || { echo "groff warnings in man/$p:"; echo "$warn"; exit 1; }
done
echo "$(echo $pages | wc -w) pages, $n citations: 1 passed, 0 failed"
