/* cmp_origin: the rank where a divergence between two runs was born, at
 * one step, by the origin rules (model/origin.h, divergence rules): each
 * rank pair of the step is read and table-compared (on all cores), its
 * records flagged where they diverge, and the problem side's records and
 * communication ops go to the rules.  What `compare --first` prints under
 * the run's first divergence. */
#ifndef PT_CMP_ORIGIN_H
#define PT_CMP_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "model/compare_run.h"
#include "src/io/cmp_scan.h"
#include "src/io/ovf_origin.h"

/* The origin at `step` over the pairs of v[0..n) at that step (any order;
 * fewer than two: nothing to do).  Appends to out (nothing when no record
 * diverges).  0 ok, -1 with a message (unreadable dump, memory). */
int cmp_origin_step(const struct cscan_pair *v, size_t n, int32_t step, int fuzzy, struct ovf_origin_report *out,
                    struct pt_error *err);

/* The run's first divergence with the ranks of its step ordered by the
 * origin rules (what `compare --first`, `f` and the summary answer): the
 * index in sum[0..n) of the born rank's pair at the step of crun_first(),
 * or crun_first()'s own pair when no other rank diverges there or the
 * rules find no birth; -1 when nothing diverges.  *which is the level of
 * the returned pair's first divergence (CRUN_ERR, else CRUN_WARN).  When
 * the search itself fails (a dump that cannot be read again, memory),
 * err->msg says why and crun_first()'s pair is returned; err->msg is empty
 * otherwise.  o (optional) receives the origin and its chain: the caller
 * frees it with ovf_origin_report_free(). */
long cmp_origin_first(const struct cscan_pair *pairs, size_t n, const struct crun_pair *sum, int fuzzy,
                      struct ovf_origin_report *o, int *which, struct pt_error *err);

#endif
