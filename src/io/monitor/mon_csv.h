/* mon_csv: the per-row work of the monitor CSV readers (read_monitor.c,
 * read_monitor_v2.c), in place and in one pass:
 *
 *  - mon_csv_record splits a v1 record (quoted fields with "" escapes and
 *    line ends inside quotes, as msProbe's pandas reads them) by writing
 *    each field NUL-terminated over its own bytes: no copy of the row.  The
 *    bytes that end or quote a field (',' '\n' '\r' '"') are found 64 at a
 *    time (SSE2 on x86-64, a byte loop elsewhere), each block once for all
 *    the fields and records in it;
 *  - mon_csv_number reads the numbers msProbe writes ("0.0123456",
 *    "1.2e-05", "-3") with a tight digit loop (a long fraction, as
 *    monitor_v2's Python reprs, 8 digits at a time) and hands the significand and
 *    exponent to decfloat_to_double, the exact core decfloat_parse uses:
 *    the same double bit for bit (and strtod's); anything else (NA tokens,
 *    more than 19 significant digits, an undecided rounding) is left to the
 *    caller's general path.
 *
 *  - mon_csv_intern interns a row's name, most often without hashing it.
 *
 * tests/fuzz/fuzz_moncsv.c checks the first two against the former copying splitter
 * and against decfloat_parse and strtod, with each scan variant. */
#ifndef PT_MON_CSV_H
#define PT_MON_CSV_H

#include <stddef.h>
#include <stdint.h>

enum { MON_CSV_PORTABLE = 0, MON_CSV_SSE2 = 1 };

/* A scan over buf[0, len): buf[len] must be writable (the readers' buffers
 * hold a NUL there), a field ending at len is terminated there. */
struct mon_csv {
    char *p, *end;
    const char *base;   /* the block whose stops mask holds */
    uint64_t mask;
    int scan;           /* MON_CSV_PORTABLE or MON_CSV_SSE2 */
};

/* The best scan this build and processor have. */
int mon_csv_best(void);
void mon_csv_init(struct mon_csv *sc, char *buf, size_t len, int scan);

/* The record at sc->p: its fields NUL-terminated in place, the first maxf
 * of them in f[] (and their lengths in fl[]); sc->p moves past its line end
 * ("\n", "\r\n" or a lone "\r").  The number of fields (counting those past
 * maxf), or -1 for a quote not closed before the end. */
int mon_csv_record(struct mon_csv *sc, char **f, size_t *fl, int maxf);

/* The fast path of a record whose cells are all plain (mon_csv_record
 * stays the reader of the rest): ncols fields, the last ended by "\n"
 * or "\r\n" (monitor_v2's Python csv writes the latter),
 * each of kind[c]:
 *  - MON_CSV_INT: 1 to 9 digits, into cell[c].i (monitor_int_cell_n's
 *    own case);
 *  - MON_CSV_NUM: a number mon_csv_number_z reads, or else one that
 *    starts with a digit (after a '-') and decfloat_parse reads whole (at
 *    most 64 bytes, as the readers' general path), into cell[c].d, the
 *    same double; "nan" or an empty cell: NAN (as
 *    the readers' NA tokens);
 *  - MON_CSV_TEXT: a field without '"', or one whole quoted without '"'
 *    in it: its text at cell[c].s, cell[c].n bytes (not NUL-terminated).
 * The numbers are read where the scan stands, in one pass, without
 * splitting the fields first.  1 with sc->p past the record; 0 for any
 * other record (another field count, a '\r' but the line end's, a cell
 * of another shape),
 * sc->p left where it was: nothing is written to the bytes, so
 * mon_csv_record reads the record as if this had not been called. */
enum { MON_CSV_TEXT = 0, MON_CSV_INT = 1, MON_CSV_NUM = 2 };
struct mon_csv_cell {
    const char *s;
    size_t n;
    double d;
    int32_t i;
};
int mon_csv_fast(struct mon_csv *sc, const uint8_t *kind, int ncols, struct mon_csv_cell *cell);
/* The same for a monitor_v2 line (read_monitor_v2.c's plain path splits
 * it at every ',', quotes and all): a quoted cell is refused, a number's
 * fraction read 8 digits at a time (Python's reprs), and a MON_CSV_NUM
 * cell read as NAN has its length in cell[c].n (0: empty, 3: "nan"; a
 * number's cell.n is not set). */
int mon_csv_fast_v2(struct mon_csv *sc, const uint8_t *kind, int ncols, struct mon_csv_cell *cell);

/* A monitor_v2 line (never quoted): line[0, n) up to its first NUL (at
 * most at n, where there must be one) split at every ',' in place (each
 * written NUL), as a strchr loop would: the first max fields in f[] and
 * their lengths in len[]; the number of fields (counting those past max).
 * The commas and the NUL are found 16 bytes at a time (SSE2) or by the
 * byte loop (MON_CSV_PORTABLE). */
int mon_csv_split(char *line, size_t n, char **f, size_t *len, int max, int scan);

/* [s, s + n) as a plain decimal "[-]d+[.d*][(e|E)[+-]d+]" of at most 19
 * significant digits: 1 with *v (decfloat_parse's and strtod's double), or
 * 0 when it is not one or its rounding needs the general path. */
int mon_csv_number(const char *s, size_t n, double *v);
/* The same for a cell the splitter NUL-terminated (s[n] == 0), whose
 * digit loops then need no bound: the same result (s[n] not 0: as
 * mon_csv_number). */
int mon_csv_number_z(const char *s, size_t n, double *v);

/* Interning a file's row names: rows repeat their names in the same
 * order every step and micro step, so the name that followed the previous
 * row's name last time is tried first (its bytes compared whole) before
 * the pool's hash table.  The same ids as names_intern(pool, s, n, 0, 0). */
struct names;
struct mon_csv_names {
    uint32_t *next;   /* by id: the id of the row after it, last time (UINT32_MAX: none) */
    size_t cap;
    uint32_t prev;    /* the previous row's id (UINT32_MAX: none) */
    struct names *pool;   /* what a parse interns into (mon_cache_parse_fn): not owned */
};
/* The id, or UINT32_MAX (NAMES_NONE) without memory.  c starts zeroed but
 * for prev = UINT32_MAX (MON_CSV_NAMES_INIT); free with mon_csv_names_free.
 * c may live across files (mon_cache.c gives each parser thread one for
 * all its files, so that a tree's later files find their names by the
 * prediction): the ids are pool's whatever it predicts. */
#define MON_CSV_NAMES_INIT {NULL, 0, UINT32_MAX, NULL}
uint32_t mon_csv_intern(struct mon_csv_names *c, struct names *pool, const char *s, size_t n);
void mon_csv_names_free(struct mon_csv_names *c);

/* Counts by a key of two 64-bit words (a != UINT64_MAX): the rows of a
 * name, scope, vpp and step of a monitor_v2 file without a micro_step
 * column (their call order), with the name and scope as ids.  Starts
 * zeroed; free with mon_csv_counts_free. */
struct mon_csv_counts {
    uint64_t *keys;   /* two a slot; a == UINT64_MAX: empty */
    int32_t *vals;
    size_t cap, n;
};
/* The slot of (a, b), -1 when new (as util_smap_slot); NULL without memory. */
int32_t *mon_csv_count(struct mon_csv_counts *c, uint64_t a, uint64_t b);
void mon_csv_counts_free(struct mon_csv_counts *c);

#endif
