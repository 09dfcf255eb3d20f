/* tpatterns: the patterns that classify a profiler trace (probetop-rules(7),
 * PROFILER TRACES: Patterns): a kernel's category by its name, a CPU
 * annotation's Megatron phase by its name, a process group's parallel
 * dimension by its description (distributedInfo.pg_config, the kernel's
 * "Process Group Description"), and, where no group says it, the
 * communication inside a forward or backward pass by the kernel's name.
 *
 * Each key is one PCRE2 regular expression (byte mode, unanchored search)
 * with a documented default; a patterns file (probetop-formats(5), TRACE
 * PATTERNS) replaces the keys it names:
 *
 *     # comment
 *     communication = ^nccl|^hccl
 *     forward = forward_step
 *     forward = my_fwd          (a key given twice: either matches)
 *
 * Pure: the text of the file is the caller's to read. */
#ifndef PT_TRACE_TPATTERNS_H
#define PT_TRACE_TPATTERNS_H

#include <stddef.h>

#include "model/err.h"

enum tpat_key {
    /* kernel names */
    TPAT_COMM,          /* communication */
    TPAT_MEMORY,        /* memory */
    TPAT_OTHER,         /* not computation (HTA's exclusion list): memory unless communication */
    /* CPU annotation names */
    TPAT_FORWARD, TPAT_BACKWARD, TPAT_RECOMPUTE, TPAT_OPTIMIZER, TPAT_PP, TPAT_DP_GRAD, TPAT_DP_PARAM,
    /* process group descriptions */
    TPAT_GROUP_TP, TPAT_GROUP_PP, TPAT_GROUP_DP, TPAT_GROUP_EP, TPAT_GROUP_CP,
    /* a communication kernel's name inside a forward or backward pass, without a group: EP, else TP */
    TPAT_NAME_EP,
    TPAT_NKEYS
};

/* The parallel dimension of a process group (TPAT_GROUP_*), or none. */
enum tpat_dim { TPAT_DIM_NONE, TPAT_DIM_TP, TPAT_DIM_PP, TPAT_DIM_DP, TPAT_DIM_EP, TPAT_DIM_CP, TPAT_NDIMS };

struct tpatterns;
struct tpat_md;   /* match scratch: one per thread */

/* The defaults compiled; NULL with err (out of memory). */
struct tpatterns *tpatterns_new(struct pt_error *err);
void tpatterns_free(struct tpatterns *p);
/* Applies a patterns file's text (path names it in messages): every key
 * it names replaces that key's default.  0, or -1 with "PATH:LINE: ..."
 * (an unknown key, a line without "=", a regex that does not compile and
 * where). */
int tpatterns_parse(struct tpatterns *p, const char *text, size_t n, const char *path, struct pt_error *err);

/* The key's name in a patterns file ("communication", "group_tp", ...),
 * its regex now (the default or the file's). */
const char *tpatterns_key_name(int key);
const char *tpatterns_regex(const struct tpatterns *p, int key);
/* "tp", "pp", "dp", "ep", "cp", "" for none. */
const char *tpatterns_dim_name(int dim);

struct tpat_md *tpatterns_md_new(void);
void tpatterns_md_free(struct tpat_md *md);

/* 1 when key's regex matches somewhere in s[0..n). */
int tpatterns_match(const struct tpatterns *p, struct tpat_md *md, int key, const char *s, size_t n);
/* A kernel's category (enum trace_cat, never TRACE_IDLE). */
int tpatterns_kernel_cat(const struct tpatterns *p, struct tpat_md *md, const char *s, size_t n);
/* A CPU annotation's phase (enum trace_phase: forward, backward,
 * recompute, optimizer, pp_comm, dp_grad, dp_param), TRACE_PH_NONE for
 * none; tried in that order: pp, dp_param, dp_grad, recompute, forward,
 * backward, optimizer. */
int tpatterns_anno_phase(const struct tpatterns *p, struct tpat_md *md, const char *s, size_t n);
/* A process group's dimension by its description (enum tpat_dim). */
int tpatterns_group_dim(const struct tpatterns *p, struct tpat_md *md, const char *s, size_t n);

#endif
