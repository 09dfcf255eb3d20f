/* origin_search: the origin rank of the loaded dump's NaN/Inf
 * (src/io/dump/ovf_origin.h), searched on a background thread once the
 * data is there, so the screen is not held up; the UI thread polls it and
 * the overflow pane names it.  Owns the job and its report. */
#ifndef PT_SESSION_ORIGIN_SEARCH_H
#define PT_SESSION_ORIGIN_SEARCH_H

#include <stddef.h>
#include <stdint.h>

struct session;
struct ovf_origin_report;   /* src/io/dump/ovf_origin.h */

/* Starts the search on a->ds (nothing for inputs without levels or
 * without NaN/Inf).  A failure to start only means no origin is shown. */
void origin_search_start(struct session *a);
/* 1 when the search has just finished (the screen should be redrawn). */
int origin_search_poll(struct session *a);
/* 1 while the search runs (not yet polled as finished). */
int origin_search_busy(const struct session *a);
/* Waits for the search and frees everything (before a->ds goes). */
void origin_search_stop(struct session *a);
/* The report, NULL while searching, when it failed or found nothing. */
const struct ovf_origin_report *origin_search_report(const struct session *a);

/* The origin of the first step's NaN/Inf, once the search found it: 1
 * with its step, rank, record position and name and how many other ranks
 * it reached; 0 while searching, when the search failed or found nothing. */
int origin_search_first(const struct session *a, int32_t *step, int32_t *rank, uint32_t *pos, const char **name,
                        size_t *nreached);
/* The origin's record as an index into a->ds->ovf (what the overflow
 * pane's list leads with); -1 while searching or when there is none. */
long origin_search_entry(const struct session *a);

#endif
