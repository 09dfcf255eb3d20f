/* btree_bulk: a WITHOUT ROWID table's B-tree built bottom-up from records
 * given in key order, written into the database file SQLite wrote
 * (the SQLite file format: https://sqlite.org/fileformat2.html, "B-tree
 * Pages").  data2db's trend_data gets millions of rows in key order: built
 * this way each row costs its encoding, where an INSERT costs a statement
 * step, a seek and a record comparison (probetop-formats(5), TREND.DB).
 *
 * The pages go straight into the database file, each once, at its final
 * place after the pages SQLite wrote (which must write nothing meanwhile:
 * tdb.c's tdb_bulk_add); btree_bulk_finish puts the tree's top into the
 * table's root page (an empty leaf SQLite made with CREATE TABLE) and the
 * page count into the header.  From the first full megabyte of pages on,
 * the pages are written by a thread of the tree's own, a megabyte behind
 * the caller's (its pwrite's copy beside the next pages' making); a write
 * that failed there is told by a later btree_bulk_add or by _finish. */
#ifndef PT_BTREE_BULK_H
#define PT_BTREE_BULK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/err.h"

struct btree_bulk;

/* page_size: the database's (512..65536, a power of two; no reserved bytes). */
int btree_bulk_open(struct btree_bulk **out, int page_size, struct pt_error *err);
/* The same for a rowid table's B-tree (an intkey tree: its root an empty
 * table leaf): rows go in by btree_bulk_add_row, never btree_bulk_add. */
int btree_bulk_open_intkey(struct btree_bulk **out, int page_size, struct pt_error *err);
/* The pages into fd (a database file SQLite wrote, now left alone; b's
 * from now on, closed by btree_bulk_finish or _free; path: its name in
 * messages) from its end on; root: the table's root page (1-based).  -1
 * with err (fd closed) when the file is not the plain kind this knows how
 * to grow or root not an empty leaf. */
int btree_bulk_start(struct btree_bulk *b, int fd, const char *path, int64_t root, struct pt_error *err);
/* Started and not finished? */
int btree_bulk_started(const struct btree_bulk *b);
/* One record (SQLite's record format), greater than the one before (b started). */
int btree_bulk_add(struct btree_bulk *b, const unsigned char *rec, size_t len);
/* ---- btree_bulk_place, inline: a call and its tests cost a dump row
 * as much as the cell's own making (14.6 M instructions at 134 MB,
 * callgrind), so its state is here, read by no one else ---- */

#define BTREE_BULK_LEVELS 16   /* 16 levels of >= 2 children: far beyond any file */

/* A page being filled (btree_bulk.c's). */
struct btree_bulk_page {
    unsigned char *p;
    int interior, intkey, ncells, content;   /* intkey: a rowid table's page; content: start of the cell content area */
    int hw, lw;                      /* the most the cell pointers and the cells ever took since page_init,
                                      * as of the last page_mark (cells only come in between a page_init and
                                      * a page_take_last, so the most is reached where those begin) */
};

/* The first member of struct btree_bulk (btree_bulk.c): what
 * btree_bulk_place tests and changes. */
struct btree_bulk_head {
    struct btree_bulk_page lv[BTREE_BULK_LEVELS];    /* lv[0]: the open leaf; lv[k]: the open page k levels up */
    int fd;                          /* the database file (btree_bulk_start; -1: not started) */
    int intkey;                      /* a rowid table (btree_bulk_open_intkey) */
    int failed;                      /* a write failed or the tree got too deep */
};

/* An index leaf's cell (its length, 1 or 2 varint bytes, then room for
 * the record of len <= 900 bytes) placed in leaf, as btree_bulk.c's
 * cell_of and page_put would place it: where the record goes, or NULL
 * when the leaf has no room. */
static inline unsigned char *btree_bulk_leaf_place(struct btree_bulk_page *leaf, size_t len) {
    size_t vl = len < 0x80 ? 1 : 2, cs = vl + len;
    if (8L + 2L * (leaf->ncells + 1) + (long)cs > (long)leaf->content) return NULL;   /* page_fits: a leaf's header is 8 bytes */
    leaf->content -= (int)cs;
    unsigned char *c = leaf->p + leaf->content, *ptr = leaf->p + 8 + 2 * leaf->ncells;
    if (vl == 1) c[0] = (unsigned char)len;
    else c[0] = (unsigned char)(0x80 | len >> 7), c[1] = (unsigned char)(len & 0x7f);
    ptr[0] = (unsigned char)(leaf->content >> 8), ptr[1] = (unsigned char)leaf->content;   /* its pointer */
    leaf->ncells++;
    return c + vl;
}

/* The same as btree_bulk_add for a record of len bytes that the caller
 * writes itself, straight into the open leaf (no copy of it made first):
 * where its len bytes go (written next, every byte, before anything else
 * is done with b), or NULL when the leaf has no room left for it, or b
 * takes no records (not started, failed, a rowid table's): then
 * btree_bulk_add it, which closes the leaf, and so on. */
static inline unsigned char *btree_bulk_place(struct btree_bulk *b, size_t len) {
    struct btree_bulk_head *h = (struct btree_bulk_head *)(void *)b;   /* its first member */
    if (h->failed | (h->fd < 0) | h->intkey | (len > 900)) return NULL;
    return btree_bulk_leaf_place(&h->lv[0], len);
}
/* One row of a rowid table (b from btree_bulk_open_intkey, started): its
 * rowid, greater than the one before, and its record (at most the page
 * size - 35 bytes, kept whole in the leaf). */
int btree_bulk_add_row(struct btree_bulk *b, int64_t rowid, const unsigned char *rec, size_t len);
/* The last pages written, the top into the root page, the page count and
 * a new file change counter into the header (a connection that kept pages
 * of the file reads them again); fd closed.  0 (also when never started:
 * the table stays SQLite's empty leaf), or -1 with err. */
int btree_bulk_finish(struct btree_bulk *b, struct pt_error *err);
void btree_bulk_free(struct btree_bulk *b);

/* A record of ncols columns: ints (is_int) or doubles (present: else
 * NULL), into out (room for 9 + 9 * ncols bytes); returns its length. */
size_t btree_bulk_record(unsigned char *out, int ncols, const int64_t *ival, const double *dval, const uint8_t *kind);
enum { BTREE_BULK_NULL, BTREE_BULK_INT, BTREE_BULK_REAL, BTREE_BULK_TEXT };
/* The same with TEXT columns too (kind BTREE_BULK_TEXT: text[c], of
 * ival[c] bytes; no REAL), ncols <= 8, into out (room for 9 + 9 * ncols
 * bytes and the texts'); returns its length. */
size_t btree_bulk_record_text(unsigned char *out, int ncols, const int64_t *ival, const char *const *text,
                              const uint8_t *kind);

/* ---- a record's values, for writers that encode their own rows ---- */

/* An integer column's serial type (1..6) and its byte count, SQLite's
 * smallest: a = v, or ~v for v < 0, against the top of each width. */
static inline int btree_bulk_int_type(int64_t v, int *bytes) {
    uint64_t a = (uint64_t)(v < 0 ? ~v : v);
    if (a < 0x80) { *bytes = 1; return 1; }
    if (a < 0x8000) { *bytes = 2; return 2; }
    if (a < 0x800000) { *bytes = 3; return 3; }
    if (a < 0x80000000u) { *bytes = 4; return 4; }
    if (a < (uint64_t)1 << 47) { *bytes = 6; return 5; }
    *bytes = 8;
    return 6;
}

/* v's low n bytes (1..8) at p, most significant first; on a
 * little-endian machine as one 8-byte store of the byte-swapped value
 * (the bytes past n are the next column's, or the slack the caller's
 * 9 + 9 * ncols bytes leave past the record's 1 + 9 * ncols). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
static inline void btree_bulk_put_be(unsigned char *p, uint64_t v, int n) {
    uint64_t u = __builtin_bswap64(n == 8 ? v : v << (64 - 8 * n));
    memcpy(p, &u, 8);
}
#else
/* v's low n bytes (1..8), most significant first: fixed stores a
 * compiler merges into one byte swap and store. */
static inline void btree_bulk_put_be(unsigned char *p, uint64_t v, int n) {
    switch (n) {
    case 8:
        p[0] = (unsigned char)(v >> 56);
        p[1] = (unsigned char)(v >> 48);
        p[2] = (unsigned char)(v >> 40);
        p[3] = (unsigned char)(v >> 32);
        p[4] = (unsigned char)(v >> 24);
        p[5] = (unsigned char)(v >> 16);
        p[6] = (unsigned char)(v >> 8);
        p[7] = (unsigned char)v;
        return;
    case 6:
        p[0] = (unsigned char)(v >> 40);
        p[1] = (unsigned char)(v >> 32);
        p += 2;
        /* fall through */
    case 4:
        p[0] = (unsigned char)(v >> 24);
        p[1] = (unsigned char)(v >> 16);
        p[2] = (unsigned char)(v >> 8);
        p[3] = (unsigned char)v;
        return;
    case 3:
        p[0] = (unsigned char)(v >> 16);
        p++;
        /* fall through */
    case 2:
        p[0] = (unsigned char)(v >> 8);
        p++;
        /* fall through */
    default:
        p[0] = (unsigned char)v;
    }
}
#endif

/* An int column's value at *w (its serial type returned, *w past it). */
static inline unsigned char btree_bulk_put_int(unsigned char **w, int64_t v) {
    if ((uint64_t)v + 0x80 < 0x100) {   /* -128..127: btree_bulk_int_type's first, the commonest */
        *(*w)++ = (unsigned char)v;
        return 1;
    }
    int bytes, t = btree_bulk_int_type(v, &bytes);
    btree_bulk_put_be(*w, (uint64_t)v, bytes);
    *w += bytes;
    return (unsigned char)t;
}

/* A REAL column's value at w (type 7).  SQLite keeps a REAL column's whole
 * numbers as integers, so a -0.0 it was given reads back as 0.0: the same
 * here (u << 1: 0 for either zero, not for a NaN, as d != 0) */
static inline void btree_bulk_put_real(unsigned char *w, double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    u = u << 1 ? u : 0;
    btree_bulk_put_be(w, u, 8);
}

/* The same bytes for a row of nint ints (its keys), then nreal columns
 * (nreal <= BTREE_BULK_IR_MAX) each a double or NULL, made as a reader
 * meets the values, without a kind per column: btree_bulk_ir_keys writes
 * the header (every column NULL) and the ints, and returns where the
 * first double goes; btree_bulk_ir_real puts column c's there (columns
 * ascending) and returns past it; the record ends at the last pointer.
 * out: room for 9 + 9 * (nint + nreal) bytes and for 1 + nint +
 * BTREE_BULK_IR_MAX (the NULLs are one store of a fixed size). */
enum { BTREE_BULK_IR_MAX = 16 };
static inline unsigned char *btree_bulk_ir_keys(unsigned char *out, int nint, const int64_t *ival, int nreal) {
    unsigned char *o = out + 1 + nint + nreal;
    memset(out + 1 + nint, 0, BTREE_BULK_IR_MAX);   /* the keys written next overwrite what is past the header */
    for (int c = 0; c < nint; c++) out[1 + c] = btree_bulk_put_int(&o, ival[c]);
    out[0] = (unsigned char)(1 + nint + nreal);   /* header size: itself and one byte per type (all < 128) */
    return o;
}

static inline unsigned char *btree_bulk_ir_real(unsigned char *out, int nint, unsigned char *o, int c, double v) {
    btree_bulk_put_real(o, v);
    out[1 + nint + c] = 7;
    return o + 8;
}

#endif
