/* write_trenddb: `probetop data2db`'s writer of msProbe-compatible
 * dump_data.trend.db and monitor_data.trend.db files. */
#ifndef PT_WRITE_TRENDDB_H
#define PT_WRITE_TRENDDB_H

#include <stddef.h>
#include <stdint.h>

#include "model/dataset.h"
#include "model/err.h"

struct tdb_result {
    char path[4096];     /* the file written */
    size_t targets, rows;
    int32_t max_step, max_rank;
};

/* Reads the dump under data and writes outdir/dump_data.trend.db (replacing
 * it only when the new one is complete).  Warnings and skipped files go to
 * ds.  -1 with err when nothing could be written. */
int trenddb_write_dump(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                       struct tdb_result *res, struct pt_error *err);
/* The same for monitor CSV trees -> outdir/monitor_data.trend.db. */
int trenddb_write_monitor(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                          struct tdb_result *res, struct pt_error *err);

#endif
