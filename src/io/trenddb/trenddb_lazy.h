/* trenddb_lazy: a .trend.db opened lazily (probetop(1), --mem), the way
 * in read_trenddb.c takes when asked to. */
#ifndef PT_TRENDDB_LAZY_H
#define PT_TRENDDB_LAZY_H

#include <sqlite3.h>

#include "model/cube/dataset.h"
#include "model/err.h"
#include "src/io/common/sqlite_ro.h"

/* db and src (what it reads) are consumed.  0, 1 when the file changed
 * while it was read (read it again), or -1 with err. */
int trenddb_open_lazy(const char *file, sqlite3 *db, struct sqlite_ro_src *src, const struct load_opts *o,
                      struct dataset *ds, struct pt_error *err);

#endif
