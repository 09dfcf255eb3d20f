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

#include "src/io/cmp_scan.h"
#include "src/io/ovf_origin.h"

/* The origin at `step` over the pairs of v[0..n) at that step (any order;
 * fewer than two: nothing to do).  Appends to out (nothing when no record
 * diverges).  0 ok, -1 with a message (unreadable dump, memory). */
int cmp_origin_step(const struct cscan_pair *v, size_t n, int32_t step, int fuzzy, struct ovf_origin_report *out,
                    struct pt_error *err);

#endif
