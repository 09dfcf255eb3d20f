/* formats: the reader table (see formats.h for what a row must provide).
 * Each row is defined in its reader's file; this file only lists them. */
#include "src/io/formats.h"

#include <stdio.h>
#include <string.h>

extern const struct ds_format_ops ds_format_dump;      /* read_dump_cube.c */
extern const struct ds_format_ops ds_format_monitor;   /* read_monitor.c */
extern const struct ds_format_ops ds_format_monitor_v2;   /* read_monitor_v2.c */
extern const struct ds_format_ops ds_format_trenddb;   /* read_trenddb.c */
extern const struct ds_format_ops ds_format_anomaly;   /* read_anomaly.c */
extern const struct ds_format_ops ds_format_trace;     /* read_trace.c */
extern const struct ds_format_ops ds_format_ascend_step;      /* read_steptrace.c */
extern const struct ds_format_ops ds_format_ascend_cluster;   /* read_steptrace.c */

/* Order matters only for ties in detection: a folder that is both a dump
 * and a monitor tree opens as a dump, as msProbe's data2db looks for a
 * dump first. */
const struct ds_format_ops *const ds_formats[] = {
    &ds_format_dump,
    &ds_format_monitor,
    &ds_format_monitor_v2,
    &ds_format_trenddb,
    &ds_format_anomaly,
    &ds_format_trace,
    &ds_format_ascend_step,
    &ds_format_ascend_cluster,
};
const size_t ds_nformats = sizeof ds_formats / sizeof *ds_formats;

const struct ds_format_ops *ds_format_find(const char *name) {
    for (size_t i = 0; i < ds_nformats; i++)
        if (!strcmp(ds_formats[i]->name, name)) return ds_formats[i];
    return NULL;
}

int ds_format_parse(const char *s, const struct ds_format_ops **out) {
    if (!strcmp(s, "auto")) {
        *out = NULL;
        return 0;
    }
    const struct ds_format_ops *f = ds_format_find(s);
    if (!f) return -1;
    *out = f;
    return 0;
}

const char *ds_format_name(const struct ds_format_ops *f) { return f ? f->name : "auto"; }

const struct ds_format_ops *ds_format_detect(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) return NULL;
    const struct ds_format_ops *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < ds_nformats; i++) {
        int s = ds_formats[i]->detect(path, &st);
        if (s > best_score) {
            best = ds_formats[i];
            best_score = s;
        }
    }
    return best;
}

/* "x", "x or y", "x, y or z" of the chosen rows' field. */
static char *join(char *buf, size_t size, int data2db_only, int what, const char *prefix) {
    size_t n = 0, k = 0, len = 0;
    for (size_t i = 0; i < ds_nformats; i++) n += !data2db_only || ds_formats[i]->write_trenddb;
    buf[0] = '\0';
    for (size_t i = 0; i < ds_nformats; i++) {
        const struct ds_format_ops *f = ds_formats[i];
        if (data2db_only && !f->write_trenddb) continue;
        const char *sep = k == 0 ? "" : k + 1 == n ? " or " : ", ";
        int w = snprintf(buf + len, size - len, "%s%s%s", sep, prefix, what ? f->what : f->name);
        if (w < 0 || (size_t)w >= size - len) break;   /* cut short: still a terminated string */
        len += (size_t)w;
        k++;
    }
    return buf;
}

char *ds_format_names(char *buf, size_t size, int data2db_only) { return join(buf, size, data2db_only, 0, ""); }

char *ds_format_whats(char *buf, size_t size, int data2db_only, int article) {
    return join(buf, size, data2db_only, 1, article ? "a " : "");
}
