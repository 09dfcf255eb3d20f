#!/bin/sh
# coverage.sh: how many of the program's user-facing error messages the test
# suite reaches.  A message is a pt_errorf() call site in src/, model/,
# views/ or ui/; "out of memory" ones are counted apart (a test cannot reach
# them without fault injection).
#
#   tests/coverage.sh [-v] [WORKDIR]
#
# Copies the checkout (tracked and untracked files, as git sees them) to
# WORKDIR/src (default: ${TMPDIR:-/tmp}/probetop-coverage), puts every
# pt_errorf( call on a line of its own there (so gcov's line counts tell a
# reached call from a condition that merely ran), builds it with
# gcc --coverage -O0, runs the whole ctest suite, then reads gcov's
# annotated sources.  Prints reached/total per file and overall, and with
# -v the messages never reached.  The checkout is never written.
# Needs gcc, gcov, cmake, git.
set -eu

verbose=0
if [ "${1:-}" = "-v" ]; then verbose=1; shift; fi
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-${TMPDIR:-/tmp}/probetop-coverage}
jobs=${PT_JOBS:-2}

rm -rf "$work/src" "$work/build" "$work/gcov"
mkdir -p "$work/src" "$work/gcov"
(cd "$here" && git ls-files -co --exclude-standard -z |
    tar --null --no-recursion --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$work/src"

# One pt_errorf( per line: a newline before every call (err.c defines it).
find "$work/src/src" "$work/src/model" "$work/src/views" "$work/src/ui" -name '*.c' ! -name err.c |
    while read -r f; do
        sed -i -E 's/(^|[^_A-Za-z0-9])pt_errorf\(/\1\
pt_errorf(/g' "$f"
    done

cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Debug -DPROBETOP_WERROR=OFF \
    -DCMAKE_C_FLAGS="--coverage -O0" -DCMAKE_EXE_LINKER_FLAGS=--coverage >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 2; }
cmake --build "$work/build" -j"$jobs" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 2; }
find "$work/build" -name '*.gcda' -delete
# A failing test still counts what it reached; say so, do not stop.
ctest --test-dir "$work/build" -j"$jobs" >"$work/ctest.log" 2>&1 ||
    echo "coverage.sh: some tests failed (see $work/ctest.log); counting anyway" >&2
grep -E '^[0-9]+% tests passed' "$work/ctest.log" >&2 || true

# gcov: one annotated source per object of the four libraries.
for gcno in $(find "$work/build/CMakeFiles" -path '*/pt_*.dir/*' -name '*.c.gcno'); do
    case "$gcno" in */err.c.gcno) continue ;; esac
    gcda=${gcno%.gcno}.gcda
    out=$work/gcov/$(echo "${gcno#"$work"/build/CMakeFiles/}" | tr / _).gcov
    if [ -f "$gcda" ]; then
        (cd "$work/build" && gcov -t "$gcda" 2>/dev/null) >"$out" || true
    else
        (cd "$work/build" && gcov -t "$gcno" 2>/dev/null) >"$out" || true
    fi
done

# Each gcov file starts with "-: 0:Source:PATH"; a call site is a line
# whose code starts with pt_errorf(, its count "#####" when never run.
# The statement text (this line and the next two) tells out-of-memory
# messages apart.
cat "$work"/gcov/*.gcov | awk -v verbose="$verbose" -v root="$work/src/" '
function flush(   txt) {
    if (!pending) return
    txt = stmt
    oom = (txt ~ /out of memory/)
    if (oom) { oomt++; if (hit) oomr++ }
    else {
        tot++; ftot[file]++
        if (hit) { reached++; freached[file]++ }
        else if (verbose) { sub(/^[ \t]*/, "", txt); missed[++nmissed] = file ": " substr(txt, 1, 150) }
    }
    pending = 0
}
{
    split($0, p, ":")
    count = p[1]; gsub(/[ *]/, "", count)
    line = p[2] + 0
    code = $0; sub(/^[^:]*:[^:]*:/, "", code)
    if (line == 0 && code ~ /^Source:/) { flush(); file = substr(code, 8); sub(root, "", file); next }
    if (line == 0) next
    if (pending) {
        if (more > 0 && count == "-" && code !~ /pt_errorf\(/) { stmt = stmt " " code; more--; next }
        flush()
    }
    if (code ~ /^[ \t]*pt_errorf\(/) {
        pending = 1; stmt = code; more = 2
        hit = (count != "-" && count != "#####" && count != "=====" && count + 0 > 0)
    }
}
END {
    flush()
    n = 0
    for (f in ftot) names[++n] = f
    for (i = 2; i <= n; i++) { k = names[i]; for (j = i - 1; j > 0 && names[j] > k; j--) names[j + 1] = names[j]; names[j + 1] = k }
    for (i = 1; i <= n; i++) printf "%-26s %4d / %-4d\n", names[i], freached[names[i]], ftot[names[i]]
    if (verbose) { print ""; print "never reached:"; for (i = 1; i <= nmissed; i++) print "  " missed[i] }
    printf "\npt_errorf call sites: %d (%d out of memory, %d reached)\n", tot + oomt, oomt, oomr
    printf "user-facing messages reached: %d of %d (%.1f%%)\n", reached, tot, tot ? 100.0 * reached / tot : 0
}'
