#!/bin/sh
# compare --vis-db: the rows go to the database thread a batch at a time
# (src/io/visdb/write_visdb.c, PROBETOP_VISDB_BATCH nodes a batch), the
# problem graph's as they are made, the benchmark graph's after it; the file
# must be byte for byte the same for any batch size (1: a batch per node,
# the queue always full; 3; the default).  Runs: a multi-rank NaN pair (with
# and without -oc: the communication links), micro steps, md5, and a build
# (one run).
#   visdb_batches.sh BIN CASES TMP
set -u
bin=$1 cases=$2 tmp=$3
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
n=0
run() {   # name batch args...
    name=$1 b=$2
    shift 2
    if [ "$b" = default ]; then
        env -u PROBETOP_VISDB_BATCH "$bin" compare "$@" --vis-db "$tmp/$name.$b.vis.db" > /dev/null 2>&1
    else
        PROBETOP_VISDB_BATCH=$b "$bin" compare "$@" --vis-db "$tmp/$name.$b.vis.db" > /dev/null 2>&1
    fi
    [ -s "$tmp/$name.$b.vis.db" ] || { echo "FAIL: $name: no database with PROBETOP_VISDB_BATCH=$b"; exit 1; }
}
check() {   # name args...
    name=$1
    shift
    for b in default 1 3; do run "$name" "$b" "$@"; done
    for b in 1 3; do
        cmp -s "$tmp/$name.default.vis.db" "$tmp/$name.$b.vis.db" ||
            { echo "FAIL: $name: the database with batches of $b differs from the default's"; exit 1; }
    done
    n=$((n + 1))
}
check nan_pp "$cases/pt_nan_pp/input/npu" "$cases/pt_nan_pp/input/bench"
check nan_pp_oc "$cases/pt_nan_pp/input/npu" "$cases/pt_nan_pp/input/bench" --overflow
check micro "$cases/pt_micro/input/npu" "$cases/pt_micro/input/bench"
check md5 "$cases/md5/input/npu" "$cases/md5/input/bench"
check build "$cases/pt_mix/input/npu"
rm -rf "$tmp"
echo "ok: $n databases the same for batches of 1, 3 and the default"
