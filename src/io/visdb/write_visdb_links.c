/* write_visdb_links: what a .vis.db row holds beyond its own graph's
 * compare -- msProbe's -oc overflow level of a node (from the record's
 * inputs and outputs, probetop-rules(7), OVERFLOW LEVELS, without our
 * weight rule, which msProbe does not have) and the Distributed.* records
 * of every rank kept for the communication links, which need all the
 * ranks of a step (model/graph/comm.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/overflow.h"
#include "src/io/visdb/write_visdb_int.h"

/* A statistic as a double when it is one (or text inf/nan); 0 otherwise. */
static int stat_double(const struct tree *t, const struct tval *x, double *out) {
    if (x->kind == TV_FLOAT) { *out = x->real; return 1; }
    if (x->kind == TV_INT) { *out = (double)x->integer; return 1; }
    if (x->kind == TV_STR && x->text != TREE_NONE) {
        const char *s = tree_s(t, x->text);
        if (!strcasecmp(s, "inf")) { *out = INFINITY; return 1; }
        if (!strcasecmp(s, "-inf")) { *out = -INFINITY; return 1; }
        if (!strcasecmp(s, "nan")) { *out = NAN; return 1; }
    }
    return 0;
}

static int all_digits(const char *s, size_t n) {
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

/* One top-level element being summed up. */
struct elem { char key[64]; int out, kw; long pos; struct ovf_elem e; };

int write_visdb_links_level(const struct tree *t, int r) {
    const struct trec *rec = &t->recs[r];
    const char *id = tree_s(t, rec->name);
    size_t il = strlen(id);
    struct elem stack_el[64], *el = stack_el;
    size_t nel = 0, capel = 64;
    int level = OVF_NONE;
    for (uint32_t i = 0; i < rec->np; i++) {
        const struct tparam *p = &t->params[rec->p0 + i];
        if (p->state != PS_INPUT && p->state != PS_OUTPUT) continue;
        const char *n = tree_pname_after(t, p, id, il);
        const char *rest = NULL;
        int out = p->state == PS_OUTPUT;
        if (n && !strncmp(n, out ? ".output." : ".input.", out ? 8 : 7))
            rest = n + (out ? 8 : 7);
        if (!rest) continue;
        const char *dot = strchr(rest, '.');
        size_t kl = dot ? (size_t)(dot - rest) : strlen(rest);
        /* nested: inside arrays only (every further segment a number) counts */
        int through_dict = 0;
        for (const char *s = dot; s && !through_dict;) {
            const char *nx = strchr(s + 1, '.');
            size_t sl = nx ? (size_t)(nx - s - 1) : strlen(s + 1);
            if (!all_digits(s + 1, sl)) through_dict = 1;
            s = nx;
        }
        size_t k;
        for (k = 0; k < nel; k++)
            if (el[k].out == out && strlen(el[k].key) == kl && !strncmp(el[k].key, rest, kl)) break;
        if (k == nel) {
            if (nel == capel) {
                struct elem *ne = malloc(2 * capel * sizeof *ne);
                if (!ne) goto done;
                memcpy(ne, el, nel * sizeof *ne);
                if (el != stack_el) free(el);
                el = ne;
                capel *= 2;
            }
            memset(&el[nel], 0, sizeof el[nel]);
            snprintf(el[nel].key, sizeof el[nel].key, "%.*s", (int)kl, rest);
            el[nel].out = out;
            el[nel].kw = !out && !all_digits(rest, kl);
            el[nel].pos = all_digits(rest, kl) ? strtol(rest, NULL, 10) : -1;
            nel++;
        }
        struct ovf_elem *e = &el[k].e;
        if (through_dict || p->is_null) continue;
        static const char *const sn[3] = {"Max", "Min", "Mean"};
        for (int s = 0; s < 3; s++) {
            double v;
            struct tval x = tree_stat(t, p, s);
            if (stat_double(t, &x, &v)) ovf_elem_stat(e, sn[s], v, dot != NULL);
        }
        if (!dot) {
            const char *ty = tree_s(t, p->type);
            e->is_torch_tensor = ty && !strcmp(ty, "torch.Tensor");
            double nv;
            struct tval x = tree_stat(t, p, 3);
            if (e->is_torch_tensor && x.kind != TV_STR && stat_double(t, &x, &nv) && !isnan(nv)) {
                e->has_norm = 1;
                e->norm = nv;
            }
        }
    }
    {
        /* inputs by position, kwargs by name, outputs by position */
        long nin = 0, nout = 0;
        size_t nkw = 0;
        for (size_t k = 0; k < nel; k++) {
            if (el[k].kw) nkw++;
            else if (el[k].out && el[k].pos + 1 > nout) nout = el[k].pos + 1;
            else if (!el[k].out && el[k].pos + 1 > nin) nin = el[k].pos + 1;
        }
        struct ovf_elem *in = calloc((size_t)nin + 1, sizeof *in), *ou = calloc((size_t)nout + 1, sizeof *ou);
        struct ovf_elem *kw = calloc(nkw + 1, sizeof *kw);
        const char **kwn = calloc(nkw + 1, sizeof *kwn);
        if (in && ou && kw && kwn) {
            size_t j = 0;
            for (size_t k = 0; k < nel; k++) {
                if (el[k].kw) { kw[j] = el[k].e; kwn[j++] = el[k].key; }
                else if (el[k].out) ou[el[k].pos] = el[k].e;
                else in[el[k].pos] = el[k].e;
            }
            struct ovf_io io = {.in = in, .nin = (size_t)nin, .kw = kw, .kwnames = kwn, .nkw = nkw,
                                .out = ou, .nout = (size_t)nout};
            level = ovf_classify(id, &io);
        }
        free(in);
        free(ou);
        free(kw);
        free(kwn);
    }
done:
    if (el != stack_el) free(el);
    return level;
}

/* ---- the Distributed.* records kept for the links ---- */

static uint32_t copy_str(struct tree *to, const struct tree *from, uint32_t s) {
    if (s == TREE_NONE) return TREE_NONE;
    const char *x = tree_s(from, s);
    return tree_str(to, x, strlen(x));
}

/* msProbe pairs a collective only by its group: a record of one without a
 * group_id in its input "group" gets no link (nor counts among the calls
 * of its group); point-to-point calls pair by their peer rank. */
static int linkable(const struct tree *t, const struct trec *rec) {
    const char *id = tree_s(t, rec->name), *a0 = id + 12, *dot = strchr(a0, '.');
    size_t al = dot ? (size_t)(dot - a0) : strlen(a0);
    static const char *const p2p[] = {"send", "isend", "recv", "irecv", "batch_isend_irecv"};
    for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; i++)
        if (strlen(p2p[i]) == al && !strncmp(a0, p2p[i], al)) return 1;
    size_t il = strlen(id);
    for (uint32_t i = 0; i < rec->np; i++) {
        const struct tparam *p = &t->params[rec->p0 + i];
        const char *n = tree_pname_after(t, p, id, il);
        if (n && !strcmp(n, ".input.group"))
            return tree_comm_gid(t, p) != TREE_NONE && *tree_s(t, tree_comm_gid(t, p));
    }
    return 0;
}

static const char *index_text(int idx) {
    return idx == CL_PASS ? "0" : idx == CL_WARNING ? "0.5" : idx == CL_ERROR ? "1" : "Nan";
}

int write_visdb_links_keep(struct write_visdb_comm *c, const struct tree *t, int bench,
                           const struct cmp_graph *g, const uint8_t *levels) {
    memset(c, 0, sizeof *c);
    c->bench = bench;
    c->step = t->step;
    c->rank = t->rank;
    if (!(c->t = tree_new())) return -1;
    c->t->step = t->step;
    c->t->rank = t->rank;
    size_t n = 0;
    for (size_t r = 0; r < t->nrecs; r++)
        if (!strncmp(tree_s(t, t->recs[r].name), "Distributed.", 12) && t->recs[r].node >= 0 &&
            t->nodes[t->recs[r].node].order >= 0)
            n++;
    c->index = calloc(n + 1, sizeof *c->index);
    if (!c->index) return -1;
    for (size_t r = 0; r < t->nrecs; r++) {
        const struct trec *rec = &t->recs[r];
        const char *id = tree_s(t, rec->name);
        if (strncmp(id, "Distributed.", 12) || rec->node < 0 || t->nodes[rec->node].order < 0 || !linkable(t, rec))
            continue;
        int nr = tree_add_record(c->t, id, strlen(id));
        if (nr < 0) return -1;
        for (uint32_t i = 0; i < rec->np; i++) {
            const struct tparam *p = &t->params[rec->p0 + i];
            struct tparam *q = tree_add_param(c->t, nr);
            if (!q) return -1;
            q->name = copy_str(c->t, t, p->name);
            q->state = p->state;
            q->output_map = p->output_map;
            q->value = copy_str(c->t, t, p->value);
            if (tree_comm_set(c->t, c->t->nparams - 1, copy_str(c->t, t, tree_comm_gid(t, p)), TREE_NONE) != 0) return -1;
            struct tval mx = tree_stat(t, p, 0);
            if (mx.kind == TV_STR || mx.kind == TV_INT) mx.text = copy_str(c->t, t, mx.text);
            if (tree_stat_set(c->t, c->t->nparams - 1, 0, &mx) != 0) return -1;
        }
        const char *ix;
        if (levels) ix = ovf_level_name((enum ovf_level)levels[r]);
        else ix = bench || !g ? "Nan" : index_text(g->nodes[rec->node].index);
        if (levels && !*ix) ix = "Nan";
        if (!(c->index[nr] = strdup(ix))) return -1;
    }
    return 0;
}

void write_visdb_links_free(struct write_visdb_comm *c) {
    if (c->t) {
        for (size_t i = 0; i < c->t->nrecs; i++) free(c->index[i]);
        tree_free(c->t);
    }
    free(c->index);
    memset(c, 0, sizeof *c);
}
