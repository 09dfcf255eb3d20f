/* mon_csv (src/io/monitor/mon_csv.h) at its edges: the monitor_v2 line
 * split (commas about the 16-byte blocks of the SSE2 scan, a NUL inside a
 * line, empty fields) on each scan; the numbers msProbe writes at their
 * edges (-0, subnormals, 19 and 20 digits), against strtod; the v2 reader
 * on nan/inf spellings, a module_name at the length limit and a last row
 * cut short; names_intern's ids across its table's growth; mon_csv_fast
 * on the rows it takes and those it leaves to mon_csv_record. */
#include <float.h>
#include <math.h>

#include "pt_test.h"

#include "model/cube/dataset.h"
#include "model/cube/names.h"
#include "src/io/common/decfloat.h"
#include "src/io/monitor/mon_csv.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/monitor/read_monitor_v2.h"

static const int scans[] = {MON_CSV_PORTABLE, MON_CSV_SSE2};

/* line (n bytes, NULs allowed) split on each scan: nf fields, as want. */
static void split_is(const char *line, size_t n, int nf, const char *const *want) {
    for (int s = 0; s < 2; s++) {
        if (scans[s] != MON_CSV_PORTABLE && mon_csv_best() == MON_CSV_PORTABLE) continue;
        char *b = malloc(n + 1);
        memcpy(b, line, n);
        b[n] = '\0';
        char *f[64];
        size_t fl[64];
        int k = mon_csv_split(b, n, f, fl, 64, scans[s]);
        CHECK_INT(k, nf);
        for (int i = 0; i < k && i < nf; i++) {
            CHECK_STR(f[i], want[i]);
            CHECK_INT(fl[i], strlen(want[i]));
        }
        free(b);
    }
}

static void split_blocks(void) {
    /* commas at 15, 16, 31, 32 and 47: either side of each block's end */
    const char *line = "aaaaaaaaaaaaaaa,,bbbbbbbbbbbbbb,,cccccccccccccc,dd";
    const char *want[] = {"aaaaaaaaaaaaaaa", "", "bbbbbbbbbbbbbb", "", "cccccccccccccc", "dd"};
    split_is(line, strlen(line), 6, want);
    const char *w1[] = {""};
    split_is("", 0, 1, w1);
    const char *w2[] = {"", "", ""};
    split_is(",,", 2, 3, w2);
    /* a NUL ends the line, as strchr saw it: "c,d" after it is not read */
    const char *w3[] = {"a", "b"};
    split_is("a,b\0c,d", 7, 2, w3);
    const char *w4[] = {"0", "1", "x"};
    split_is("0,1,x\0", 6, 3, w4);
    /* a field of 40 bytes after a NUL-free run across three blocks */
    char lng[64];
    memset(lng, 'z', 40);
    memcpy(lng + 40, ",1", 3);
    const char *w5[] = {"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "1"};
    split_is(lng, 42, 2, w5);
}

/* s as mon_csv_number reads it: taken, and the same bits as strtod's. */
static void number_is_strtod(const char *s) {
    double v = 1, t = strtod(s, NULL);
    CHECK(mon_csv_number(s, strlen(s), &v));
    CHECK(memcmp(&v, &t, sizeof v) == 0);
}

static void number_edges(void) {
    double v;
    CHECK(mon_csv_number("-0", 2, &v));
    CHECK(v == 0 && signbit(v));
    CHECK(mon_csv_number("-0.000", 6, &v));
    CHECK(v == 0 && signbit(v));
    CHECK(mon_csv_number("0.0", 3, &v));
    CHECK(v == 0 && !signbit(v));
    number_is_strtod("1e-310");   /* subnormal */
    CHECK(fpclassify(strtod("1e-310", NULL)) == FP_SUBNORMAL);
    number_is_strtod("-1e-310");
    number_is_strtod("4.9406564584124654e-324");
    number_is_strtod("2.2250738585072011e-308");
    number_is_strtod("0.00016169020301891513");   /* 17 significant digits, as Python writes */
    number_is_strtod("1182339.4504658973");
    number_is_strtod("1234567890123456789");      /* 19 digits: still the fast path */
    CHECK(!mon_csv_number("12345678901234567890", 20, &v));   /* 20: the general path's */
    CHECK(!mon_csv_number("nan", 3, &v));
    CHECK(!mon_csv_number("inf", 3, &v));
    CHECK(!mon_csv_number("-inf", 4, &v));
    CHECK(!mon_csv_number("1e", 2, &v));
    CHECK(!mon_csv_number("1e-99999", 8, &v));
}

/* mon_csv_number_z (no bound in its loops, a NUL after the cell) against
 * mon_csv_number on numbers and non-numbers: the same answer and bits;
 * a cell followed by a digit, not a NUL, read within its n bytes. */
static void number_z(void) {
    static const char *const cells[] = {"0", "-0", "0.0", "0.000162", "-0.109375", "74.500723", "1182339.450466",
                                        "1e-06", "1.5E+10", "-3", "00012.5000", "1234567890123456789",
                                        "12345678901234567890", "1e", "1e-99999", "1.", ".5", "-", "", "nan", "1.#IND",
                                        "4096]", "1.2.3", "1e5x", "0.00016169020301891513", "1e-310"};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        double a = 7, b = 7;
        size_t n = strlen(cells[i]);
        int oa = mon_csv_number(cells[i], n, &a), ob = mon_csv_number_z(cells[i], n, &b);
        CHECK_INT(oa, ob);
        CHECK(!oa || memcmp(&a, &b, sizeof a) == 0);
    }
    double v = 0;
    CHECK(mon_csv_number_z("125", 2, &v) && v == 12);   /* "12" then a digit: not past n */
    CHECK(!mon_csv_number_z("1\0" "5", 2, &v));            /* a NUL inside the cell: no number */
}

/* A cell as the readers' general path reads a number (stat_cell,
 * float_field): mon_csv_number_z, else decfloat_parse whole when it
 * starts with a digit (after a '-'). */
static int plain_number(const char *s, size_t n, double *d) {
    if (n > 64) return 0;
    if (mon_csv_number_z(s, n, d)) return 1;
    const char *t = s + (*s == '-');
    return *t >= '0' && *t <= '9' && decfloat_parse(s, s + n, d) == s + n;
}

/* One record through mon_csv_fast (kinds: one letter a column, I, N or
 * T): 1 when it takes it (then each cell against mon_csv_record's split
 * of the same bytes), 0 when it leaves it, with the scan where it was. */
/* A copy of rec (the caller's to free) under a scan sc, and kinds as
 * column kinds (kind[16]); *nk their count, *n rec's length. */
static char *fast_setup(const char *rec, const char *kinds, int scan, struct mon_csv *sc, uint8_t *kind, int *nk,
                        size_t *n) {
    *nk = (int)strlen(kinds);
    for (int i = 0; i < *nk; i++) kind[i] = kinds[i] == 'I' ? MON_CSV_INT : kinds[i] == 'N' ? MON_CSV_NUM : MON_CSV_TEXT;
    *n = strlen(rec);
    char *buf = malloc(*n + 1);
    memcpy(buf, rec, *n + 1);
    mon_csv_init(sc, buf, *n, scan);
    return buf;
}

static int fast_is(const char *rec, const char *kinds, int scan) {
    int nk;
    uint8_t kind[16];
    size_t n;
    struct mon_csv sc;
    char *buf = fast_setup(rec, kinds, scan, &sc, kind, &nk, &n);
    struct mon_csv_cell cell[16];
    int ok = mon_csv_fast(&sc, kind, nk, cell);
    char *end = sc.p;
    CHECK(memcmp(buf, rec, n + 1) == 0);   /* nothing written */
    if (!ok) CHECK(sc.p == buf);
    sc.p = buf;
    char *f[16];
    size_t fl[16];
    int nf = mon_csv_record(&sc, f, fl, 16);
    if (ok) {
        CHECK_INT(nf, nk);
        CHECK(sc.p == end);
        for (int i = 0; i < nk && i < nf; i++) {
            int32_t iv = 0;
            double d = 0;
            if (kind[i] == MON_CSV_TEXT) CHECK(cell[i].s == f[i] && cell[i].n == fl[i]);
            else if (kind[i] == MON_CSV_INT) CHECK(monitor_int_cell_n(f[i], fl[i], &iv) && iv == cell[i].i);
            else if (!fl[i] || !strcmp(f[i], "nan")) CHECK(isnan(cell[i].d));
            else CHECK(plain_number(f[i], fl[i], &d) && memcmp(&d, &cell[i].d, sizeof d) == 0);
        }
    }
    free(buf);
    return ok;
}

/* The same for mon_csv_fast_v2, against the monitor_v2 reader's plain
 * split (mon_csv_split of the line without its "\n" or "\r\n") and
 * float_field's reading: an empty cell absent (n 0), "nan" NaN (n 3). */
static int fast_v2_is(const char *rec, const char *kinds, int scan) {
    int nk;
    uint8_t kind[16];
    size_t n;
    struct mon_csv sc;
    char *buf = fast_setup(rec, kinds, scan, &sc, kind, &nk, &n);
    struct mon_csv_cell cell[16];
    int ok = mon_csv_fast_v2(&sc, kind, nk, cell);
    CHECK(memcmp(buf, rec, n + 1) == 0);   /* nothing written */
    if (!ok) CHECK(sc.p == buf);
    if (ok) {
        size_t ll = (size_t)(sc.p - buf) - 1;   /* the line without its line end */
        CHECK(buf[ll] == '\n');
        if (ll && buf[ll - 1] == '\r') ll--;
        buf[ll] = '\0';
        char *f[16];
        size_t fl[16];
        CHECK_INT(mon_csv_split(buf, ll, f, fl, 16, scan), nk);
        for (int i = 0; i < nk; i++) {
            int32_t iv = 0;
            double d = 0;
            if (kind[i] == MON_CSV_TEXT) CHECK(cell[i].s == f[i] && cell[i].n == fl[i]);
            else if (kind[i] == MON_CSV_INT) CHECK(monitor_int_cell_n(f[i], fl[i], &iv) && iv == cell[i].i);
            else if (!fl[i]) CHECK(isnan(cell[i].d) && cell[i].n == 0);
            else if (!strcmp(f[i], "nan")) CHECK(isnan(cell[i].d) && cell[i].n == 3);
            else CHECK(plain_number(f[i], fl[i], &d) && memcmp(&d, &cell[i].d, sizeof d) == 0);
        }
    }
    free(buf);
    return ok;
}

/* v1's numbers through mon_csv_fast (its "0.0," and "-0.0," shortcuts,
 * number()'s byte loops): hard cases each taken, the same bits as
 * strtod's (glibc rounds correctly) and as the plain path's, at a
 * record's end and before more cells. */
static void fast_v1_numbers(void) {
    static const char *const nums[] = {
        "0.000532", "-0.00015", "0.215231", "-9e-05", "9.7e-05", "0.0", "-0.0", "0", "-0", "0.00", "0.05", "-0.05",
        "-0.00", "-0.0e5", "0.0e-5", "-00.0",
        "0.00000001", "0.000000001", "0.0000000000000001", "0.00000000000000001", "-0.000000000000000012345",
        "0.12345678", "0.123456789", "12345678.12345678", "0.1234567890123456789",   /* 19 significant digits */
        "0.00016169020301891513", "221.2851248439928", "1182339.4504658973", "9007199254740993",
        "0.30000000000000004", "2.2250738585072011e-308", "2.2250738585072014E-308", "4.9406564584124654e-324",
        "0.0000000000000000000000000000001e-290",   /* subnormal, many zeros (a cell over 64 bytes is refused) */
        "1e-310", "-1e-310", "1.7976931348623157e+308", "1.5E+10", "00012.5000", "0.5", "2.5", "1e22", "1e23",
        "9007199254740992.5", "4503599627370496.5", "4503599627370497.5", "0.000000000000000000000000000000001",
    };
    static const char *const tails[] = {"\n", ",0.0,torch.float32\n"};
    for (size_t s = 0; s < sizeof scans / sizeof scans[0]; s++)
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
            for (size_t t = 0; t < 2; t++) {
                char rec[256], kinds[8];
                snprintf(rec, sizeof rec, "3,%s%s", nums[i], tails[t]);
                snprintf(kinds, sizeof kinds, "%s", t ? "INNT" : "IN");
                CHECK(fast_is(rec, kinds, scans[s]));   /* taken, the bits the plain path's */
                struct mon_csv sc;
                uint8_t kind[16];
                struct mon_csv_cell cell[16];
                int nk;
                size_t n;
                char *buf = fast_setup(rec, kinds, scans[s], &sc, kind, &nk, &n);
                double want = strtod(nums[i], NULL);
                CHECK(mon_csv_fast(&sc, kind, nk, cell) && memcmp(&cell[1].d, &want, sizeof want) == 0);
                free(buf);
            }
}

static void fast_rows(void) {
    for (size_t s = 0; s < sizeof scans / sizeof scans[0]; s++) {
        int sc = scans[s];
        /* taken: a v1 row as msProbe writes it, NA cells, a shape whole quoted with a line end in it */
        CHECK(fast_is("0,module.module.embedding.word_embeddings.output,0,0,74.500723,-0.109375,0.109375,0.000162,"
                      "0.0,1e-06,\"[1, 4096, 4096]\",torch.bfloat16\n", "ITIINNNNNNTT", sc));
        CHECK(fast_is("3,a,123456789,7,nan,,-0,1.5E+10,0,0,[4096],torch.float32\nnext", "ITIINNNNNNTT", sc));
        CHECK(fast_is("0,\"a\nb\",\"\"\n", "ITT", sc));
        CHECK(fast_is(",\n", "TT", sc));
        CHECK(fast_is("0,a\r\n", "IT", sc));                      /* "\r\n", as mon_csv_record's */
        CHECK(fast_is("0,12345678901234567890\n", "IN", sc));     /* 20 digits: decfloat_parse's, as stat_cell's */
        CHECK(fast_is("0,0.00016169020301891513\r\n", "IN", sc));
        /* "0.0," read by its four bytes, the rest of the zeros by number(): the same doubles */
        CHECK(fast_is("0,0.0,0.0,-0.0,0.05,0.00,0.0\n", "INNNNNN", sc));
        CHECK(fast_is("0,0.0,\n", "INT", sc));
        CHECK(!fast_is("0,0.0,", "INT", sc));                      /* no line end */
        CHECK(!fast_is("0,0.0", "IN", sc));
        CHECK(!fast_is("0,0.0,1,2\n", "INN", sc));                /* a field more */
        /* left to mon_csv_record */
        CHECK(!fast_is("1234567890,a\n", "IT", sc));              /* 10 digits: monitor_int_cell's */
        CHECK(!fast_is("0000000001,a\n", "IT", sc));              /* 10 digits, the first 9 zeros */
        CHECK(!fast_is("99999999999999999999,a\n", "IT", sc));    /* 20 (the value wraps: the count refuses it) */
        CHECK(fast_is("000000001,a\n", "IT", sc) && fast_is("999999999,a\n", "IT", sc));   /* 9: taken, as the plain path reads */
        CHECK(!fast_is("-1,a\n", "IT", sc));                      /* a sign */
        CHECK(!fast_is("2.0,a\n", "IT", sc));                     /* pandas' float int */
        CHECK(!fast_is("0,a\r", "IT", sc));                       /* a lone '\r' */
        CHECK(!fast_is("0,a\r\r\n", "IT", sc));
        CHECK(!fast_is("0,1\r\r\n", "IN", sc));
        CHECK(!fast_is("0,a", "IT", sc));                          /* no line end */
        CHECK(!fast_is("0,a,b\n", "IT", sc));                      /* a field more */
        CHECK(!fast_is("0\n", "IT", sc));                          /* a field fewer */
        CHECK(!fast_is("0,\"a\"\"b\"\n", "IT", sc));               /* "" inside quotes */
        CHECK(!fast_is("0,a\"b\n", "IT", sc));                     /* '"' inside a field */
        CHECK(!fast_is("0,\"ab\n", "IT", sc));                     /* a quote not closed */
        CHECK(!fast_is("0,True\n", "IN", sc));                     /* pandas' booleans: json_number's */
        CHECK(!fast_is("0,1.#IND\n", "IN", sc));                   /* the other NA tokens */
        CHECK(!fast_is("0,nan1\n", "IN", sc));
        CHECK(!fast_is("0,1.5e\n", "IN", sc));                     /* no number: decfloat_parse stops short */
        CHECK(!fast_is("0,0.000000000000000000000000000000000000000000000000000000000000000001\n", "IN", sc));
        /* monitor_v2 lines: taken as monitor_v2's Python writes them, empty cells absent */
        CHECK(fast_v2_is("0,0,module.module.embedding.word_embeddings.output.0,forward,-0.109375,0.109375,"
                         "0.00016169020301891513,74.50072330071988,0.0\r\n", "IITTNNNNN", sc));
        CHECK(fast_v2_is("1,12,m.a,backward,nan,,1e-05,-0.0,3\nnext", "IITTNNNNN", sc));
        CHECK(fast_v2_is("0,0,,x,12345678901234567890\n", "IITTN", sc));
        /* left to the plain split */
        CHECK(!fast_v2_is("0,0,\"m.a\",forward,1\n", "IITTN", sc));   /* quotes: text there */
        CHECK(!fast_v2_is("0,0,m.a,forward,inf\n", "IITTN", sc));       /* strtod's */
        CHECK(!fast_v2_is("0,0,m.a,forward,-nan\n", "IITTN", sc));
        CHECK(!fast_v2_is("0,0,m.a,forward,1\r\r\n", "IITTN", sc));
        CHECK(!fast_v2_is("0,0,m\ra,forward,1\n", "IITTN", sc));       /* a '\r' inside */
        CHECK(!fast_v2_is("0,0,m.a,forward\n", "IITTN", sc));           /* a field fewer */
        CHECK(!fast_v2_is("0,0,m.a,forward,1,2\n", "IITTN", sc));       /* a field more */
    }
}

/* The statistics of the single row of metric "module/forward" in md. */
static const struct monitor_file *only_file(const struct monitor_data *md) {
    for (size_t i = 0; i < md->nfiles; i++)
        if (md->files[i].nrows) return &md->files[i];
    return NULL;
}

static void v2_spellings(void) {
    /* msProbe's v2 writer puts Python floats: nan, inf, -inf */
    const char *text = "vpp_stage,step,module_name,scope,min,max,mean,norm\n"
                       "0,0,m.a,forward,nan,inf,-inf,-0.0\n"
                       "0,0,m.b,forward,NaN,Infinity,-nan,1e-310\n";
    struct dataset *ds = calloc(1, sizeof *ds);
    struct monitor_data md = {0};
    struct monitor_v2_metrics mt = {.n = 0};
    CHECK_INT(monitor_v2_parse_csv(strdup(text), strlen(text), "module.csv", 0, 0, NULL, &mt, ds, &md), 0);
    const struct monitor_file *f = only_file(&md);
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(f->nrows, 2);
        int mn = 1, mx = 2, mean = 5, norm = 0;   /* monitor_stat_names: norm min max zeros nans mean */
        CHECK(isnan(monitor_value(f, 0, mn)));
        CHECK(isinf(monitor_value(f, 0, mx)) && monitor_value(f, 0, mx) > 0);
        CHECK(isinf(monitor_value(f, 0, mean)) && monitor_value(f, 0, mean) < 0);
        CHECK(monitor_value(f, 0, norm) == 0 && signbit(monitor_value(f, 0, norm)));
        CHECK(isnan(monitor_value(f, 1, mn)));
        CHECK(isinf(monitor_value(f, 1, mx)));
        CHECK(isnan(monitor_value(f, 1, mean)));
        CHECK(monitor_value(f, 1, norm) == strtod("1e-310", NULL));
    }
    monitor_free(&md);
    dataset_free(ds);
}

static void v2_long_names_and_cut_row(void) {
    /* a module_name of 8190 bytes is read, one of 8191 is refused; the last
     * row has no line end (a cut file): left out, the file partial */
    size_t cap = 40000;
    char *text = malloc(cap);
    size_t o = (size_t)snprintf(text, cap, "vpp_stage,step,module_name,scope,min\n0,0,");
    memset(text + o, 'a', 8190);
    o += 8190;
    o += (size_t)snprintf(text + o, cap - o, ",forward,1.5\n0,0,");
    memset(text + o, 'b', 8191);
    o += 8191;
    o += (size_t)snprintf(text + o, cap - o, ",forward,2.5\n0,0,m.c,forward,3.");
    struct dataset *ds = calloc(1, sizeof *ds);
    struct monitor_data md = {0};
    struct monitor_v2_metrics mt = {.n = 0};
    CHECK_INT(monitor_v2_parse_csv(text, o, "module.csv", 0, 0, NULL, &mt, ds, &md), 0);
    const struct monitor_file *f = only_file(&md);
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(f->nrows, 1);
        CHECK_INT(strlen(monitor_name(&md, &f->rows[0])), 8190);
        CHECK(monitor_value(f, 0, 1) == 1.5);
    }
    int saw_long = 0, saw_cut = 0;
    for (size_t i = 0; i < ds->nwarnings; i++) {
        saw_long |= strstr(ds->warnings[i], "8191 bytes or more") != NULL;
        saw_cut |= strstr(ds->warnings[i], "cut short") != NULL;
    }
    CHECK(saw_long);
    CHECK(saw_cut);
    monitor_free(&md);
    dataset_free(ds);
}

static void names_growth(void) {
    /* past several growths of the table: ids in first-seen order, found
     * again by names_find and by a second names_intern */
    struct names *n = names_new();
    char s[32];
    for (int i = 0; i < 5000; i++) {
        int k = snprintf(s, sizeof s, "layer.%d.name", i);
        CHECK_INT(names_intern(n, s, (size_t)k, i % 3, 0), i);
    }
    int ok = 1;
    for (int i = 0; i < 5000; i++) {
        int k = snprintf(s, sizeof s, "layer.%d.name", i);
        ok &= names_find(n, s, (size_t)k, i % 3, 0) == (uint32_t)i && names_intern(n, s, (size_t)k, i % 3, 0) == (uint32_t)i;
        ok &= names_find(n, s, (size_t)k, i % 3 + 1, 0) == NAMES_NONE;
    }
    CHECK(ok);
    CHECK_INT(names_count(n), 5000);
    names_free(n);
}

/* vpp/step/micro_step cells: the inline read (monitor_int_cell_n) and the
 * general one (monitor_int_cell) give the values worked out by hand. */
static void int_cells(void) {
    static const struct { const char *s; size_t n; int ok; int32_t v; } c[] = {
        {"0", 1, 1, 0}, {"21", 2, 1, 21}, {"123456789", 9, 1, 123456789},
        {"1234567890", 10, 1, 1234567890}, {"2147483647", 10, 1, 2147483647}, {"2147483648", 10, 0, 0},
        {"0000000012", 10, 1, 12}, {"-3", 2, 1, -3}, {"2.0", 3, 1, 2}, {" 7", 2, 1, 7}, {"", 0, 0, 0},
        {"1a", 2, 0, 0}, {"2.5", 3, 0, 0}, {"nan", 3, 0, 0}, {"12\0x", 4, 1, 12}, {"+5", 2, 1, 5},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        int32_t a = -99, b = -99;
        int oka = monitor_int_cell_n(c[i].s, c[i].n, &a), okb = monitor_int_cell(c[i].s, &b);
        if (oka != c[i].ok || okb != c[i].ok || (c[i].ok && (a != c[i].v || b != c[i].v)))
            fprintf(stderr, "int cell %zu \"%s\": %d %d, %d %d\n", i, c[i].s, oka, (int)a, okb, (int)b);
        CHECK_INT(oka, c[i].ok);
        CHECK_INT(okb, c[i].ok);
        if (c[i].ok) {
            CHECK_INT(a, c[i].v);
            CHECK_INT(b, c[i].v);
        }
    }
}

/* A v1 file of many rows whose first row is short and the rest long (the
 * rows reserved from the first row's length are too few: they grow on),
 * then one whose first row is long (too many: cut): every row and value
 * read, in order. */
static void many_rows(void) {
    for (int longfirst = 0; longfirst < 2; longfirst++) {
        size_t cap = 1 << 20, o = 0;
        char *b = malloc(cap);
        CHECK(b != NULL);
        if (!b) return;
        o += (size_t)snprintf(b + o, cap - o, "vpp_stage,name,step,micro_step,norm,max\n");
        for (int r = 0; r < 3000; r++) {
            int lng = (r == 0) == longfirst;
            o += (size_t)snprintf(b + o, cap - o, "0,%s.layers.%d,%d,0,%d.25,-%d\n",
                                  lng ? "module.module.language_model.encoder.very_long_prefix" : "m", r % 50, r / 50, r, r);
        }
        struct dataset *ds = calloc(1, sizeof *ds);
        struct monitor_data md = {0};
        CHECK(ds != NULL);
        if (!ds) { free(b); return; }
        CHECK_INT(monitor_parse_csv(b, o, "many.csv", 0, 0, NULL, NULL, ds, &md), 0);
        CHECK_INT((long)md.nfiles, 1);
        if (md.nfiles == 1) {
            const struct monitor_file *f = &md.files[0];
            CHECK_INT((long)f->nrows, 3000);
            int good = 1;
            for (size_t r = 0; r < f->nrows && r < 3000; r++)
                if (f->rows[r].step != (int32_t)(r / 50) || monitor_value(f, r, 0) != (double)r + 0.25 ||
                    f->vals[r * (size_t)f->nval + 1] != -(double)r)
                    good = 0;
            CHECK(good);
        }
        monitor_free(&md);
        dataset_free(ds);
    }
}

int main(void) {
    RUN(split_blocks);
    RUN(number_edges);
    RUN(number_z);
    RUN(fast_rows);
    RUN(fast_v1_numbers);
    RUN(int_cells);
    RUN(many_rows);
    RUN(v2_spellings);
    RUN(v2_long_names_and_cut_row);
    RUN(names_growth);
    PT_DONE();
}
