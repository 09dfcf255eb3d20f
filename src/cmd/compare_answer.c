/* compare_answer: the compare's answer over its pairs (see compare_answer.h). */
#include "src/cmd/compare_answer.h"

#include <stdio.h>

#include "src/cmd/cmd.h"

void compare_answer_scan(struct compare_answer *r, const struct cmp_scan_pair *pairs, size_t n,
                         struct compare_run_pair *sum, const struct cmp_scan_opts *so, const char *prefix) {
    cmp_scan_run(pairs, n, sum, so);
    r->n = n;
    r->failed = 0;
    r->found = 0;
    for (size_t i = 0; i < n; i++) {
        if (sum[i].state == COMPARE_RUN_FAILED) {
            fprintf(stderr, "%s: step %d rank %d: %s\n", prefix, (int)sum[i].step, (int)sum[i].rank, CMD_ESC(sum[i].why));
            r->failed++;
        } else if (sum[i].nerror) r->found = 1;
    }
}

int compare_answer_exit(size_t n, size_t nunread, int found, int partial_ok) {
    if (!nunread) return found ? EXIT_FOUND : EXIT_OK;
    if (nunread == n) return EXIT_USAGE;
    return found ? EXIT_FOUND : partial_ok ? EXIT_OK : EXIT_INCOMPLETE;
}
