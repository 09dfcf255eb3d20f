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
#include "src/io/dataset.h"
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

#endif
