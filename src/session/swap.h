/* swap: a newer dataset of the input in place of the shown one, the
 * user's place kept by value (src/session/swap.c). */
#ifndef PT_SESSION_SWAP_H
#define PT_SESSION_SWAP_H

#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/err.h"

struct session;

/* Installs nd (taken over) in place of a->ds, keeping the user's place by
 * value; the old dataset is freed.  0, or -1 with err (nd is then freed). */
int swap_dataset(struct session *a, struct dataset *nd, struct pt_error *err);

/* During a swap (a->swap_from set): the index in the new cube of what
 * index i was in the old one, by value (metric and statistic by name,
 * step and rank by number, target by name); -1 / NAMES_NONE when it is
 * gone or no swap is under way. */
int swap_metric(const struct session *a, int metric);
int swap_stat(const struct session *a, int old_metric, int stat);
int swap_step(const struct session *a, int step);
int swap_rank(const struct session *a, int rank);
uint32_t swap_target(const struct session *a, uint32_t target);

#endif
