/* test_ovfrows: the listing order of flagged records (model/overflow/ovfrows.h).
 *
 * A hand-made list where numeric-jump records come before, between and
 * after the NaN/Inf ones in triage order: the rows must put the criticals
 * first, then the other NaN/Inf records, both in triage order, then one row
 * per numeric-jump name with its record, step and rank counts, groups in
 * the order of their earliest record.  Also: a filter (keep) applies before
 * grouping, inputs without levels, an empty list, the gate level and the
 * group text. */
#include "pt_test.h"

#include "model/err.h"
#include "model/overflow/overflow.h"
#include "model/overflow/ovfrows.h"

static void add(struct ovf_list *l, int step, int micro, int rank, unsigned pos, int level, int jump,
                const char *name) {
    struct ovf_entry e = { .step = step, .micro = micro, .rank = rank, .pos = pos, .level = (uint8_t)level,
                           .jump = (uint8_t)jump, .name = (char *)name,
                           .what = (char *)(jump ? "Norm jump 25 -> 8e+03" : "out.0 Max=nan") };
    CHECK_INT(ovf_list_add(l, &e), 0);
}

/* A run with a NaN, in small: sums flagged on every step and rank
 * (step 0 before the NaN), a NaN born on step 1 rank 1 and passed on. */
static void make_run(struct ovf_list *l) {
    for (int step = 0; step < 3; step++)
        for (int rank = 0; rank < 2; rank++) {
            add(l, step, 0, rank, 83, OVF_HIGH, 1, "Tensor.sum.0.forward");
            add(l, step, -1, rank, 97, OVF_HIGH, 1, "Torch.sum.0.backward");
        }
    add(l, 0, 0, 3, 10, OVF_HIGH, 1, "Functional.linear.0.forward");   /* one-off jump, earliest of all */
    add(l, 1, 0, 1, 45, OVF_CRITICAL, 0, "Functional.linear.4.forward");
    add(l, 1, 0, 1, 47, OVF_HIGH, 0, "Tensor.view.1.forward");
    add(l, 1, 0, 1, 46, OVF_CRITICAL, 0, "Module.qkv.forward.0");
    add(l, 1, 0, 1, 120, OVF_MEDIUM, 0, "Module.embedding.backward.0");
    add(l, 2, 0, 0, 5, OVF_CRITICAL, 0, "Functional.dropout.0.forward");  /* a second birth, later */
    ovf_list_sort(l);
}

static const char *row_name(const struct ovf_list *l, const struct ovfrows *r, size_t i) {
    return i < r->n ? l->v[r->v[i].entry].name : "(none)";
}

static void test_order_and_groups(void) {
    struct ovf_list l = { 0 };
    make_run(&l);
    struct ovfrows r = { 0 };
    struct pt_error err;
    CHECK_INT(ovfrows_build(&l, NULL, NULL, &r, &err), 0);
    CHECK_INT(r.records, l.n);
    CHECK_INT(r.n, 3 + 2 + 3);   /* 3 criticals, 2 other NaN/Inf, 3 names of jumps */
    const char *want[] = { "Functional.linear.4.forward", "Module.qkv.forward.0", "Functional.dropout.0.forward",
                           "Tensor.view.1.forward", "Module.embedding.backward.0", "Functional.linear.0.forward",
                           "Tensor.sum.0.forward", "Torch.sum.0.backward" };
    const int sec[] = { OVFROWS_CRITICAL, OVFROWS_CRITICAL, OVFROWS_CRITICAL, OVFROWS_NONFINITE, OVFROWS_NONFINITE,
                        OVFROWS_JUMP, OVFROWS_JUMP, OVFROWS_JUMP };
    for (size_t i = 0; i < 8 && i < r.n; i++) {
        CHECK_STR(row_name(&l, &r, i), want[i]);
        CHECK_INT(r.v[i].section, sec[i]);
    }
    if (r.n == 8) {
        /* a record row covers itself */
        CHECK_INT(r.v[0].count, 1);
        CHECK_INT(r.v[0].level, OVF_CRITICAL);
        CHECK_INT(r.v[4].level, OVF_MEDIUM);
        CHECK_INT(r.v[0].nsteps, 1);
        CHECK_INT(r.v[0].rank_min, 1);
        /* the one-off jump */
        CHECK_INT(r.v[5].count, 1);
        CHECK_INT(r.v[5].nranks, 1);
        CHECK_INT(r.v[5].rank_min, 3);
        /* the sums: 6 records over 3 steps and 2 ranks; the row points at
         * the earliest (step 0 rank 0) */
        const struct ovfrows_row *g = &r.v[6];
        CHECK_INT(g->count, 6);
        CHECK_INT(g->nsteps, 3);
        CHECK_INT(g->nranks, 2);
        CHECK_INT(g->step_min, 0);
        CHECK_INT(g->step_max, 2);
        CHECK_INT(g->rank_min, 0);
        CHECK_INT(g->rank_max, 1);
        CHECK_INT(g->level, OVF_HIGH);
        CHECK_INT(l.v[g->entry].step, 0);
        CHECK_INT(l.v[g->entry].rank, 0);
        char buf[128];
        ovfrows_group_text(g, 1, buf, sizeof buf);
        CHECK_STR(buf, "6 records, 3 steps (0-2), 2 ranks (0-1)");
        ovfrows_group_text(g, 0, buf, sizeof buf);
        CHECK_STR(buf, "3 steps (0-2), 2 ranks (0-1)");
        ovfrows_group_text(&r.v[5], 1, buf, sizeof buf);
        CHECK_STR(buf, "1 record, 1 step (0), 1 rank (3)");
        char tiny[8];
        ovfrows_group_text(g, 1, tiny, sizeof tiny);
        CHECK_INT(strlen(tiny), 7);   /* cut, terminated */
    }
    /* every entry is in exactly one row */
    size_t sum = 0;
    for (size_t i = 0; i < r.n; i++) sum += r.v[i].count;
    CHECK_INT(sum, l.n);

    /* the first occurrence is the earliest critical, never a jump, though
     * a jump comes first in triage order */
    long f = ovf_first(&l);
    CHECK(f >= 0);
    if (f >= 0) CHECK_STR(l.v[f].name, "Functional.linear.4.forward");
    ovfrows_free(&r);
    CHECK_INT(r.n, 0);
    ovfrows_free(&r);   /* twice is harmless */
    ovf_list_free(&l);
}

static int only_rank(const struct ovf_entry *e, void *ctx) {
    return e->rank == *(const int *)ctx;
}

static int only_high(const struct ovf_entry *e, void *ctx) {
    (void)ctx;
    return e->level == OVF_HIGH;
}

/* A filter applies record by record, before grouping: a group counts only
 * the records the filter lets through. */
static void test_filter(void) {
    struct ovf_list l = { 0 };
    make_run(&l);
    struct ovfrows r = { 0 };
    int rank = 0;
    CHECK_INT(ovfrows_build(&l, only_rank, &rank, &r, NULL), 0);
    /* rank 0: the dropout critical, the two sums (3 steps each) */
    CHECK_INT(r.n, 3);
    CHECK_STR(row_name(&l, &r, 0), "Functional.dropout.0.forward");
    CHECK_STR(row_name(&l, &r, 1), "Tensor.sum.0.forward");
    CHECK_STR(row_name(&l, &r, 2), "Torch.sum.0.backward");
    if (r.n == 3) {
        CHECK_INT(r.v[1].count, 3);
        CHECK_INT(r.v[1].nranks, 1);
        CHECK_INT(r.v[1].nsteps, 3);
    }
    CHECK_INT(r.records, 7);
    /* rebuilding replaces the rows */
    CHECK_INT(ovfrows_build(&l, only_high, NULL, &r, NULL), 0);
    CHECK_INT(r.n, 1 + 3);   /* Tensor.view (NaN passed on), then the jumps */
    CHECK_STR(row_name(&l, &r, 0), "Tensor.view.1.forward");
    CHECK_INT(r.v[0].section, OVFROWS_NONFINITE);
    ovfrows_free(&r);
    ovf_list_free(&l);
}

/* Inputs without levels: every entry is a non-finite cell, listed as is. */
static void test_no_levels_and_empty(void) {
    struct ovf_list l = { 0 };
    struct ovfrows r = { 0 };
    CHECK_INT(ovfrows_build(&l, NULL, NULL, &r, NULL), 0);
    CHECK_INT(r.n, 0);
    CHECK_INT(r.records, 0);
    add(&l, 2, 0, 0, 1, OVF_NONE, 0, "b");
    add(&l, 1, 0, 1, 4, OVF_NONE, 0, "a");
    ovf_list_sort(&l);
    CHECK_INT(ovfrows_build(&l, NULL, NULL, &r, NULL), 0);
    CHECK_INT(r.n, 2);
    CHECK_STR(row_name(&l, &r, 0), "a");
    CHECK_STR(row_name(&l, &r, 1), "b");
    if (r.n == 2) CHECK_INT(r.v[0].section, OVFROWS_NONFINITE);
    CHECK_INT(ovf_first(&l), 0);
    ovfrows_free(&r);
    ovf_list_free(&l);
    /* only jumps: no first occurrence of a NaN/Inf */
    add(&l, 0, 0, 0, 83, OVF_HIGH, 1, "Tensor.sum.0.forward");
    CHECK_INT(ovf_first(&l), -1);
    ovf_list_free(&l);
}

/* The gate: any NaN/Inf counts as critical, a jump as its own level. */
static void test_gate_level(void) {
    struct ovf_entry e = { .level = OVF_HIGH, .jump = 1 };
    CHECK_INT(ovf_gate_level(&e), OVF_HIGH);
    e.jump = 0;
    CHECK_INT(ovf_gate_level(&e), OVF_CRITICAL);   /* a NaN passed in from outside the dump */
    e.level = OVF_MEDIUM;
    CHECK_INT(ovf_gate_level(&e), OVF_CRITICAL);
    e.level = OVF_NONE;                               /* a non-finite monitor cell */
    CHECK_INT(ovf_gate_level(&e), OVF_CRITICAL);
    e.level = OVF_CRITICAL;
    CHECK_INT(ovf_gate_level(&e), OVF_CRITICAL);
}

int main(void) {
    RUN(test_order_and_groups);
    RUN(test_filter);
    RUN(test_no_levels_and_empty);
    RUN(test_gate_level);
    PT_DONE();
}
