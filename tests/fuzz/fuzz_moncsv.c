/* fuzz_moncsv: the monitor CSV readers' in-place splitter and fast number
 * path (src/io/monitor/mon_csv.h) against what they replaced, on the same
 * bytes.  Every record is split by mon_csv_record with each scan variant
 * (portable, SSE2) and by the former copying splitter (ref_record below,
 * read_monitor.c's csv_record before mon_csv, which cut a row at 64 kB:
 * here its buffer holds any); the field counts, the
 * fields' bytes and lengths and where each record ends must agree.  Every
 * field mon_csv_number takes must give decfloat_parse's double and
 * strtod's, bit for bit, and decfloat_parse must take the whole field;
 * monitor_int_cell_n must read every field as monitor_int_cell does.
 * Every field is interned by mon_csv_intern and by names_intern into a
 * pool of its own (the same ids; the input passed twice, as two files of
 * one parser thread, the predictions kept across them), and counted by mon_csv_count under
 * (its id, its column) and by a util_smap under the same pair as text
 * (the same counts).  Every line (to '\n', with its NULs) is split by
 * mon_csv_split, each scan variant, and by the monitor_v2 reader's former
 * strchr loop (ref_split): the same fields, lengths and bytes.  Before
 * each record, mon_csv_fast tries it with the kinds of the record before
 * (each field an INT, NUM or TEXT as it reads; every fourth record all
 * TEXT): when it takes the record, mon_csv_record must then split it into
 * as many fields, ending where the fast path did, each field the same
 * text (in place), integer or double (bit for bit; NaN for "nan" or an
 * empty cell); when it refuses, the scan and the bytes must be as they
 * were.  mon_csv_fast_v2 tries every line of an input without NULs the
 * same way against mon_csv_split and the monitor_v2 reader's reading of
 * numbers (check_fast_v2).  Any difference aborts. */
#include <math.h>
#include <stdio.h>

#include "fuzz.h"
#include "model/cube/names.h"
#include "model/util/util.h"
#include "src/io/common/decfloat.h"
#include "src/io/monitor/mon_csv.h"
#include "src/io/monitor/read_monitor.h"

#define MAXF 256

/* The former splitter (copies the fields into buf). */
static const char *ref_run_end(const char *p, const char *end) {
    while (p < end && *p != ',' && *p != '\n' && *p != '\r') p++;
    return p;
}

static int ref_record(const char **pp, const char *end, char *buf, size_t bufsize, size_t *starts, size_t *lens,
                      int maxf) {
    const char *p = *pp;
    size_t o = 0;
    int nf = 0;
    for (;;) {
        if (nf < maxf) starts[nf] = o;
        if (p < end && *p == '"') {
            p++;
            for (;;) {
                if (p >= end) return -1;
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') { if (o + 1 < bufsize) buf[o++] = '"'; p += 2; continue; }
                    p++;
                    break;
                }
                if (o + 1 < bufsize) buf[o++] = *p;
                p++;
            }
        }
        const char *s = p;
        p = ref_run_end(p, end);
        size_t k = (size_t)(p - s), room = o + 1 < bufsize ? bufsize - 1 - o : 0;
        if (k > room) k = room;
        memcpy(buf + o, s, k);
        o += k;
        if (nf < maxf) lens[nf] = o - starts[nf];
        if (o < bufsize) buf[o++] = '\0';
        nf++;
        if (p < end && *p == ',') { p++; continue; }
        if (p < end && *p == '\r') p++;
        if (p < end && *p == '\n') p++;
        break;
    }
    *pp = p;
    return nf;
}

/* read_monitor_v2.c's splitter before mon_csv_split. */
static int ref_split(char *line, char **f, size_t *len, int max) {
    int n = 0;
    for (char *p = line;;) {
        char *c = strchr(p, ',');
        if (n < max) {
            f[n] = p;
            len[n] = c ? (size_t)(c - p) : strlen(p);
        }
        n++;
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static void differ(const char *what, int scan, size_t rec, int field) {
    fprintf(stderr, "fuzz_moncsv: %s, scan %d, record %zu, field %d\n", what, scan, rec, field);
    abort();
}

/* mon_csv_number as it was, a digit at a time. */
static int ref_number(const char *s, size_t n, double *v) {
    const char *p = s, *e = s + n;
    int neg = 0;
    if (p < e && *p == '-') neg = 1, p++;
    if (p >= e || (unsigned)(*p - '0') > 9) return 0;
    uint64_t w = 0;
    int nd = 0, q = 0;
    while (p < e && *p == '0') p++;
    for (; p < e && (unsigned)(*p - '0') <= 9; p++, nd++) w = w * 10 + (uint64_t)(*p - '0');
    if (p < e && *p == '.') {
        p++;
        if (!w)
            for (; p < e && *p == '0'; p++) q--;
        for (; p < e && (unsigned)(*p - '0') <= 9; p++, nd++, q--) w = w * 10 + (uint64_t)(*p - '0');
    }
    if (nd > 19) return 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0, ex = 0, k = 0;
        if (p < e && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        for (; p < e && (unsigned)(*p - '0') <= 9 && k < 5; p++, k++) ex = ex * 10 + (*p - '0');
        if (!k || k == 5) return 0;
        q += eneg ? -ex : ex;
    }
    if (p != e) return 0;
    if (!w) {
        *v = neg ? -0.0 : 0.0;
        return 1;
    }
    return q >= -340 && q <= 320 && decfloat_to_double(w, q, neg, 0, v);
}

static void check_number(const char *s, size_t n, int scan, size_t rec, int field) {
    /* a vpp/step/micro_step cell: the inline read, the general one alike */
    int32_t ia = 0, ib = 0;
    int oka = monitor_int_cell_n(s, n, &ia), okb = monitor_int_cell(s, &ib);
    if (oka != okb || ia != ib) differ("monitor_int_cell_n differs from monitor_int_cell", scan, rec, field);
    double v, d, t, r, z;
    int ok = mon_csv_number(s, n, &v), rok = ref_number(s, n, &r);
    /* the unbounded loops of a NUL-terminated cell (s is, in place) */
    int zok = mon_csv_number_z(s, n, &z);
    if (zok != ok || (ok && memcmp(&v, &z, sizeof v))) differ("mon_csv_number_z differs from mon_csv_number", scan, rec, field);
    if (ok != rok) differ(ok ? "number taken, the former loop refused it" : "number refused, the former loop took it",
                          scan, rec, field);
    if (!ok) return;
    if (memcmp(&v, &r, sizeof v)) differ("number differs from the former loop's", scan, rec, field);
    if (decfloat_parse(s, s + n, &d) != s + n) differ("decfloat_parse does not take the whole number", scan, rec, field);
    char *e;
    t = strtod(s, &e);   /* s is NUL-terminated at n (in place) */
    if (e != s + n) differ("strtod does not take the whole number", scan, rec, field);
    if (memcmp(&v, &d, sizeof v)) differ("number differs from decfloat_parse", scan, rec, field);
    if (memcmp(&v, &t, sizeof v)) differ("number differs from strtod", scan, rec, field);
}

/* The rows' names and call-order counts, against the general structures. */
struct id_check {
    struct names *ours, *theirs;
    struct mon_csv_names cache;
    struct mon_csv_counts counts;
    struct util_smap seen;
};

static void check_id(struct id_check *k, const char *s, size_t n, int col, int scan, size_t rec) {
    uint32_t a = mon_csv_intern(&k->cache, k->ours, s, n), b = names_intern(k->theirs, s, n, 0, 0);
    if (a == NAMES_NONE || b == NAMES_NONE) abort();
    if (a != b) differ("name ids differ", scan, rec, col);
    int32_t *c = mon_csv_count(&k->counts, a, (uint64_t)col);
    char key[32];
    snprintf(key, sizeof key, "%u\x1f%d", (unsigned)b, col);
    int32_t *d = util_smap_slot(&k->seen, key, 1);
    if (!c || !d) abort();
    if (++*c != ++*d) differ("call-order counts differ", scan, rec, col);
}

/* A cell as the readers' general path reads a number (stat_cell,
 * float_field): mon_csv_number_z, else decfloat_parse whole when it starts
 * with a digit (after a '-'); at most 64 bytes. */
static int plain_number(const char *s, size_t n, double *d) {
    if (n > 64) return 0;
    if (mon_csv_number_z(s, n, d)) return 1;
    const char *t = s + (*s == '-');
    return *t >= '0' && *t <= '9' && decfloat_parse(s, s + n, d) == s + n;
}

/* The kinds of the fields f[0, n) (n <= MAXF) as mon_csv_fast would take them. */
static int kinds_of(char **f, const size_t *fl, int n, uint8_t *kind, int all_text) {
    if (n > MAXF) return 0;
    for (int i = 0; i < n; i++) {
        int32_t iv;
        double d;
        kind[i] = MON_CSV_TEXT;
        if (all_text) continue;
        if (fl[i] && fl[i] <= 9 && monitor_int_cell_n(f[i], fl[i], &iv) && strspn(f[i], "0123456789") == fl[i])
            kind[i] = MON_CSV_INT;
        else if (!fl[i] || !strcmp(f[i], "nan") || plain_number(f[i], fl[i], &d))
            kind[i] = MON_CSV_NUM;
    }
    return n;
}

/* The line [a, b) of w (a copy of the whole input, b its '\n' or the
 * end) through mon_csv_fast_v2 with the kinds of the line before (nk of
 * them): when it takes the line, it must end at b + 1, and the monitor_v2
 * reader's plain path (a '\r' before the '\n' cut, mon_csv_split, each
 * number cell by float_field's rule: empty absent, else the number
 * mon_csv_number_z, decfloat_parse or strtod reads) must read the same
 * cells; when it refuses, the scan must not move.  The bytes never change. */
static void check_fast_v2(char *w, size_t size, size_t a, size_t b, const uint8_t *kind, int nk, int scan, size_t rec) {
    struct mon_csv sc;
    struct mon_csv_cell cell[MAXF];
    mon_csv_init(&sc, w, size, scan);
    sc.p = w + a;
    char *before = fuzz_strdup((const uint8_t *)w + a, size - a);
    int ok = mon_csv_fast_v2(&sc, kind, nk, cell);
    if (memcmp(before, w + a, size - a)) differ("fast v2: the bytes changed", scan, rec, -1);
    free(before);
    if (!ok) {
        if (sc.p != w + a) differ("fast v2: refused, the scan moved", scan, rec, -1);
        return;
    }
    if (b >= size || sc.p != w + b + 1) differ("fast v2: the line ends differ", scan, rec, -1);
    size_t ll = b - a - (b > a && w[b - 1] == '\r');
    char *y = fuzz_strdup((const uint8_t *)w + a, ll);
    char *f[MAXF];
    size_t fl[MAXF];
    if (mon_csv_split(y, ll, f, fl, MAXF, scan) != nk) differ("fast v2: field counts differ", scan, rec, -1);
    for (int i = 0; i < nk; i++) {
        if (kind[i] == MON_CSV_TEXT) {
            if (f[i] - y != cell[i].s - (w + a) || fl[i] != cell[i].n) differ("fast v2: text differs", scan, rec, i);
        } else if (kind[i] == MON_CSV_INT) {
            int32_t v;
            if (!monitor_int_cell_n(f[i], fl[i], &v) || v != cell[i].i) differ("fast v2: integer differs", scan, rec, i);
        } else if (!fl[i]) {
            if (!isnan(cell[i].d) || cell[i].n) differ("fast v2: an empty cell is not absent", scan, rec, i);
        } else {
            double v;
            char *e;
            int isna = isnan(cell[i].d);
            if (isna && cell[i].n != 3) differ("fast v2: a NaN cell's length", scan, rec, i);
            if (!plain_number(f[i], fl[i], &v) && ((v = strtod(f[i], &e)), e != f[i] + fl[i]))
                differ("fast v2: a cell the plain path refuses", scan, rec, i);
            if (memcmp(&v, &cell[i].d, sizeof v)) differ("fast v2: number differs", scan, rec, i);
        }
    }
    free(y);
}

/* Each line of data split both ways. */
static void check_split(const uint8_t *data, size_t size, int scan) {
    size_t rec = 0;
    /* the monitor_v2 reader tries the fast path in a file without NULs */
    char *w = size && memchr(data, 0, size) ? NULL : fuzz_strdup(data, size);
    uint8_t kind[MAXF];
    int nk = 0;
    for (size_t a = 0; a <= size; rec++) {
        const uint8_t *nl = memchr(data + a, '\n', size - a);
        size_t b = nl ? (size_t)(nl - data) : size;
        if (w && nk && a < size) check_fast_v2(w, size, a, b, kind, nk, scan, rec);
        char *x = fuzz_strdup(data + a, b - a), *y = fuzz_strdup(data + a, b - a);
        char *f[MAXF], *g[MAXF];
        size_t fl[MAXF], gl[MAXF];
        int n = mon_csv_split(x, b - a, f, fl, MAXF, scan), m = ref_split(y, g, gl, MAXF);
        nk = n > 0 ? kinds_of(f, fl, n, kind, rec % 4 == 3) : 0;
        if (n != m) differ("split: field counts differ", scan, rec, -1);
        for (int i = 0; i < n && i < MAXF; i++)
            if (f[i] - x != g[i] - y || fl[i] != gl[i] || memcmp(f[i], g[i], fl[i] + 1))
                differ("split: fields differ", scan, rec, i);
        if (memcmp(x, y, b - a)) differ("split: lines differ", scan, rec, -1);
        free(x);
        free(y);
        a = b + 1;
    }
    free(w);
}

/* The record mon_csv_fast took (ended at fend) against mon_csv_record's split of it. */
static void check_fast(const uint8_t *kind, int nk, const struct mon_csv_cell *cell, const char *fend,
                       const struct mon_csv *sc, char **f, const size_t *fl, int n, int scan, size_t rec) {
    if (n != nk) differ("fast: field counts differ", scan, rec, -1);
    if (sc->p != fend) differ("fast: record ends differ", scan, rec, -1);
    for (int i = 0; i < n; i++) {
        if (kind[i] == MON_CSV_TEXT) {
            if (f[i] != cell[i].s || fl[i] != cell[i].n) differ("fast: text differs", scan, rec, i);
        } else if (kind[i] == MON_CSV_INT) {
            int32_t v;
            if (!monitor_int_cell_n(f[i], fl[i], &v) || v != cell[i].i) differ("fast: integer differs", scan, rec, i);
        } else {
            double v;
            if (!fl[i] || !strcmp(f[i], "nan")) {
                if (!isnan(cell[i].d)) differ("fast: NA is no NaN", scan, rec, i);
            } else if (!plain_number(f[i], fl[i], &v) || memcmp(&v, &cell[i].d, sizeof v))
                differ("fast: number differs", scan, rec, i);
        }
    }
}

/* k: the names of every pass over the input (a file each): mon_csv_intern's
 * predictions live across files, as a parser thread's do (mon_cache.c). */
static void run(const uint8_t *data, size_t size, int scan, struct id_check *kk) {
    struct id_check k = *kk;
    check_split(data, size, scan);
    char *ours = fuzz_strdup(data, size), *theirs = fuzz_strdup(data, size);
    size_t refsize = 2 * size + 2;   /* every byte and a NUL a field: the former splitter never cuts */
    char *ref = malloc(refsize);
    if (!ref) abort();
    struct mon_csv sc;
    mon_csv_init(&sc, ours, size, scan);
    const char *rp = theirs, *rend = theirs + size;
    char *f[MAXF];
    size_t fl[MAXF], starts[MAXF], lens[MAXF];
    uint8_t kind[MAXF];
    struct mon_csv_cell cell[MAXF];
    int nk = 0;
    for (size_t rec = 0;; rec++) {
        char *row = sc.p, *fend = NULL;
        if (nk && sc.p < sc.end) {
            size_t keep = (size_t)(sc.end - row) < 256 ? (size_t)(sc.end - row) : 256;
            if (mon_csv_fast(&sc, kind, nk, cell)) {
                fend = sc.p;
                if (fend[-1] != '\n') differ("fast: the record ends in no line end", scan, rec, -1);
            }
            else if (sc.p != row) differ("fast: refused, the scan moved", scan, rec, -1);
            if (memcmp(row, theirs + (row - ours), keep)) differ("fast: the bytes changed", scan, rec, -1);
            sc.p = row;
        }
        int n = mon_csv_record(&sc, f, fl, MAXF);
        if (fend) check_fast(kind, nk, cell, fend, &sc, f, fl, n, scan, rec);
        nk = n > 0 ? kinds_of(f, fl, n, kind, rec % 4 == 3) : 0;
        int m = ref_record(&rp, rend, ref, refsize, starts, lens, MAXF);
        if (n != m) differ("field counts differ", scan, rec, -1);
        if (n < 0) break;
        if (sc.p - ours != rp - theirs) differ("record ends differ", scan, rec, -1);
        for (int i = 0; i < n && i < MAXF; i++) {
            const char *r = ref + starts[i];
            if (fl[i] != lens[i] || memcmp(f[i], r, fl[i] + 1)) differ("fields differ", scan, rec, i);
            check_number(f[i], fl[i], scan, rec, i);
            check_id(&k, f[i], fl[i], i, scan, rec);
        }
        if (sc.p >= sc.end) break;
    }
    free(ref);
    free(ours);
    free(theirs);
    *kk = k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return 0;
    struct id_check k = {.ours = names_new(), .theirs = names_new(), .cache = MON_CSV_NAMES_INIT};
    if (!k.ours || !k.theirs) abort();
    /* two files (passes) with one cache of names: the second's names are
     * predicted from the first's, and must keep the pool's ids */
    run(data, size, MON_CSV_PORTABLE, &k);
    run(data, size, mon_csv_best(), &k);
    names_free(k.ours);
    names_free(k.theirs);
    mon_csv_names_free(&k.cache);
    mon_csv_counts_free(&k.counts);
    util_smap_free(&k.seen);
    return 0;
}
