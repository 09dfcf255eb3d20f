#!/bin/sh
# one_way_calls.sh SRCDIR BUILDDIR FOLDER...: no two object files of a
# source folder call each other.  Per pair of objects of FOLDER (e.g.
# src/io/trenddb), nm says what each defines and leaves undefined; when
# each uses a symbol the other defines, the pair is printed with those
# symbols and the exit status is 1.  Shared parts go into a third file
# both use (README "Layout of the code").  ctest: calls.one_way.
set -u
src=${1:?usage: one_way_calls.sh SRCDIR BUILDDIR FOLDER...}
build=${2:?usage: one_way_calls.sh SRCDIR BUILDDIR FOLDER...}
shift 2
command -v nm >/dev/null 2>&1 || { echo "one_way_calls.sh: no nm"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0
for folder in "$@"; do
    objs=$(find "$build" -path "*/$folder/*.c.o" ! -path '*/tests/*' | LC_ALL=C sort)
    [ -n "$objs" ] || { echo "one_way_calls.sh: no object of $folder under $build"; exit 2; }
    i=0
    for o in $objs; do
        [ -f "$src/$folder/$(basename "$o" .o)" ] || continue   # a source since removed
        i=$((i + 1))
        nm --defined-only "$o" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u > "$T/def$i"
        nm -u "$o" | awk '{print $NF}' | sort -u > "$T/und$i"
        echo "$o" > "$T/name$i"
    done
    a=1
    while [ $a -le $i ]; do
        b=$((a + 1))
        while [ $b -le $i ]; do
            ab=$(comm -12 "$T/und$a" "$T/def$b" | tr '\n' ' ')
            ba=$(comm -12 "$T/und$b" "$T/def$a" | tr '\n' ' ')
            if [ -n "$ab" ] && [ -n "$ba" ]; then
                echo "$(basename "$(cat "$T/name$a")" .o) and $(basename "$(cat "$T/name$b")" .o) call each other:"
                echo "    the first uses $ab"
                echo "    the second uses $ba"
                bad=1
            fi
            b=$((b + 1))
        done
        a=$((a + 1))
    done
done
exit $bad
