/* ovf_origin: the origin rank of the NaN/Inf of a loaded dump (model/overflow/origin.h
 * has the rules), for the first step, in step order, where the rules find
 * one.  Reads the rank folders of that step again (records and params
 * only, no stack; all of them, or only the affected one when a single rank
 * holds NaN/Inf), so the model gets one tree per rank -- when the load kept
 * their records (load_opts.origin_keep, model/overflow/origin_cap.h), only
 * the communication ops and the records it could not judge are parsed
 * again, from the bytes the load kept of them, so each file is read once
 * (ovf_origin_read_rank), and each
 * rank's capture is freed once read (a later run reads the files whole;
 * nothing else reads ds_rankdir.ocap); names the nodes it
 * reports with their step, micro step (from the dataset's flagged
 * records), rank, position and dump name.  Owns every string of the
 * report. */
#ifndef PT_OVF_ORIGIN_H
#define PT_OVF_ORIGIN_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/overflow/origin.h"

struct ovf_origin_node {
    int32_t step, micro, rank;   /* micro -1 unknown */
    uint32_t pos;                /* index of the record in dump.json data */
    char *name;
};

struct ovf_origin_hop {
    int has_from;                /* 0: it appeared there with no anomalous peer */
    struct ovf_origin_node from, to;
};

struct ovf_origin_step {
    int32_t step;
    enum origin_phase phase;
    struct ovf_origin_node *origins; size_t norigins;
    struct ovf_origin_hop *chain; size_t nchain;
};

struct ovf_origin_report {
    struct ovf_origin_step *v; size_t n;   /* the first step with an origin (n is 0 or 1) */
    char note[600];                        /* "" or why some ranks were left out */
};

/* 0 ok (an empty report when the dataset is not a dump or has nothing
 * flagged; a rank folder that cannot be read is left out, and note says
 * so), -1 out of memory. */
int ovf_origin_run(const struct dataset *ds, struct ovf_origin_report *out, struct pt_error *err);
void ovf_origin_report_free(struct ovf_origin_report *r);

/* One rank of a step as an origin search reads it (called on the pool's
 * threads, once for each i): *tree, its step and rank set, and *flags, one
 * byte per record (origin_flags_nonfinite, origin_flags_divergence); or
 * *tree NULL to leave the rank out.  0, or -1 with e set (the search
 * stops). */
typedef int (*ovf_origin_read_fn)(void *ctx, size_t i, struct tree **tree, uint8_t **flags, struct pt_error *e);

/* The origin search of one step, the one both the NaN/Inf triage
 * (ovf_origin_run) and the compare's first divergence (cmp_origin.h) run:
 * the n ranks read(ctx, i) gives, in ascending rank, are read on all
 * cores, each kept slim (origin_slim) once flagged; the ones read go to
 * origin_find under rules, and the result, its nodes named (ds, may be
 * NULL, gives the micro steps), is appended to out (nothing when no origin
 * was found).  0, or -1 with err set. */
int ovf_origin_step(struct ovf_origin_report *out, int32_t step, size_t n, enum origin_rules rules,
                    ovf_origin_read_fn read, void *ctx, const struct dataset *ds, struct pt_error *err);

/* One rank folder of a step as ovf_origin_run reads it: *tree (records;
 * params of the communication ops and of the records the load could not
 * judge) and *flags (origin_flags_nonfinite), from what the load kept
 * (d->ocap, load_opts.origin_keep: each record parsed again only when
 * needed), or, when it kept nothing of use or `whole`, from the whole
 * dump.json.  0, 1 when it cannot be read (e says why; nothing set), -1
 * out of memory. */
int ovf_origin_read_rank(const struct ds_rankdir *d, int32_t step, int whole, struct tree **tree, uint8_t **flags,
                         struct pt_error *e);

/* The entry every listing of l leads with (probetop-rules(7), ORIGIN
 * ACROSS RANKS): the record where the origin search found the NaN/Inf
 * born, when o holds one and l has it; else -1 (the listings lead with
 * ovf_first(), the first record by position). */
long ovf_origin_entry(const struct ovf_origin_report *o, const struct ovf_list *l);

/* The report as text: per step "origin across ranks, step S (phase):",
 * "  born on rank R[ micro step M], position P: NAME" per origin, then
 * "  -> ..." and "       received from ..." per hop. */
void ovf_origin_print_text(FILE *f, const struct ovf_origin_report *o);

#endif
