/* The dump parser's fast read of tensor objects (src/io/dump/parse_dump_elem.c):
 * the fields of objects it reads (expected values written out by hand:
 * Python's float() of the decimal text and msProbe's rules), the shapes it
 * must leave to the tokens (it returns 0 and moves nothing), and whole rank
 * folders parsed alike with it and without it (tests/pt_dumpfast.h): the
 * fuzz seeds of every odd shape, the real GPU dump of msProbe's quick
 * start, and gen_dump.py dumps with planted NaN and Inf. */
#define _GNU_SOURCE   /* F_SETLEASE */
#include "pt_test.h"
#include "tests/pt_dumpfast.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "src/io/dump/parse_dump_elem.h"
#include "src/io/load.h"

static struct elem e;
static uint8_t reread;
static struct elem_tmpl *skel;   /* the skeletons fast() reads with (NULL: none) */

/* obj: an object from its '{', padded so that the read has room; 1 when
 * read fast (then the tokenizer must be right past the object's '}'). */
static int fast(const char *obj, int cap) {
    static char buf[4096];
    size_t n = strlen(obj);
    memset(buf, ' ', sizeof buf);
    memcpy(buf, "[", 1);
    memcpy(buf + 1, obj, n);
    memcpy(buf + 1 + n, ", 1]", 4);
    struct json_lex lx;
    struct pt_error err;
    json_lex_init(&lx, buf, sizeof buf, "test", &err);
    CHECK_INT(json_lex_next(&lx), JT_ARR_BEGIN);
    CHECK_INT(json_lex_next(&lx), JT_OBJ_BEGIN);
    const char *pos = lx.pos;
    reread = 0;
    int r = parse_dump_elem_fast(&lx, cap, &e, &reread, skel);
    if (!r) {
        CHECK(lx.pos == pos);   /* untouched: the tokens read it */
        CHECK_INT(reread, 0);
        return 0;
    }
    CHECK(lx.pos == buf + 1 + n);
    CHECK_INT(json_lex_next(&lx), JT_NUMBER);   /* the ", 1" after it */
    CHECK_INT(json_lex_next(&lx), JT_ARR_END);
    return 1;
}

static void bits(double a, uint64_t want) {
    uint64_t u;
    memcpy(&u, &a, 8);
    CHECK_INT(u, want);
}

static void fields(void) {
    CHECK_INT(fast("{\n     \"type\": \"torch.Tensor\",\n     \"dtype\": \"torch.bfloat16\",\n     \"shape\": [\n      2,\n"
                   "      3\n     ],\n     \"Max\": 0.1279296875,\n     \"Min\": -0.134765625,\n     \"Mean\": "
                   "1.52587890625e-05,\n     \"Norm\": 12.5,\n     \"requires_grad\": false\n    }",
                   0),
              1);
    CHECK_INT(e.usable, 1);
    CHECK_INT(e.present, 15);
    bits(e.v[1], 0x3fc0600000000000ULL);   /* float("0.1279296875") = 0.1279296875 exactly (131/1024) */
    bits(e.v[2], 0xbfc1400000000000ULL);   /* -0.134765625 = -138/1024 */
    bits(e.v[3], 0x3ef0000000000000ULL);   /* 1.52587890625e-05 = 2^-16 */
    bits(e.v[0], 0x4029000000000000ULL);   /* 12.5 */
    CHECK_INT(e.o.is_torch_tensor, 1);
    CHECK_INT(e.o.has_norm, 1);
    CHECK_INT(e.o.anomalous, 0);
    CHECK_INT(e.nonfinite, 0);

    /* NaN and Inf: msProbe's overflow text, the first of Max/Min/Mean; a NaN Norm is no norm */
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float16\", \"Max\": 1, \"Min\": -Infinity, "
                   "\"Mean\": NaN, \"Norm\": NaN}", 0),
              1);
    CHECK_INT(e.o.anomalous, 1);
    CHECK_INT(e.o.plain_anomalous, 1);
    CHECK_STR(e.o.what, "Min=-inf");
    CHECK_INT(e.o.has_norm, 0);
    CHECK_INT(e.nonfinite, 1);
    CHECK(isinf(e.v[2]) && e.v[2] < 0 && isnan(e.v[3]));

    /* literals as statistics: true 1, false 0, null absent (the earlier value kept) */
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": true, \"Min\": false, "
                   "\"Mean\": 2, \"Mean\": null, \"Norm\": 3}", 0),
              1);
    CHECK_INT(e.present, 15);
    CHECK(e.v[1] == 1 && e.v[2] == 0 && e.v[3] == 2 && e.v[0] == 3);

    /* a Norm true is a statistic but no norm for the overflow check */
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Norm\": true}", 0), 1);
    CHECK_INT(e.present, 1);
    CHECK(e.v[0] == 1);
    CHECK_INT(e.o.has_norm, 0);

    /* not usable: a dtype of another kind, a type of another kind */
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.int64\", \"Max\": 3}", 0), 1);
    CHECK_INT(e.usable, 0);
    CHECK_INT(fast("{\"type\": \"mindspore.Tensor\", \"dtype\": \"Float32\", \"Max\": 3, \"Norm\": 4}", 0), 1);
    CHECK_INT(e.usable, 1);
    CHECK_INT(e.o.is_torch_tensor, 0);
    CHECK_INT(e.o.has_norm, 0);

    /* the origin search's flags: a name for the item, a key twice, a dtype cut */
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float16\", \"data_name\": \"a.pt\", \"Max\": 1}", 1), 1);
    CHECK_INT(reread, 1);
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float16\", \"data_name\": \"a.pt\", \"Max\": 1}", 0), 1);
    CHECK_INT(reread, 0);
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float16\", \"Min\": 1, \"Min\": 2}", 0), 1);
    CHECK_INT(reread, 1);
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float16_past_the_forty_bytes_of_a_dtype\", \"Max\": 1}", 0), 1);
    CHECK_INT(reread, 1);
    CHECK_INT(e.usable, 0);
    CHECK_INT(fast("{}", 0), 1);
    CHECK_INT(e.usable, 0);
    CHECK_INT(e.present, 0);
}

/* What the fast read leaves to the tokens: escapes, statistics as strings,
 * nested objects and arrays, numbers past 19 digits, errors, spaces before
 * a colon. */
static void fallbacks(void) {
    static const char *const left[] = {
        "{\"type\": \"torch.Tensor\", \"M\\u0061x\": 1}",
        "{\"type\": \"torch.Ten\\u0073or\", \"Max\": 1}",
        "{\"type\": \"torch.Tensor\", \"Max\": \"inf\"}",
        "{\"type\": \"torch.Tensor\", \"Max\": {\"a\": 1}}",
        "{\"type\": \"torch.Tensor\", \"Max\": [1]}",
        "{\"type\": \"torch.Tensor\", \"shape\": [[1, 2]]}",
        "{\"type\": \"torch.Tensor\", \"shape\": [\"a\"]}",
        "{\"type\": [\"torch.Tensor\"]}",
        "{\"type\": \"torch.Tensor\", \"Max\": 12345678901234567890123}",
        "{\"type\": \"torch.Tensor\", \"Max\": 1e1000}",
        "{\"type\": \"torch.Tensor\", \"Max\": 01}",
        "{\"type\": \"torch.Tensor\", \"Max\": 1.}",
        "{\"type\": \"torch.Tensor\", \"Max\": truex}",
        "{\"type\" : \"torch.Tensor\"}",
        "{\"type\": \"torch.Tensor\" \"Max\": 1}",
        "{\"type\": \"a\x01\"}",
    };
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) CHECK_INT(fast(left[i], 1), 0);
}

/* Keys read by their first word (key_word): the usual ones, and keys
 * that share their first bytes, are one byte short or long, or put a space
 * before the colon, which must read as key_of reads them. */
static void keys_by_word(void) {
    static const char *const other[] = {"Maxx", "Ma", "Mi", "Minn", "Mea", "Means", "Nor", "Norms", "requires_gra",
                                        "requires_gradx", "shap", "shapes", "M", "N", "Max_", "Mean\\u0020"};
    char obj[256];
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        snprintf(obj, sizeof obj, "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"%s\": 5}", other[i]);
        int escaped = strchr(other[i], '\\') != NULL;
        CHECK_INT(fast(obj, 0), !escaped);
        if (!escaped) {
            CHECK_INT(e.present, 0);   /* none of Max, Min, Mean, Norm */
            CHECK_INT(e.usable, 1);
        }
    }
    /* type and dtype lookalikes leave the object unusable */
    CHECK_INT(fast("{\"typ\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": 1}", 0), 1);
    CHECK_INT(e.usable, 0);
    CHECK_INT(e.present, 2);   /* Max */
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"dtypes\": \"torch.float32\", \"Min\": 1}", 0), 1);
    CHECK_INT(e.usable, 0);
    CHECK_INT(e.present, 4);   /* Min */
    /* each usual key, also right after the object's '{' and with no space after the colon */
    CHECK_INT(fast("{\"Norm\":2,\"Mean\":3,\"Min\":4,\"Max\":5,\"shape\":[1],\"requires_grad\":true,"
                   "\"dtype\":\"torch.float16\",\"type\":\"torch.Tensor\"}", 0),
              1);
    CHECK_INT(e.present, 15);
    CHECK(e.v[0] == 2 && e.v[3] == 3 && e.v[2] == 4 && e.v[1] == 5);
    CHECK_INT(e.usable, 1);
    /* a space before the colon: the tokens' */
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"Max\" : 1}", 0), 0);
    CHECK_INT(fast("{\"type\": \"torch.Tensor\", \"requires_grad\" : true}", 0), 0);
    CHECK_INT(fast("{\"dtype\"  : \"torch.float16\"}", 0), 0);
}

/* Record names whose ".forward" (parse_dump.c find_dotted, 16 places at
 * once) lies at every offset around the 16- and 32-byte marks, after
 * near misses (".f", ".forwar"): each named as msProbe names it. */
static void names_around_blocks(void) {
    static char text[16384], want[128];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"data\": {");
    for (int l = 0; l <= 40; l++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "%s\"Functional.%.*s.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", "
                              "\"dtype\": \"torch.float32\", \"Max\": 1, \"Min\": 0, \"Mean\": 0, \"Norm\": 1}]}",
                              l ? ", " : "", l, "x.f.forwar.x.f.forwar.x.f.forwar.x.f.forwar.");
    snprintf(text + n, sizeof text - n, "}}");
    const char *dir = pt_tmpdir("test_dump_fast_names");
    CHECK_INT(pt_write_rank0(dir, text), 0);
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), 0);
    if (!ds) return;
    CHECK_INT(names_count(ds->cube->names), 41);
    for (int l = 0; l <= 40; l++) {
        snprintf(want, sizeof want, "Functional.%.*s.input.0", l, "x.f.forwar.x.f.forwar.x.f.forwar.x.f.forwar.");
        int found = 0;
        for (uint32_t i = 0; i < names_count(ds->cube->names) && !found; i++)
            found = !strcmp(names_str(ds->cube->names, i), want);
        if (!found) printf("  missing %s\n", want);
        CHECK(found);
    }
    dataset_free(ds);
}

/* A fuzz input (dump.json [\x1e construct.json]) as a rank folder. */
static void same_seed(const char *path) {
    char *s = pt_slurp(path);
    const char *dir = pt_tmpdir("test_dump_fast");
    CHECK(s && dir);
    if (!s || !dir) { free(s); return; }
    char p[1200];
    char *sep = strchr(s, '\x1e');
    if (sep) {
        *sep = '\0';
        snprintf(p, sizeof p, "%s/construct.json", dir);
        CHECK_INT(pt_write(p, sep + 1), 0);
    }
    snprintf(p, sizeof p, "%s/dump.json", dir);
    CHECK_INT(pt_write(p, s), 0);
    char why[512] = "";
    int same = pt_df_same(dir, why, sizeof why);
    if (!same) fprintf(stderr, "  %s: %s\n", path, why);
    CHECK(same);
    free(s);
}

static void same_dir(const char *dir) {
    char why[512] = "";
    int same = pt_df_same(dir, why, sizeof why);
    if (!same) fprintf(stderr, "  %s: %s\n", dir, why);
    CHECK(same);
}

/* The records text holds (n bytes of size so far) closed, as a rank
 * folder's dump.json in the temporary folder tag. */
static void same_text(const char *tag, char *text, size_t n, size_t size) {
    CHECK(n + 4 < size);
    if (n + 4 >= size) return;
    snprintf(text + n, size - n, "\n}}");
    const char *dir = pt_tmpdir(tag);
    char p[1200];
    CHECK(dir != NULL);
    if (!dir) return;
    snprintf(p, sizeof p, "%s/dump.json", dir);
    CHECK_INT(pt_write(p, text), 0);
    same_dir(dir);
}

static void files_alike(void) {
    static const char *const seeds[] = {"dumpfast/odd.json", "dumpfast/odd_construct", "dumpfast/cut.json",
                                        "dumpfast/bad_lead0.json", "dumpfast/bad_dot.json", "dumpfast/bad_minus.json",
                                        "dumpfast/bad_exp.json", "dumpfast/bad_true.json", "dumpfast/bad_ctl.json",
                                        "dumpfast/bad_colon.json", "dump/megatron", "dump/no_construct",
                                        "dump/with_construct", "dumpfast/skeletons.json"};
    int n = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "fuzz/seeds/%s", seeds[i]);
        const char *p = pt_checkout_file(rel);
        if (!p) continue;
        same_seed(p);
        n++;
    }
    CHECK_INT(n, 14);
    /* msProbe's quick start: a real GPU dump of two steps */
    static const char *const real[] = {"examples/quick_start/gpu_dump/step0/proc2016",
                                       "examples/quick_start/gpu_dump/step1/proc2016"};
    for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
        const char *p = pt_fixture(real[i]);
        if (p) same_dir(p);
    }
}

/* gen_dump.py's reference model with a NaN and an Inf planted */
static void generated(void) {
    const char *tmp = pt_tmpdir("test_dump_fast_gen");
    char p[1200], b[1200];
    if (!tmp || pt_gen_pair(tmp, "--steps 1 --ranks 2 --layers 2 --micro-batches 2 --tp 2 --quiet",
                            "--nan 0:1:linear --nan 0:0:softmax:inf", p, b, sizeof p) != 0) {
        printf("  (no Python or gen_dump.py: skipped)\n");
        return;
    }
    const char *const sub[] = {"step0/rank0", "step0/rank1"};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < 2; i++) {
            char d[2600];
            snprintf(d, sizeof d, "%s/%s", k ? b : p, sub[i]);
            same_dir(d);
        }
}

/* A dump.json mapped under its read lease (src/io/common/lease_map.h) and
 * the same file read, because a writer holds it open and the lease is
 * refused: parsed alike, rows and origin records, the fast read on. */
static void mapped_same_as_read(void) {
    const char *src = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016");
    const char *dir = pt_tmpdir("test_dump_fast_map");
    if (!src || !dir) {
        printf("  (no quick-start fixture: skipped)\n");
        return;
    }
    char p[1200], dump[1200];
    static const char *const names[] = {"dump.json", "construct.json"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", src, names[i]);
        char *text = pt_slurp(p);
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        CHECK(text && pt_write(p, text) == 0);
        free(text);
    }
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    int fd = open(dump, O_RDONLY);   /* leases here? (else both are read) */
    if (fd < 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0) printf("  (no read lease here: both read)\n");
    if (fd >= 0) close(fd);
    const struct dump_opts opts[2] = {{.micro_step = 1, .want_rows = 1}, {.micro_step = 0, .origin_keep = 1}};
    for (int k = 0; k < 2; k++) {
        struct dump_file a, b;
        pt_df_parse(dir, dump, &opts[k], 1, &a, NULL);
        int w = open(dump, O_WRONLY);   /* open to be written: no lease, read */
        CHECK(w >= 0);
        pt_df_parse(dir, dump, &opts[k], 1, &b, NULL);
        if (w >= 0) close(w);
        char why[512] = "";
        int same = a.ok && pt_df_compare(&a, &b, why, sizeof why);
        if (!same) fprintf(stderr, "  options %d: %s\n", k, why);
        CHECK(same);
        CHECK(a.nrows > 0 || k == 1);
        dump_file_free(&a);
        dump_file_free(&b);
    }
}

/* Skeletons (parse_dump_elem.c): tensor objects that repeat one layout
 * with other values, then each way an object can differ from the skeleton
 * it is matched against (values of other kinds, a cut type, nested or
 * odd shapes, a key given twice, data_name, escapes, other indentation,
 * a member more or less, white space before the '}'): parsed alike with
 * the fast read and with the tokens, for every option set (pt_df_same),
 * each variant after the base so that a skeleton is there to match. */
static void skeletons(void) {
#define SK_OBJ(t, d, sh, mx, mn, rest)                                                                               \
    "{\n     \"type\": " t ",\n     \"dtype\": " d ",\n     \"shape\": " sh ",\n     \"Max\": " mx                    \
    ",\n     \"Min\": " mn rest "\n    }"
#define SK_BASE(mx, mn) SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[\n      4,\n      8\n     ]", mx, mn, \
                               ",\n     \"Mean\": 0.5,\n     \"Norm\": 2.0,\n     \"requires_grad\": false")
    static const char *const variants[] = {
        SK_BASE("1.5", "-1.5"),
        SK_BASE("NaN", "-Infinity"),
        SK_BASE("Infinity", "null"),
        SK_BASE("true", "false"),
        SK_BASE("\"nan\"", "1"),
        SK_BASE("1e400", "-0.0"),
        SK_BASE("12345678901234567890123", "1"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[]", "1", "2", ",\n     \"Mean\": 0.5,\n     \"Norm\": NaN,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[[1, 2]]", "1", "2", ",\n     \"Mean\": 0.5,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[\"a]\"]", "1", "2", ",\n     \"Mean\": 0.5,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor.of.a.name.long.enough.to.be.cut.where.the.tokens.cut.it.too.xxxxxxxx\"",
               "\"torch.float32\"", "[1]", "NaN", "2", ",\n     \"Mean\": 0.5,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "\"\"", "[1]", "NaN", "2", ",\n     \"Mean\": 0.5,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "7", "[1]", "NaN", "2", ",\n     \"Mean\": 0.5,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float\\u0033\\u0032\"", "[1]", "NaN", "2", ",\n     \"Mean\": 0.5,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "NaN", "2", ",\n     \"Max\": 3,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "4", "2", ",\n     \"Max\": Infinity,\n     \"Norm\": 2,\n     \"requires_grad\": true"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "4", "2", ",\n     \"data_name\": \"x.pt\",\n     \"Norm\": 2"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "NaN", "2", ",\n     \"data_name\": \"y.pt\",\n     \"Norm\": 2"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "NaN", "2", ",\n     \"M\\u0065an\": 1,\n     \"Norm\": 2"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "NaN", "2", ",\n     \"Mean\": {\"a\": 1},\n     \"Norm\": 2"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "NaN", "2", ",\n     \"Mean\": 1,\n     \"Norm\": 2 "),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float16\"", "[1]", "NaN", "2", ",\n     \"Mean\": 1,\n     \"Norm\": 2,\n     \"extra\": [1, 2]"),
        SK_OBJ("\"int\"", "\"<class 'int'>\"", "[]", "NaN", "2", ""),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[1]", "NaN", "2", ",\n     \"value\": 1,\n     \"value\": 2"),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[1]", "NaN", "2", ",\n     \"md5\": \"ab\",\n     \"md5\": \"cd\""),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[1]", "NaN", "2", ""),
        /* a type (62, 63 bytes) or dtype (38, 39) at the length the tokens cut at, a type or dtype given twice */
        SK_OBJ("\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"", "\"torch.float32\"", "[1]", "NaN", "2", ""),
        SK_OBJ("\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"", "\"torch.float32\"", "[1]", "NaN", "2", ""),
        SK_OBJ("\"torch.Tensor\"", "\"dddddddddddddddddddddddddddddddddddddd\"", "[1]", "NaN", "2", ""),
        SK_OBJ("\"torch.Tensor\"", "\"ddddddddddddddddddddddddddddddddddddddd\"", "[1]", "NaN", "2", ""),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[1]", "NaN", "2", ",\n     \"type\": \"int\""),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[1]", "NaN", "2", ",\n     \"dtype\": \"torch.float32\""),
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[1]", "NaN", "2", ",\n     \"dtype\": null"),
        /* literals after a statistic and elsewhere (the latter read as part of the skeleton's literals) */
        SK_OBJ("\"torch.Tensor\"", "\"torch.float32\"", "[1]", "1", "2", ",\n     \"Norm\": 2,\n     \"Norm\": null,\n     \"requires_grad\": null"),
        SK_OBJ("\"torch.Tensor\"", "null", "[1]", "null", "true", ",\n     \"Norm\": false,\n     \"requires_grad\": true"),
        "{\n        \"type\": \"torch.Tensor\",\n        \"dtype\": \"torch.float32\",\n        \"Max\": NaN,\n        \"Min\": 1\n       }",
        "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": -Infinity, \"Min\": 1}",
        "{\"type\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"dtype\": \"torch.float32\", \"Max\": 1, \"Min\": 1}",
        "{\"type\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"dtype\": \"torch.float32\", \"Max\": 1, \"Min\": 1}",
        "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": 2, \"Min\": 1, \"Max\": NaN}",
        "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": 2, \"Min\": 1, \"Max\": 3}",
        "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": 2,\"Min\": 1}",
        "{}",
    };
    const size_t nv = sizeof variants / sizeof *variants;
    static char text[1 << 17];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"data\": {");
    /* each variant after the base, and after itself, in an input list and
     * as a communication op's (the origin search keeps it) */
    for (size_t i = 0; i < nv; i++)
        for (int k = 0; k < 2; k++)
            n += (size_t)snprintf(text + n, sizeof text - n,
                                  "%s\"%s.%zu.forward\": {\n   \"input_args\": [\n    %s,\n    %s,\n    %s\n   ],\n"
                                  "   \"output\": [\n    %s\n   ]\n  }",
                                  i || k ? ",\n  " : "\n  ", k ? "Distributed.all_reduce" : "Functional.linear", i,
                                  variants[0], variants[i], variants[i], variants[0]);
    same_text("test_dump_fast_skel", text, n, sizeof text);
    /* and one object at a time: each variant read after the base with
     * skeletons gives what it gives without */
    static struct elem_tmpl tm;
    for (size_t i = 0; i < nv; i++)
        for (int cap = 0; cap < 2; cap++)
            for (int k = 0; k < 2; k++) {
                memset(&tm, 0, sizeof tm);   /* the base's skeleton alone, then the variant's own */
                skel = &tm;
                CHECK_INT(fast(variants[0], cap), 1);
                int r1 = fast(variants[i], cap);
                if (k) r1 = fast(variants[i], cap);   /* against the skeleton learned from itself */
                struct elem e1 = e;
                uint8_t rr1 = reread;
                skel = NULL;
                int r0 = fast(variants[i], cap);
                if (r0 != r1 || (r0 && (memcmp(&e, &e1, sizeof e) || reread != rr1)))
                    printf("  variant %zu (cap %d) read otherwise with a skeleton\n", i, cap);
                CHECK(r0 == r1 && (!r0 || (!memcmp(&e, &e1, sizeof e) && reread == rr1)));
            }
}

/* Keyword inputs (parse_kwargs: each key and its '{' by
 * json_lex_key_open, from the first): objects as msProbe indents them and
 * packed, a first or later value not an object, keys with an escape, a
 * dot, white space before the ':', of 126 to 129 and 200 bytes (cut at
 * 127), given twice, NaN and Inf statistics at the top level and under a
 * dotted name, an empty object; read fast and by the tokens alike. */
static void keywords(void) {
#define KW_T(mx) "{\n     \"type\": \"torch.Tensor\",\n     \"dtype\": \"torch.float32\",\n     \"shape\": [\n      4\n     ],\n" \
                 "     \"Max\": " mx ",\n     \"Min\": -1.5,\n     \"Mean\": 0.5,\n     \"Norm\": 2.0,\n     \"requires_grad\": false\n    }"
#define KW_S "{\n     \"type\": \"float\",\n     \"value\": 0.0\n    }"
    char k126[127], k128[129], k200[201];
    memset(k126, 'k', sizeof k126 - 1);
    memset(k128, 'k', sizeof k128 - 1);
    memset(k200, 'k', sizeof k200 - 1);
    k126[126] = k128[128] = k200[200] = '\0';
    static char kw[16][1024];
    int nk = 0;
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"p\": " KW_S ",\n    \"training\": " KW_S ",\n    \"x\": " KW_T("1.5") "\n   }");
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"a\": 1,\n    \"b\": " KW_T("NaN") "\n   }");
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"b\": " KW_T("1") ",\n    \"a\": [" KW_T("Infinity") "],\n    \"c\": null\n   }");
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"k\\u0065y\": " KW_T("NaN") ",\n    \"x.y\": " KW_T("NaN") "\n   }");
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"x.y\": " KW_T("-Infinity") ",\n    \"z\" : " KW_T("NaN") "\n   }");
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"%s\": " KW_T("NaN") ",\n    \"%s\": " KW_S "\n   }", k126, k128);
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"%s\": " KW_S ",\n    \"%s.\": " KW_T("NaN") "\n   }", k200, k128);
    snprintf(kw[nk++], sizeof kw[0], "{\n    \"%.127s\": " KW_T("NaN") ",\n    \"%.129s\": " KW_T("2") "\n   }", k200, k200);
    snprintf(kw[nk++], sizeof kw[0], "{\"a\":{\"type\":\"int\",\"value\":1},\"b\":" KW_T("NaN") ",\"a\":" KW_T("3") "}");
    snprintf(kw[nk++], sizeof kw[0], "{}");
    snprintf(kw[nk++], sizeof kw[0], "{ \"a\": {}, \"b\": {\"Max\": NaN}}");
    snprintf(kw[nk++], sizeof kw[0], "{\n\n \t\"a\":\n " KW_S ",\r\n\"b\"\n:" KW_T("NaN") "\n   }");
    static char text[1 << 16];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"data\": {");
    /* each after a plain record (the skeletons learned) and after itself */
    for (int i = 0; i < nk; i++)
        for (int k = 0; k < 3; k++)
            n += (size_t)snprintf(text + n, sizeof text - n,
                                  "%s\"%s.%d.%d.forward\": {\n   \"input_args\": [\n    %s\n   ],\n   \"input_kwargs\": %s,\n"
                                  "   \"output\": [\n    %s\n   ]\n  }",
                                  i || k ? ",\n  " : "\n  ", i % 2 ? "Distributed.all_reduce" : "Functional.dropout", i, k,
                                  KW_T("1"), k ? kw[i] : kw[0], KW_T("2"));
    same_text("test_dump_fast_kw", text, n, sizeof text);
#undef KW_T
#undef KW_S
}

/* Statistics read again from their bytes (elem_tmpl's num): a value
 * whose bytes match one read before up to where that one ended, and ones
 * that only begin alike (longer, an exponent after, another end), each
 * read in turn through one skeleton, give what a read without skeletons
 * gives, and the values written out. */
static void numbers_again(void) {
    static const char *const nums[] = {
        "0.1279296875", "0.12792968751", "0.1279296875e1", "0.12792968750", "1.0", "1.05", "1", "1.0e5", "1.0E+5",
        "-1.0", "147.0", "-0.0001678466796875", "-2.1576881408691406e-05", "1e999", "-1e999", "0.1279296875",
        "1.0", "1e-999", "0.00023937225341796875", "0.000239372253417968750", "12345678901234567890", "-0", "0",
    };
    const size_t nn = sizeof nums / sizeof *nums;
    static struct elem_tmpl tm;
    memset(&tm, 0, sizeof tm);
    char obj[512];
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < nn; i++) {
            /* round 2: the next value as Min, so that one's bytes are met at two places */
            const char *mx = nums[i], *mn = round == 2 ? nums[(i + 1) % nn] : "-0.134765625";
            snprintf(obj, sizeof obj,
                     "{\n     \"type\": \"torch.Tensor\",\n     \"dtype\": \"torch.bfloat16\",\n     \"shape\": [\n      2\n"
                     "     ],\n     \"Max\": %s,\n     \"Min\": %s,\n     \"Mean\": %s,\n     \"Norm\": 12.5,\n"
                     "     \"requires_grad\": %s\n    }",
                     mx, mn, round ? mx : "null", round == 1 ? "true" : "false");
            skel = &tm;
            int r1 = fast(obj, 0);
            struct elem e1 = e;
            skel = NULL;
            int r0 = fast(obj, 0);
            if (r0 != r1 || (r0 && memcmp(&e, &e1, sizeof e)))
                printf("  %s (round %d) read otherwise again\n", nums[i], round);
            CHECK(r0 == r1 && (!r0 || !memcmp(&e, &e1, sizeof e)));
        }
    /* values: the last read first, then bytes beginning as it does */
    skel = &tm;
    static const struct { const char *t; uint64_t bits; } want[] = {
        {"0.1279296875", 0x3fc0600000000000ULL},     /* 131/1024 */
        {"0.12792968751", 0x3fc0600000057f60ULL},   /* float("0.12792968751") */
        {"0.1279296875e1", 0x3ff4780000000000ULL},  /* 1.279296875 */
        {"1.0", 0x3ff0000000000000ULL},
        {"1.05", 0x3ff0cccccccccccdULL},
        {"1.0e5", 0x40f86a0000000000ULL},
        {"-0.0001678466796875", 0xbf26000000000000ULL},   /* -11/65536 */
        {"1.0", 0x3ff0000000000000ULL},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        snprintf(obj, sizeof obj,
                 "{\n     \"type\": \"torch.Tensor\",\n     \"dtype\": \"torch.bfloat16\",\n     \"shape\": [\n      2\n"
                 "     ],\n     \"Max\": %s,\n     \"Min\": -0.134765625,\n     \"Mean\": null,\n     \"Norm\": 12.5,\n"
                 "     \"requires_grad\": false\n    }",
                 want[i].t);
        CHECK_INT(fast(obj, 0), 1);
        bits(e.v[1], want[i].bits);
    }
    skel = NULL;
}

/* Skeleton literals of every length from 7 to 96 bytes (lit_eq: 32 bytes a
 * step, then a block of 16, then the last 1 to 16 by their mask): an
 * object read by the skeleton learned from itself, then one whose literals
 * differ from it in a single byte (the "Max" and "Min" keys swapped, at
 * byte len - 6 of the first and the second literal) read as what it is,
 * not as the skeleton says, then the first again. */
static void literal_lengths(void) {
    static struct elem_tmpl tm;
    char a[512], b[512];
    for (int len = 7; len <= 96; len++) {
        int pad = len - 7;   /* the first literal: pad spaces, "Max": and one space */
        snprintf(a, sizeof a, "{%*s\"Max\": 1.5,%*s\"Min\": -2.5%*s}", pad, "", pad, "", pad, "");
        snprintf(b, sizeof b, "{%*s\"Min\": 3.5,%*s\"Max\": -4.5%*s}", pad, "", pad, "", pad, "");
        memset(&tm, 0, sizeof tm);
        skel = &tm;
        for (int round = 0; round < 3; round++) {
            CHECK_INT(fast(a, 0), 1);   /* learned, then read by the skeleton */
            CHECK_INT(e.present, 6);
            bits(e.v[1], 0x3ff8000000000000ULL);   /* Max 1.5 */
            bits(e.v[2], 0xc004000000000000ULL);   /* Min -2.5 */
        }
        CHECK_INT(tm.k[0].live, 1);
        CHECK_INT(tm.k[0].s[0].len, len);
        for (int round = 0; round < 2; round++) {
            CHECK_INT(fast(b, 0), 1);
            CHECK_INT(e.present, 6);
            bits(e.v[2], 0x400c000000000000ULL);   /* Min 3.5 */
            bits(e.v[1], 0xc012000000000000ULL);   /* Max -4.5 */
            CHECK_INT(fast(a, 0), 1);
            bits(e.v[1], 0x3ff8000000000000ULL);
            bits(e.v[2], 0xc004000000000000ULL);
        }
        skel = NULL;
    }
}

/* Objects met again (struct elem_memo): each read three times with the
 * skeletons (learned, then by the skeleton and kept, then from what was
 * kept), each time as the tokens read it (skel NULL), reread included.
 * Among them one differing from the object before only inside (the same
 * length and the same last 32 bytes: the same slot), a NaN (its text), a
 * '}' in a string (not kept: its first '}' is not its end), a data_name
 * with cap (not kept: cap sets reread there), a key given twice. */
static void objects_again(void) {
    static struct elem_tmpl tm;
    memset(&tm, 0, sizeof tm);
#define T0 "{\n     \"type\": \"torch.Tensor\",\n     \"dtype\": \"torch.float32\",\n     \"shape\": [\n      4\n     ],\n"
#define T1 ",\n     \"Mean\": 0.5,\n     \"Norm\": 2.75,\n     \"requires_grad\": false\n    }"
    static const struct { const char *obj; int cap, kept; } objs[] = {
        {T0 "     \"Max\": 1.25,\n     \"Min\": -3.5" T1, 0, 1},
        {T0 "     \"Max\": 1.75,\n     \"Min\": -3.5" T1, 0, 1},   /* the same slot as the one before */
        {T0 "     \"Max\": NaN,\n     \"Min\": -3.5" T1, 0, 1},
        {T0 "     \"Max\": 1.25,\n     \"Min\": -3.5" T1, 0, 1},
        {"{\"type\": \"a}b\", \"dtype\": \"torch.float32\", \"Max\": 2.5, \"Min\": 1.0}", 0, 0},
        {T0 "     \"data_name\": \"x.pt\",\n     \"Max\": 1.25,\n     \"Min\": -3.5" T1, 1, 0},
        {T0 "     \"Max\": 1.25,\n     \"Max\": 4.0,\n     \"Min\": -3.5" T1, 0, 1},
    };
#undef T0
#undef T1
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof objs / sizeof *objs; i++)
            for (int round = 0; round < 3; round++) {
                skel = &tm;
                int r1 = fast(objs[i].obj, objs[i].cap);
                struct elem e1 = e;
                uint8_t rr1 = reread;
                skel = NULL;
                int r0 = fast(objs[i].obj, objs[i].cap);
                CHECK_INT(r1, 1);
                CHECK_INT(r0, 1);
                CHECK_INT(rr1, reread);
                CHECK(!memcmp(&e, &e1, sizeof e));
            }
    /* what was kept: the objects' own bytes, the data_name's and the '}' in a string's not */
    size_t kept = 0, want = 0;
    for (unsigned j = 0; j < ELEM_MEMO_N; j++) kept += tm.memo[j].len != 0;
    for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) want += objs[i].kept;
    CHECK(kept >= 1 && kept <= want - 1);   /* the first and fourth are one; the first two may share a slot */
    skel = &tm;
    CHECK_INT(fast(objs[1].obj, 0), 1);
    bits(e.v[1], 0x3ffc000000000000ULL);   /* Max 1.75 */
    CHECK_INT(fast(objs[0].obj, 0), 1);
    bits(e.v[1], 0x3ff4000000000000ULL);   /* Max 1.25 */
    CHECK_INT(fast(objs[2].obj, 0), 1);
    CHECK_INT(e.o.anomalous, 1);
    CHECK(!strcmp(e.o.what, "Max=nan"));
    CHECK_INT(fast(objs[6].obj, 0), 1);
    CHECK_INT(reread, 1);   /* Max twice */
    bits(e.v[1], 0x4010000000000000ULL);   /* the last: 4.0 */
    CHECK_INT(fast(objs[5].obj, 1), 1);
    CHECK_INT(reread, 1);
    CHECK_INT(fast(objs[5].obj, 0), 1);
    CHECK_INT(reread, 0);   /* without cap a data_name sets nothing */
    skel = NULL;
}

/* A worker's scratch kept from file to file (read_dump.h's dump_scratch):
 * a second folder holding objects byte for byte the first's, read with the
 * skeletons, memo and numbers the first left, gives the values its own
 * bytes hold, and what a fresh parse gives, with and without records kept
 * for the origin search (a data_name's object: reread only with them). */
static void scratch_kept(void) {
#define T0 "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4], "
#define T1 ", \"Mean\": 0.5, \"Norm\": 2.75, \"requires_grad\": false}"
#define REC(n, a, b) "\"Functional.linear." n ".forward\": {\"input_args\": [" a "], \"input_kwargs\": {}, \"output\": [" b "]}"
    static const char *const text[2] = {
        "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {\n" REC("0", T0 "\"Max\": 1.25, \"Min\": -3.5" T1,
                                                                        T0 "\"Max\": 1.75, \"Min\": -3.5" T1) "\n}}",
        "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {\n" REC("0", T0 "\"Max\": 1.75, \"Min\": -3.5" T1,
                                                                        T0 "\"data_name\": \"x.pt\", \"Max\": 1.25, \"Min\": -3.5" T1) ",\n"
        REC("1", T0 "\"Max\": 1.25, \"Min\": -3.5" T1, T0 "\"Max\": 1.25, \"Max\": 4.0, \"Min\": -3.5" T1) "\n}}"};
#undef REC
#undef T0
#undef T1
    char dir[2][1200], dump[2][1300];
    for (int i = 0; i < 2; i++) {
        const char *d = pt_tmpdir(i ? "test_dump_fast_kept1" : "test_dump_fast_kept0");
        CHECK(d != NULL);
        if (!d) return;
        snprintf(dir[i], sizeof dir[i], "%s", d);
        snprintf(dump[i], sizeof dump[i], "%s/dump.json", d);
        CHECK_INT(pt_write(dump[i], text[i]), 0);
    }
    const struct dump_opts opts[2] = {{.micro_step = 0, .want_rows = 1}, {.micro_step = 0, .origin_keep = 1}};
    static const double maxes[4] = {1.75, 1.25, 1.25, 4.0};   /* the second folder's rows, in order */
    for (int k = 0; k < 2; k++) {
        struct dump_scratch sc = {0};
        struct dump_file a, b, c;
        pt_df_parse(dir[0], dump[0], &opts[0], 1, &a, &sc);
        CHECK(sc.tm != NULL);
        pt_df_parse(dir[1], dump[1], &opts[k], 1, &b, &sc);   /* the first's objects met again */
        pt_df_parse(dir[1], dump[1], &opts[k], 1, &c, NULL);
        char why[512] = "";
        int same = a.ok && b.ok && pt_df_compare(&b, &c, why, sizeof why);
        if (!same) fprintf(stderr, "  options %d: %s\n", k, why);
        CHECK(same);
        if (k == 0) {
            CHECK_INT(b.nrows, 4);
            for (size_t i = 0; i < b.nrows && i < 4; i++) {
                CHECK(b.rows[i].present & 2);
                CHECK(b.rows[i].v[1] == maxes[i]);
                CHECK(b.rows[i].v[2] == -3.5);
            }
        } else {
            CHECK(b.ocap != NULL);
        }
        dump_file_free(&a);
        dump_file_free(&b);
        dump_file_free(&c);
        dump_scratch_free(&sc);
        CHECK(sc.tm == NULL && sc.rbuf == NULL);
    }
}

int main(void) {
    RUN(fields);
    RUN(fallbacks);
    RUN(keys_by_word);
    RUN(names_around_blocks);
    RUN(files_alike);
    RUN(generated);
    RUN(skeletons);
    RUN(keywords);
    RUN(numbers_again);
    RUN(literal_lengths);
    RUN(objects_again);
    RUN(mapped_same_as_read);
    RUN(scratch_kept);
    PT_DONE();
}
