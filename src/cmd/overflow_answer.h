/* overflow_answer: the answer of `probetop overflow` on a loaded dataset --
 * the counts per level, step and rank, the entries at or above --level in
 * listing order with the origin first, the first occurrence, what fails
 * the gate and the exit code -- computed once, for the command's text,
 * CSV and JSON and for `probetop report`, which must say the same. */
#ifndef PT_CMD_OVERFLOW_ANSWER_H
#define PT_CMD_OVERFLOW_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/overflow/overflow.h"
#include "model/overflow/ovfrows.h"
#include "src/io/dump/ovf_origin.h"

/* Counts of one step or rank: index = enum ovf_level (0 = no level). */
struct overflow_tally {
    int32_t key;
    size_t n[4];
};

struct overflow_answer {
    const struct dataset *ds;
    const struct ovf_list *l;
    int levels;                /* the input has levels */
    int min_level;             /* --level (OVF_MEDIUM: everything) */
    size_t *match;             /* indexes into l of entries at or above min_level */
    size_t nmatch;
    long first;                /* index into l, -1 none: the origin when found, else by_pos */
    long by_pos;               /* the first record by position (ovf_first), -1 none */
    int first_is_origin;
    struct ovfrows rows;      /* the matched entries as listed */
    int fail_on;               /* --fail-on: enum ovf_level */
    size_t failing;            /* entries whose ovf_gate_level() reaches fail_on */
    size_t counts[4];
    size_t jumps;              /* entries flagged by the numeric jump alone */
    struct overflow_tally *steps, *ranks;
    size_t nsteps, nranks;
    long limit;                /* entries to list; 0 = all */
    const struct ovf_origin_report *origin;   /* origin rank of the first step with one (dumps) */
    int partial_ok;            /* --partial-ok: files not read whole do not stop the gate */
};

/* Fills r's answer from r->ds, r->l, r->levels, r->min_level, r->fail_on,
 * r->origin (the caller's).  0, or -1 without memory (free r anyway). */
int overflow_answer_build(struct overflow_answer *r);
void overflow_answer_free(struct overflow_answer *r);
/* Files the load could not read whole: skipped, or read but for a cut end. */
size_t overflow_answer_unread(const struct overflow_answer *r);
/* The gate's exit code (probetop(1), EXIT STATUS): what was read fails it,
 * else it cannot pass on files it could not read unless --partial-ok. */
int overflow_answer_exit(const struct overflow_answer *r);
/* An entry's level name, "nonfinite" for inputs without levels. */
const char *overflow_answer_level(const struct overflow_answer *r, const struct ovf_entry *e);

#endif
