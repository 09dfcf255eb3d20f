/* test_overflow: the level rules of probetop-rules(7), OVERFLOW LEVELS, the false-positive
 * rules, the description text and the triage order of the flagged list. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pt_test.h"
#include "model/cube/cube.h"
#include "model/overflow/overflow.h"

/* Element builders. */
static struct ovf_elem clean(void) {
    struct ovf_elem e = { 0 };
    return e;
}
static struct ovf_elem bad(const char *what) {   /* own Max/Min/Mean non-finite */
    struct ovf_elem e = { 0 };
    e.anomalous = e.plain_anomalous = 1;
    snprintf(e.what, sizeof e.what, "%s", what);
    return e;
}
static struct ovf_elem bad_nested(void) {        /* an array holding a bad tensor */
    struct ovf_elem e = { 0 };
    e.anomalous = 1;
    snprintf(e.what, sizeof e.what, "Max=nan");
    return e;
}
static struct ovf_elem tensor(double norm) {
    struct ovf_elem e = { 0 };
    e.is_torch_tensor = 1;
    e.has_norm = 1;
    e.norm = norm;
    return e;
}

static struct ovf_io io_of(const struct ovf_elem *in, size_t nin, const struct ovf_elem *out, size_t nout) {
    struct ovf_io io = { 0 };
    io.in = in; io.nin = nin;
    io.out = out; io.nout = nout;
    return io;
}

static void test_scenes(void) {
    struct ovf_elem in_ok[2] = { clean(), clean() }, in_bad[2] = { clean(), bad("Max=inf") };
    struct ovf_elem out_ok[1] = { clean() }, out_bad[1] = { bad("Mean=nan") };
    struct ovf_io io;

    io = io_of(in_ok, 2, out_ok, 1);
    CHECK_INT(ovf_classify("Functional.relu.1.forward", &io), OVF_NONE);
    io = io_of(in_ok, 2, out_bad, 1);   /* scene 1: born here */
    CHECK_INT(ovf_classify("Functional.relu.1.forward", &io), OVF_CRITICAL);
    io = io_of(in_bad, 2, out_bad, 1);  /* scene 2: passed through */
    CHECK_INT(ovf_classify("Functional.relu.1.forward", &io), OVF_HIGH);
    io = io_of(in_bad, 2, out_ok, 1);   /* scene 3: absorbed */
    CHECK_INT(ovf_classify("Functional.relu.1.forward", &io), OVF_MEDIUM);

    /* No outputs at all (data_mode restricted) and bad inputs: medium. */
    io = io_of(in_bad, 2, NULL, 0);
    CHECK_INT(ovf_classify("Functional.relu.1.forward", &io), OVF_MEDIUM);
    /* No inputs, bad output (e.g. torch.randn): critical. */
    io = io_of(NULL, 0, out_bad, 1);
    CHECK_INT(ovf_classify("Torch.randn.0.forward", &io), OVF_CRITICAL);
    /* An empty record has no level. */
    io = io_of(NULL, 0, NULL, 0);
    CHECK_INT(ovf_classify("Module.fc.Linear.parameters_grad.0", &io), OVF_NONE);
}

static void test_kwargs_count_as_inputs(void) {
    struct ovf_elem in[1] = { clean() }, kw[2] = { clean(), bad("Min=-inf") };
    struct ovf_elem out_ok[1] = { clean() }, out_bad[1] = { bad("Max=inf") };
    const char *names[2] = { "weight", "bias" };
    struct ovf_io io = io_of(in, 1, out_ok, 1);
    io.kw = kw; io.kwnames = names; io.nkw = 2;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_MEDIUM);
    io.out = out_bad;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);
}

/* An array element is anomalous when any nested tensor is (probetop-rules(7), OVERFLOW LEVELS). */
static void test_nested_arrays_count_for_level(void) {
    struct ovf_elem in[1] = { clean() }, out[2] = { clean(), bad_nested() };
    struct ovf_io io = io_of(in, 1, out, 2);
    CHECK_INT(ovf_classify("Functional.split.0.forward", &io), OVF_CRITICAL);
    struct ovf_elem in2[1] = { bad_nested() }, out2[1] = { clean() };
    io = io_of(in2, 1, out2, 1);
    CHECK_INT(ovf_classify("Torch.cat.0.forward", &io), OVF_MEDIUM);
}

/* A NaN/Inf weight (a forward record's parameters): critical unless the
 * inputs or outputs already hold NaN/Inf and msProbe's rules give a level;
 * clean weights leave the level as the inputs and outputs make it. */
static void test_weights(void) {
    struct ovf_elem par_bad[2] = { clean(), bad("Max=nan") }, par_ok[1] = { clean() };
    const char *pn[2] = { "weight", "bias" };
    struct ovf_elem in_ok[1] = { clean() }, in_bad[1] = { bad("Max=inf") };
    struct ovf_elem out_ok[1] = { clean() }, out_bad[1] = { bad("Mean=nan") };
    struct ovf_elem jin[1] = { tensor(1.0) }, jout[1] = { tensor(500.0) };
    struct ovf_io io = io_of(in_ok, 1, out_ok, 1);
    io.par = par_bad; io.parnames = pn; io.npar = 2;
    CHECK_INT(ovf_classify("Module.fc.Linear.forward.0", &io), OVF_CRITICAL);   /* born in the weights */
    io.in = in_bad;                                                             /* medium, NaN in the inputs */
    CHECK_INT(ovf_classify("Module.fc.Linear.forward.0", &io), OVF_MEDIUM);
    io.out = out_bad;
    CHECK_INT(ovf_classify("Module.fc.Linear.forward.0", &io), OVF_HIGH);
    io = io_of(jin, 1, jout, 1);                                                /* the heuristic, no NaN */
    io.par = par_bad; io.parnames = pn; io.npar = 2;
    CHECK_INT(ovf_classify("Module.fc.Linear.forward.0", &io), OVF_CRITICAL);
    io.par = par_ok; io.npar = 1;
    CHECK_INT(ovf_classify("Module.fc.Linear.forward.0", &io), OVF_HIGH);
    /* a known false positive (torch.empty's output) with a NaN weight */
    io = io_of(NULL, 0, out_bad, 1);
    io.par = par_bad; io.parnames = pn; io.npar = 2;
    CHECK_INT(ovf_classify("Torch.empty.0.forward", &io), OVF_CRITICAL);
    io.npar = 0;
    CHECK_INT(ovf_classify("Torch.empty.0.forward", &io), OVF_NONE);
}

static void test_numeric_jump(void) {
    struct ovf_elem in[2] = { tensor(1.0), tensor(2.0) };
    struct ovf_elem out[1] = { tensor(201.0) };
    struct ovf_io io = io_of(in, 2, out, 1);
    /* max_in is 2: 201/2 > 100 */
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);
    out[0].norm = 200.0;                      /* exactly 100x: not more than 100 */
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_NONE);
    out[0].norm = 200.5;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);

    /* max_in == 0: the output Norm itself must exceed 100. */
    in[0].norm = 0; in[1].norm = 0;
    out[0].norm = 100.0;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_NONE);
    out[0].norm = 100.5;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);

    /* Inputs that are not torch.Tensor (or whose Norm is NaN) do not count:
     * with none left there is no jump. */
    in[0] = clean(); in[1] = clean();
    in[1].is_torch_tensor = 1;   /* Norm NaN: has_norm 0 */
    out[0].norm = 1e6;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_NONE);
    /* No output tensor: no jump. */
    in[0] = tensor(1.0);
    struct ovf_elem out_none[1] = { clean() };
    io.out = out_none;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_NONE);

    /* kwargs tensors are inputs too: their Norm raises max_in. */
    struct ovf_elem kw[1] = { tensor(50.0) };
    const char *kn[1] = { "weight" };
    io.out = out;
    out[0].norm = 1000.0;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);   /* 1000/1 */
    io.kw = kw; io.kwnames = kn; io.nkw = 1;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_NONE);   /* 1000/50 */
    /* Only kwargs carry tensors: still compared. */
    io.nin = 0;
    out[0].norm = 5001.0;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);

    /* The largest output counts. */
    struct ovf_elem in3[1] = { tensor(10.0) }, out3[3] = { tensor(5.0), tensor(1001.0), tensor(7.0) };
    io = io_of(in3, 1, out3, 3);
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);   /* 1001/10 = 100.1 */
    out3[1].norm = 1000.0;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_NONE);   /* exactly 100x */
    out3[1].norm = 1002.0;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_HIGH);

    /* inf/inf is not a jump (NaN ratio). */
    in3[0].norm = INFINITY; out3[1].norm = INFINITY;
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_NONE);

    /* An anomalous output wins over the jump: scenes are tried in order. */
    struct ovf_elem in4[1] = { tensor(1.0) }, out4[1] = { tensor(1e6) };
    out4[0].anomalous = out4[0].plain_anomalous = 1;
    io = io_of(in4, 1, out4, 1);
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_CRITICAL);
    CHECK_INT(ovf_heuristic(&io), 0);   /* a NaN/Inf: not the heuristic's */
    out4[0].anomalous = out4[0].plain_anomalous = 0;
    CHECK_INT(ovf_heuristic(&io), 1);   /* the jump alone */
    in4[0].anomalous = 1;               /* nested NaN input, no plain one: still a NaN record */
    CHECK_INT(ovf_classify("Functional.linear.0.forward", &io), OVF_MEDIUM);
    CHECK_INT(ovf_heuristic(&io), 0);
    in4[0].anomalous = 0;
    out4[0].norm = 50;                  /* no jump, nothing at all */
    CHECK_INT(ovf_heuristic(&io), 0);

    /* The description says why a clean record is high. */
    char buf[128];
    struct ovf_elem in5[1] = { tensor(2.0) }, out5[1] = { tensor(1000.0) };
    io = io_of(in5, 1, out5, 1);
    ovf_describe(&io, buf, sizeof buf);
    CHECK_STR(buf, "Norm jump 2 -> 1e+03");
}

/* ---- false-positive rules ---- */

/* A record whose only anomaly is output idx (of n outputs). */
static enum ovf_level only_out(const char *name, size_t idx, size_t n) {
    struct ovf_elem in[1] = { clean() }, out[4] = { clean(), clean(), clean(), clean() };
    out[idx] = bad("Max=inf");
    struct ovf_io io = io_of(in, 1, out, n);
    return ovf_classify(name, &io);
}
/* A record whose only anomaly is input idx, with a bad output or not. */
static enum ovf_level only_in(const char *name, size_t idx, int out_bad) {
    struct ovf_elem in[3] = { clean(), clean(), clean() }, out[1] = { clean() };
    in[idx] = bad("Max=nan");
    if (out_bad) out[0] = bad("Max=nan");
    struct ovf_io io = io_of(in, 3, out, 1);
    return ovf_classify(name, &io);
}
static enum ovf_level only_kw(const char *name, const char *kwname) {
    struct ovf_elem in[1] = { clean() }, kw[2] = { clean(), bad("Mean=nan") }, out[1] = { clean() };
    const char *names[2] = { "async_op", kwname };
    struct ovf_io io = io_of(in, 1, out, 1);
    io.kw = kw; io.kwnames = names; io.nkw = 2;
    return ovf_classify(name, &io);
}

static void test_rule_empty(void) {
    /* torch.empty / empty_like / empty_strided: output 0 may hold garbage. */
    CHECK_INT(only_out("Torch.empty.0.forward", 0, 1), OVF_NONE);
    CHECK_INT(only_out("Torch.empty_like.3.forward", 0, 1), OVF_NONE);
    CHECK_INT(only_out("Torch.empty_strided.1.forward", 0, 1), OVF_NONE);
    CHECK_INT(only_out("torch.EMPTY.0.forward", 0, 1), OVF_NONE);          /* case-insensitive */
    /* Another output is not covered. */
    CHECK_INT(only_out("Torch.empty.0.forward", 1, 2), OVF_CRITICAL);
    /* Input categories are not listed: they are not checked. */
    CHECK_INT(only_in("Torch.empty_like.0.forward", 0, 0), OVF_NONE);
    /* The key is the whole second segment. */
    CHECK_INT(only_out("Torch.empty_cache.0.forward", 0, 1), OVF_CRITICAL);
    CHECK_INT(only_out("Torch.emptyx.0.forward", 0, 1), OVF_CRITICAL);
    CHECK_INT(only_out("Tensor.empty.0.forward", 0, 1), OVF_CRITICAL);
    CHECK_INT(only_out("Module.torch.empty.Empty.forward.0", 0, 1), OVF_CRITICAL);
    /* Backward records of the API share the key. */
    CHECK_INT(only_out("Torch.empty_like.0.backward", 0, 1), OVF_NONE);
    /* No name, no rule. */
    CHECK_INT(only_out(NULL, 0, 1), OVF_CRITICAL);
    CHECK_INT(only_out("Torch", 0, 1), OVF_CRITICAL);
    CHECK_INT(only_out("", 0, 1), OVF_CRITICAL);
}

static void test_rule_recv(void) {
    CHECK_INT(only_in("Distributed.recv.0.forward", 0, 0), OVF_NONE);
    CHECK_INT(only_in("Distributed.recv.0.forward", 0, 1), OVF_NONE);   /* outputs not checked */
    CHECK_INT(only_in("Distributed.recv.0.forward", 1, 0), OVF_MEDIUM);
    CHECK_INT(only_kw("Distributed.recv.0.forward", "tensor"), OVF_NONE);
    CHECK_INT(only_kw("Distributed.recv.0.forward", "src"), OVF_MEDIUM);
    CHECK_INT(only_out("Distributed.recv.0.forward", 0, 1), OVF_NONE);  /* clean inputs: covered */
}

static void test_rule_collectives(void) {
    static const char *const names[] = {
        "Distributed.all_gather.0.forward", "Distributed._reduce_scatter_base.2.forward",
        "Distributed.all_gather_into_tensor.1.forward", "Distributed.reduce_scatter_tensor.0.forward",
        "Tensor.masked_fill_.4.forward",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        CHECK_INT(only_in(names[i], 0, 0), OVF_NONE);
        CHECK_INT(only_in(names[i], 0, 1), OVF_NONE);
        CHECK_INT(only_in(names[i], 2, 0), OVF_MEDIUM);
        CHECK_INT(only_in(names[i], 2, 1), OVF_HIGH);
        /* these rules name no kwarg: an anomalous kwarg is not covered */
        CHECK_INT(only_kw(names[i], "tensor"), OVF_MEDIUM);
    }
    CHECK_INT(only_in("Tensor.masked_fill.0.forward", 0, 0), OVF_MEDIUM);  /* not the in-place one */
    CHECK_INT(only_in("Distributed.all_gather_object.0.forward", 0, 0), OVF_MEDIUM);
}

static void test_rule_reduce_scatter(void) {
    CHECK_INT(only_in("Distributed.reduce_scatter.0.forward", 0, 0), OVF_NONE);
    CHECK_INT(only_in("Distributed.reduce_scatter.0.forward", 1, 0), OVF_MEDIUM);
    CHECK_INT(only_kw("Distributed.reduce_scatter.0.forward", "output"), OVF_NONE);
    CHECK_INT(only_kw("Distributed.reduce_scatter.0.forward", "input_list"), OVF_MEDIUM);
}

/* The filter uses the plain object test: an array element never counts,
 * so a nested anomaly outside the listed index is still covered. */
static void test_rule_plain_test(void) {
    struct ovf_elem in[1] = { clean() }, out[2] = { bad("Max=inf"), bad_nested() };
    struct ovf_io io = io_of(in, 1, out, 2);
    CHECK_INT(ovf_classify("Torch.empty.0.forward", &io), OVF_NONE);
    CHECK_INT(ovf_classify("Torch.zeros.0.forward", &io), OVF_CRITICAL);
    struct ovf_elem in2[2] = { bad("Max=inf"), bad_nested() };
    io = io_of(in2, 2, out, 1);
    CHECK_INT(ovf_classify("Distributed.all_gather.0.forward", &io), OVF_NONE);
    in2[1] = bad("Min=nan");
    CHECK_INT(ovf_classify("Distributed.all_gather.0.forward", &io), OVF_HIGH);
}

/* The rule drops a numeric jump too (every level is filtered). */
static void test_rule_drops_jump(void) {
    struct ovf_elem in[1] = { tensor(1.0) }, out[1] = { tensor(1e5) };
    struct ovf_io io = io_of(in, 1, out, 1);
    CHECK_INT(ovf_classify("Torch.empty_like.0.forward", &io), OVF_NONE);
    CHECK_INT(ovf_classify("Torch.ones_like.0.forward", &io), OVF_HIGH);
}

static void test_elem_stat(void) {
    struct ovf_elem e = { 0 };
    ovf_elem_stat(&e, "Max", 3.0, 0);
    CHECK_INT(e.anomalous, 0);
    CHECK_STR(e.what, "");
    ovf_elem_stat(&e, "Min", -INFINITY, 1);
    CHECK_INT(e.anomalous, 1);
    CHECK_INT(e.plain_anomalous, 0);
    CHECK_STR(e.what, "Min=-inf");
    ovf_elem_stat(&e, "Mean", NAN, 0);
    CHECK_INT(e.plain_anomalous, 1);
    CHECK_STR(e.what, "Min=-inf");   /* the first one is kept */
    struct ovf_elem f = { 0 };
    ovf_elem_stat(&f, "Max", INFINITY, 0);
    CHECK_STR(f.what, "Max=inf");
    ovf_elem_stat(&f, "Mean", NAN, 0);
    struct ovf_elem g = { 0 };
    ovf_elem_stat(&g, "Mean", NAN, 0);
    CHECK_STR(g.what, "Mean=nan");
}

static void test_describe(void) {
    struct ovf_elem in[2] = { bad("Max=inf"), clean() }, kw[1] = { bad("Min=-inf") };
    struct ovf_elem out[2] = { clean(), bad("Mean=nan") };
    const char *kn[1] = { "weight" };
    struct ovf_io io = io_of(in, 2, out, 2);
    io.kw = kw; io.kwnames = kn; io.nkw = 1;
    char buf[256];
    ovf_describe(&io, buf, sizeof buf);
    CHECK_STR(buf, "in.0 Max=inf, kw.weight Min=-inf, out.1 Mean=nan");

    /* Truncated with "...", never past size. */
    char small[20];
    memset(small, 'x', sizeof small);
    ovf_describe(&io, small, sizeof small);
    CHECK_STR(small, "in.0 Max=inf, kw...");
    CHECK_INT(strlen(small), 19);
    char tiny[4];
    ovf_describe(&io, tiny, sizeof tiny);
    CHECK(strlen(tiny) < 4);
    ovf_describe(&io, tiny, 0);   /* no write at all */

    /* An anomalous element without a statistic text is still listed. */
    struct ovf_elem o2[1] = { bad("") };
    io = io_of(NULL, 0, o2, 1);
    ovf_describe(&io, buf, sizeof buf);
    CHECK_STR(buf, "out.0");

    /* A multi-byte kwarg name is not cut in half. */
    const char *kn2[1] = { "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" };
    struct ovf_elem kw2[1] = { bad("Max=inf") };
    io = io_of(NULL, 0, NULL, 0);
    io.kw = kw2; io.kwnames = kn2; io.nkw = 1;
    char b8[10];
    ovf_describe(&io, b8, sizeof b8);
    CHECK_STR(b8, "kw.\xc3\xa9...");   /* 6 bytes fit; the second char would be cut */
}

static void add(struct ovf_list *l, int step, int micro, int rank, unsigned pos, int level, const char *name) {
    struct ovf_entry e = { .step = step, .micro = micro, .rank = rank, .pos = pos,
                           .level = (uint8_t)level, .name = (char *)name, .what = (char *)"out.0 Max=inf" };
    CHECK_INT(ovf_list_add(l, &e), 0);
}

static void test_list_order_and_first(void) {
    struct ovf_list l = { 0 };
    CHECK_INT(ovf_first(&l), -1);
    add(&l, 2, 0, 0, 5, OVF_CRITICAL, "late");
    add(&l, 1, 1, 0, 0, OVF_HIGH, "b");
    add(&l, 1, 0, 1, 7, OVF_CRITICAL, "c-rank1");
    add(&l, 1, 0, 0, 7, OVF_HIGH, "c-rank0");
    add(&l, 1, 0, 3, 2, OVF_MEDIUM, "a");
    ovf_list_sort(&l);
    CHECK_INT(l.n, 5);
    CHECK_STR(l.v[0].name, "a");          /* step 1, micro 0, pos 2 */
    CHECK_STR(l.v[1].name, "c-rank0");    /* pos 7, rank 0 before rank 1 */
    CHECK_STR(l.v[2].name, "c-rank1");
    CHECK_STR(l.v[3].name, "b");          /* micro 1 */
    CHECK_STR(l.v[4].name, "late");
    CHECK_STR(l.v[4].what, "out.0 Max=inf");
    /* First occurrence: the earliest critical, even after earlier high/medium. */
    CHECK_INT(ovf_first(&l), 2);
    ovf_list_free(&l);
    CHECK_INT(l.n, 0);

    add(&l, 3, -1, 0, 9, OVF_MEDIUM, "m");
    add(&l, 3, -1, 0, 10, OVF_HIGH, "h");
    ovf_list_sort(&l);
    CHECK_INT(ovf_first(&l), 1);   /* no critical: the earliest high */
    ovf_list_free(&l);
    add(&l, 3, -1, 0, 9, OVF_MEDIUM, "m2");
    add(&l, 3, -1, 0, 4, OVF_MEDIUM, "m1");
    ovf_list_sort(&l);
    CHECK_INT(ovf_first(&l), 0);
    CHECK_STR(l.v[0].name, "m1");
    ovf_list_free(&l);
    /* Without levels (monitor data): the earliest entry. */
    add(&l, 4, 0, 1, 0, OVF_NONE, "x");
    add(&l, 0, 0, 1, 0, OVF_NONE, "y");
    ovf_list_sort(&l);
    CHECK_INT(ovf_first(&l), 0);
    CHECK_STR(l.v[0].name, "y");
    ovf_list_free(&l);
    ovf_list_free(&l);   /* twice is harmless */

    /* A NULL name or what is stored as "". */
    struct ovf_entry e = { .step = 0, .level = OVF_HIGH };
    CHECK_INT(ovf_list_add(&l, &e), 0);
    CHECK_STR(l.v[0].name, "");
    CHECK_STR(l.v[0].what, "");
    ovf_list_free(&l);
}

/* Monitor / .trend.db inputs: non-finite cells, no levels; missing cells
 * and huge finite values are not flagged. */
/* The scan of a dense cube comes out in triage order by a counting sort
 * on the step: the same order as the comparison sort gives, for cubes with
 * micro steps, without them, and with steps declared out of (step, micro)
 * order (which the comparison sort handles). */
static void test_scan_order(void) {
    for (int mode = 0; mode < 3; mode++) {
        struct names *n = names_new();
        struct cube_builder *b = cube_builder_new(n);
        const char *stats[2] = { "norm", "max" };
        int ma = cube_builder_metric(b, "forward", 2, stats), mb = cube_builder_metric(b, "backward", 1, stats);
        uint32_t t[5];
        for (int i = 0; i < 5; i++) {
            char nm[32];
            snprintf(nm, sizeof nm, "layers.%d.mlp", 4 - i);   /* ids and names in opposite orders */
            t[i] = names_intern(n, nm, strlen(nm), 0, 0);
        }
        double bad[2] = { NAN, INFINITY }, one[2] = { -INFINITY, 1 };
        unsigned seed = 7;
        for (int s = 0; s < 6; s++)
            for (int r = 0; r < 3; r++)
                for (int i = 0; i < 5; i++) {
                    seed = seed * 1103515245u + 12345u;
                    if ((seed >> 16) % 3 == 0) CHECK_INT(cube_builder_add(b, ma, t[i], s, r, bad, 3), 0);
                    if ((seed >> 8) % 4 == 0) CHECK_INT(cube_builder_add(b, mb, t[(i + 2) % 5], s, 2 - r, one, 1), 0);
                }
        /* mode 0: micro steps (3 steps of 2); 1: none; 2: micro steps numbered backwards */
        for (int s = 0; mode != 1 && s < 6; s++)
            CHECK_INT(cube_builder_step(b, s, 10 + s / 2, mode == 0 ? s % 2 : 1 - s % 2), 0);
        struct cube *c = NULL;
        struct pt_error err;
        CHECK_INT(cube_builder_finish(b, &c, &err), 0);
        cube_builder_free(b);
        if (!c) return;
        struct ovf_list l = { 0 }, m = { 0 };
        CHECK_INT(ovf_scan_cube(c, &l, &err), 0);
        CHECK(l.n > 10);
        for (size_t i = 0; i < l.n; i++) CHECK_INT(ovf_list_add(&m, &l.v[i]), 0);
        /* shuffled, then the comparison sort */
        for (size_t i = m.n; i > 1; i--) {
            seed = seed * 1103515245u + 12345u;
            size_t j = (seed >> 8) % i;
            struct ovf_entry x = m.v[i - 1];
            m.v[i - 1] = m.v[j];
            m.v[j] = x;
        }
        ovf_list_sort(&m);
        CHECK_INT(m.n, l.n);
        for (size_t i = 0; i < l.n && i < m.n; i++) {
            CHECK(l.v[i].step == m.v[i].step && l.v[i].micro == m.v[i].micro && l.v[i].pos == m.v[i].pos &&
                  l.v[i].rank == m.v[i].rank);
            CHECK_STR(l.v[i].what, m.v[i].what);
        }
        ovf_list_free(&l);
        ovf_list_free(&m);
        cube_free(c);
    }
}

static void test_scan_cube(void) {
    struct names *n = names_new();
    uint32_t t0 = names_intern(n, "module.layers.0.mlp", 19, 0, 0);
    uint32_t t1 = names_intern(n, "module.layers.1.mlp", 19, 0, 1);
    struct cube_builder *b = cube_builder_new(n);
    const char *stats[3] = { "norm", "max", "min" };
    int actv = cube_builder_metric(b, "actv", 3, stats);
    int grad = cube_builder_metric(b, "grad_reduced", 1, stats);
    CHECK(actv >= 0 && grad >= 0);
    double ok[3] = { 1, 2, 3 }, nanv[3] = { NAN, INFINITY, -INFINITY }, big[3] = { 3e38, -3e38, 1e9 };
    double half[3] = { 1, NAN, 2 };
    CHECK_INT(cube_builder_add(b, actv, t0, 0, 0, ok, 7), 0);
    CHECK_INT(cube_builder_add(b, actv, t0, 1, 1, nanv, 7), 0);    /* all three bad */
    CHECK_INT(cube_builder_add(b, actv, t1, 1, 0, half, 7), 0);    /* max only */
    CHECK_INT(cube_builder_add(b, actv, t1, 0, 1, big, 7), 0);     /* finite, huge */
    CHECK_INT(cube_builder_add(b, actv, t1, 0, 0, nanv, 1), 0);    /* only norm present */
    CHECK_INT(cube_builder_add(b, grad, t0, 1, 0, nanv, 1), 0);
    CHECK_INT(cube_builder_step(b, 0, 7, 0), 0);
    CHECK_INT(cube_builder_step(b, 1, 7, 1), 0);
    struct cube *c = NULL;
    struct pt_error err;
    CHECK_INT(cube_builder_finish(b, &c, &err), 0);
    cube_builder_free(b);
    if (!c) return;
    struct ovf_list l = { 0 };
    CHECK_INT(ovf_scan_cube(c, &l, &err), 0);
    CHECK_INT(l.n, 4);
    if (l.n == 4) {
        /* step 7 micro 0: t1 (pos 1) norm=nan */
        CHECK_INT(l.v[0].step, 7);
        CHECK_INT(l.v[0].micro, 0);
        CHECK_INT(l.v[0].rank, 0);
        CHECK_INT(l.v[0].pos, t1);
        CHECK_STR(l.v[0].name, "module.layers.1.mlp#1");
        CHECK_STR(l.v[0].what, "actv norm=nan");
        CHECK_INT(l.v[0].level, OVF_NONE);
        /* micro 1, metric by metric as a step runs (actv before
         * grad_reduced), by target inside a metric: t0 rank 1 actv, t1
         * rank 0 actv max, then t0 rank 0 grad */
        CHECK_INT(l.v[1].micro, 1);
        CHECK_INT(l.v[1].rank, 1);
        CHECK_STR(l.v[1].what, "actv norm=nan, max=inf, min=-inf");
        CHECK_INT(l.v[2].rank, 0);
        CHECK_STR(l.v[2].name, "module.layers.1.mlp#1");
        CHECK_STR(l.v[2].what, "actv max=nan");
        CHECK_INT(l.v[3].rank, 0);
        CHECK_STR(l.v[3].name, "module.layers.0.mlp");
        CHECK_STR(l.v[3].what, "grad_reduced norm=nan");
    }
    CHECK_INT(ovf_first(&l), 0);
    ovf_list_free(&l);
    cube_free(c);
}

/* Records outside the micro steps (the loss after the model, micro -1)
 * sort where they ran, not ahead of the whole step. */
static void test_sort_unknown_micro(void) {
    struct ovf_list l = { 0 };
    add(&l, 1, -1, 0, 90, OVF_HIGH, "loss");          /* after pos 45 (micro 0) */
    add(&l, 1, 1, 1, 50, OVF_HIGH, "rank1-micro1");
    add(&l, 1, 0, 0, 45, OVF_CRITICAL, "planted");
    add(&l, 1, -1, 0, 5, OVF_MEDIUM, "early");        /* before any known: takes the next (0) */
    add(&l, 1, 1, 0, 120, OVF_HIGH, "rank0-micro1");
    add(&l, 0, -1, 0, 7, OVF_HIGH, "step0-unknown");  /* a file with no micro at all */
    add(&l, 0, -1, 1, 3, OVF_HIGH, "step0-unknown-r1");
    ovf_list_sort(&l);
    const char *want[] = { "step0-unknown-r1", "step0-unknown", "early", "planted", "loss", "rank1-micro1",
                           "rank0-micro1" };
    CHECK_INT(l.n, 7);
    for (size_t i = 0; i < l.n && i < 7; i++) CHECK_STR(l.v[i].name, want[i]);
    CHECK_INT(l.v[4].micro, -1);   /* the stored micro step is not invented */
    CHECK_INT(ovf_first(&l), 3);
    ovf_list_free(&l);
}

/* The triage order against a plain stable sort of the rule in
 * overflow.h, on random lists: fields of narrow and of wide ranges (more
 * than 64 bits in all: the radix sort's two keys), unknown micro steps,
 * and entries equal but for level, name or what. */
struct ref { struct ovf_entry e; long long micro; size_t at; };

static int ref_file_le(const struct ref *a, const struct ref *b) {
    if (a->e.step != b->e.step) return a->e.step < b->e.step;
    if (a->e.rank != b->e.rank) return a->e.rank < b->e.rank;
    return a->e.pos <= b->e.pos;
}

static int ref_triage_le(const struct ref *a, const struct ref *b) {
    if (a->e.step != b->e.step) return a->e.step < b->e.step;
    if (a->micro != b->micro) return a->micro < b->micro;
    if (a->e.pos != b->e.pos) return a->e.pos < b->e.pos;
    if (a->e.rank != b->e.rank) return a->e.rank < b->e.rank;
    if (a->e.level != b->e.level) return a->e.level > b->e.level;
    int c = strcmp(a->e.name, b->e.name);
    if (c) return c < 0;
    return strcmp(a->e.what, b->e.what) <= 0;
}

static void ref_sort(struct ref *v, size_t n, int (*le)(const struct ref *, const struct ref *)) {
    for (size_t i = 1; i < n; i++)   /* stable insertion */
        for (size_t j = i; j > 0 && !le(&v[j - 1], &v[j]); j--) {
            struct ref t = v[j - 1];
            v[j - 1] = v[j];
            v[j] = t;
        }
}

/* gen in file order (step, rank, position; by_pos 0: step and rank
 * only), stable. */
static void ref_sort_entries(struct ovf_entry *v, size_t n, int by_pos) {
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            const struct ovf_entry *a = &v[j - 1], *b = &v[j];
            int le = a->step != b->step ? a->step < b->step : a->rank != b->rank ? a->rank < b->rank : !by_pos || a->pos <= b->pos;
            if (le) break;
            struct ovf_entry t = v[j - 1];
            v[j - 1] = v[j];
            v[j] = t;
        }
}

static void test_sort_random(void) {
    static const char *const names[] = {"a", "b", "Functional.linear.0.forward", "Distributed.send.0.forward"};
    static const char *const whats[] = {"out.0 Max=inf", "in.0 Max=nan", ""};
    unsigned seed = 12345;
    for (int round = 0; round < 60; round++) {
        size_t n = 1 + (size_t)(round * 7 % 300);
        int wide = round % 3 == 2;
        /* a quarter in file order with one micro step throughout (none, or
         * one): the sort's counting pass when the range is not wide */
        int one_micro = round % 4 == 1;
        struct ovf_list l = { 0 };
        struct ref *r = malloc(n * sizeof *r);
        CHECK(r != NULL);
        if (!r) return;
        struct ovf_entry *gen = malloc(n * sizeof *gen);
        CHECK(gen != NULL);
        if (!gen) { free(r); return; }
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned x = seed >> 8;
            gen[i] = (struct ovf_entry){
                .step = wide ? (int32_t)(x * 2654435761u) : (int32_t)(x % 3),
                .micro = one_micro ? (round % 8 == 1 ? -1 : 2) : (int32_t)((x >> 3) % 4) - 1,
                .rank = wide ? -(int32_t)((x >> 5) * 40503u) : (int32_t)((x >> 5) % 4),
                .pos = wide ? x * 97u : (x >> 7) % 16,
                .level = (uint8_t)((x >> 11) % 4),
                .jump = (uint8_t)((x >> 13) % 2),
                .name = (char *)names[(x >> 14) % 4],
                .what = (char *)whats[(x >> 16) % 3] };
        }
        /* every other list comes in file order, as the loaders add it (the
         * sort's first pass then skipped), some in (step, rank) order only */
        if (round % 2) ref_sort_entries(gen, n, round % 4 == 1);
        for (size_t i = 0; i < n; i++) CHECK_INT(ovf_list_add(&l, &gen[i]), 0);
        free(gen);
        for (size_t i = 0; i < n; i++) r[i] = (struct ref){ l.v[i], l.v[i].micro, i };
        ref_sort(r, n, ref_file_le);
        for (size_t i = 0; i < n;) {   /* the micro step of the neighbours in the file */
            size_t j = i;
            while (j < n && r[j].e.step == r[i].e.step && r[j].e.rank == r[i].e.rank) j++;
            long long prev = -1, next = -1;
            for (size_t t = i; t < j; t++) {
                if (r[t].micro >= 0) prev = r[t].micro;
                else if (prev >= 0) r[t].micro = prev;
            }
            for (size_t t = j; t-- > i;) {
                if (r[t].micro >= 0) next = r[t].micro;
                else if (next >= 0) r[t].micro = next;
            }
            i = j;
        }
        ref_sort(r, n, ref_triage_le);
        struct ovf_entry *was = malloc(n * sizeof *was);
        CHECK(was != NULL);
        if (!was) { free(r); ovf_list_free(&l); return; }
        memcpy(was, l.v, n * sizeof *was);
        CHECK_INT(ovf_list_sort(&l), 0);
        int same = 1;
        for (size_t i = 0; i < n && same; i++)   /* the same entries (names are each entry's own copy) */
            same = l.v[i].name == was[r[i].at].name && l.v[i].what == was[r[i].at].what &&
                   l.v[i].micro == was[r[i].at].micro && l.v[i].jump == was[r[i].at].jump;
        CHECK(same);
        free(was);
        free(r);
        ovf_list_free(&l);
    }
}

/* ovf_list_take moves the entries and their strings: src empty, dst
 * holding the very strings src held. */
static void test_list_take(void) {
    struct ovf_list a = { 0 }, b = { 0 };
    add(&a, 1, 0, 0, 3, OVF_HIGH, "a0");
    add(&b, 2, 0, 1, 4, OVF_CRITICAL, "b0");
    add(&b, 2, 0, 1, 5, OVF_MEDIUM, "b1");
    const char *b1 = b.v[1].name;
    CHECK_INT(ovf_list_take(&a, &b), 0);
    CHECK_INT(a.n, 3);
    CHECK_INT(b.n, 0);
    CHECK(a.v[2].name == b1);
    CHECK_STR(a.v[1].name, "b0");
    CHECK_INT(ovf_list_take(&a, &b), 0);   /* an empty src: nothing */
    CHECK_INT(a.n, 3);
    ovf_list_free(&b);
    ovf_list_free(&a);
}

static void test_level_names(void) {
    CHECK_STR(ovf_level_name(OVF_CRITICAL), "critical");
    CHECK_STR(ovf_level_name(OVF_HIGH), "high");
    CHECK_STR(ovf_level_name(OVF_MEDIUM), "medium");
    CHECK_STR(ovf_level_name(OVF_NONE), "");
    CHECK_STR(ovf_level_name((enum ovf_level)42), "");
}

int main(void) {
    RUN(test_scenes);
    RUN(test_kwargs_count_as_inputs);
    RUN(test_nested_arrays_count_for_level);
    RUN(test_weights);
    RUN(test_numeric_jump);
    RUN(test_rule_empty);
    RUN(test_rule_recv);
    RUN(test_rule_collectives);
    RUN(test_rule_reduce_scatter);
    RUN(test_rule_plain_test);
    RUN(test_rule_drops_jump);
    RUN(test_elem_stat);
    RUN(test_describe);
    RUN(test_list_order_and_first);
    RUN(test_sort_unknown_micro);
    RUN(test_sort_random);
    RUN(test_list_take);
    RUN(test_scan_cube);
    RUN(test_scan_order);
    RUN(test_level_names);
    PT_DONE();
}
