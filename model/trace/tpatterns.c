/* tpatterns: the classification patterns of profiler traces (see
 * tpatterns.h; the defaults are documented in probetop-rules(7), PROFILER
 * TRACES: Patterns). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "model/trace/tpatterns.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace/trace.h"

struct tpatterns {
    pcre2_code *re[TPAT_NKEYS];
    char *src[TPAT_NKEYS];
};
struct tpat_md { pcre2_match_data *md; };

static const char *const key_names[TPAT_NKEYS] = {
    "communication", "memory", "other",
    "forward", "backward", "recompute", "optimizer", "pp", "dp_grad", "dp_param",
    "group_tp", "group_pp", "group_dp", "group_ep", "group_cp",
    "name_ep",
};

/* The defaults.  The kernel keys are HolisticTraceAnalysis's name rules
 * (plus Ascend's hcom_ operators); the annotation keys Megatron-LM's
 * function names, as Megatron-TraceViz matches them; the group keys
 * Megatron-LM's process group descriptions (parallel_state.py). */
static const char *const defaults[TPAT_NKEYS] = {
    "^(nccl|hip|hccl|hcom)|ncclKernel",
    "^(Memcpy|Memset|dma)",
    "^(nccl|Stream Wait Event|runFunction|hip|job_exe|packet|pe_exe|cpum_exe_subgraph|hccl|collective_subgraph_execution)"
    "|Memcpy|Memset|dma|Sync|^cuda.*LaunchKernel",
    "forward_step",
    "backward_step",
    "recompute.*forward|custom_forward",
    "optimizer|^Optimizer\\.step",
    "send_forward|recv_forward|send_backward|recv_backward",
    "start_grad_sync|finish_grad_sync|finalize_model_grads",
    "start_param_sync|finish_param_sync",
    "^(TENSOR_MODEL_PARALLEL_GROUP|EXPERT_TENSOR_PARALLEL_GROUP)$",
    "^PIPELINE_MODEL_PARALLEL_GROUP$",
    "^(DATA_PARALLEL_GROUP|DATA_PARALLEL_GROUP_WITH_CP|INTRA_PARTIAL_DATA_PARALLEL_GROUP_WITH_CP|"
    "INTER_PARTIAL_DATA_PARALLEL_GROUP_WITH_CP|EXPERT_DATA_PARALLEL_GROUP|EMBEDDING_GROUP|POSITION_EMBEDDING_GROUP)$",
    "^(EXPERT_MODEL_PARALLEL_GROUP|EXPERT_TENSOR_AND_MODEL_PARALLEL_GROUP)$",
    "^CONTEXT_PARALLEL_GROUP$",
    "AllToAll|alltoall|all_to_all|SendRecv",
};

const char *tpatterns_key_name(int key) { return key >= 0 && key < TPAT_NKEYS ? key_names[key] : "?"; }

const char *tpatterns_dim_name(int dim) {
    static const char *const n[TPAT_NDIMS] = {"", "tp", "pp", "dp", "ep", "cp"};
    return dim >= 0 && dim < TPAT_NDIMS ? n[dim] : "";
}

const char *tpatterns_regex(const struct tpatterns *p, int key) {
    return key >= 0 && key < TPAT_NKEYS ? p->src[key] : "";
}

/* Compiles re (byte mode: names need not be UTF-8); NULL with the message
 * and offset in msg. */
static pcre2_code *compile(const char *re, char *msg, size_t n) {
    int ec;
    PCRE2_SIZE off;
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, PCRE2_DOTALL, &ec, &off, NULL);
    if (!c) {
        PCRE2_UCHAR m[256];
        if (pcre2_get_error_message(ec, m, sizeof m) < 0) snprintf((char *)m, sizeof m, "unknown error");
        snprintf(msg, n, "at offset %zu: %s", (size_t)off, (const char *)m);
        return NULL;
    }
    pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);   /* without JIT it matches all the same */
    return c;
}

static int set_key(struct tpatterns *p, int key, const char *re, char *msg, size_t n) {
    pcre2_code *c = compile(re, msg, n);
    char *s = c ? strdup(re) : NULL;
    if (!c || !s) {
        if (c && !s) snprintf(msg, n, "out of memory");
        pcre2_code_free(c);
        return -1;
    }
    pcre2_code_free(p->re[key]);
    free(p->src[key]);
    p->re[key] = c;
    p->src[key] = s;
    return 0;
}

struct tpatterns *tpatterns_new(struct pt_error *err) {
    struct tpatterns *p = calloc(1, sizeof *p);
    if (!p) { pt_errorf(err, "out of memory"); return NULL; }
    for (int k = 0; k < TPAT_NKEYS; k++) {
        char msg[300];
        if (set_key(p, k, defaults[k], msg, sizeof msg)) {
            pt_errorf(err, "trace pattern %s: %s", key_names[k], msg);
            tpatterns_free(p);
            return NULL;
        }
    }
    return p;
}

void tpatterns_free(struct tpatterns *p) {
    if (!p) return;
    for (int k = 0; k < TPAT_NKEYS; k++) {
        pcre2_code_free(p->re[k]);
        free(p->src[k]);
    }
    free(p);
}

int tpatterns_parse(struct tpatterns *p, const char *text, size_t n, const char *path, struct pt_error *err) {
    char *acc[TPAT_NKEYS] = {0};   /* the file's alternatives per key */
    int line_of[TPAT_NKEYS] = {0}, rc = 0;
    size_t lineno = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i;
        while (j < n && text[j] != '\n') j++;
        lineno++;
        const char *s = text + i, *e = text + j;
        i = j + 1;
        while (s < e && (*s == ' ' || *s == '\t')) s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
        if (s == e || *s == '#') continue;
        if (memchr(s, '\0', (size_t)(e - s))) { rc = pt_errorf(err, "%s:%zu: a NUL byte: not a patterns file", path, lineno); break; }
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (!eq) { rc = pt_errorf(err, "%s:%zu: expected KEY = REGEX", path, lineno); break; }
        const char *ke = eq;
        while (ke > s && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
        const char *rs = eq + 1;
        while (rs < e && (*rs == ' ' || *rs == '\t')) rs++;
        int key = -1;
        for (int k = 0; k < TPAT_NKEYS; k++)
            if ((size_t)(ke - s) == strlen(key_names[k]) && !memcmp(s, key_names[k], (size_t)(ke - s))) key = k;
        if (key < 0) {
            char kb[64];
            snprintf(kb, sizeof kb, "%.*s", (int)(ke - s > 40 ? 40 : ke - s), s);
            rc = pt_errorf(err, "%s:%zu: unknown key \"%s\" (keys: communication, memory, other, forward, backward, "
                                "recompute, optimizer, pp, dp_grad, dp_param, group_tp, group_pp, group_dp, group_ep, "
                                "group_cp, name_ep)", path, lineno, kb);
            break;
        }
        if (rs == e) { rc = pt_errorf(err, "%s:%zu: %s: an empty regex", path, lineno, key_names[key]); break; }
        char *re = strndup(rs, (size_t)(e - rs));
        if (!re) { rc = pt_errorf(err, "out of memory"); break; }
        char msg[300];
        pcre2_code *c = compile(re, msg, sizeof msg);
        if (!c) {
            rc = pt_errorf(err, "%s:%zu: %s: the regex does not compile %s", path, lineno, key_names[key], msg);
            free(re);
            break;
        }
        pcre2_code_free(c);
        /* alternatives: (?:a)|(?:b) */
        size_t old = acc[key] ? strlen(acc[key]) : 0, add = strlen(re) + 8;
        char *na = realloc(acc[key], old + add);
        if (!na) { free(re); rc = pt_errorf(err, "out of memory"); break; }
        snprintf(na + old, add, "%s(?:%s)", old ? "|" : "", re);
        acc[key] = na;
        line_of[key] = (int)lineno;
        free(re);
    }
    for (int k = 0; k < TPAT_NKEYS; k++) {
        if (!rc && acc[k]) {
            char msg[300];
            if (set_key(p, k, acc[k], msg, sizeof msg))
                rc = pt_errorf(err, "%s:%d: %s: the regex does not compile %s", path, line_of[k], key_names[k], msg);
        }
        free(acc[k]);
    }
    return rc;
}

struct tpat_md *tpatterns_md_new(void) {
    struct tpat_md *m = malloc(sizeof *m);
    if (!m) return NULL;
    if (!(m->md = pcre2_match_data_create(1, NULL))) { free(m); return NULL; }
    return m;
}

void tpatterns_md_free(struct tpat_md *md) {
    if (!md) return;
    pcre2_match_data_free(md->md);
    free(md);
}

int tpatterns_match(const struct tpatterns *p, struct tpat_md *md, int key, const char *s, size_t n) {
    if (key < 0 || key >= TPAT_NKEYS || !p->re[key]) return 0;
    return pcre2_match(p->re[key], (PCRE2_SPTR)s, n, 0, 0, md->md, NULL) >= 0;
}

int tpatterns_kernel_cat(const struct tpatterns *p, struct tpat_md *md, const char *s, size_t n) {
    if (tpatterns_match(p, md, TPAT_COMM, s, n)) return TRACE_COMM;
    if (tpatterns_match(p, md, TPAT_MEMORY, s, n)) return TRACE_MEMORY;
    if (!tpatterns_match(p, md, TPAT_OTHER, s, n)) return TRACE_COMPUTE;
    return TRACE_MEMORY;   /* HTA's "other": neither compute nor communication, as memory is */
}

int tpatterns_anno_phase(const struct tpatterns *p, struct tpat_md *md, const char *s, size_t n) {
    static const struct { int key, phase; } order[] = {
        {TPAT_PP, TRACE_PH_PP_COMM},      {TPAT_DP_PARAM, TRACE_PH_DP_PARAM}, {TPAT_DP_GRAD, TRACE_PH_DP_COMM},
        {TPAT_RECOMPUTE, TRACE_PH_RECOMPUTE}, {TPAT_FORWARD, TRACE_PH_FORWARD}, {TPAT_BACKWARD, TRACE_PH_BACKWARD},
        {TPAT_OPTIMIZER, TRACE_PH_OPTIMIZER},
    };
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (tpatterns_match(p, md, order[i].key, s, n)) return order[i].phase;
    return TRACE_PH_NONE;
}

int tpatterns_group_dim(const struct tpatterns *p, struct tpat_md *md, const char *s, size_t n) {
    static const struct { int key, dim; } order[] = {
        {TPAT_GROUP_EP, TPAT_DIM_EP}, {TPAT_GROUP_TP, TPAT_DIM_TP}, {TPAT_GROUP_PP, TPAT_DIM_PP},
        {TPAT_GROUP_CP, TPAT_DIM_CP}, {TPAT_GROUP_DP, TPAT_DIM_DP},
    };
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (tpatterns_match(p, md, order[i].key, s, n)) return order[i].dim;
    return TPAT_DIM_NONE;
}
