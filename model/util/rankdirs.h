/* rankdirs: THE rank-folder scanner of a dump (probetop-formats(5),
 * DUMP FOLDERS), used by every reader and command that opens one (`info`, the
 * trend view, `data2db`, `compare`, the tree), so that all of them number
 * the same folder the same way.
 *
 * The rule: in a step folder, rank<N> is rank N and proc<PID> (a pid, not a
 * rank) is numbered after the largest rank<N> of that step, in pid order;
 * a folder without a number, without a dump.json or that cannot be read is
 * passed over with a note.  Step folders step<N> are taken in step order. */
#ifndef PT_UTIL_RANKDIRS_H
#define PT_UTIL_RANKDIRS_H

#include <stddef.h>
#include <stdint.h>

/* The one size limit for a dump.json (msProbe refuses JSON over 10 GiB too). */
#define UTIL_DUMP_MAX_BYTES ((size_t)10 << 30)

struct util_rankdir { int32_t step, rank; char *dir; /* owned */ };
struct util_rankdirs { struct util_rankdir *v; size_t n, cap; };   /* zero-initialise */

/* Told of each folder passed over: why, and whether it was skipped (a rank
 * folder not read) or only noted (a step folder that cannot be listed).
 * Returns 0, or -1 to stop (out of memory). */
typedef int (*util_rank_note)(void *ctx, const char *path, const char *why, int skipped);

/* Appends the rank folders of step folder sdir, numbered by the rule, in
 * rank order.  note may be NULL.  0, or -1 out of memory. */
int util_scan_step(const char *sdir, int32_t step, struct util_rankdirs *out, util_rank_note note, void *ctx);
/* Every step<N> folder of root in step order, each by util_scan_step.
 * The number of step folders found, or -1 out of memory. */
int util_scan_root(const char *root, struct util_rankdirs *out, util_rank_note note, void *ctx);
void util_rankdirs_free(struct util_rankdirs *d);

/* ---- the rank a profiler's file or folder names (probetop-formats(5)) ---- */

/* `rank`, `rank-` or `rank_` then digits anywhere in the n bytes of s (any
 * case): the first such number below limit, or -1.  Shared by the trace and
 * step-table readers so both read the same name the same way. */
long util_rank_in_name(const char *s, size_t n, long limit);
/* The rank a torch_npu profiling folder's profiler_info_<R>.json names, or
 * -1 when dir holds none (or cannot be listed). */
long util_profiler_info_rank(const char *dir);

#endif
