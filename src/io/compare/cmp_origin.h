/* cmp_origin: the rank where a divergence between two runs was born, at
 * one step, by the origin rules (model/overflow/origin.h, divergence rules): each
 * rank pair of the step is read and table-compared (on all cores), its
 * records flagged where they diverge, and the problem side's records and
 * communication ops go to the rules.  What `compare --first` prints under
 * the run's first divergence. */
#ifndef PT_CMP_ORIGIN_H
#define PT_CMP_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "model/compare/compare_run.h"
#include "src/io/compare/cmp_scan.h"
#include "src/io/dump/ovf_origin.h"

/* The origin at `step` over the pairs of v[0..n) at that step (any order;
 * fewer than two: nothing to do), a record diverging when one of its rows
 * is at `level` (CL_ERROR, CL_WARNING) or above.  Appends to out (nothing
 * when no record is born).  0 ok, -1 with a message (unreadable dump,
 * memory). */
int cmp_origin_step(const struct cmp_scan_pair *v, size_t n, int32_t step, int fuzzy, int level,
                    struct ovf_origin_report *out, struct pt_error *err);

/* The run's first divergence (probetop-rules(7), FIRST DIVERGENCE), the one
 * place it is decided for `compare` (headline and --first), the run
 * summary and `f`: the index in sum[0..n) of the pair holding it -- at the
 * step of compare_run_first(), the pair of the rank where the origin rules find
 * the divergence born, else compare_run_first()'s own pair; -1 when nothing
 * diverges.  *which is the run's level (COMPARE_RUN_ERR, else COMPARE_RUN_WARN).  ans
 * (optional) receives the node itself (the born node, else the pair's
 * first; free with compare_run_first_free).  When the search itself fails (a dump
 * that cannot be read again, memory), err->msg says why and compare_run_first()'s
 * pair is returned; err->msg is empty otherwise.  o (optional) receives
 * the origin and its chain: the caller frees it with
 * ovf_origin_report_free().  by_number (a --layer-mapping run: the two
 * sides name their nodes in two frameworks' terms, which the origin
 * rules cannot pair across ranks): no search, compare_run_first()'s pair,
 * ranks in number order. */
long cmp_origin_first(const struct cmp_scan_pair *pairs, size_t n, const struct compare_run_pair *sum, int fuzzy,
                      int by_number, struct ovf_origin_report *o, int *which, struct compare_run_first *ans,
                      struct pt_error *err);

#endif
