/* read_trenddb: msProbe .trend.db files (either kind), opened read-only,
 * into the cube (probetop-formats(5), TREND.DB). */
#ifndef PT_READ_TRENDDB_H
#define PT_READ_TRENDDB_H

#include "model/cube/dataset.h"
#include "model/err.h"

/* A folder holding at least one *.trend.db file. */
int trenddb_detect_dir(const char *path);
/* path: a .trend.db file, or a folder of them (opens o->db_name, else the
 * first by name; ds->dbfiles lists them all). */
int trenddb_load(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err);

#endif
