/* The dump parser's record skeletons (src/io/dump/rec_skel.h): the pieces
 * kept and matched, and records of every shape around them (matched
 * whole, left to the tokens at the first piece, the second or the third,
 * members given twice, escaped keys, empty lists, items not objects, a
 * record cut in its output list) read alike with them and with the
 * tokens alone (tests/pt_dumpfast.h), with the values the tokens give
 * written out: rows, metrics, the origin search's rereads. */
#include "pt_test.h"
#include "tests/pt_dumpfast.h"

#include "src/io/dump/dump_classify.h"
#include "src/io/dump/rec_skel.h"

static void pieces(void) {
    static struct rec_skel sk;
    memset(&sk, 0, sizeof sk);
    const char *txt = "\n   \"input_args\": [\n    {";
    CHECK_INT(rec_skel_match(&sk, txt, txt + strlen(txt)), -1);   /* none kept */
    rec_skel_learn(&sk, txt, 19, 2, 0);
    int i = rec_skel_match(&sk, txt, txt + strlen(txt));
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK_INT(sk.k[i].len, 19);
        CHECK_INT(sk.k[i].a, 2);
        CHECK_INT(sk.k[i].s[18], '[');
    }
    CHECK_INT(rec_skel_match(&sk, txt, txt + 18), -1);            /* the bytes end before it */
    const char *in = "\n   \"input\": [";
    CHECK_INT(rec_skel_match(&sk, in, in + strlen(in)), -1);
    rec_skel_learn(&sk, txt, 19, 2, 0);                            /* kept once */
    int n = 0;
    for (int k = 0; k < REC_SKEL_N; k++) n += sk.k[k].len != 0;
    CHECK_INT(n, 1);
    char big[REC_SKEL_MAX + 2];
    memset(big, ' ', sizeof big);
    rec_skel_learn(&sk, big, REC_SKEL_MAX + 1, 0, 0);               /* too long: not kept */
    CHECK_INT(rec_skel_match(&sk, big, big + sizeof big), -1);
    rec_skel_learn(&sk, big, REC_SKEL_MAX, 0, 0);
    CHECK(rec_skel_match(&sk, big, big + sizeof big) >= 0);
    /* a byte different anywhere, in a block of 16 or the last one's */
    static const size_t at[] = {0, 15, 16, 100, REC_SKEL_MAX - 9, REC_SKEL_MAX - 1};
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
        big[at[k]] = 'x';
        CHECK_INT(rec_skel_match(&sk, big, big + sizeof big), -1);
        big[at[k]] = ' ';
    }
    CHECK_INT(rec_skel_match(&sk, txt, txt + 18), -1);
    char t2[32];
    memcpy(t2, txt, 19);
    t2[17] = '\t';   /* in the last block of 16, not the first */
    CHECK_INT(rec_skel_match(&sk, t2, t2 + 19), -1);
    /* the one used least lately goes: txt matched again, then 3 more */
    CHECK(rec_skel_match(&sk, txt, txt + strlen(txt)) >= 0);
    const char *more[] = {"a[", "b[", "c["};
    for (int k = 0; k < 3; k++) rec_skel_learn(&sk, more[k], 2, (uint8_t)k, 1);
    CHECK(rec_skel_match(&sk, txt, txt + strlen(txt)) >= 0);
    CHECK_INT(rec_skel_match(&sk, big, big + sizeof big), -1);
    const char *c = "c[x";
    i = rec_skel_match(&sk, c, c + 3);
    CHECK(i >= 0);
    if (i >= 0) CHECK_INT(sk.k[i].a * 10 + sk.k[i].b, 21);
}

/* Pieces of every length compared by their blocks (lit_eq.h, 16 bytes
 * readable past the piece) and by memcmp (fewer): a match whatever the
 * bytes after the piece, none with a byte different at its first, its
 * last, or a block's edge, each way. */
static void pieces_by_blocks(void) {
    static struct rec_skel sk;
    char buf[REC_SKEL_MAX + 64], lit[REC_SKEL_MAX];
    for (size_t len = 1; len <= REC_SKEL_MAX; len++) {
        memset(&sk, 0, sizeof sk);
        for (size_t k = 0; k < len; k++) lit[k] = (char)('a' + (k * 7 + len) % 26);
        rec_skel_learn(&sk, lit, len, 1, 0);
        CHECK_INT(sk.k[0].tail, (1u << ((len - 1) % 16 + 1)) - 1);
        for (int room = 0; room < 2; room++) {   /* 0: len + 15 readable (memcmp), 1: len + 16 (blocks) */
            size_t n = len + 15 + (size_t)room;
            memset(buf, '"', sizeof buf);   /* after the piece: not the padding's zeros */
            memcpy(buf, lit, len);
            CHECK_INT(rec_skel_match(&sk, buf, buf + n), 0);
            static const size_t at[] = {0, 15, 16, 31, 32, 33, 63, 64, 127, 128};
            for (size_t j = 0; j <= sizeof at / sizeof *at; j++) {
                size_t x = j < sizeof at / sizeof *at ? at[j] : len - 1;
                if (x >= len) continue;
                buf[x] = '#';
                if (rec_skel_match(&sk, buf, buf + n) != -1) printf("  len %zu room %d: byte %zu\n", len, room, x);
                CHECK_INT(rec_skel_match(&sk, buf, buf + n), -1);
                buf[x] = lit[x];
            }
            CHECK_INT(rec_skel_match(&sk, buf, buf + len - 1), -1);   /* the bytes end before it */
        }
    }
}

/* seed (tests/fuzz/seeds/dumpfast) as a rank folder's dump.json: its
 * folder, or NULL */
static const char *seed_dir(const char *seed) {
    char rel[256], p[1200];
    snprintf(rel, sizeof rel, "fuzz/seeds/dumpfast/%s", seed);
    const char *src = pt_checkout_file(rel), *dir = pt_tmpdir("test_rec_skel");
    char *s = src ? pt_slurp(src) : NULL;
    CHECK(s && dir);
    if (!s || !dir) { free(s); return NULL; }
    snprintf(p, sizeof p, "%s/dump.json", dir);
    int rc = pt_write(p, s);
    free(s);
    CHECK_INT(rc, 0);
    return rc ? NULL : dir;
}

static void alike(const char *dir) {
    char why[512] = "";
    int same = pt_df_same(dir, why, sizeof why);
    if (!same) fprintf(stderr, "  %s: %s\n", dir, why);
    CHECK(same);
}

/* the metric of the row named name of call index call (-1: no such row) */
static int metric_of(const struct dump_file *f, const char *name, int call) {
    for (size_t i = 0; i < f->nrows; i++)
        if (f->rows[i].len == strlen(name) && !memcmp(f->arena + f->rows[i].name, name, f->rows[i].len) &&
            f->rows[i].call == call)
            return f->rows[i].metric;
    return -1;
}

/* dir's dump.json read with the skeletons, into f */
static void parse_in(const char *dir, const struct dump_opts *o, struct dump_file *f) {
    char dump[1300];
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    pt_df_parse(dir, dump, o, 1, f, NULL);
}

static void records(void) {
    const char *dir = seed_dir("records.json");
    if (!dir) return;
    alike(dir);
    struct dump_file f;
    const struct dump_opts rows = {.micro_step = 0, .want_rows = 1};
    parse_in(dir, &rows, &f);
    CHECK(f.ok);
    CHECK_INT(f.nentries, 26);
    CHECK_INT(f.nrows, 49);
    CHECK_INT(metric_of(&f, "Functional.linear.input.0", 0), DM_FORWARD);     /* learnt from the tokens */
    CHECK_INT(metric_of(&f, "Functional.linear.input.1", 0), -1);             /* an int */
    CHECK_INT(metric_of(&f, "Functional.linear.input.1", 1), DM_FORWARD);     /* every piece matched */
    CHECK_INT(metric_of(&f, "Functional.linear.output.0", 2), DM_RECOMPUTE);  /* is_recompute true: by the tokens */
    CHECK_INT(metric_of(&f, "Functional.linear.output.1", 3), DM_RECOMPUTE);  /* the piece learnt at call 2 */
    CHECK_INT(metric_of(&f, "Functional.relu.output.0", 12), DM_FORWARD);
    CHECK_INT(metric_of(&f, "Functional.relu.output.0", 13), DM_RECOMPUTE);
    CHECK_INT(metric_of(&f, "Functional.relu.output.0", 15), DM_RECOMPUTE);  /* is_recompute false, then true */
    CHECK_INT(metric_of(&f, "Functional.relu.output.0", 16), DM_FORWARD);    /* the second output list's */
    CHECK_INT(metric_of(&f, "Functional.relu.input.1", 4), DM_BACKWARD);     /* "input" */
    CHECK_INT(metric_of(&f, "Module.fc.Linear.parameters.weight", 0), -1);   /* a plain object: no row */
    /* input_kwargs with items: the piece to its '{' (learnt from an empty
     * one), the items by parse_kwargs, the piece after its '}' */
    CHECK_INT(metric_of(&f, "Functional.gelu.output.0", 0), DM_FORWARD);
    CHECK_INT(metric_of(&f, "Functional.gelu.output.0", 1), DM_RECOMPUTE);
    CHECK_INT(metric_of(&f, "Functional.gelu.output.0", 2), DM_RECOMPUTE);   /* that piece learnt at call 1 */
    CHECK_INT(metric_of(&f, "Functional.gelu.input_kwargs.weight", 0), -1);  /* keyword inputs make no rows */
    dump_file_free(&f);
    /* the origin search's records: read again where the tokens say so */
    const struct dump_opts keep = {.origin_keep = 1};
    parse_in(dir, &keep, &f);
    CHECK(f.ok && f.ocap);
    if (f.ocap) {
        CHECK_INT(f.ocap->n, 26);
        /* a kwargs given twice (6), escaped keys (12, 13), a list given
         * as an object (19), output twice (21); is_recompute twice (20)
         * is not a member the origin search reads */
        static const int reread[26] = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0};
        for (size_t i = 0; i < 26 && i < f.ocap->n; i++)
            if (f.ocap->v[i].reread != reread[i]) {
                fprintf(stderr, "  record %zu: reread %d\n", i, f.ocap->v[i].reread);
                CHECK(0);
            }
    }
    dump_file_free(&f);
}

/* cut inside a record's output list after the pieces were learnt: the
 * tokens' message, line and all */
static void cut(void) {
    const char *dir = seed_dir("records_cut.json");
    if (!dir) return;
    alike(dir);
    struct dump_file f;
    const struct dump_opts rows = {.want_rows = 1};
    parse_in(dir, &rows, &f);
    CHECK(!f.ok);
    CHECK(strstr(f.error.msg, "line 229") != NULL);
    dump_file_free(&f);
}

int main(void) {
    RUN(pieces);
    RUN(pieces_by_blocks);
    RUN(records);
    RUN(cut);
    PT_DONE();
}
