/* cmp_scan: every (step, rank) pair two runs share, read, built and
 * compared for its summary (model/compare/compare_run.h) -- what `compare --first`
 * and the compare mode's step x rank summary need.
 *
 * Each pair is done start to end by one thread (read both dumps, build
 * both trees, graph compare, summarize, free), and a few threads take
 * pairs in turn: on two cores this keeps both busy with no hand-offs, and
 * only that many pairs are in memory at once.  A pair whose dumps have no
 * structure (level L1) is summarized from the table compare instead. */
#ifndef PT_CMP_SCAN_H
#define PT_CMP_SCAN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/compare/compare_run.h"
#include "src/io/compare/cmp_files.h"

struct cmp_scan_pair {
    int32_t step, rank;
    const char *dir[2];          /* rank folders: problem, benchmark */
};

struct cmp_scan_opts {
    int fuzzy;                   /* --fuzzy-match */
    const struct cmp_files_lmap *lmap;   /* --layer-mapping rules, NULL none */
    const char *match_config;    /* --match-config FILE, NULL none */
    int threads;                 /* workers (>= 1) */
    atomic_int *cancel;          /* optional: set to stop early (pairs left PENDING) */
    /* optional: called by the worker that finished pair i (out[i] is
     * complete when it is called) */
    void (*done)(void *ctx, size_t i);
    void *ctx;
};

/* Summarizes pairs v[0..n) into out[0..n) (zeroed by the caller, step and
 * rank set here).  A pair that cannot be compared is COMPARE_RUN_FAILED with the
 * reason (the others go on); with o->cancel set, the pairs not started
 * stay PENDING.  Runs on the calling thread plus o->threads - 1 more (fewer
 * when they cannot start). */
void cmp_scan_run(const struct cmp_scan_pair *v, size_t n, struct compare_run_pair *out, const struct cmp_scan_opts *o);

/* Pair p compared again as cmp_scan_run does, into out (zeroed by the
 * caller, freed with compare_run_pair_clear), with its node (record, without
 * structure) called name as its first at index which (COMPARE_RUN_ERR or
 * COMPARE_RUN_WARN): the node where the origin rules found the run's divergence
 * born, which the run's first divergence names. */
void cmp_scan_pin(const struct cmp_scan_pair *p, const struct cmp_scan_opts *o, const char *name, int which,
               struct compare_run_pair *out);

#endif
