/* log_parse: the lines of a text training log into a run's curves
 * (model/curves/curves.h), by the built-in patterns of the loggers
 * probetop knows and the user's own (probetop-formats(5), TRAINING
 * CURVES, Text training logs):
 *
 *   megatron     Megatron-LM / MindSpeed: `iteration N/ M | name: value | ...`
 *   mindformers  MindFormers: `step:[ N/ M], name: value, ...` (after an
 *                optional `Epoch:[ e/ E]`: the step is then (e-1)*M + N)
 *   verl         verl and other RL trainers: `step:N - key:value - ...`
 *   NAME=REGEX   the user's: named groups `step` and `value`, series NAME
 *
 * Every `name: value` field of a built-in line is a series named as
 * printed.  A line is first tested for a literal (`iteration`, `step:`)
 * with memmem, and only a line holding one is matched by PCRE2 (anchored
 * at the literal); the fields are then split by hand.  Megatron leaves
 * its loss field out when the loss's average is not > 0 (NaN): every
 * Megatron iteration without a loss field a run's other iterations print
 * is a NaN point of that loss (log_parse_finish).
 *
 * Plain bytes in, curves out: read_log.c reads the files (and follows
 * them), the fuzz harness feeds it bytes. */
#ifndef PT_LOG_PARSE_H
#define PT_LOG_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "model/curves/curves.h"
#include "model/err.h"

#define LOG_PARSE_MAX_USER 64   /* user patterns (command line and config file together) */

enum log_parse_shape { LOG_MEGATRON, LOG_MINDFORMERS, LOG_VERL, LOG_USER, LOG_NSHAPES };

struct log_parse_stats {
    uint64_t lines;                  /* whole lines read */
    uint64_t matched;                /* lines a pattern took (at least one point) */
    uint64_t by_shape[LOG_NSHAPES];  /* lines each kind of pattern took */
    uint64_t near_miss;              /* lines holding a built-in literal that did not parse */
    uint64_t first_near_miss;        /* its line number (1-based), 0 none */
    uint64_t points;
    uint64_t match_errors;           /* PCRE2 limits hit by a user pattern */
};

struct log_parse;

/* The built-in patterns compiled; NULL with err (no memory). */
struct log_parse *log_parse_new(struct pt_error *err);
void log_parse_free(struct log_parse *lp);

/* Adds a user pattern "NAME=REGEX" (origin names where it came from, for
 * the messages: "--pattern", "/home/u/.config/probetop/patterns:3").  A
 * weak pattern (the config file's) whose NAME is already given is left
 * out, so the command line wins.  0, or -1 with err (no '=', an empty
 * NAME, a regex that does not compile: its offset and PCRE2's words, no
 * group `step` or `value`, too many patterns). */
int log_parse_add_user(struct log_parse *lp, const char *spec, const char *origin, int weak, struct pt_error *err);
size_t log_parse_nuser(const struct log_parse *lp);

/* The whole lines of buf[0..len) (a last line without its line end is
 * read as a line too: the caller cuts what is pending) into c, which must
 * be the same curves on every call; line numbers continue from the
 * previous call.  0, or -1 without memory. */
int log_parse_lines(struct log_parse *lp, const char *buf, size_t len, struct curves *c, struct log_parse_stats *st);

/* After the last lines: the NaN points of Megatron's left-out losses, and
 * curves_finish.  0, or -1 without memory. */
int log_parse_finish(struct log_parse *lp, struct curves *c);

/* Detection: how many of the whole lines of buf[0..len) a built-in or
 * user pattern takes (*lines: how many whole lines there are). */
size_t log_parse_count(struct log_parse *lp, const char *buf, size_t len, size_t *lines);

#endif
