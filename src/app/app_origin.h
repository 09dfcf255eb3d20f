/* app_origin: the origin rank of the loaded dump's NaN/Inf (src/ovf_origin.h),
 * searched on a background thread once the data is there, so the screen
 * is not held up; the UI thread polls it and the overflow pane names it.
 * Owns the job and its report. */
#ifndef PT_APP_ORIGIN_H
#define PT_APP_ORIGIN_H

#include "src/io/dump/ovf_origin.h"

struct app;

/* Starts the search on a->ds (nothing for inputs without levels or
 * without NaN/Inf).  A failure to start only means no origin is shown. */
void app_origin_start(struct app *a);
/* 1 when the search has just finished (the screen should be redrawn). */
int app_origin_poll(struct app *a);
/* Waits for the search and frees everything (before a->ds goes). */
void app_origin_stop(struct app *a);
/* The report, NULL while searching, when it failed or found nothing. */
const struct ovf_origin_report *app_origin_report(const struct app *a);

#endif
