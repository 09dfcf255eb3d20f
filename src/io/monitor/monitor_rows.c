/* monitor_rows: the reader-table rows (src/io/formats.h) of the monitor
 * family that lean on other files: monitor v1 trees, whose data2db hook is
 * the .trend.db writer's (which itself reads the tree through
 * read_monitor.c), and msProbe's anomaly reports opened alone, which load
 * the monitor tree around them through that tree's row.  Kept out of the
 * readers so that no reader and the writer, or two readers, call each
 * other (tests/cycles.sh). */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/util/fs.h"
#include "src/io/formats.h"
#include "src/io/load.h"
#include "src/io/monitor/read_anomaly.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/monitor/read_monitor_v2.h"
#include "src/io/trenddb/write_trenddb.h"

/* ---- monitor v1 trees ---- */

static int detect_monitor(const char *path, const struct stat *st) {
    return S_ISDIR(st->st_mode) && monitor_detect(path) ? 100 : 0;
}

const struct formats_row formats_row_monitor = {
    .name = "monitor",
    .what = "monitor folder (*-rank*-*/ with CSV files)",
    .detect = detect_monitor,
    .load = monitor_load,
    .write_trenddb = trenddb_write_monitor,
    .labels = LABELS_MONITOR,
};

/* ---- anomaly reports opened alone ---- */

/* A folder holding <sub>/anomaly.json or anomaly_analyse.json. */
static int is_report_folder(const char *path) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", path, ANALYSE_JSON);
    if (fs_is_file(p)) return 1;
    size_t n;
    char **names = fs_list_dir(path, 0, &n);
    int found = 0;
    for (size_t i = 0; names && i < n && !found; i++) {
        snprintf(p, sizeof p, "%s/%s/%s", path, names[i], ANOMALY_JSON);
        found = fs_is_file(p);
    }
    if (names) fs_free_list(names, n);
    return found;
}

static int detect_anomaly(const char *path, const struct stat *st) {
    if (S_ISREG(st->st_mode)) return fs_base_is(path, ANOMALY_JSON) || fs_base_is(path, ANALYSE_JSON) ? 100 : 0;
    /* a folder: only when no other row claims it (a monitor tree with its
     * anomaly_detected beside the rank folders is the monitor row's) */
    return S_ISDIR(st->st_mode) && is_report_folder(path) ? 50 : 0;
}

/* The row of the monitor tree (v1 or monitor_v2) at path, the one that
 * detects it with the higher score (as formats_detect() would choose
 * between them), or NULL.  Reports belong to monitor trees only. */
static const struct formats_row *monitor_tree_row(const char *path) {
    static const struct formats_row *const trees[] = {&formats_row_monitor, &formats_row_monitor_v2};
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    const struct formats_row *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        int score = trees[i]->detect(path, &st);
        if (score > best_score) {
            best = trees[i];
            best_score = score;
        }
    }
    return best;
}

/* The monitor tree the reports at path belong to: the folder above
 * anomaly_detected (rank folder's anomaly.json: two more up; an
 * anomaly_analyse.json: its folder's parent, or its folder).  The row that
 * reads it, or NULL. */
static const struct formats_row *find_tree(const char *path, char *tree, size_t n) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return NULL;
    int ups = fs_is_dir(real) ? 1 : fs_base_is(real, ANOMALY_JSON) ? 3 : 2;
    for (int tries = 0; tries < 2; tries++, ups--) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", real);
        for (int i = 0; i < ups; i++) {
            char *s = strrchr(tmp, '/');
            if (!s || s == tmp) return NULL;
            *s = '\0';
        }
        const struct formats_row *f = monitor_tree_row(tmp);
        if (f) {
            snprintf(tree, n, "%s", tmp);
            return f;
        }
        if (fs_is_dir(real) || fs_base_is(real, ANOMALY_JSON)) break;   /* only the analyser's -o is free */
    }
    return NULL;
}

/* No monitor tree: an empty cube, the list alone. */
static int empty_cube(struct dataset *ds, struct pt_error *err) {
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) return pt_errorf(err, "out of memory");
    int rc = cube_builder_finish(b, &ds->cube, err);
    cube_builder_free(b);
    return rc;
}

static int load_anomaly(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct anomaly_list l = {0};
    /* the tree's reader looks at o->cancel in its own walk; the reports
     * (a file a rank) are read before it (formats.h: o->cancel) */
    if (o->cancel && atomic_load(o->cancel)) return pt_errorf(err, "cancelled");
    if (anomaly_read_path(path, &l, ds, err) != 0) {
        anomaly_list_free(&l);
        return -1;
    }
    char tree[PATH_MAX];
    const struct formats_row *f = find_tree(path, tree, sizeof tree);
    int rc;
    if (f) {
        ds->labels = f->labels;
        rc = f->load(tree, o, ds, err);   /* the tree, with its own reports: replaced by those opened */
    } else {
        dataset_warn(ds, "%s: no monitor tree around these anomaly reports: the list alone, no heat map", path);
        rc = empty_cube(ds, err);
    }
    if (rc != 0) {
        anomaly_list_free(&l);
        return -1;
    }
    if (!l.n && !ds->anomalies.n && !ds->nwarnings)
        dataset_warn(ds, "%s: no anomaly entry in the reports", path);
    ds->files_read -= ds->files_read >= ds->anomalies.nfiles ? ds->anomalies.nfiles : 0;   /* the tree's own, replaced */
    anomaly_list_free(&ds->anomalies);
    ds->anomalies = l;
    anomaly_sort(&ds->anomalies);
    return anomaly_place(&ds->anomalies, ds->cube, err);
}

const struct formats_row formats_row_anomaly = {
    .name = "anomaly",
    .what = "monitor anomaly report (anomaly_detected/, anomaly.json, anomaly_analyse.json)",
    .detect = detect_anomaly,
    .load = load_anomaly,
    .write_trenddb = NULL,
    .labels = LABELS_MONITOR,
};
