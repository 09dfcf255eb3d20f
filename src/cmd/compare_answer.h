/* compare_answer: the answer of `probetop compare PROBLEM BENCH` over its
 * (step, rank) pairs -- which pairs could not be compared, whether an error
 * level was found, and the exit code that follows -- computed once, for the
 * command (--first and the table) and for `probetop report`, which must say
 * the same (as overflow_answer.h does for overflow). */
#ifndef PT_CMD_COMPARE_ANSWER_H
#define PT_CMD_COMPARE_ANSWER_H

#include <stddef.h>

#include "model/compare/compare_run.h"
#include "src/io/compare/cmp_scan.h"

struct compare_answer {
    size_t n;                  /* pairs tried */
    size_t failed;             /* pairs that could not be compared */
    int found;                 /* an error level in a compared pair */
};

/* Summarizes every pair (cmp_scan_run with so) into sum[0..n) and counts
 * the answer; each pair that could not be compared is named on stderr as
 * "PREFIX: step S rank R: why". */
void compare_answer_scan(struct compare_answer *r, const struct cmp_scan_pair *pairs, size_t n,
                         struct compare_run_pair *sum, const struct cmp_scan_opts *so, const char *prefix);

/* The exit code once every pair was tried (probetop(1), EXIT STATUS):
 * nothing compared is unreadable input; an error level anywhere fails;
 * else pairs that could not be compared leave the answer open (3)
 * unless partial_ok. */
int compare_answer_exit(size_t n, size_t nunread, int found, int partial_ok);

#endif
