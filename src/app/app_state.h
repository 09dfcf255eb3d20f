/* app_state: the app's own part of its state -- what the files of src/app share
 * and the panes do not see.
 *
 * The state struct itself (struct app) and the calls panes use to read and
 * change it are views/view.h, the one header a pane includes of the app;
 * this header is private to src/app (tests/layers.sh refuses it anywhere
 * else).  The app is single-threaded except for the loader thread, which
 * touches only struct app_load. */
#ifndef PT_APP_STATE_H
#define PT_APP_STATE_H

#include <stdio.h>

#include "model/err.h"
#include "src/io/load.h"
#include "views/view.h"

/* Prints the man page KEYS and COMMANDS sections as roff. */
void app_keys_man(FILE *f);

/* App internals shared by the files of src/app. */
extern const struct keys_row app_keys[];
extern const size_t app_nkeys;
int app_global_action(struct app *a, int action);
int app_run_command(struct app *a, char *line);        /* the text after ':' */
int app_complete(void *ctx, const char *line, int cycle, char *out);
void app_search(struct app *a, const char *pattern);
int app_goto(struct app *a, const char *target, struct pt_error *err);
int app_load_start(struct app *a, struct pt_error *err);   /* background load */
int app_load_finish(struct app *a, struct pt_error *err);  /* join; moves the dataset in */
int app_demo_dataset(int ranks, int targets, struct dataset **out, struct pt_error *err);

/* Sets msProbe's defaults once a->ds is loaded (app internals). */
void app_data_ready(struct app *a);
/* Rebuilds the filtered rows and keeps the selection valid (after the
 * cube or a filter changed under them). */
void app_refilter(struct app *a);
/* Installs nd (taken over) in place of a->ds, keeping the user's place by
 * value (src/app/app_swap.c); the old dataset is freed.  0, or -1 with err
 * (nd is then freed). */
int app_swap_dataset(struct app *a, struct dataset *nd, struct pt_error *err);

/* The load thread's results (app_load.c), APP_LOAD_* bits: FIRST, the
 * first data is in a->ds (the caller readies the panes); SWAPPED, newer
 * data replaced what was shown; DONE, the thread ended; FAILED, with err. */
enum { APP_LOAD_FIRST = 1, APP_LOAD_SWAPPED = 2, APP_LOAD_DONE = 4, APP_LOAD_FAILED = 8 };
int app_load_poll(struct app *a, struct pt_error *err);
/* Starts a reload of the input (follow mode, ^R, :reload); -1 with err. */
int app_reload(struct app *a, struct pt_error *err);

/* Follow mode (app_follow.c): watches the input for changes. */
int app_follow_on(struct app *a, struct pt_error *err);
void app_follow_off(struct app *a);
/* Called from the main loop: starts a reload when the input changed (or
 * a pending file settled); 1 when it did. */
int app_follow_tick(struct app *a);
/* "live, grew 12:03:41" for the status line (buf), or "" when off. */
const char *app_follow_text(const struct app *a, char *buf, size_t size);

#endif
