/* pt_dumpfast.h: one rank folder's dump.json parsed with the tensor
 * objects read from their bytes (src/io/dump/parse_dump_elem.c) and with
 * the tokens alone (PROBETOP_DUMP_FAST=0), everything parse_dump gives
 * compared: ok, the message and warning, the rows (names, call and micro
 * indices, metrics, which statistics, their bits), the overflow records
 * (names, levels, descriptions), the counts, and the records kept for the
 * origin search (their flags, whether they must be read again, and the
 * items and group ranks of the ops held light).  Three
 * option sets: data2db's (micro steps, rows), with a --mapping, and the
 * overflow check's (no rows, records kept).  For tests/fuzz/fuzz_dumpfast.c
 * and tests/unit/test_dump_fast.c. */
#ifndef PT_DUMPFAST_H
#define PT_DUMPFAST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/origin_cap.h"
#include "src/io/dump/read_dump.h"

/* sc: a worker's scratch kept from the parses before (NULL: a fresh one) */
static void pt_df_parse(const char *dir, const char *dump, const struct dump_opts *o, int fast, struct dump_file *f,
                        struct dump_scratch *sc) {
    memset(f, 0, sizeof *f);
    setenv("PROBETOP_DUMP_FAST", fast ? "1" : "0", 1);
    if (sc) parse_dump_file_buf(dir, dump, o, f, sc);
    else parse_dump_file(dir, dump, o, f);
    unsetenv("PROBETOP_DUMP_FAST");
}

#define PT_DF_DIFF(cond, ...) do { if (cond) { snprintf(why, nwhy, __VA_ARGS__); return 0; } } while (0)

static int pt_df_same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static int pt_df_compare(const struct dump_file *a, const struct dump_file *b, char *why, size_t nwhy) {
    PT_DF_DIFF(a->ok != b->ok, "ok %d and %d (%s%s)", a->ok, b->ok, a->error.msg, b->error.msg);
    PT_DF_DIFF(strcmp(a->error.msg, b->error.msg), "messages \"%s\" and \"%s\"", a->error.msg, b->error.msg);
    PT_DF_DIFF(!pt_df_same_str(a->warning, b->warning), "warnings");
    PT_DF_DIFF(a->micro_count != b->micro_count || a->contributes != b->contributes || a->nentries != b->nentries ||
                   a->long_names != b->long_names || a->long_name_line != b->long_name_line || a->bytes != b->bytes,
               "counts: entries %zu/%zu", a->nentries, b->nentries);
    PT_DF_DIFF(!pt_df_same_str(a->framework, b->framework) || !pt_df_same_str(a->level, b->level) ||
                   !pt_df_same_str(a->task, b->task), "header strings");
    PT_DF_DIFF(a->nrows != b->nrows, "rows %zu and %zu", a->nrows, b->nrows);
    for (size_t i = 0; i < a->nrows; i++) {
        const struct dump_tensor_row *x = &a->rows[i], *y = &b->rows[i];
        PT_DF_DIFF(x->len != y->len || memcmp(a->arena + x->name, b->arena + y->name, x->len), "row %zu: names", i);
        PT_DF_DIFF(x->call != y->call || x->micro != y->micro || x->entry != y->entry || x->metric != y->metric ||
                       x->present != y->present, "row %zu (%.*s): call, micro, entry, metric or present", i, (int)x->len,
                   a->arena + x->name);
        for (int k = 0; k < 4; k++)
            PT_DF_DIFF((x->present >> k & 1) && memcmp(&x->v[k], &y->v[k], sizeof x->v[k]), "row %zu (%.*s): statistic %d %.17g and %.17g",
                       i, (int)x->len, a->arena + x->name, k, x->v[k], y->v[k]);
    }
    PT_DF_DIFF(a->ovf.n != b->ovf.n, "overflow records %zu and %zu", a->ovf.n, b->ovf.n);
    for (size_t i = 0; i < a->ovf.n; i++) {
        const struct ovf_entry *x = &a->ovf.v[i], *y = &b->ovf.v[i];
        PT_DF_DIFF(x->step != y->step || x->micro != y->micro || x->rank != y->rank || x->pos != y->pos ||
                       x->level != y->level || x->jump != y->jump || !pt_df_same_str(x->name, y->name) ||
                       !pt_df_same_str(x->what, y->what),
                   "overflow record %zu (%s: %s and %s)", i, x->name ? x->name : "", x->what ? x->what : "",
                   y->what ? y->what : "");
    }
    PT_DF_DIFF(!a->ocap != !b->ocap, "origin records kept by one only");
    if (a->ocap) {
        const struct origin_cap *x = a->ocap, *y = b->ocap;
        PT_DF_DIFF(x->n != y->n || x->bad != y->bad || x->nvals != y->nvals || x->nitems != y->nitems ||
                       x->nints != y->nints, "origin records: %zu and %zu", x->n, y->n);
        for (size_t i = 0; i < x->n; i++)
            PT_DF_DIFF(memcmp(&x->v[i], &y->v[i], sizeof x->v[i]), "origin record %zu: flags %d/%d reread %d/%d", i,
                       x->v[i].flags, y->v[i].flags, x->v[i].reread, y->v[i].reread);
        PT_DF_DIFF(x->nvals && memcmp(x->vals, y->vals, x->nvals), "origin records' bytes");
        /* the light ops' items and group ranks (the load vouches for what it
         * read fast: origin_light.h's vet) */
        for (size_t i = 0; i < x->nitems; i++) {
            const struct origin_cap_item *u = &x->items[i], *w = &y->items[i];
            PT_DF_DIFF(u->rec != w->rec || u->index != w->index || u->value != w->value || u->g0 != w->g0 ||
                           u->ng != w->ng || u->key != w->key || u->is_null != w->is_null ||
                           u->has_group != w->has_group, "light op item %zu", i);
        }
        PT_DF_DIFF(x->nints && memcmp(x->ints, y->ints, x->nints * sizeof *x->ints), "light ops' group ranks");
    }
    return 1;
}

/* dir/dump.json parsed both ways with the three option sets: 1 when alike,
 * else 0 with why. */
static int pt_df_same(const char *dir, char *why, size_t nwhy) {
    char dump[4200];
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    char from0[] = "layers", to0[] = "blocks", from1[] = ".forward", to1[] = "";
    char *from[] = {from0, from1}, *to[] = {to0, to1};
    struct mapping map = {from, to, 2};
    const struct dump_opts opts[3] = {{.micro_step = 1, .want_rows = 1},
                                      {.micro_step = 1, .mapping = &map, .want_rows = 1},
                                      {.micro_step = 0, .want_rows = 0, .origin_keep = 1}};
    /* and read fast with the skeletons, memo and numbers the parses before
     * left (read_dump.h's dump_scratch, as a worker keeps them from file to
     * file; the last, with records kept, after two without) */
    struct dump_scratch sc = {0};
    for (int k = 0; k < 6; k++) {
        struct dump_file a, b;
        pt_df_parse(dir, dump, &opts[k % 3], 1, &a, k < 3 ? NULL : &sc);
        pt_df_parse(dir, dump, &opts[k % 3], 0, &b, NULL);
        int same = pt_df_compare(&a, &b, why, nwhy);
        dump_file_free(&a);
        dump_file_free(&b);
        if (!same) {
            size_t l = strlen(why);
            snprintf(why + l, nwhy - l, " (options %d%s)", k % 3, k < 3 ? "" : ", scratch kept");
            dump_scratch_free(&sc);
            return 0;
        }
    }
    dump_scratch_free(&sc);
    return 1;
}

#endif
