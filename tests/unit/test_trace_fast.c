/* The trace reader's fast event path (src/io/trace/trace_fast.c): the fields
 * of events it reads (expected values: the exact decimal times and Python's
 * float() of them), the shapes it must leave to the tokenizer (it returns
 * 0), and whole files parsed alike with it and without it
 * (tests/pt_tracefast.h): the fuzz seeds of every shape, the HTA fixtures,
 * with the default buffer and with 4 KiB pieces. */
#include "pt_test.h"
#include "tests/pt_tracefast.h"

#include <math.h>

#include "model/trace/trace.h"
#include "src/io/trace/trace_fast.h"

static struct trace_fast_ev ev;

/* s is an event object from its '{': 1 when read (close at its '}'). */
static int fast(const char *s, int *frac) {
    const char *close = NULL;
    int fr = -1;
    int r = trace_fast_event(s + 1, s + strlen(s), &ev, &close, &fr);
    if (r) {
        CHECK(close && *close == '}' && close == s + strlen(s) - 1);
        if (frac) *frac = fr;
    }
    return r;
}

static void bits_equal(double a, uint64_t want) {
    uint64_t u;
    memcpy(&u, &a, 8);
    CHECK_INT(u, want);
}

static void fields_kernel(void) {
    int frac;
    CHECK_INT(fast("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void cutlass::Kernel<x>\", \"pid\": 3, \"tid\": 7, "
                   "\"ts\": 1699529623106750.250, \"dur\": 37.232, \"args\": {\"External id\": 1869557, \"queued\": 0, "
                   "\"stream\": 7, \"correlation\": 1869557, \"blocks per SM\": 0.5925926, \"grid\": [64, 1, 1]}}",
                   &frac),
              1);
    CHECK_INT(ev.ph, 'X');
    CHECK_INT(ev.cat, TRACE_FAST_CAT_KERNEL);
    CHECK_STR(trace_fast_ev_name(&ev), "void cutlass::Kernel<x>");
    CHECK_INT(ev.namelen, 23);
    CHECK_INT(ev.pid, 3);
    CHECK_INT(ev.tid, 7);
    CHECK_INT(ev.stream, 7);
    CHECK_INT(ev.corr, 1869557);
    CHECK(ev.has_ts && ev.has_dur && !ev.bad_time);
    CHECK_INT(ev.ts, 1699529623106750250LL);
    CHECK_INT(ev.dur, 37232);
    bits_equal(ev.ts_d, 4834656919033598713ULL);   /* float("1699529623106750.250") */
    bits_equal(ev.dur_d, 4630436755475944964ULL);  /* float("37.232") */
    CHECK_INT(frac, 1);
}

static void fields_shapes(void) {
    int frac;
    /* keys in another order, times as strings, ids as strings */
    CHECK_INT(fast("{\"args\": {\"correlation\": 5}, \"dur\": \"1.5\", \"ts\": \"-12.5\", \"tid\": 2, \"pid\": 1, "
                   "\"name\": \"n\", \"cat\": \"async_npu\", \"ph\": \"f\", \"id\": \"77\"}", &frac), 1);
    CHECK_INT(ev.ts, -12500);
    CHECK_INT(ev.dur, 1500);
    bits_equal(ev.ts_d, 13846598529327300608ULL);   /* float("-12.5") */
    CHECK_INT(ev.cat, TRACE_FAST_CAT_NPU_FLOW);
    CHECK(ev.has_id && ev.id == 77);
    CHECK_INT(ev.corr, 5);
    CHECK_INT(frac, 1);
    /* an integer time has no fraction; a fourth decimal rounds */
    CHECK_INT(fast("{\"ts\": 1661203462598738, \"dur\": 0.0005}", &frac), 1);
    CHECK_INT(ev.ts, 1661203462598738000LL);
    CHECK_INT(ev.dur, 1);
    CHECK_INT(frac, 0);
    /* not numbers where numbers are read: what the tokenizer path makes of them */
    CHECK_INT(fast("{\"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": true, \"dur\": NaN}", NULL), 1);
    CHECK_INT(ev.pid, -2);
    CHECK_INT(ev.tid, -1);
    CHECK(!ev.has_ts && !ev.has_dur && ev.bad_time);
    /* a time beyond int64 nanoseconds is no time */
    CHECK_INT(fast("{\"ts\": 92233720368547758, \"dur\": 1}", NULL), 1);
    CHECK(!ev.has_ts && ev.bad_time);
    /* brackets and quotes inside skipped values and strings */
    CHECK_INT(fast("{\"args\": {\"grid\": [1, [2, {\"a\": \"}]\"}]], \"s\": \"{[\\\"\", \"stream\": 4, \"x\": {\"y\": [[]]}}, "
                   "\"name\": \"a{b}[c]\"}", NULL), 1);
    CHECK_INT(ev.stream, 4);
    CHECK_STR(trace_fast_ev_name(&ev), "a{b}[c]");
    /* process groups and point-to-point args */
    CHECK_INT(fast("{\"args\": {\"Process Group Name\": \"1\", \"Process Group Description\": \"dp\", \"Process Group Ranks\": "
                   "\"[0, 1]\", \"Collective name\": \"recv\", \"Src Rank\": 3, \"Rank\": 1, \"Task Type\": \"HCCL_X\", "
                   "\"name\": \"Ascend Hardware\"}}", NULL), 1);
    CHECK_STR(ev.pgname, "1");
    CHECK_STR(ev.pgdesc, "dp");
    CHECK_STR(ev.pgranks, "[0, 1]");
    CHECK_INT(ev.p2p, 2);
    CHECK_INT(ev.peer, 3);
    CHECK_INT(ev.prank, 1);
    CHECK(ev.task && ev.task_cat == TRACE_COMM);
    CHECK_STR(ev.argname, "Ascend Hardware");
    /* no white space, and much of it */
    CHECK_INT(fast("{\"ph\":\"X\",\"ts\":1,\"dur\":2}", NULL), 1);
    CHECK_INT(ev.dur, 2000);
    CHECK_INT(fast("{ \"ph\" :\n\t\"X\" ,\r\n \"ts\"  :  1 }", NULL), 1);
    CHECK_INT(ev.ts, 1000);
    CHECK_INT(fast("{}", NULL), 1);
    CHECK_INT(ev.ph, 0);
}

/* Shapes left to the tokenizer: it returns 0. */
/* Times in eighths of a microsecond take an exact sum (trace_fast.c,
 * num_double) when the double holds them, else the decimal path: every one
 * the nearest double, as glibc's correctly rounded strtod reads it. */
static void eighths(void) {
    static const char *const t[] = {
        "1700000000010010.5", "1700000000010010.0", "1699529623106750.750", "1699529623106750.125",
        "2251799813685247.125", "2251799813685247.250", "4503599627370495.5", "4503599627370495.25",
        "9007199254740991.5", "9007199254740992.0", "9007199254740993.0", "9007199254740993.5",
        "922337203685475.875", "-0.0", "-0.750", "0.125", "-1125899906842624.375", "3.5", "64.000", "1699529623106750.100", "0.3",
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        char obj[160];
        snprintf(obj, sizeof obj, "{\"ts\": %s, \"dur\": \"%s\"}", t[i], t[i][0] == '-' ? t[i] + 1 : t[i]);
        int frac;
        CHECK_INT(fast(obj, &frac), 1);
        CHECK(ev.has_ts && ev.has_dur);
        double want = strtod(t[i], NULL), wdur = strtod(t[i][0] == '-' ? t[i] + 1 : t[i], NULL);
        uint64_t a, b;
        memcpy(&a, &want, 8);
        memcpy(&b, &ev.ts_d, 8);
        if (a != b) fprintf(stderr, "ts %s: %.17g, want %.17g\n", t[i], ev.ts_d, want);
        CHECK(a == b);
        memcpy(&a, &wdur, 8);
        memcpy(&b, &ev.dur_d, 8);
        CHECK(a == b);
    }
}

/* Times in the shape read straight to ns (trace_fast.c, time_fixed: 1 to
 * 16 digits, at most three decimals) and the shapes beside it, which the
 * general path reads: each against the general parsers, the exact ns of
 * trace_parse_us_to_ns and glibc's correctly rounded strtod, as "ts" and as
 * "dur" (a sign only as "ts"); every 16-digit value past 2^53 and ties of
 * the double's rounding, 17 digits and more, a fourth decimal, exponents,
 * times beyond int64 ns (no time), and the same near the buffer's end. */
static void times_fixed(void) {
    static const char *const t[] = {
        "0", "7", "0.5", "0.000", "0.125", "0.0005", "3.5", "60.0", "31999.0", "12345678", "12345678.1", "99999999.999",
        "100000000.5", "1234567890123456", "1700000000010000.0", "1700000000010010.5", "1700000000010010.25",
        "1699529623106750.125", "1699529623106750.123", "1699529623106750.12", "1699529623106750.1",
        "4503599627370496.5", "4503599627370497.5", "2251799813685248.25", "2251799813685249.75", "9007199254740991.5",
        "9007199254740992.5", "9007199254740993.0", "9007199254740993.5", "9007199254740995.125", "9223372036854769.999",
        "9223372036854770.0", "9999999999999999.9", "12345678901234567", "12345678901234567.5", "1234567890123456.7891",
        "1699529623106750.1239", "1699529623106750.12345678901234567", "1.5e3", "1.5E+3", "17e-1", "1700000000010000.0e0",
        "-3.5", "-0.125", "-1699529623106750.125", "-9223372036854770.0",
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        for (int tail = 0; tail < 2; tail++) {   /* a long tail after "dur", and none (under 25 bytes left) */
            const char *dur = t[i][0] == '-' ? t[i] + 1 : t[i];
            char obj[256];
            snprintf(obj, sizeof obj, "{\"ts\": %s, \"dur\": %s%s}", t[i], dur, tail ? ", \"name\": \"a name to read past here\"" : "");
            int frac, nd = 0;
            for (const char *c = t[i]; *c && *c != 'e' && *c != 'E'; c++) nd += *c >= '0' && *c <= '9';
            int left = nd > 19 || strpbrk(t[i], "eE");   /* beyond 19 digits, an exponent: the tokenizer's (files_alike) */
            CHECK_INT(fast(obj, &frac), !left);
            if (left) continue;
            int64_t ns, dns;
            int ok = !trace_parse_us_to_ns(t[i], strlen(t[i]), &ns), dok = !trace_parse_us_to_ns(dur, strlen(dur), &dns);
            CHECK_INT(ev.has_ts, ok);
            CHECK_INT(ev.has_dur, dok);
            CHECK_INT(ev.bad_time, !ok || !dok);
            if (ok) {
                CHECK_INT(ev.ts, ns);
                CHECK_INT(frac, strchr(t[i], '.') != NULL);
                double want = strtod(t[i], NULL);
                uint64_t a, b;
                memcpy(&a, &want, 8);
                memcpy(&b, &ev.ts_d, 8);
                if (a != b) fprintf(stderr, "ts %s: %.17g, want %.17g\n", t[i], ev.ts_d, want);
                CHECK(a == b);
            }
            if (dok) {
                CHECK_INT(ev.dur, dns);
                double want = strtod(dur, NULL);
                uint64_t a, b;
                memcpy(&a, &want, 8);
                memcpy(&b, &ev.dur_d, 8);
                CHECK(a == b);
            }
        }
    }
    /* leading zeros and a bare point: refused by the tokenizer, so left to it */
    static const char *const bad[] = {"{\"ts\": 00.5, \"name\": \"a name to read past here\"}",
                                      "{\"ts\": 01, \"name\": \"a name to read past here\"}",
                                      "{\"ts\": 1., \"name\": \"a name to read past here\"}",
                                      "{\"ts\": 1.x, \"name\": \"a name to read past here\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK_INT(fast(bad[i], NULL), 0);
}

/* Integer parts of 1 to 17 digits with fractions of 0 to 5: the digits
 * are found in one 16-byte mask (time_fixed), the fraction's in it too up
 * to an integer part of 11 digits, in a word after that; read straight
 * exactly when 16 digits or fewer and 3 decimals or fewer, to the ns and
 * double of trace_parse_us_to_ns and strtod. */
static void times_window(void) {
    static const char ints[] = "12345678901234567", fracs[] = "98765";
    for (int ni = 1; ni <= 17; ni++)
        for (int nf = 0; nf <= 5; nf++) {
            char num[32], obj[128];
            snprintf(num, sizeof num, "%.*s%s%.*s", ni, ints, nf ? "." : "", nf, fracs);
            snprintf(obj, sizeof obj, "{\"ts\": %s, \"name\": \"a name to read past here\"}", num);
            int frac, straight = ni <= 16 && nf <= 3;
            memset(&ev, 0, sizeof ev);
            int r = fast(obj, &frac);
            if (!straight) continue;   /* left to the tokenizer or to val_time (files_alike, times_fixed) */
            int64_t ns;
            double want = strtod(num, NULL);
            CHECK_INT(r, 1);
            CHECK_INT(trace_parse_us_to_ns(num, strlen(num), &ns), 0);
            CHECK_INT(ev.has_ts, 1);
            CHECK_INT(ev.ts, ns);
            CHECK_INT(frac, nf > 0);
            CHECK(!memcmp(&ev.ts_d, &want, 8));
        }
}

/* Random times of the shape read straight to ns (0 to 53 bits before the
 * point, 0 to 3 decimals): ns and the double against trace_parse_us_to_ns
 * and strtod, 200 000 of them (a fixed seed). */
static void times_random(void) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int bad = 0;
    for (int i = 0; i < 200000 && bad < 5; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int bits = (int)(x % 54), nf = (int)((x >> 8) % 4);
        uint64_t y = x * 0x2545f4914f6cdd1dull;
        uint64_t ip = bits ? (y >> (64 - bits)) : 0, fv = (x >> 16) % (nf == 3 ? 1000 : nf == 2 ? 100 : nf == 1 ? 10 : 1);
        char num[48], obj[160];
        if (nf) snprintf(num, sizeof num, "%llu.%0*llu", (unsigned long long)ip, nf, (unsigned long long)fv);
        else snprintf(num, sizeof num, "%llu", (unsigned long long)ip);
        snprintf(obj, sizeof obj, "{\"ts\": %s, \"name\": \"a name to read past here\"}", num);
        int frac;
        int64_t ns;
        double want = strtod(num, NULL);
        if (!fast(obj, &frac) || !ev.has_ts || trace_parse_us_to_ns(num, strlen(num), &ns) || ev.ts != ns ||
            memcmp(&ev.ts_d, &want, 8) || frac != (nf > 0)) {
            fprintf(stderr, "ts %s: %lld %.17g, want %.17g\n", num, (long long)ev.ts, ev.ts_d, want);
            bad++;
        }
    }
    CHECK_INT(bad, 0);
}

/* Times with a fraction of 1 to 3 digits that is no multiple of 1/8 and
 * ip >= 1024 are one double sum (trace_fast.c, time_fixed): every such
 * fraction from 0 to 2100 (below 1024 decfloat; the sum alone would miss
 * some up to 31), just under 2^53,
 * and on epoch microseconds, the same double as strtod (multiples of 1/8
 * too: time_fixed's test of them by 125's inverse), and the same ns. */
static void times_sum(void) {
    const uint64_t from[] = {0, 9007199254740992ull - 600, 1700000000000000ull, 4503599627370496ull - 300};
    const uint64_t count[] = {2100, 600, 300, 600};
    int bad = 0;
    for (size_t r = 0; r < sizeof from / sizeof *from; r++)
        for (uint64_t ip = from[r]; ip < from[r] + count[r] && bad < 5; ip++)
            for (int nf = 1; nf <= 3; nf++) {
                int top = nf == 3 ? 1000 : nf == 2 ? 100 : 10;
                for (int fv = 0; fv < top && bad < 5; fv += nf == 3 && ip % 7 ? 37 : 1) {   /* every 3-digit fraction on 1 ip in 7 */
                    char num[48], obj[160];
                    snprintf(num, sizeof num, "%llu.%0*d", (unsigned long long)ip, nf, fv);
                    snprintf(obj, sizeof obj, "{\"ts\": %s, \"name\": \"a name to read past here\"}", num);
                    int frac;
                    double want = strtod(num, NULL);
                    int64_t want_ns = (int64_t)ip * 1000 + fv * (nf == 1 ? 100 : nf == 2 ? 10 : 1);
                    if (!fast(obj, &frac) || !ev.has_ts || memcmp(&ev.ts_d, &want, 8) || ev.ts != want_ns) {
                        fprintf(stderr, "ts %s: %.17g, want %.17g\n", num, ev.ts_d, want);
                        bad++;
                    }
                }
            }
    CHECK_INT(bad, 0);
}

/* Plain integers (pid, tid, stream, correlation, id) of 1 to 15 digits
 * read by words (trace_fast.c, read_value), with and without bytes after
 * them; 16 digits, a fraction or an exponent after 8 digits and leading
 * zeros are the tokenizer's (the event is left to it). */
static void ints_wide(void) {
    static const char *const t[] = {"0", "7", "1234567", "10000001", "99999999", "123456789", "1234567890123",
                                    "999999999999999", "1234567890123456", "12345678.0", "12345678e0", "12345678E1",
                                    "012345678", "00000000", "-12345678"};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        for (int tail = 0; tail < 2; tail++) {
            char obj[256];
            snprintf(obj, sizeof obj, "{\"pid\": %s, \"args\": {\"correlation\": %s, \"stream\": %s}%s}", t[i], t[i], t[i],
                     tail ? ", \"name\": \"a name to read past here\"" : "");
            char *e;
            long long want = strtoll(t[i], &e, 10);
            int plain = !*e && strlen(t[i]) - (t[i][0] == '-') <= 15 && (t[i][0] != '0' || !t[i][1]);
            int r = fast(obj, NULL);
            if (r != plain) fprintf(stderr, "%s: read %d\n", t[i], r);
            CHECK_INT(r, plain);
            if (!plain) continue;
            CHECK_INT(ev.pid, want);
            CHECK_INT(ev.corr, want);
            CHECK_INT(ev.stream, want);
        }
    }
}

static void fallbacks(void) {
    static const char *const cases[] = {
        "{\"name\": \"a\\\"b\"}",                     /* an escape in a string it would copy */
        "{\"cat\": \"kernel\", \"cat\": \"Trace\"}",  /* a duplicate key */
        "{\"args\": {\"stream\": 1, \"stream\": \"x\"}}",
        "{\"ts\": 1.5e3}",                             /* an exponent */
        "{\"ts\": \" 12\"}",                           /* a time string with spaces */
        "{\"ts\": \"+12\"}",
        "{\"ts\": 1699529623106750.12345678901234567}",   /* beyond 19 digits */
        "{\"pid\": 1.0}",                              /* an integer written with a fraction */
        "{\"pid\": 1234567890123456}",                 /* more than 15 digits */
        "{\"pid\": 01}",                               /* bytes the tokenizer refuses */
        "{\"ph\": \"X\",}",
        "{\"ph\": \"X\" \"cat\": \"a\"}",
        "{\"ph\": tru}",
        "{\"name\": \"a\tb\"}",                        /* a control byte in a string */
        "{\"na\\u006de\": \"a\"}",                     /* an escape in a key */
        "{\"ph\": \"X\", \"ts\": 16995",               /* cut mid-event */
        "{\"args\": {\"grid\": [1, 2}}",               /* brackets that do not match */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int r = fast(cases[i], NULL);
        if (r) fprintf(stderr, "read, not left to the tokenizer: %s\n", cases[i]);
        CHECK_INT(r, 0);
    }
}

static void same_file(const char *path) {
    char why[512];
    static const size_t max[] = {TRACE_PARSE_MAX_VALUE, 4096};
    for (int i = 0; i < 2; i++) {
        int same = pt_tracefast_same(path, max[i], why, sizeof why);
        if (!same) fprintf(stderr, "%s (buffer limit %zu): %s\n", path, max[i], why);
        CHECK(same);
    }
}

/* Whole files: every seed of the fuzz harness (escaped names, keys in odd
 * order, times as strings, ints and floats, huge numbers, nested args, a
 * file cut mid-event, JSON the tokenizer refuses, events that begin as one
 * before them: snap.json; names alike in the 8 bytes a snapshot is tried
 * by, the same name with another pid or tid: snap_probe.json; times in and
 * beside the shape read straight to ns: times.json; the rest of events
 * alike and unlike their template's in every way: tpl.json) and the HTA
 * fixtures. */
static void files_alike(void) {
    static const char *const seeds[] = {"shapes.json", "cut.json", "lead0.json", "trailing.json", "kineto.json",
                                        "kineto.json.gz", "kineto_ns.json", "megatron_pg.json", "trace_view.json",
                                        "trace_view_flows.json", "snap.json", "snap_probe.json", "times.json", "tpl.json"};
    int n = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "fuzz/seeds/tracefast/%s", seeds[i]);
        const char *p = pt_checkout_file(rel);
        if (!p) continue;
        same_file(p);
        n++;
    }
    CHECK_INT(n, 14);
    static const char *const hta[] = {"hta/sampled_2rank/rank-0.json.gz", "hta/nccl_2rank/rank-0.json.gz",
                                      "hta/rank3_of_8/control.json.gz"};
    for (size_t i = 0; i < sizeof hta / sizeof *hta; i++) {
        const char *p = pt_shared_file("traces", hta[i]);
        if (p) same_file(p);
    }
}

/* A trace file t.json in a scratch folder of its own (name) for writing,
 * its path in p, its "traceEvents" list begun; NULL (checked) when it
 * cannot be made. */
static FILE *trace_file(const char *name, char *p, size_t cap) {
    const char *d = pt_tmpdir(name);
    if (!d) { CHECK(!"tmpdir"); return NULL; }
    snprintf(p, cap, "%s/t.json", d);
    FILE *o = fopen(p, "w");
    CHECK(o != NULL);
    if (o) fputs("{\"traceEvents\": [\n", o);
    return o;
}

/* HTA's whole-us rounding of kernels and launches (hta_ds, hta_de), skipped
 * for times whose doubles are their whole us exactly (0 and 0), made for
 * the others, also when the ns are whole but the double is not (more than
 * three decimals, rounded to ns): with the fast path and without it. */
static void hta_whole(void) {
    char p[1200];
    FILE *o = trace_file("hta_whole", p, sizeof p);
    if (!o) return;
    static const char *const kt[][2] = {{"1700000000010000.0", "40.0"}, {"1000.0001", "1.0"}, {"2000", "0.9999"},
                                        {"3000.5", "2"}, {"-7000", "3"}, {"6000.000", "1.000"}};
    static const int want[][2] = {{0, 0}, {1000, 0}, {0, -1000}, {500, -500}, {0, 0}, {0, 0}};
    for (int i = 0; i < 6; i++)
        fprintf(o, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": %s, "
                   "\"dur\": %s, \"args\": {\"stream\": 7, \"correlation\": %d}},\n", kt[i][0], kt[i][1], i + 1);
    fputs("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
          "\"ts\": 4000.0001, \"dur\": 3.5, \"args\": {\"correlation\": 1}},\n"
          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
          "\"ts\": 5000.0, \"dur\": 3.5, \"args\": {\"correlation\": 2}}\n]}\n", o);
    fclose(o);
    for (int fast = 0; fast < 2; fast++) {
        struct pt_tf_run r;
        pt_tf_parse(p, TRACE_PARSE_MAX_VALUE, fast, &r);
        CHECK_INT(r.rc, 0);
        CHECK_INT((long long)r.nk, 6);
        CHECK_INT((long long)r.nl, 2);
        for (size_t i = 0; i < r.nk && i < 6; i++) {
            CHECK_INT(r.k[i].hta_ds, want[r.k[i].corr - 1][0]);
            CHECK_INT(r.k[i].hta_de, want[r.k[i].corr - 1][1]);
        }
        for (size_t i = 0; i < r.nl && i < 2; i++) CHECK_INT(r.l[i].hta_ds, r.l[i].corr == 1 ? 1000 : 0);
        pt_tf_free(&r);
    }
}

/* The name answers kept per snapshot (trace_parse_ctx.h: kmemo, amemo):
 * 40 kernel names and 6 annotation names (4 of a phase) in runs of more
 * shapes than there are snapshots, so that a snapshot is replaced by one
 * of another name while an answer for its old one is kept.  Each kernel's
 * name is the one its correlation id says and each annotation's phase its
 * name's, and the whole file reads as the tokenizer reads it. */
static void snap_names(void) {
    static const char *const an[] = {"forward_step", "misc_a", "backward_step", "misc_b", "send_forward", "optimizer"};
    static const int aph[] = {TRACE_PH_FORWARD, TRACE_PH_NONE, TRACE_PH_BACKWARD, TRACE_PH_NONE, TRACE_PH_PP_COMM,
                              TRACE_PH_OPTIMIZER};
    char p[1200];
    FILE *o = trace_file("snap_names", p, sizeof p);
    if (!o) return;
    int corr = 0;
    for (int round = 0; round < 12; round++)
        for (int i = 0; i < 40; i++) {
            int kn = round % 2 ? 39 - i : (i * 7 + round) % 40;   /* runs in another order each round */
            corr++;
            fprintf(o, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kern_%02d\", \"pid\": 0, \"tid\": 7, "
                       "\"ts\": %d.5, \"dur\": 2.0, \"args\": {\"stream\": 7, \"correlation\": %d}},\n", kn, corr * 10, corr * 100 + kn);
            int a = (i + round) % 6;
            fprintf(o, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, "
                       "\"ts\": %d.0, \"dur\": 1.0, \"args\": {\"External id\": %d}},\n", an[a], corr * 10 + 1, a);
        }
    fputs("{\"ph\": \"i\", \"name\": \"end\", \"pid\": 0, \"tid\": 0, \"ts\": 0}\n]}\n", o);
    fclose(o);
    same_file(p);
    struct pt_tf_run r;
    pt_tf_parse(p, TRACE_PARSE_MAX_VALUE, 1, &r);
    CHECK_INT(r.rc, 0);
    CHECK_INT((long long)r.nk, 480);
    CHECK_INT((long long)r.nm.n, 40);
    int bad = 0;
    for (size_t i = 0; i < r.nk && r.k[i].name < r.nm.n; i++) {
        char want[16];
        snprintf(want, sizeof want, "kern_%02d", (int)(r.k[i].corr % 100));
        bad += strcmp(r.nm.v[r.k[i].name], want) != 0;
    }
    CHECK_INT(bad, 0);
    int nph = 0;
    for (int c0 = 0; c0 < 480; c0++) nph += aph[(c0 % 40 + c0 / 40) % 6] != TRACE_PH_NONE;
    CHECK_INT((long long)r.f.nannos, nph);   /* (misc_a and misc_b are no phase's: not kept) */
    for (size_t i = 0; i < r.f.nannos; i++) {
        long c0 = (long)((r.f.annos[i].start / 1000 - 1) / 10) - 1;   /* its kernel's correlation less 1 */
        bad += c0 < 0 || c0 >= 480 || r.f.annos[i].phase != aph[(c0 % 40 + c0 / 40) % 6];
    }
    CHECK_INT(bad, 0);
    pt_tf_free(&r);
}

/* One event read by ev (snapshots and templates of the events before) and
 * by a struct that has seen none (member by member): the same answer. */
static struct trace_fast_ev fresh;
static void same_as_members(const char *s) {
    const char *c1 = NULL, *c2 = NULL, *end = s + strlen(s);
    int f1 = -1, f2 = -1;
    memset(&fresh, 0, sizeof fresh);
    int r1 = trace_fast_event(s + 1, end, &ev, &c1, &f1), r2 = trace_fast_event(s + 1, end, &fresh, &c2, &f2);
    if (r1 != r2) fprintf(stderr, "read %d, member by member %d: %s\n", r1, r2, s);
    CHECK_INT(r1, r2);
    if (!r1 || !r2) return;
    CHECK(c1 == c2);
    CHECK_INT(f1, f2);
    CHECK_INT(ev.ph, fresh.ph);
    CHECK_INT(ev.cat, fresh.cat);
    CHECK_STR(trace_fast_ev_name(&ev), trace_fast_ev_name(&fresh));
    CHECK_INT(ev.has_ts, fresh.has_ts);
    CHECK_INT(ev.has_dur, fresh.has_dur);
    CHECK_INT(ev.bad_time, fresh.bad_time);
    if (ev.has_ts) {   /* (without it ts is the last event's, as trace_fast_ev_reset leaves it) */
        CHECK_INT(ev.ts, fresh.ts);
        CHECK(!memcmp(&ev.ts_d, &fresh.ts_d, sizeof ev.ts_d));
    }
    if (ev.has_dur) {
        CHECK_INT(ev.dur, fresh.dur);
        CHECK(!memcmp(&ev.dur_d, &fresh.dur_d, sizeof ev.dur_d));
    }
    CHECK_INT(ev.pid, fresh.pid);
    CHECK_INT(ev.tid, fresh.tid);
    CHECK_INT(ev.stream, fresh.stream);
    CHECK_INT(ev.corr, fresh.corr);
    CHECK_INT(ev.has_id, fresh.has_id);
    if (ev.has_id) CHECK_INT(ev.id, fresh.id);
    CHECK_INT(ev.task, fresh.task);
    CHECK_INT(ev.task_cat, fresh.task_cat);
    CHECK_STR(ev.argname, fresh.argname);
    CHECK_STR(ev.pgname, fresh.pgname);
    CHECK_STR(ev.pgdesc, fresh.pgdesc);
    CHECK_STR(ev.pgranks, fresh.pgranks);
    CHECK_INT(ev.p2p, fresh.p2p);
    CHECK_INT(ev.peer, fresh.peer);
    CHECK_INT(ev.prank, fresh.prank);
}

/* The rest of an event read by the template of the one before it
 * (trace_fast.c: tpl_apply), and every way the next one may differ from
 * it: keys reordered, added or missing, other white space, escapes in a
 * name or a key, a value of another kind or shape, a cut, bytes after.
 * Each variant comes after two events of the usual shape (the second
 * records the template); each is read as member by member. */
static void template_rest(void) {
    static const char *const usual =
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1700000000010030.5, "
        "\"dur\": 20.25, \"args\": {\"External id\": 12345678, \"device\": 0, \"stream\": 7, \"correlation\": 99}}";
    static const char *const pre = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, ";
    static const char *const rests[] = {
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 123456789012}}",
        "\"dur\": 3.5, \"ts\": 1700000000010040.0, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"correlation\": 1, \"stream\": 8}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1, \"x\": 2}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}, \"id\": 4}",
        "\"ts\":1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0 , \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0,\n \"dur\": 3.5, \"args\": { \"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1 } }",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}} ",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"str\\u0065am\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": \"8\", \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8.0, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": -8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 1234567890123456, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 08, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": \"5\", \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5e3, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": [5], \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": true, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.1234, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": \"1700000000010040.0\", \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1.7e15, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": -1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 17000000000100400.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": null, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"stream\": 9}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}x}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1,}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"correlation\": 1}}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"stream\": 8, \"name\": \"a\\\"b\"}}",
        "\"ts\": 1700000000010040.0, \"dur\": 3.5, \"args\": {\"External id\": 5, \"device\": 1, \"Dst Rank\": 3, \"Rank\": 1}}",
    };
    char buf[512];
    for (size_t i = 0; i < sizeof rests / sizeof *rests; i++) {
        memset(&ev, 0, sizeof ev);
        for (int k = 0; k < 3; k++) same_as_members(usual);
        int kept = 0;
        for (int k = 0; k < TRACE_FAST_NSNAP; k++) kept |= ev.snap[k].tend > 0;
        CHECK(kept);   /* the usual rest is a template */
        snprintf(buf, sizeof buf, "%s%s", pre, rests[i]);
        same_as_members(buf);
        same_as_members(buf);   /* its own template, when it has one */
        same_as_members(buf);
        same_as_members(usual);
    }
    /* a name with an escape, and the template's prefix with another name */
    memset(&ev, 0, sizeof ev);
    for (int k = 0; k < 3; k++) same_as_members(usual);
    same_as_members("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ge\\\"mm\", \"pid\": 0, \"tid\": 7, \"ts\": 1.0, \"dur\": 2.0}");
    same_as_members("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemn\", \"pid\": 0, \"tid\": 7, \"ts\": 1700000000010030.5, "
                    "\"dur\": 20.25, \"args\": {\"External id\": 1, \"device\": 0, \"stream\": 7, \"correlation\": 9}}");
    same_as_members(usual);
}

int main(void) {
    RUN(fields_kernel);
    RUN(fields_shapes);
    RUN(eighths);
    RUN(times_fixed);
    RUN(times_window);
    RUN(times_random);
    RUN(times_sum);
    RUN(ints_wide);
    RUN(fallbacks);
    RUN(template_rest);
    RUN(files_alike);
    RUN(hta_whole);
    RUN(snap_names);
    PT_DONE();
}
