/* sqlite_ro: the one way an input SQLite file (.trend.db, .vis.db) is
 * opened.  Read-only and immutable, so that nothing is ever created beside
 * it: even a read-only connection to a WAL-mode database (msProbe writes its
 * .vis.db that way) makes NAME-shm and NAME-wal files in the user's folder,
 * and a rollback-journal database can get a hot-journal rollback.  An input
 * is a finished file: probetop never waits for a writer, and refuses a
 * database with a rollback journal beside it (a write transaction under
 * way, or a writer that died in one), whose pages may be half-written. */
#ifndef PT_SQLITE_RO_H
#define PT_SQLITE_RO_H

#include <sqlite3.h>

#include "model/err.h"

/* Opens path (any bytes in its name) read-only and immutable and checks
 * that it reads as an SQLite database.  0 with *db set (close with
 * sqlite3_close), or -1 with err naming the file and the reason. */
int sqlite_ro_open(const char *path, sqlite3 **db, struct pt_error *err);

#endif
