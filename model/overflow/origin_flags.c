/* origin_flags: what the origin rules read of one rank's dump
 * (probetop-rules(7), ORIGIN ACROSS RANKS): which records are
 * communication ops or stepped over, the flags of each record (NaN/Inf in
 * its top-level inputs and outputs, or its divergence from the benchmark),
 * the born rule on those flags, and the slim copy of a rank's tree the
 * search keeps once the flags are made.  The bottom of the origin files:
 * it calls neither origin_pair.c nor origin.c. */
#include "model/overflow/origin_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/compare.h"

/* ---- names and params ---- */

/* (the commonest first: any one makes a communication op) */
static const char *const comm_words[] = {"reduce", "gather", "send", "recv", "broadcast", "scatter",
                                         "all_to_all", NULL};

/* As origin_is_comm; the divergence rules (msProbe's compare -da) also
 * take MindSpore's communication APIs, and test the prefixes without the
 * dot. */
int origin_comm(const char *name, enum origin_rules rules) {
    if (!name) return 0;
    /* most names start otherwise: no compare for them (this runs for every
     * record of every rank, more than once) */
    if (name[0] != 'D' && (rules != ORIGIN_DIVERGENCE || (name[0] != 'M' && name[0] != 'c'))) return 0;
    if (rules == ORIGIN_DIVERGENCE) {
        if (strncmp(name, "Distributed", 11) && strncmp(name, "MintDistributed", 15) &&
            strncmp(name, "communication.comm_func", 23))
            return 0;
    } else if (strncmp(name, "Distributed.", 12) != 0) return 0;
    /* three dots at least: Distributed.<api>.<n>.<direction> (strchr, not
     * a loop over every byte: names are long, and comm ops many) */
    const char *d = name;
    for (int k = 0; k < 3; k++) {
        if (!(d = strchr(d, '.'))) return 0;
        d++;
    }
    for (const char *const *w = comm_words; *w; w++)
        if (strstr(name, *w)) return 1;
    return 0;
}

int origin_is_comm(const char *name) { return origin_comm(name, ORIGIN_OVERFLOW); }

int origin_skipped(const char *name, enum origin_rules rules) {
    /* "Torch.empty" or "Torch.fill" anywhere: one search for their common
     * start, as this runs for every record of every rank */
    for (const char *p = name; (p = strstr(p, "Torch.")); p++)
        if (!strncmp(p + 6, "empty", 5) || !strncmp(p + 6, "fill", 4)) return 1;
    return rules == ORIGIN_DIVERGENCE && strstr(name, "Tensor.__setitem__");
}

/* The part of a param name after "<record>.input." or "<record>.output."
 * (*out set to 1 for outputs), NULL when it is neither. */
const char *origin_io_suffix(const struct tree *t, const char *id, size_t il, const struct tparam *p, int *out) {
    const char *n = tree_pname_after(t, p, id, il);
    if (!n) return NULL;
    if (!strncmp(n, ".input.", 7)) { *out = 0; return n + 7; }
    if (!strncmp(n, ".output.", 8)) { *out = 1; return n + 8; }
    return NULL;
}

int origin_text_nonfinite(const char *s) {
    char b[8];
    size_t n = strlen(s);
    if (n && s[n - 1] == '\t') n--;
    if (n == 0 || n > 4) return 0;
    for (size_t i = 0; i < n; i++) b[i] = (char)tolower((unsigned char)s[i]);
    b[n] = '\0';
    return !strcmp(b, "nan") || !strcmp(b, "inf") || !strcmp(b, "-inf");
}

/* Is stat k of p NaN or Inf? */
static int stat_nonfinite(const struct tree *t, const struct tparam *p, int k) {
    struct tval v = tree_stat(t, p, k);
    if (v.kind == TV_FLOAT) return !isfinite(v.real);
    if (v.kind == TV_STR && !v.is_repr) {
        const char *s = tree_s(t, v.text);
        return s && origin_text_nonfinite(s);
    }
    return 0;
}

/* A tensor-like item: its Max/Min came from the dump (a dtype of its own,
 * not the type name and not a Python class standing for a plain value). */
static int has_stats(const struct tree *t, const struct tparam *p) {
    if (p->is_null || p->dtype == TREE_NONE) return 0;
    const char *d = tree_s(t, p->dtype), *ty = tree_s(t, p->type);
    if (!d || !strncmp(d, "<class '", 8)) return 0;
    return !(ty && !strcmp(d, ty));
}

uint8_t origin_rec_nonfinite(const struct tree *t, size_t r) {
    if (!t->recs[r].np) return 0;
    const char *id = origin_rec_name(t, r);
    size_t il = strlen(id);
    uint8_t f = 0;
    const struct tparam *p = origin_rec_params(t, r);
    for (uint32_t i = 0; i < t->recs[r].np; i++) {
        int out;
        const char *suf = origin_io_suffix(t, id, il, &p[i], &out);
        if (!suf || strchr(suf, '.') || !has_stats(t, &p[i])) continue;   /* top level only */
        if (stat_nonfinite(t, &p[i], 0) || stat_nonfinite(t, &p[i], 1)) f |= out ? ORIGIN_OUT : ORIGIN_IN;
    }
    return f;
}

void origin_flags_nonfinite(const struct tree *t, uint8_t *flags) {
    for (size_t r = 0; r < t->nrecs; r++) flags[r] = origin_rec_nonfinite(t, r);
}

void origin_flags_divergence(const struct tree *npu, const struct crow *rows, size_t nrows, int mode, int level,
                             uint8_t *flags) {
    memset(flags, 0, npu->nrecs);
    int32_t cur = -1;
    int outs = 0, fa = 0;
    for (size_t i = 0; i < nrows; i++) {
        const struct crow *w = &rows[i];
        if (w->rec < 0 || (size_t)w->rec >= npu->nrecs) continue;
        if (w->rec != cur) {
            cur = w->rec;
            outs = 0;
            const char *n = origin_rec_name(npu, (size_t)cur);
            const char *a = strchr(n, '.');
            fa = a && !strncmp(a + 1, "npu_fusion_attention.", 21);
        }
        int idx = w->output ? outs++ : -1;
        if (w->output && fa && (idx == 4 || idx == 5)) continue;
        /* outputs: the verdict, at the level of the run's first divergence
         * (probetop-rules(7), FIRST DIVERGENCE), so the search sees what the
         * headline sees, never a warning the headline passed over; inputs:
         * the tensor differs, whatever the verdict (msProbe judges outputs) */
        if (w->output ? w->level >= level : cmp_row_differs(w, (enum cmp_mode)mode))
            flags[cur] |= w->output ? ORIGIN_OUT : ORIGIN_IN;
    }
}

/* Born (probetop-rules(7), ORIGIN ACROSS RANKS): clean inputs, anomalous
 * outputs -- one definition for NaN/Inf and for divergence; a record whose
 * inputs already diverge passes the divergence on, it does not make it. */
int origin_born(const char *name, uint8_t f, enum origin_rules rules) {
    /* the flags first: most records have none, and the name's test is searches */
    return !(f & ORIGIN_IN) && (f & ORIGIN_OUT) && !origin_skipped(name, rules);
}

/* ---- keeping less ---- */

static int slim_str(const struct tree *t, struct tree *n, uint32_t *off) {
    if (*off == TREE_NONE) return 0;
    const char *x = tree_s(t, *off);
    *off = tree_str(n, x, strlen(x));
    return *off == TREE_NONE ? -1 : 0;
}

int origin_is_slim(const struct tree *t, enum origin_rules rules) {
    for (size_t r = 0; r < t->nrecs; r++)
        if (t->recs[r].np && !origin_comm(origin_rec_name(t, r), rules)) return 0;
    return 1;
}

struct tree *origin_slim(const struct tree *t, enum origin_rules rules) {
    struct tree *n = tree_new();
    if (!n) return NULL;
    size_t np = 0, capr = 0, capp = 0;
    if (util_grow((void **)&n->recs, &capr, t->nrecs ? t->nrecs : 1, sizeof *n->recs) != 0) goto oom;
    for (size_t r = 0; r < t->nrecs; r++) {
        const char *name = origin_rec_name(t, r);
        struct trec *o = &n->recs[r];
        *o = (struct trec){.name = tree_str(n, name, strlen(name)), .p0 = (uint32_t)np, .np = 0, .node = -1,
                           .ovf = t->recs[r].ovf};
        if (o->name == TREE_NONE) goto oom;
        n->nrecs++;
        if (!origin_comm(name, rules)) continue;
        for (uint32_t i = 0; i < t->recs[r].np; i++) {
            if (UTIL_PUSH(n->params, np, capp) != 0) goto oom;
            struct tparam *q = &n->params[np];
            *q = t->params[t->recs[r].p0 + i];
            uint32_t *offs[] = {&q->name, &q->type, &q->dtype, &q->shape, &q->data_name, &q->md5, &q->value};
            for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++)
                if (slim_str(t, n, offs[k]) != 0) goto oom;
            if (q->comm) {   /* the group id and op, from t's side table into n's */
                const struct tparam *src = &t->params[t->recs[r].p0 + i];
                uint32_t gid = tree_comm_gid(t, src), op = tree_comm_p2p(t, src);
                if (slim_str(t, n, &gid) != 0 || slim_str(t, n, &op) != 0) goto oom;
                n->capparams = capp;   /* (tree_comm_set checks the index against it) */
                if (tree_comm_set(n, np, gid, op) != 0) goto oom;
            }
            for (int k = 0; k < 4; k++) {   /* a str's text and an int's, from t's pool and side table into n's */
                struct tval v = tree_stat(t, &t->params[t->recs[r].p0 + i], k);
                uint32_t tx = v.text;   /* (a packed member: no pointer into it) */
                if ((v.kind == TV_STR || v.kind == TV_INT) && slim_str(t, n, &tx) != 0) goto oom;
                v.text = tx;
                n->capparams = capp;
                if (tree_stat_set(n, np, k, &v) != 0) goto oom;
            }
            np++;
            o->np++;
        }
    }
    n->nparams = np;
    n->capparams = capp;
    n->caprecs = capr;
    n->step = t->step;
    n->rank = t->rank;
    if (t->path && !(n->path = strdup(t->path))) goto oom;
    return n;
oom:
    n->nparams = np;
    tree_free(n);
    return NULL;
}
