/* data2db on monitor trees with the rows streamed (issue 27 point 1):
 * monitor_read_streamed hands the rows over as read, a few files of one
 * rank folder at a time, once, and frees them; the rank summary made a window
 * of steps at a time (PROBETOP_SUMMARY_WINDOW) equals SQLite's own
 * aggregates over trend_data and the summary made in one window. */
#include <sqlite3.h>

#include "pt_test.h"

#include "src/io/load.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/trenddb/write_trenddb.h"

struct seen {
    int calls, ranks;
    size_t files, rows, bad;
    int32_t last_rank;
};

static int count_rank(void *arg, const struct monitor_data *md, size_t first, struct dataset *ds) {
    struct seen *s = arg;
    (void)ds;
    s->calls++;
    for (size_t i = first; i < md->nfiles; i++) {
        const struct monitor_file *f = &md->files[i];
        s->files++;
        s->rows += f->nrows;
        /* a few files of one rank folder a call, ranks ascending, every row there */
        if (f->rank != md->files[first].rank || f->rank < s->last_rank || (f->nrows && !f->rows)) s->bad++;
    }
    if (md->nfiles - first > MONITOR_STREAM_FILES) s->bad++;
    if (md->files[first].rank != s->last_rank) s->ranks++;
    s->last_rank = md->files[first].rank;
    for (size_t i = 0; i < first; i++)   /* the ranks before: their rows gone */
        if (md->files[i].rows) s->bad++;
    return 0;
}

static void streamed_read(void) {
    const char *in = pt_fixture("derived/synthetic_monitor_output");
    if (!in) SKIP("fixture absent");
    struct dataset *ds = calloc(1, sizeof *ds), *ds2 = calloc(1, sizeof *ds2);
    struct monitor_data md, all;
    struct pt_error err;
    struct seen s = {.last_rank = -1};
    CHECK_INT(monitor_read_streamed(in, NULL, NULL, 0, 0, count_rank, &s, ds, &md, &err), 0);
    /* the same tree read whole */
    CHECK_INT(monitor_read(in, NULL, NULL, ds2, &all, &err), 0);
    size_t rows = 0;
    for (size_t i = 0; i < all.nfiles; i++) rows += all.files[i].nrows;
    CHECK(rows > 0);
    CHECK_INT(s.rows, rows);
    CHECK_INT(s.files, all.nfiles);
    CHECK_INT(md.nfiles, all.nfiles);
    CHECK_INT(s.ranks, all.nranks);
    CHECK(s.calls >= s.ranks);
    CHECK_INT(s.bad, 0);
    for (size_t i = 0; i < md.nfiles; i++) {
        CHECK(md.files[i].rows == NULL);
        CHECK_INT(md.files[i].nrows, all.files[i].nrows);
    }
    monitor_free(&md);
    monitor_free(&all);
    dataset_free(ds);
    dataset_free(ds2);
}

static long long one_value(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Rows of the summary of group size g (0: all ranks) unlike SQLite's
 * aggregate of column s over trend_data. */
static long long mismatches(sqlite3 *db, int g, const char *s) {
    char sql[2048], grp[64];
    if (g) snprintf(grp, sizeof grp, "rank / %d", g);
    else snprintf(grp, sizeof grp, "0");
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT %s AS rg, step, target_id, metric_id, count(*) AS c, min(%s) AS mn, "
             "max(%s) AS mx, avg(%s) AS av FROM trend_data GROUP BY 1, 2, 3, 4) a "
             "LEFT JOIN probetop_rank_summary b ON b.group_size = %d AND b.rank_group = a.rg AND b.step = a.step "
             "AND b.target_id = a.target_id AND b.metric_id = a.metric_id "
             "WHERE b.ranks IS NOT a.c OR b.%s_min IS NOT a.mn OR b.%s_max IS NOT a.mx OR "
             "(a.av IS NULL) != (b.%s_mean IS NULL) OR abs(a.av - b.%s_mean) > 1e-9 * abs(a.av)",
             grp, s, s, s, g, s, s, s, s);
    return one_value(db, sql);
}

/* data2db of tree into dir with summary windows of window keys (NULL: the default). */
static int write_with(const char *tree, const char *dir, const char *window) {
    if (window) setenv("PROBETOP_SUMMARY_WINDOW", window, 1);
    else unsetenv("PROBETOP_SUMMARY_WINDOW");
    mkdir(dir, 0777);
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    int rc = trenddb_write_monitor(tree, dir, &lo, ds, &res, &err);
    dataset_free(ds);
    unsetenv("PROBETOP_SUMMARY_WINDOW");
    return rc;
}

static void summary_windows(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("mon_stream_windows");
    char tree[1100], one[1100], many[1100], cmd[4096], file[1200];
    snprintf(tree, sizeof tree, "%s/tree", t);
    snprintf(one, sizeof one, "%s/one", t);
    snprintf(many, sizeof many, "%s/many", t);
    const char *py = getenv("PT_PYTHON");
    /* 12 ranks (a summary, groups of 8), NaNs planted */
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --monitor --out '%s' --steps 3 --ranks 12 --layers 1 --micro-batches 2 "
             "--nan 1:9:mlp --nan 2:3:attention --quiet >/dev/null 2>&1",
             py && *py ? py : "python3", pt_shared(), tree);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    CHECK_INT(write_with(tree, one, NULL), 0);
    CHECK_INT(write_with(tree, many, "7"), 0);   /* a window of a step or so */
    snprintf(file, sizeof file, "%s/monitor_data.trend.db", many);
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(file, &db), 0);
    CHECK(one_value(db, "SELECT count(DISTINCT step) FROM trend_data") > 3);
    CHECK(one_value(db, "SELECT count(*) FROM probetop_rank_summary WHERE group_size = 8") > 0);
    CHECK_INT(one_value(db, "SELECT count(*) FROM probetop_rank_summary WHERE group_size = 0"),
              one_value(db, "SELECT count(*) FROM (SELECT DISTINCT step, target_id, metric_id FROM trend_data)"));
    static const char *const cols[] = {"norm", "min", "max", "mean"};
    for (int c = 0; c < 4; c++) {
        CHECK_INT(mismatches(db, 0, cols[c]), 0);
        CHECK_INT(mismatches(db, 8, cols[c]), 0);
    }
    sqlite3_close(db);
    /* the same table, byte for byte, as in one window */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for d in one many; do sqlite3 $d/monitor_data.trend.db "
             "'SELECT * FROM probetop_rank_summary ORDER BY 1, 2, 3, 4, 5' > $d.txt || exit 1; done && "
             "test -s one.txt && cmp -s one.txt many.txt",
             t);
    CHECK_INT(system(cmd), 0);
}

/* The write phase on 1, 2 and 4 threads (rows beside the summary's two
 * parts, tdb_summary_new_part), in one window and in many: the same file,
 * byte for byte.  70 ranks: groups of 8 and of 64, so the groups' part has
 * two group sizes and the run's one. */
static void summary_threads(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("mon_stream_threads");
    char tree[1100], dir[1200], cmd[4096];
    snprintf(tree, sizeof tree, "%s/tree", t);
    const char *py = getenv("PT_PYTHON");
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --monitor --out '%s' --steps 3 --ranks 70 --layers 1 --micro-batches 2 "
             "--nan 1:9:mlp --nan 2:66:attention --quiet >/dev/null 2>&1",
             py && *py ? py : "python3", pt_shared(), tree);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    static const char *const threads[] = {"1", "2", "4"};
    static const char *const windows[] = {NULL, "7"};
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < 3; k++) {
            setenv("PROBETOP_THREADS", threads[k], 1);
            snprintf(dir, sizeof dir, "%s/w%d_t%s", t, w, threads[k]);
            CHECK_INT(write_with(tree, dir, windows[w]), 0);
            unsetenv("PROBETOP_THREADS");
        }
    snprintf(cmd, sizeof cmd,
             "cd '%s' && sqlite3 w0_t1/monitor_data.trend.db 'SELECT count(*) FROM probetop_rank_summary WHERE "
             "group_size = 64' | grep -qv '^0$' && for w in 0 1; do for k in 2 4; do "
             "cmp -s w${w}_t1/monitor_data.trend.db w${w}_t$k/monitor_data.trend.db || exit 1; done; done",
             t);
    CHECK_INT(system(cmd), 0);
    /* many windows: the same summary rows as one (the file differs only in
     * where SQLite put them) */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for d in w0_t2 w1_t2; do sqlite3 $d/monitor_data.trend.db "
             "'SELECT * FROM probetop_rank_summary ORDER BY 1, 2, 3, 4, 5' > $d.txt || exit 1; done && "
             "test -s w0_t2.txt && cmp -s w0_t2.txt w1_t2.txt",
             t);
    CHECK_INT(system(cmd), 0);
}

/* The summary's parts shared out on the pool (tdb_monsum): the groups'
 * part a rank group at a time with window 0 of the whole run on the way,
 * the run's later windows split between two parts (odd and even).  With a
 * window per step (five windows: the even part has two after window 0)
 * and 12 ranks (a full group of 8 and a partial one), on 1, 2 and 4
 * threads: the table as stored (no ORDER BY: the B-tree's own order) is
 * the one-window table's, it is in key order, and SQLite finds the file
 * sound. */
static void summary_split(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("mon_stream_split");
    char tree[1100], dir[1200], cmd[4096];
    snprintf(tree, sizeof tree, "%s/tree", t);
    const char *py = getenv("PT_PYTHON");
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --monitor --out '%s' --steps 5 --ranks 12 --layers 1 --micro-batches 2 "
             "--nan 1:9:mlp --nan 3:2:attention --quiet >/dev/null 2>&1",
             py && *py ? py : "python3", pt_shared(), tree);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    static const char *const threads[] = {"1", "2", "4"};
    snprintf(dir, sizeof dir, "%s/one", t);
    CHECK_INT(write_with(tree, dir, NULL), 0);
    for (int k = 0; k < 3; k++) {
        setenv("PROBETOP_THREADS", threads[k], 1);
        snprintf(dir, sizeof dir, "%s/t%s", t, threads[k]);
        CHECK_INT(write_with(tree, dir, "1"), 0);
        unsetenv("PROBETOP_THREADS");
    }
    snprintf(cmd, sizeof cmd,
             "cd '%s' && q='SELECT * FROM probetop_rank_summary' && sqlite3 one/monitor_data.trend.db \"$q\" > one.txt && "
             "sqlite3 one/monitor_data.trend.db \"$q ORDER BY 1, 2, 3, 4, 5\" > key.txt && test -s one.txt && "
             "cmp -s one.txt key.txt && test $(cut -d'|' -f1 one.txt | sort -u | wc -l) = 2 && "
             "for k in 1 2 4; do sqlite3 t$k/monitor_data.trend.db \"$q\" > t$k.txt && cmp -s one.txt t$k.txt && "
             "test \"$(sqlite3 t$k/monitor_data.trend.db 'PRAGMA integrity_check')\" = ok || exit 1; done",
             t);
    CHECK_INT(system(cmd), 0);
}

/* A rank bigger than the sort's budget (PROBETOP_SORT_BYTES) is sorted in
 * runs merged from a file (tdb_runs): the same file, byte for byte, as
 * sorted in memory; with duplicate keys (a step in two files: the first
 * read wins), NaNs, the summary in many windows, and --micro_step.  On 1,
 * 2 and 4 threads: a rank read back and sorted by a summary job beside
 * the writer (tdb_monprep's two sets) gives the same bytes; with 140000
 * bytes ranks 3 and 9 fit and the others go in runs, so both sets change
 * from one way to the other. */
static void sorted_in_runs(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("mon_stream_runs");
    char tree[1100], dir[1200], cmd[4096];
    snprintf(tree, sizeof tree, "%s/tree", t);
    const char *py = getenv("PT_PYTHON");
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --monitor --out '%s' --steps 6 --ranks 10 --layers 2 --micro-batches 2 "
             "--nan 1:9:mlp --nan 4:3:attention --quiet >/dev/null 2>&1 && cd '%s' && d=$(ls -d */ | head -1) && "
             "sed 's/,0\\.0,/,9.5,/' ${d}actv_1-1.csv > ${d}actv_5-50.csv",
             py && *py ? py : "python3", pt_shared(), tree, tree);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    static const char *const budget[] = {NULL, "65536", "2000", "140000"}, *const threads[] = {"1", "2", "4"};
    for (int micro = 0; micro < 2; micro++)
        for (int b = 0; b < 4 * 3; b++) {
            if (budget[b % 4]) setenv("PROBETOP_SORT_BYTES", budget[b % 4], 1);
            setenv("PROBETOP_THREADS", threads[b / 4], 1);
            snprintf(dir, sizeof dir, "%s/m%d_b%d", t, micro, b);
            mkdir(dir, 0777);
            struct load_opts lo;
            load_opts_init(&lo);
            lo.micro_step = micro;
            struct dataset *ds = calloc(1, sizeof *ds);
            struct tdb_result res;
            struct pt_error err;
            setenv("PROBETOP_SUMMARY_WINDOW", "50", 1);
            CHECK_INT(trenddb_write_monitor(tree, dir, &lo, ds, &res, &err), 0);
            unsetenv("PROBETOP_SUMMARY_WINDOW");
            unsetenv("PROBETOP_SORT_BYTES");
            unsetenv("PROBETOP_THREADS");
            dataset_free(ds);
        }
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for m in 0 1; do for b in $(seq 11); do test -s m${m}_b0/monitor_data.trend.db && "
             "cmp -s m${m}_b0/monitor_data.trend.db m${m}_b$b/monitor_data.trend.db || exit 1; done; done",
             t);
    CHECK_INT(system(cmd), 0);
}

/* monitor_steps_file (one pass over the rows and their runs of one step)
 * against its definition worked out row by row here: the step range, the
 * notensor rows, the first micro step over CUBE_MAX_STEPS, and (micro) the
 * distinct steps sorted with 1 + their highest micro step (0 at least):
 * random files of interleaved steps and runs, micro steps -2..6. */
static void steps_file_random(void) {
    unsigned seed = 12345;
    struct monitor_row rows[300];
    for (int it = 0; it < 400; it++) {
        size_t n = (size_t)(it % 50 == 0 ? 0 : (seed = seed * 1103515245u + 12345u) >> 16) % 300;
        int nsteps = 1 + it % 7, run = 1 + it % 13;
        int32_t step = 0;
        for (size_t r = 0; r < n; r++) {
            seed = seed * 1103515245u + 12345u;
            if (r % (size_t)run == 0) step = (int32_t)((seed >> 8) % (unsigned)nsteps) * (it % 3 ? 1 : -5);
            rows[r] = (struct monitor_row){.step = step, .micro = (int32_t)((seed >> 20) % 9) - 2,
                                           .present = (seed >> 4) % 5 ? 0 : MONITOR_ROW_NOTENSOR};
            if (it % 9 == 4 && r == n / 2) rows[r].micro = CUBE_MAX_STEPS + (int32_t)(seed % 3);
        }
        struct monitor_file f = {.rows = rows, .nrows = n};
        for (int micro = 0; micro < 2; micro++) {
            struct monitor_steps_file sf;
            CHECK_INT(monitor_steps_file(&f, micro, &sf), 0);
            int32_t lo = 0, hi = 0, bstep = 0, bmicro = 0;
            size_t nt = 0;
            int bad = 0;
            for (size_t r = 0; r < n; r++) {
                if (!r || rows[r].step < lo) lo = rows[r].step;
                if (!r || rows[r].step > hi) hi = rows[r].step;
                nt += (rows[r].present & MONITOR_ROW_NOTENSOR) != 0;
                if (micro && !bad && rows[r].micro >= CUBE_MAX_STEPS) bad = 1, bstep = rows[r].step, bmicro = rows[r].micro;
            }
            CHECK_INT(sf.any, n > 0);
            if (n) {
                CHECK_INT(sf.min, lo);
                CHECK_INT(sf.max, hi);
            }
            CHECK_INT(sf.notensor, nt);
            CHECK_INT(sf.bad, bad);
            if (bad) {
                CHECK_INT(sf.bad_step, bstep);
                CHECK_INT(sf.bad_micro, bmicro);
            }
            if (!micro || bad || !n) {
                CHECK(sf.step == NULL && sf.count == NULL && sf.n == 0);
            } else {
                size_t k = 0;   /* the distinct steps: each step from -30 to 30 looked for */
                for (int32_t st = -30; st <= 30; st++) {
                    int32_t top = 0;
                    int seen = 0;
                    for (size_t r = 0; r < n; r++)
                        if (rows[r].step == st) {
                            seen = 1;
                            if (rows[r].micro + 1 > top) top = rows[r].micro + 1;
                        }
                    if (!seen) continue;
                    CHECK(k < sf.n);
                    if (k < sf.n) {
                        CHECK_INT(sf.step[k], st);
                        CHECK_INT(sf.count[k], top);
                    }
                    k++;
                }
                CHECK_INT(sf.n, k);
            }
            free(sf.step);
            free(sf.count);
        }
    }
}

int main(void) {
    RUN(streamed_read);
    RUN(summary_windows);
    RUN(summary_threads);
    RUN(summary_split);
    RUN(sorted_in_runs);
    RUN(steps_file_random);
    PT_DONE();
}
