# bench_goal.sh: sourced by the issue-27 scripts (scaling.sh, mon_data2db.sh,
# origin_scale.sh, compare_scale.sh, trace_scale.sh; limit.sh runs them all).
# A goal line is the figure before and after, the reference tool's figure on
# the same files, the goal, met / not met and the load average; with
# BENCH_SUMMARY=FILE set (limit.sh sets it) the same as one tab-separated row
# appended to FILE, which limit.sh prints as its summary table.
# "Straight" (a line through the sizes 4x apart): the CPU seconds per MB at
# the largest size at most BENCH_STRAIGHT (default 1.5) times those at the
# smallest; a cost quadratic in the input gives 4x per step of 4x.

bench_load() { cut -d' ' -f1 /proc/loadavg; }

# bench_ratio A B: B / A to two places ("-" when either is missing or A is 0)
bench_ratio() {
    awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || a + 0 == 0) print "-"; else printf "%.2f", b / a }'
}

# bench_cmp X OP LIMIT: "met" or "not met" (OP: le or ge); "not measured" when X is "-" or empty
bench_cmp() {
    awk -v x="${1:-}" -v op="$2" -v l="$3" 'BEGIN {
        if (x == "" || x == "-") { print "not measured"; exit }
        if (op == "le") print (x + 0 <= l + 0) ? "met" : "not met"; else print (x + 0 >= l + 0) ? "met" : "not met" }'
}

# bench_straight RATIO: bench_cmp against BENCH_STRAIGHT
bench_straight() { bench_cmp "$1" le "${BENCH_STRAIGHT:-1.5}"; }

# bench_goal POINT FIGURE BEFORE AFTER REFERENCE GOAL MET
bench_goal() {
    l=$(bench_load)
    printf '  goal [%s] %s: before %s, after %s, reference %s; goal %s: %s (load %s)\n' \
        "$1" "$2" "${3:--}" "${4:--}" "${5:--}" "$6" "$7" "$l"
    if [ -n "${BENCH_SUMMARY:-}" ]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "${3:--}" "${4:--}" "${5:--}" "$6" "$7" "$l" >> "$BENCH_SUMMARY"
    fi
}
