#!/bin/sh
# cycles.sh SRCDIR OBJDIR...: no two source files call each other, directly or
# through others.  Reads the symbols of every object under the given
# directories (nm: what each defines, what it leaves undefined), links file
# A to file B when A uses a symbol B defines, and prints each pair of files
# that reach each other, with the symbols of their direct links; exits 1
# when there is one.  A file that calls another should be above it: when
# two need each other, either one owns what both use or an interface both
# see lies below them (README "Architecture").  ctest: layers.cycles, over
# the objects of every layer's library together (an object whose source
# is gone from SRCDIR, left by an older build, is not read).
set -u
[ $# -ge 2 ] || { echo "usage: cycles.sh SRCDIR OBJDIR..." >&2; exit 2; }
src=$1
shift
tmp=${TMPDIR:-/tmp}/pt_cycles.$$
trap 'rm -f "$tmp"' EXIT
n=0
for d in "$@"; do
    [ -d "$d" ] || { echo "cycles.sh: no directory $d" >&2; exit 2; }
    for o in $(find "$d" -name '*.o' -o -name '*.obj' | LC_ALL=C sort); do
        # the source file's path: what follows the CMake target's .dir/
        f=${o#*.dir/}
        f=${f%.o}
        f=${f%.obj}
        [ -f "$src/$f" ] || continue
        nm "$o" | awk -v f="$f" '$2 ~ /^[TDBRCVW]$/ { print "D", f, $3 } $1 == "U" { print "U", f, $2 }'
        n=$((n + 1))
    done
done >"$tmp"
[ "$n" -gt 0 ] || { echo "cycles.sh: no objects under $*" >&2; exit 2; }
awk '
$1 == "D" { def[$3] = $2; file[$2] = 1 }
$1 == "U" { nu++; uf[nu] = $2; us[nu] = $3 }
END {
    for (i = 1; i <= nu; i++) {
        s = us[i]; a = uf[i]
        if (!(s in def) || def[s] == a) continue
        b = def[s]
        if (!((a, b) in why)) why[a, b] = s
        else if (length(why[a, b]) < 200) why[a, b] = why[a, b] " " s
        reach[a, b] = 1
    }
    nf = 0
    for (f in file) names[++nf] = f
    for (k = 1; k <= nf; k++)          # transitive closure (Floyd-Warshall)
        for (i = 1; i <= nf; i++) {
            if (!((names[i], names[k]) in reach)) continue
            for (j = 1; j <= nf; j++)
                if ((names[k], names[j]) in reach) reach[names[i], names[j]] = 1
        }
    bad = 0
    for (i = 1; i <= nf; i++)
        for (j = i + 1; j <= nf; j++) {
            a = names[i]; b = names[j]
            if (!((a, b) in reach) || !((b, a) in reach)) continue
            x = a < b ? a : b; y = a < b ? b : a
            printf "%s <-> %s\n", x, y
            if ((x, y) in why) printf "    %s uses %s\n", x, why[x, y]
            if ((y, x) in why) printf "    %s uses %s\n", y, why[y, x]
            bad++
        }
    if (bad) printf "%d pair(s) of files call each other (directly or through others)\n", bad
    exit bad > 0
}' "$tmp"
