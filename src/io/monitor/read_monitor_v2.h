/* read_monitor_v2: msProbe monitor_v2 CSV trees (probetop-formats(5),
 * MONITOR V2 CSV TREES).  The reader is a row of the reader table
 * (formats.c); this header gives tests and tools the one CSV's parse and
 * how its metrics map onto msProbe's v1 monitor metrics in a .trend.db. */
#ifndef PT_READ_MONITOR_V2_H
#define PT_READ_MONITOR_V2_H

#include <stddef.h>
#include <stdint.h>

struct dataset;
struct mapping;
struct monitor_data;

#define MONITOR_V2_MAX_METRICS 32   /* monitor_data's metric bits are 32-bit masks */

/* The metrics met so far ("slug/scope"); monitor_file.metric indexes them. */
struct monitor_v2_metrics {
    char name[MONITOR_V2_MAX_METRICS][128];
    int n;
};

/* One CSV's bytes (buf, len bytes, malloc'd, NUL-terminated; taken over
 * and freed) into md as rank's, of slug (0 module, 1 weight_grad,
 * 2 optimizer, 3 param, 4 cc; another value reads nothing), names with
 * map's replacements, its metrics added to mt; path names it in notes.
 * Bad rows and files are notes in ds; -1 only without memory.  The
 * file-free entry that tests/fuzz feeds directly. */
int monitor_v2_parse_csv(char *buf, size_t len, const char *path, int slug, int32_t rank, const struct mapping *map,
                         struct monitor_v2_metrics *mt, struct dataset *ds, struct monitor_data *md);

/* The v1 metric name ("actv", ...) a v2 metric ("module/forward", ...) is
 * written as by data2db; NULL when it has none. */
const char *monitor_v2_v1_metric(const char *v2);

/* The reader table's row (src/io/formats.h); the anomaly row
 * (monitor_rows.c) asks it whether a folder is a monitor_v2 tree. */
struct formats_row;
extern const struct formats_row formats_row_monitor_v2;

#endif
