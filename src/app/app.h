/* app: the interactive program (one state struct, the event loop). */
#ifndef PT_APP_H
#define PT_APP_H

/* Runs the TUI for `probetop [OPTIONS] PATH...` / `probetop --demo`;
 * returns the exit code. */
int app_main(int argc, char **argv);

/* The analyzer's options, one per line, for --help (and the man page). */
extern const char app_options_help[];

#endif
