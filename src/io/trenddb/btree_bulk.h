/* btree_bulk: a WITHOUT ROWID table's B-tree built bottom-up from records
 * given in key order, then spliced into the database file SQLite wrote
 * (the SQLite file format: https://sqlite.org/fileformat2.html, "B-tree
 * Pages").  data2db's trend_data gets millions of rows in key order: built
 * this way each row costs its encoding, where an INSERT costs a statement
 * step, a seek and a record comparison (probetop-formats(5), TREND.DB).
 *
 * The pages go to a scratch file beside the database while the rows come
 * (the database is still open in SQLite and growing); after SQLite closed
 * it, btree_bulk_splice appends them to the file, puts the tree's top into the
 * table's root page (an empty leaf SQLite made with CREATE TABLE) and sets
 * the page count in the header. */
#ifndef PT_BTREE_BULK_H
#define PT_BTREE_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"

struct btree_bulk;

/* scratch: the page file (created, removed by btree_bulk_free); page_size: the
 * database's (512..65536, a power of two; no reserved bytes). */
int btree_bulk_open(struct btree_bulk **out, const char *scratch, int page_size, struct pt_error *err);
/* One record (SQLite's record format), greater than the one before. */
int btree_bulk_add(struct btree_bulk *b, const unsigned char *rec, size_t len);
/* After the database at db_path was closed by SQLite: the tree into it,
 * its top in page root (1-based).  -1 with err when the file is not as
 * expected (then it is unchanged, or as SQLite left it). */
int btree_bulk_splice(struct btree_bulk *b, const char *db_path, int64_t root, struct pt_error *err);
void btree_bulk_free(struct btree_bulk *b);

/* A record of ncols columns: ints (is_int) or doubles (present: else
 * NULL), into out (room for 9 + 9 * ncols bytes); returns its length. */
size_t btree_bulk_record(unsigned char *out, int ncols, const int64_t *ival, const double *dval, const uint8_t *kind);
enum { BTREE_BULK_NULL, BTREE_BULK_INT, BTREE_BULK_REAL };

#endif
