/* The light capture of communication ops (src/io/dump/origin_light.h,
 * issue 27 point 2): the load takes what the pairing reads of an op from
 * its bytes once, and the search builds the params from those items
 * instead of lexing the bytes again.  Against the old path (the whole
 * read of the file, ovf_origin_read_rank with whole = 1):
 *
 *  - test_odd_ops: a dump written here whose communication ops sit on each
 *    form the light path reads (dst/src as int, as a string, as a float, as
 *    a peer list; a positional int; a keyword of digits; group as a
 *    ProcessGroup, null, missing, with a dtype, with group_ranks null;
 *    keyword inputs before positional ones; an "input" list) and on each
 *    form it must leave to the old path (a group with an md5, group_ranks
 *    as a string or holding a float, a P2POp, an escaped key, a keyword
 *    given twice, a data_name, a dtype given as a number, a keyword "00",
 *    inputs as an object): which ops are light and which kept, what the
 *    pairing reads of each (origin_op_view) and every record's flags as
 *    the whole read gives them;
 *  - test_reports: the origin report of a load that kept (light ops) and
 *    one that kept nothing are the same, also with a rank whose dump.json
 *    is half written (cut mid-record: that rank is left out either way). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/overflow/origin.h"
#include "pt_test.h"
#include "src/io/dump/ovf_origin.h"
#include "src/io/load.h"

#define TEN(rest) "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], " rest "}"
#define OK TEN("\"Max\": 1.0, \"Min\": -1.0, \"Mean\": 0.0, \"Norm\": 1.0")
#define BAD TEN("\"Max\": NaN, \"Min\": -1.0, \"Mean\": NaN, \"Norm\": NaN")
#define INT(v) "{\"type\": \"int\", \"value\": " v "}"
#define PG(ranks) "{\"type\": \"torch.ProcessGroup\", \"group_ranks\": " ranks ", \"group_id\": \"g\"}"
#define REC(name, body) "\"" name "\": {" body "},\n"
#define OP(name, in) REC(name, in ", \"output\": [" OK "]")

/* name, light (1) or kept whole (0) */
static const struct { const char *name; int light; } ops[] = {
    {"Distributed.send.0.forward", 1},       {"Distributed.recv.0.forward", 1},
    {"Distributed.broadcast.0.forward", 1},  {"Distributed.all_reduce.0.forward", 1},
    {"Distributed.all_reduce.1.forward", 1}, {"Distributed.all_gather.0.forward", 1},
    {"Distributed.send.1.forward", 1},       {"Distributed.all_reduce.2.forward", 1},
    {"Distributed.recv.1.forward", 1},       {"Distributed.recv.2.forward", 1},
    {"Distributed.send.2.forward", 1},       {"Distributed.scatter.0.forward", 1},
    {"Distributed.gather.0.forward", 1},     {"Distributed.all_reduce.3.forward", 0},
    {"Distributed.all_reduce.4.forward", 0}, {"Distributed.isend.0.forward", 0},
    {"Distributed.send.3.forward", 0},       {"Distributed.send.4.forward", 0},
    {"Distributed.send.5.forward", 0},       {"Distributed.all_reduce.5.forward", 0},
    {"Distributed.send.6.forward", 0},       {"Distributed.send.7.forward", 0},
    {"Distributed.all_reduce.6.forward", 0}, {"Distributed.reduce_scatter.0.forward", 1},
};

static const char rank0[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"data\": {\n"
    REC("Functional.a.0.forward", "\"input_args\": [" OK "], \"output\": [" OK "]")
    OP("Distributed.send.0.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"dst\": " INT("1") "}")
    OP("Distributed.recv.0.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"src\": {\"type\": \"int\", \"value\": \"01\"}}")
    OP("Distributed.broadcast.0.forward", "\"input_args\": [" OK ", " INT("0") "], \"input_kwargs\": {\"group\": " PG("[0, 1]") "}")
    OP("Distributed.all_reduce.0.forward", "\"input_args\": [" OK "]")
    OP("Distributed.all_reduce.1.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": null, \"async_op\": false}")
    OP("Distributed.all_gather.0.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": "
       "{\"type\": \"torch.ProcessGroup\", \"dtype\": \"x\", \"group_ranks\": [0, 1]}}")
    OP("Distributed.send.1.forward", "\"input_kwargs\": {\"0\": " INT("1") "}, \"input_args\": [" OK ", " INT("1") "]")
    OP("Distributed.all_reduce.2.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": " PG("null") "}")
    OP("Distributed.recv.1.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"src\": " INT("1.0") ", \"src_group\": " INT("1") "}")
    OP("Distributed.recv.2.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"src\": " INT("-0") "}")
    OP("Distributed.send.2.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"dst\": {\"type\": \"list\", \"value\": [0, 1]}, "
       "\"dst_group\": null}")
    OP("Distributed.scatter.0.forward", "\"input\": [" OK ", " INT("0") "], \"input_args\": [" INT("1") "], "
       "\"input_kwargs\": {\"group\": " PG("[1, 0, 1, -3, 2147483647]") "}")
    OP("Distributed.gather.0.forward", "\"input_args\": [[" INT("3") "], " INT("2147483648") ", null, 5], "
       "\"input_kwargs\": {\"dst\": " INT("\"  7\"") ", \"tensor\": " TEN("\"Max\": 1.0, \"stack\": [[1, \"x\"]]") "}")
    OP("Distributed.all_reduce.3.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": "
       "{\"type\": \"torch.ProcessGroup\", \"md5\": [0, 1], \"group_ranks\": [0, 1]}}")
    OP("Distributed.all_reduce.4.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": " PG("\"[0, 1]\"") "}")
    OP("Distributed.isend.0.forward", "\"input_args\": [{\"class_type\": \"torch.distributed.P2POp\", \"op\": \"isend\", "
       "\"tensor\": " OK ", \"peer\": 1}]")
    OP("Distributed.send.3.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"d\\u0073t\": " INT("1") "}")
    OP("Distributed.send.4.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"dst\": " INT("1") ", \"dst\": " INT("0") "}")
    REC("Distributed.send.5.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"dst\": " INT("1") "}, "
        "\"output\": [" TEN("\"data_name\": \"Distributed.send.5.forward.input.src.pt\", \"Max\": 1.0") "]")
    OP("Distributed.all_reduce.5.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": "
       "{\"type\": \"torch.ProcessGroup\", \"dtype\": 0, \"group_ranks\": [0, 1]}}")
    OP("Distributed.send.6.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"00\": " INT("1") "}")
    OP("Distributed.send.7.forward", "\"input_args\": {\"dst\": " INT("1") "}")
    OP("Distributed.all_reduce.6.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": " PG("[0, 1.0]") "}")
    REC("Distributed.reduce_scatter.0.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"group\": " PG("[]") "}, "
        "\"output\": [" BAD "]")
    "\"Functional.end.0.forward\": {\"input_args\": [" BAD "], \"output\": [" BAD "]}\n}}\n";

static const char rank1[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"data\": {\n"
    REC("Functional.a.0.forward", "\"input_args\": [" OK "], \"output\": [" OK "]")
    REC("Distributed.recv.0.forward", "\"input_args\": [" OK "], \"input_kwargs\": {\"src\": " INT("0") "}, \"output\": [" BAD "]")
    OP("Distributed.broadcast.0.forward", "\"input_args\": [" BAD ", " INT("0") "], \"input_kwargs\": {\"group\": " PG("[0, 1]") "}")
    "\"Functional.b.0.forward\": {\"input_args\": [" BAD "], \"output\": [" BAD "]}\n}}\n";

/* rank 2: cut in the middle of a record, as a dump still being written */
static const char rank2[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"data\": {\n"
    REC("Functional.a.0.forward", "\"input_args\": [" OK "], \"output\": [" BAD "]")
    "\"Distributed.send.0.forward\": {\"input_args\": [" OK "], \"input_kwargs\": {\"dst\": {\"type\": \"int\", \"va";

static struct dataset *load(const char *path, int keep) {
    struct load_opts lo;
    load_opts_init(&lo);
    lo.origin_keep = keep;
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    if (load_dataset(path, &lo, &ds, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return NULL;
    }
    return ds;
}

static const char *write_step(const char *name, int ranks) {
    const char *dir = pt_tmpdir(name);
    static char step[4096];
    const char *body[3] = {rank0, rank1, rank2};
    char p[4200];
    snprintf(step, sizeof step, "%s/step0", dir ? dir : "");
    int ok = dir && mkdir(step, 0755) == 0;
    for (int r = 0; r < ranks && ok; r++) {
        snprintf(p, sizeof p, "%s/rank%d", step, r);
        ok = mkdir(p, 0755) == 0;
        snprintf(p, sizeof p, "%s/rank%d/dump.json", step, r);
        ok = ok && pt_write(p, body[r]) == 0;
    }
    CHECK(ok);
    return ok ? step : NULL;
}

static void test_odd_ops(void) {
    const char *step = write_step("odd", 2);
    struct dataset *ds = step ? load(step, 1) : NULL;
    CHECK(ds && ds->nrankdirs == 2 && ds->rankdirs[0].ocap);
    if (!ds || ds->nrankdirs != 2 || !ds->rankdirs[0].ocap) {
        dataset_free(ds);
        return;
    }
    const struct ds_rankdir *d = &ds->rankdirs[0];
    const struct origin_cap *c = d->ocap;
    size_t light = 0;
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        size_t r = 0;
        while (r < c->n && strcmp(origin_cap_name(c, r), ops[k].name)) r++;
        CHECK(r < c->n);
        if (r == c->n) continue;
        light += c->v[r].light;
        if (c->v[r].light != ops[k].light || (!c->v[r].light && !c->v[r].kept)) {
            fprintf(stderr, "%s: light %d kept %d, want light %d\n", ops[k].name, c->v[r].light, c->v[r].kept,
                    ops[k].light);
            CHECK(!"light or kept whole as the form says");
        }
    }
    CHECK_INT((long)light, 14);
    struct tree *a = NULL, *b = NULL;
    uint8_t *fa = NULL, *fb = NULL;
    struct pt_error e = {{0}};
    CHECK_INT(ovf_origin_read_rank(d, d->step, 0, &a, &fa, &e), 0);
    CHECK_INT(ovf_origin_read_rank(d, d->step, 1, &b, &fb, &e), 0);
    CHECK(a && b && a->nrecs == b->nrecs);
    size_t grouped = 0, views = 0;
    for (size_t r = 0; a && b && r < a->nrecs && r < b->nrecs; r++) {
        CHECK_STR(tree_s(a, a->recs[r].name), tree_s(b, b->recs[r].name));
        if (fa[r] != fb[r]) {
            fprintf(stderr, "%s: flags %d, whole read %d\n", tree_s(b, b->recs[r].name), fa[r], fb[r]);
            CHECK(!"flags as the whole read's");
        }
        if (!origin_is_comm(tree_s(b, b->recs[r].name))) continue;
        char *u = origin_op_view(a, r), *v = origin_op_view(b, r);
        CHECK(u && v);
        if (u && v && strcmp(u, v)) {
            fprintf(stderr, "%s: light\n%swhole read\n%s", tree_s(b, b->recs[r].name), u, v);
            CHECK(!"the pairing reads the same");
        }
        views++;
        grouped += v && strstr(v, " [") != NULL;
        free(u);
        free(v);
    }
    /* the views say something: groups (also the md5's and the string's) */
    CHECK_INT((long)views, (long)(sizeof ops / sizeof *ops));
    CHECK(grouped >= 5);
    tree_free(a);
    tree_free(b);
    free(fa);
    free(fb);
    dataset_free(ds);
}

static char *report(const struct dataset *ds) {
    struct ovf_origin_report o;
    struct pt_error err = {{0}};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    if (ovf_origin_run(ds, &o, &err) != 0) fprintf(f, "error %s\n", err.msg);
    else {
        ovf_origin_print_text(f, &o);
        fprintf(f, "note %s\n", o.note);
        ovf_origin_report_free(&o);
    }
    fclose(f);
    return buf;
}

static void test_reports(void) {
    for (int ranks = 2; ranks <= 3; ranks++) {
        char name[16];
        snprintf(name, sizeof name, "rep%d", ranks);
        const char *step = write_step(name, ranks);
        struct dataset *x = step ? load(step, 1) : NULL, *y = step ? load(step, 0) : NULL;
        CHECK(x && y);
        if (x && y) {
            CHECK(x->rankdirs[0].ocap != NULL);
            for (size_t i = 0; i < x->nrankdirs; i++)
                if (x->rankdirs[i].rank == 2) CHECK(x->rankdirs[i].ocap == NULL);   /* half written: nothing kept */
            char *a = report(x), *b = report(y);
            CHECK(a && b && strstr(a, "origin across ranks") != NULL);
            if (a && b) CHECK_STR(a, b);
            free(a);
            free(b);
        }
        dataset_free(x);
        dataset_free(y);
    }
}

int main(void) {
    RUN(test_odd_ops);
    RUN(test_reports);
    PT_DONE();
}
