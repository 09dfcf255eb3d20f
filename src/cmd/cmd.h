/* cmd: the headless command table.  One file per command (src/cmd/cmd_*.c), each
 * exporting one struct cmd_entry, listed in main.c, which dispatches on
 * argv[1] and prints --help and `probetop help COMMAND` from these fields. */
#ifndef PT_CMD_H
#define PT_CMD_H

#include <stdatomic.h>
#include <stddef.h>

/* Exit codes. */
#define EXIT_OK 0
#define EXIT_FOUND 1      /* the command found problems (overflow, divergence) */
#define EXIT_USAGE 2      /* bad usage or unreadable input */
#define EXIT_INCOMPLETE 3 /* a gate (overflow, compare) read only part of its input and found
                             nothing there: it cannot say (--partial-ok accepts it) */

struct cmd_entry {
    const char *name;
    const char *usage;    /* one line: "probetop info PATH [--json]" */
    const char *summary;  /* one sentence for --help */
    const char *help;     /* options, one per line, for `probetop help NAME` */
    int (*run)(int argc, char **argv);   /* argv[0] is the command name */
};

extern const struct cmd_entry cmd_info_entry;
extern const struct cmd_entry cmd_data2db_entry;
extern const struct cmd_entry cmd_overflow_entry;
extern const struct cmd_entry cmd_compare_entry;
extern const struct cmd_entry cmd_parallel_entry;
extern const struct cmd_entry cmd_trace_entry;
extern const struct cmd_entry cmd_curves_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_demo_entry;

/* Small argument helpers shared by the commands.  opt_value() matches
 * "--name VALUE" and "--name=VALUE" at argv[*i], advancing *i; returns the
 * value, or NULL (with a message on stderr and *bad set) when missing. */
const char *opt_value(int argc, char **argv, int *i, const char *name, int *matched, int *bad);
int opt_bool(const char *s, int *out);   /* true/false/True/False/1/0; 0 ok */
int opt_int(const char *s, long lo, long hi, long *out);
/* --shard K/N, or auto: the task number K (1-based) and count N the launcher
 * gives (Open MPI's mpirun: OMPI_COMM_WORLD_RANK/SIZE, Slurm's srun:
 * SLURM_PROCID/NTASKS, a PMI launcher: PMI_RANK/SIZE), else one task (1/1).
 * cmd names the command in messages.  0, or -1 with a message. */
int cmd_shard_parse(const char *cmd, const char *v, int *k, int *n);

/* The tail of a command's option loop, for an argument none of its options
 * took: a word beginning with '-' (but not "-" alone) is an unknown option;
 * any other is the next operand, the capitalised words that follow the
 * command's name in its usage line (PATH; PROBLEM BENCH; none for data2db),
 * stored in operands[(*n)++] (room for as many as the usage names).  One more
 * than the usage names is refused.  0, or EXIT_USAGE with the message on
 * stderr.  cmd_operands_done() after the loop: 0 when every operand was
 * given, else EXIT_USAGE naming what is missing, with the usage line. */
int cmd_operand(const struct cmd_entry *c, const char *arg, const char **operands, int *n);
int cmd_operands_done(const struct cmd_entry *c, int n);

/* Stopping a long command (data2db, overflow --follow) on SIGINT or SIGTERM,
 * and SIGHUP with CMD_STOP_HUP: the handler stores the signal in cmd_stop
 * and does nothing more; the command's loops read it (a reader's
 * load_opts.cancel may point at it).  With CMD_STOP_TWICE a second signal
 * ends the process at once, by that signal.  cmd_stop_catch() clears the
 * flag and installs the handler; cmd_stop_release(), with the same flags,
 * gives the signals their default action back. */
enum { CMD_STOP_HUP = 1, CMD_STOP_TWICE = 2 };
extern atomic_int cmd_stop;
void cmd_stop_catch(int flags);
void cmd_stop_release(int flags);
/* "SIGINT", "SIGTERM", "SIGHUP" (the signals a command stops on), else "a signal". */
const char *cmd_signal_name(int sig);

/* load_dataset() for a command: the error, or each warning, on stderr
 * (escaped, "probetop: ..."); NULL when it failed. */
struct dataset;
struct load_opts;
struct dataset *cmd_load(const char *path, const struct load_opts *lo);

/* User-controlled text (a path, a name, a message quoting them, an
 * argument) for a command's stdout or stderr: escaped by pt_escape
 * (model/err.h) so no control byte reaches the terminal.  CMD_ESC(s) gives
 * it a buffer that lives to the end of the calling block, for a printf
 * argument; s NULL is "". */
const char *cmd_esc(const char *s, char *buf, size_t n);
#define CMD_ESC_MAX 4096
#define CMD_ESC(s) cmd_esc((s), (char[CMD_ESC_MAX]){0}, CMD_ESC_MAX)

#endif
