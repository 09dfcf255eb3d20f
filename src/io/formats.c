/* formats: the reader table (see formats.h for what a row must provide).
 * Each row is defined in its reader's file; this file only lists them. */
#include "src/io/formats.h"

#include <stdio.h>
#include <string.h>

extern const struct formats_row formats_row_dump;      /* read_dump_cube.c */
extern const struct formats_row formats_row_monitor;   /* monitor/monitor_rows.c */
extern const struct formats_row formats_row_monitor_v2;   /* read_monitor_v2.c */
extern const struct formats_row formats_row_trenddb;   /* read_trenddb.c */
extern const struct formats_row formats_row_anomaly;   /* monitor/monitor_rows.c */
extern const struct formats_row formats_row_trace_shard;   /* trace/read_shard.c */
extern const struct formats_row formats_row_trace;     /* read_trace.c */
extern const struct formats_row formats_row_ascend_step;      /* read_steptrace.c */
extern const struct formats_row formats_row_ascend_cluster;   /* read_steptrace.c */
extern const struct formats_row formats_row_tfevents;   /* curves/read_tfevents.c */
extern const struct formats_row formats_row_curve_table;      /* curves/read_curve_table.c */
extern const struct formats_row formats_row_log;       /* curves/read_log.c */

/* Order matters only for ties in detection: a folder that is both a dump
 * and a monitor tree opens as a dump, as msProbe's data2db looks for a
 * dump first. */
const struct formats_row *const formats_rows[] = {
    &formats_row_dump,
    &formats_row_monitor,
    &formats_row_monitor_v2,
    &formats_row_trenddb,
    &formats_row_anomaly,
    &formats_row_trace_shard,
    &formats_row_trace,
    &formats_row_ascend_step,
    &formats_row_ascend_cluster,
    &formats_row_tfevents,
    &formats_row_curve_table,
    &formats_row_log,
};
const size_t formats_nrows = sizeof formats_rows / sizeof *formats_rows;

const struct formats_row *formats_find(const char *name) {
    for (size_t i = 0; i < formats_nrows; i++)
        if (!strcmp(formats_rows[i]->name, name)) return formats_rows[i];
    return NULL;
}

int formats_parse(const char *s, const struct formats_row **out) {
    if (!strcmp(s, "auto")) {
        *out = NULL;
        return 0;
    }
    const struct formats_row *f = formats_find(s);
    if (!f) return -1;
    *out = f;
    return 0;
}

const char *formats_name(const struct formats_row *f) { return f ? f->name : "auto"; }

const struct formats_row *formats_detect(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) return NULL;
    const struct formats_row *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < formats_nrows; i++) {
        int s = formats_rows[i]->detect(path, &st);
        if (s > best_score) {
            best = formats_rows[i];
            best_score = s;
        }
        /* 100 is sure (formats.h) and earlier rows win ties: no later row
         * can win, so none is asked (the trace and tfevents rows' walks
         * stat every file of a big folder) */
        if (best_score >= 100) break;
    }
    return best;
}

/* "x", "x or y", "x, y or z" of the chosen rows' field. */
static char *join(char *buf, size_t size, int data2db_only, int what, const char *prefix) {
    size_t n = 0, k = 0, len = 0;
    for (size_t i = 0; i < formats_nrows; i++) n += !data2db_only || formats_rows[i]->write_trenddb;
    buf[0] = '\0';
    for (size_t i = 0; i < formats_nrows; i++) {
        const struct formats_row *f = formats_rows[i];
        if (data2db_only && !f->write_trenddb) continue;
        const char *sep = k == 0 ? "" : k + 1 == n ? " or " : ", ";
        int w = snprintf(buf + len, size - len, "%s%s%s", sep, prefix, what ? f->what : f->name);
        if (w < 0 || (size_t)w >= size - len) break;   /* cut short: still a terminated string */
        len += (size_t)w;
        k++;
    }
    return buf;
}

char *formats_names(char *buf, size_t size, int data2db_only) { return join(buf, size, data2db_only, 0, ""); }

char *formats_whats(char *buf, size_t size, int data2db_only, int article) {
    return join(buf, size, data2db_only, 1, article ? "a " : "");
}
