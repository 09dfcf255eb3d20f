#!/usr/bin/env bash
# tests/fuzz/smoke.sh: builds the libFuzzer harnesses with clang
# (PROBETOP_FUZZ=ON) and runs each target for a short time, one at a time,
# under ASan and UBSan.  Seeds: tests/fuzz/seeds plus corpora made from the
# fixtures (tests/data).  Exit 1 when a target
# found a crash, a leak, undefined behaviour, a timeout or an out-of-memory;
# its reproducer is left in $FUZZ_WORK/artifacts/<target>/.
#
# Settings (environment):
#   FUZZ_SECONDS  seconds per target (30)
#   FUZZ_TARGETS  targets to run (default: every harness tests/fuzz/fuzz_TARGET.c,
#                 the list CMakeLists.txt builds from the same files)
#   FUZZ_BUILD    build folder (build-fuzz); FUZZ_WORK corpora, logs and
#                 artifacts ($FUZZ_BUILD/fuzz-work; corpora grow run after run)
#   FUZZ_FLAGS    more libFuzzer flags; FUZZ_NICE nice level (10)
#   CC            the compiler (clang)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/fuzz
BUILD=${FUZZ_BUILD:-$ROOT/build-fuzz}
SECS=${FUZZ_SECONDS:-30}
TARGETS=${FUZZ_TARGETS:-$(cd "$HERE" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//' | tr '\n' ' ')}
WORK=${FUZZ_WORK:-$BUILD/fuzz-work}
NICE=${FUZZ_NICE:-10}
FIX=$ROOT/tests/data

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPROBETOP_FUZZ=ON -DPROBETOP_WERROR=OFF >/dev/null
cmake --build "$BUILD" -j2 --target fuzz

mkdir -p "$WORK/log"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/probetop-smoke.XXXXXX")
[ -d /dev/shm ] && [ -w /dev/shm ] && { rmdir "$TMP"; TMP=$(mktemp -d /dev/shm/probetop-smoke.XXXXXX); }
trap 'rm -rf "$TMP"' EXIT

# ---- corpora: the committed seeds, then small cuts of the fixtures ----
want() { case " $TARGETS " in *" $1 "*) return 0;; esac; return 1; }
for t in $TARGETS; do
    mkdir -p "$WORK/corpus/$t" "$WORK/artifacts/$t"
    for d in seeds regress; do
        [ -d "$HERE/$d/$t" ] && cp -n "$HERE/$d/$t"/* "$WORK/corpus/$t/" 2>/dev/null || true
    done
done
if [ -d "$FIX" ]; then
    python3 "$HERE/corpus.py" "$FIX" "$WORK/corpus"
    if want db && command -v sqlite3 >/dev/null; then
        # every fixture database, cut to a few rows and 512-byte pages
        for f in $(find "$FIX" -name '*.db' | sort); do
            out=$WORK/corpus/db/fx-$(basename "$f")
            [ -e "$out" ] && continue
            cp "$f" "$TMP/shrink.db" && chmod u+w "$TMP/shrink.db"
            case $f in
            *.vis.db) q="DELETE FROM tb_nodes WHERE node_order > 6; DELETE FROM tb_stack;";;
            *) q="DELETE FROM trend_data WHERE target_id > 4 OR step > 1;
                  DELETE FROM monitoring_targets WHERE target_id > 4;";;
            esac
            sqlite3 "$TMP/shrink.db" "PRAGMA journal_mode=DELETE; $q PRAGMA page_size=512; VACUUM;" >/dev/null 2>&1 &&
                cp "$TMP/shrink.db" "$out" || true
            rm -f "$TMP"/shrink.db*
        done
    fi
else
    echo "smoke.sh: no fixtures at $FIX: seeds only"
fi

# ---- run ----
dict_of() {   # a target not named here runs without a dictionary
    case $1 in
    json|lexdiff|dump|graph|construct|mapping|matchcfg|anomaly|trace|compare) echo json.dict;;
    monitor|monitor_v2|curve_table) echo csv.dict;; steptrace) echo steptrace.dict;; npy) echo npy.dict;; layermap) echo yaml.dict;; regex) echo regex.dict;;
    esac
}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:suppressions=$HERE/known.supp}
export FUZZ_TMPDIR=$TMP
failed=""
printf '%-10s %6s %12s %9s %7s %s\n' target secs execs exec/s corpus result
for t in $TARGETS; do
    bin=$BUILD/tests/fuzz/fuzz_$t
    d=$(dict_of "$t")
    log=$WORK/log/$t.log
    t0=$SECONDS
    set +e
    # shellcheck disable=SC2086
    nice -n "$NICE" "$bin" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2560 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$WORK/artifacts/$t/" ${d:+-dict="$HERE/$d"} \
        ${FUZZ_FLAGS:-} "$WORK/corpus/$t" >"$log" 2>&1
    rc=$?
    set -e
    secs=$((SECONDS - t0))   # wall time: less than FUZZ_SECONDS when it stopped at a finding
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    units=$(find "$WORK/corpus/$t" -type f | wc -l)
    if [ $rc = 0 ]; then res=ok; else res="FAILED (exit $rc, log $log)"; failed="$failed $t"; fi
    printf '%-10s %6s %12s %9s %7s %s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" "$units" "$res"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "${execs:-0}" "$units" "$res" >>"$WORK/summary.tsv"
done
if [ -n "$failed" ]; then
    for t in $failed; do
        echo "---- $t: tail of $WORK/log/$t.log"
        tail -n 60 "$WORK/log/$t.log"
    done
    echo "smoke.sh: findings in:$failed (reproducers in $WORK/artifacts/)"
    exit 1
fi
