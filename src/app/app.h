/* app: the interactive program (one state struct, the event loop). */
#ifndef PT_APP_H
#define PT_APP_H

/* Runs the TUI for `probetop [OPTIONS] PATH...` / `probetop --demo`;
 * returns the exit code. */
int app_main(int argc, char **argv);

/* `probetop snapshot`: the analyzer drawn headless (ui_opts.rows), keys
 * typed, the screen written as SVG (src/app/app_snapshot.c). */
struct app_snap {
    int rows, cols;
    const char *view;          /* a pane's name to show first; NULL: the first screen */
    const int *keys;           /* ui/keys.h codes typed once the data is there */
    int nkeys;
    const char *svg;           /* the picture's path */
};
/* app_main with snap != NULL: headless, ends after the picture. */
int app_run(int argc, char **argv, const struct app_snap *snap);

struct cmd_entry;
extern const struct cmd_entry app_snapshot_entry;

/* The analyzer's options, one per line, for --help (and the man page). */
extern const char app_options_help[];

#endif
