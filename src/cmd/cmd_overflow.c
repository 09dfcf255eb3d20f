/* cmd_overflow: `probetop overflow PATH`, the headless NaN/Inf triage.
 *
 * Loads PATH with load_dataset(), whose dump reader classifies every record
 * while it parses (no second pass over the JSON), and prints the first
 * occurrence, the counts per level, per step and per rank, and the flagged
 * records in the listing order of model/overflow/ovfrows.h (NaN/Inf first, in triage
 * order; numeric-jump records grouped by name) as text, CSV or one JSON
 * object.  Inputs without per-record I/O (monitor CSV trees, .trend.db
 * files) get the non-finite cells of the cube instead, without levels.  The
 * exit code gates CI: 1 when a record counts at or above --fail-on
 * (ovf_gate_level: any NaN/Inf by default, never the heuristic alone;
 * msProbe's anomaly reports by anomaly_gate_level), else 3 when a file
 * could not be read whole (skipped, cut short) unless --partial-ok, else
 * 0; 2 bad usage or unreadable input.  A monitor tree's anomaly reports are listed
 * before the rest, in msProbe's first-anomaly order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/anomaly.h"
#include "model/cube/cube.h"
#include "model/cube/cube_lazy.h"
#include "model/util/pool.h"
#include "model/util/util.h"
#include "model/overflow/overflow.h"
#include "model/overflow/ovfrows.h"
#include "src/cmd/cmd.h"
#include "src/cmd/cmd_overflow_follow.h"
#include "src/cmd/overflow_answer.h"
#include "src/cmd/cmd_visdb.h"
#include "src/io/load.h"
#include "src/io/common/json.h"
#include "src/io/dump/ovf_origin.h"

enum out_fmt { OUT_TEXT, OUT_CSV, OUT_JSON };

#define DEFAULT_TEXT_LIMIT 20

/* Rows listed (the --limit). */
static size_t listed(const struct overflow_answer *r) {
    return r->limit > 0 && (size_t)r->limit < r->rows.n ? (size_t)r->limit : r->rows.n;
}

/* The kind of a row for csv and json: "numeric_jump" for a group. */
static const char *row_kind(const struct ovfrows_row *w) {
    return w->section == OVFROWS_JUMP ? "numeric_jump" : "nonfinite";
}

/* ---- text ---- */

static const char *esc(const char *s, char *buf, size_t size) {
    return pt_escape(s, strlen(s), buf, size);
}

static void text_counts(const struct overflow_answer *r, const size_t *n) {
    if (r->levels)
        printf("critical %zu, high %zu, medium %zu", n[OVF_CRITICAL], n[OVF_HIGH], n[OVF_MEDIUM]);
    else
        printf("nonfinite %zu", n[OVF_NONE]);
}

static void text_entry(const struct overflow_answer *r, const struct ovf_entry *e) {
    char name[2048], what[1024], micro[16];
    if (e->micro >= 0) snprintf(micro, sizeof micro, "%d", (int)e->micro);
    else strcpy(micro, "-");
    printf("  %-9s %5d %5s %5d %7u  %s  %s\n", overflow_answer_level(r, e), (int)e->step, micro, (int)e->rank,
           (unsigned)e->pos, esc(e->name, name, sizeof name), esc(e->what, what, sizeof what));
}

/* The exit code the gate gives, and why. */
static void text_gate(const struct overflow_answer *r) {
    const char *lv = ovf_level_name((enum ovf_level)r->fail_on);
    if (r->failing)
        printf("gate (--fail-on %s): %zu record%s at or above it: exit 1\n", lv, r->failing, r->failing == 1 ? "" : "s");
    else if (overflow_answer_unread(r))
        printf("gate (--fail-on %s): nothing at or above it in what was read, but %zu file%s could not be read "
               "whole: %s\n", lv, overflow_answer_unread(r), overflow_answer_unread(r) == 1 ? "" : "s",
               r->partial_ok ? "accepted by --partial-ok: exit 0" : "cannot say: exit 3");
    else
        printf("gate (--fail-on %s): nothing at or above it: exit 0\n", lv);
}

/* A numeric-jump group: its level, the kind, the name, what it covers and
 * the earliest record's description. */
static void text_group(const struct overflow_answer *r, const struct ovfrows_row *w) {
    const struct ovf_entry *e = &r->l->v[w->entry];
    char name[2048], what[1024], cover[160];
    ovfrows_group_text(w, 1, cover, sizeof cover);
    printf("  %-9s %-25s  %s  %s; earliest: step %d rank %d pos %u %s\n", ovf_level_name((enum ovf_level)w->level),
           OVFROWS_JUMP_NAME, esc(e->name, name, sizeof name), cover, (int)e->step, (int)e->rank, (unsigned)e->pos,
           esc(e->what, what, sizeof what));
}

/* msProbe's anomaly reports (a monitor tree's anomaly_detected/), in its
 * first-anomaly order (probetop-rules(7), FIRST ANOMALY ORDER). */
static size_t anomalies_listed(const struct overflow_answer *r) {
    size_t n = r->ds->anomalies.n;
    return r->limit > 0 && (size_t)r->limit < n ? (size_t)r->limit : n;
}

static void text_anomalies(const struct overflow_answer *r) {
    const struct anomaly_list *al = &r->ds->anomalies;
    if (!al->n) return;
    size_t n = anomalies_listed(r);
    printf("msProbe anomaly reports%s: %zu, first-anomaly order", al->analyse ? " (anomaly_analyse.json)" : "", al->n);
    if (n < al->n) printf(" (first %zu; --limit 0 lists all)", n);
    printf(":\n  %-9s %5s %5s %5s %3s %3s %5s %-9s %-17s %-5s %s\n", "level", "step", "micro", "rank", "pp", "vpp",
           "call", "stage", "rule", "op", "tag");
    for (size_t i = 0; i < n; i++) {
        const struct anomaly *a = &al->v[i];
        char tag[2048];
        printf("  %-9s %5d %5d %5d %3d %3d %5d %-9s %-17s %-5s %s%s\n", ovf_level_name((enum ovf_level)anomaly_gate_level(a)),
               (int)a->step, (int)a->micro_step, (int)a->rank, (int)a->pp_stage, (int)a->vpp_stage, (int)a->call_id,
               anomaly_stage_name(a->stage), anomaly_rule_name((enum anomaly_rule)a->rule), a->op[0] ? CMD_ESC(a->op) : "-",
               esc(a->tag_name, tag, sizeof tag), a->metric < 0 && r->ds->cube && r->ds->cube->nmetrics ? "  (no cell)" : "");
    }
}

/* A headline record: "LABEL: LEVEL at step S micro step M, rank R,
 * position P[NOTE]", its name and what is non-finite. */
static void text_first(const struct overflow_answer *r, const char *label, long i, const char *note) {
    const struct ovf_entry *e = &r->l->v[i];
    char name[2048], what[1024];
    printf("%s: %s at step %d", label, r->levels ? ovf_level_name((enum ovf_level)e->level) : "non-finite", (int)e->step);
    if (e->micro >= 0) printf(" micro step %d", (int)e->micro);
    printf(", rank %d, position %u%s\n  %s\n  %s\n", (int)e->rank, (unsigned)e->pos, note,
           esc(e->name, name, sizeof name), esc(e->what, what, sizeof what));
}

static void print_text(const struct overflow_answer *r) {
    const struct dataset *ds = r->ds;
    char path[2048];
    printf("overflow check of %s (%s)\n", esc(ds->path ? ds->path : "", path, sizeof path),
           formats_name(ds->format));
    if (!r->levels)
        printf("levels: not available for this input (no inputs/outputs per record); "
               "flagged: cells holding NaN or +-Inf\n");
    printf("counts: ");
    text_counts(r, r->counts);
    if (r->jumps) printf(" (%zu of the high: %s alone, no NaN/Inf)", r->jumps, OVFROWS_JUMP_NAME);
    if (r->ds->anomalies.n) printf(", anomaly reports %zu", r->ds->anomalies.n);
    printf("\n");
    text_gate(r);
    text_anomalies(r);
    if (r->nmatch == 0) {
        if (r->l->n == 0) printf("no NaN or Inf found\n");
        else printf("nothing at level %s or above\n", ovf_level_name((enum ovf_level)r->min_level));
        return;
    }
    if (r->first < 0 && r->levels) {
        printf("no NaN or Inf found\n");
    } else if (r->first >= 0) {
        text_first(r, "first occurrence", r->first, r->first_is_origin ? " (born here: origin across ranks)" : "");
        if (r->first_is_origin && r->by_pos >= 0 && r->by_pos != r->first)
            text_first(r, "first record by position", r->by_pos, "");
    }
    printf("per step:\n");
    for (size_t i = 0; i < r->nsteps; i++) {
        printf("  step %-6d ", (int)r->steps[i].key);
        text_counts(r, r->steps[i].n);
        printf("\n");
    }
    printf("per rank:\n");
    for (size_t i = 0; i < r->nranks; i++) {
        printf("  rank %-6d ", (int)r->ranks[i].key);
        text_counts(r, r->ranks[i].n);
        printf("\n");
    }
    size_t n = listed(r);
    if (n < r->rows.n) printf("entries (first %zu of %zu rows; --limit 0 lists all):\n", n, r->rows.n);
    else printf("entries (%zu row%s):\n", r->rows.n, r->rows.n == 1 ? "" : "s");
    printf("  %-9s %5s %5s %5s %7s  %s\n", "level", "step", "micro", "rank", "pos", "name  non-finite");
    for (size_t i = 0; i < n; i++) {
        const struct ovfrows_row *w = &r->rows.v[i];
        if (w->section != OVFROWS_JUMP) {
            text_entry(r, &r->l->v[w->entry]);
            continue;
        }
        if (i == 0 || r->rows.v[i - 1].section != OVFROWS_JUMP)
            printf("  -- %s: msProbe's heuristic (an output Norm over 100x the input Norm), no NaN/Inf;\n"
                   "     one row per name, with its records, steps and ranks, then the earliest record --\n",
                   OVFROWS_JUMP_NAME);
        text_group(r, w);
    }
}

/* ---- rows into buffers (csv and JSON) ---- */

/* The listing's rows (368 k of them at 1 024 ranks, 64 MB of JSON, 32 MB
 * of csv): written piece by piece into a buffer, numbers by hand; printf
 * per field was most of the printing, and an fwrite per piece half of
 * what was left (callgrind), all after the parallel load.  The main
 * thread's buffer is handed to stdout 64 KB at a time; chunks of rows are
 * formatted on every core into buffers that grow (grow = 1), and written
 * in order (out_rows).  Printing to stdout directly between rows needs
 * jr_flush first. */
struct jr_out {
    char *b;
    size_t n, cap;
    int grow;                 /* a chunk's: grows, never written here */
    int oom;                  /* it could not grow: the chunk is void */
};

static void jr_flush(struct jr_out *o) {
    if (o->grow) return;
    fwrite_unlocked(o->b, 1, o->n, stdout);   /* one thread writes */
    o->n = 0;
}

/* Room for k more bytes in a chunk's buffer: 0, or -1 (oom set). */
static int jr_room(struct jr_out *o, size_t k) {
    if (o->oom) return -1;
    size_t cap = o->cap ? o->cap : (size_t)1 << 20;   /* a chunk's rows, most often */
    while (cap - o->n < k) cap *= 2;
    char *b = cap == o->cap ? o->b : realloc(o->b, cap);
    if (!b) {
        o->oom = 1;
        return -1;
    }
    o->b = b, o->cap = cap;
    return 0;
}

/* jr_mem's rarer end, out of line so that the common one inlines (and
 * its memcpy of a constant length with it). */
__attribute__((noinline)) static void jr_mem_full(struct jr_out *o, const char *s, size_t k) {
    if (o->grow) {
        if (jr_room(o, k) != 0) return;
    } else {
        jr_flush(o);
        if (k > o->cap) {
            fwrite_unlocked(s, 1, k, stdout);
            return;
        }
    }
    memcpy(o->b + o->n, s, k);
    o->n += k;
}

static inline void jr_mem(struct jr_out *o, const char *s, size_t k) {
    if (k > o->cap - o->n) {
        jr_mem_full(o, s, k);
        return;
    }
    memcpy(o->b + o->n, s, k);
    o->n += k;
}

#define JR_LIT(o, s) jr_mem(o, s, sizeof s - 1)

/* %d, %u, %zu */
static void jr_num(struct jr_out *o, long long v) {
    if (o->cap - o->n < 24) {
        if (!o->grow) jr_flush(o);
        else if (jr_room(o, 24) != 0) return;
    }
    o->n = util_put_int(o->b, o->n, v);
}

/* One row of the listing, with its separator, in a format. */
typedef void jr_row_fn(struct jr_out *o, const struct overflow_answer *r, size_t i);

static void rows_range(struct jr_out *o, const struct overflow_answer *r, size_t from, size_t to, jr_row_fn *row) {
    for (size_t i = from; i < to; i++) row(o, r, i);
}

/* The rows are a quarter of the instructions after the load at 64 ranks,
 * on one core: chunks of JR_CHUNK rows are formatted on every core, a
 * batch of JR_BATCH at a time (so that memory holds a batch, not the
 * listing), and written in order.  A batch that cannot be (no memory, no
 * thread) is formatted here: the output is the same either way. */
#define JR_CHUNK 4096
#define JR_BATCH 8
struct jr_par {
    const struct overflow_answer *r;
    jr_row_fn *row;
    size_t n, base;
    struct jr_out part[JR_BATCH];
};

static int jr_part(void *ctx, size_t i, struct pt_error *err) {
    struct jr_par *p = ctx;
    size_t from = p->base + i * JR_CHUNK, to = from + JR_CHUNK < p->n ? from + JR_CHUNK : p->n;
    rows_range(&p->part[i], p->r, from, to, p->row);
    return p->part[i].oom ? pt_errorf(err, "out of memory") : 0;
}

/* The first n rows of the listing, in order, through o. */
static void out_rows(struct jr_out *o, const struct overflow_answer *r, size_t n, jr_row_fn *row) {
    if (n <= JR_CHUNK || util_pool_threads(JR_BATCH) < 2) {
        rows_range(o, r, 0, n, row);
        return;
    }
    struct jr_par p = {.r = r, .row = row, .n = n};
    for (; p.base < n; p.base += JR_BATCH * JR_CHUNK) {
        size_t left = n - p.base, nb = (left + JR_CHUNK - 1) / JR_CHUNK;
        if (nb > JR_BATCH) nb = JR_BATCH;
        for (size_t i = 0; i < nb; i++) p.part[i] = (struct jr_out){.grow = 1};
        struct pt_error err = {{0}};
        int rc = util_pool_for(nb, jr_part, &p, &err);
        jr_flush(o);
        if (rc == 0)
            for (size_t i = 0; i < nb; i++) fwrite_unlocked(p.part[i].b, 1, p.part[i].n, stdout);
        else
            rows_range(o, r, p.base, p.base + (left < JR_BATCH * JR_CHUNK ? left : JR_BATCH * JR_CHUNK), row);
        for (size_t i = 0; i < nb; i++) free(p.part[i].b);
    }
}

/* ---- CSV ---- */

/* s as a csv field: only what a terminal acts on escaped (pt_unctrl;
 * without memory, the text's escaped start), then quoted when it holds a
 * comma, a quote or a line end.  Printable ASCII without those, nearly
 * every name, is copied as it is. */
static void jr_csv(struct jr_out *o, const char *s) {
    size_t n = strlen(s);
    if (util_ascii_run(s, n, ',', '"') == n) {
        jr_mem(o, s, n);
        return;
    }
    char *own, tmp[2048];
    const char *t = pt_unctrl(s, &own);
    if (!t) t = pt_escape(s, n, tmp, sizeof tmp);
    if (!strpbrk(t, ",\"\r\n")) {
        jr_mem(o, t, strlen(t));
    } else {
        JR_LIT(o, "\"");
        for (const char *p = t, *q; *p; p = q + 1) {
            q = strchr(p, '"');
            if (!q) {
                jr_mem(o, p, strlen(p));
                break;
            }
            jr_mem(o, p, (size_t)(q - p) + 1);   /* a quote is doubled */
            JR_LIT(o, "\"");
        }
        JR_LIT(o, "\"");
    }
    free(own);
}

static void jr_text(struct jr_out *o, const char *s) { jr_mem(o, s, strlen(s)); }

/* A csv cell and its comma: a number, a text as it is, a text quoted. */
static void csv_num(struct jr_out *o, long long v) {
    jr_num(o, v);
    JR_LIT(o, ",");
}

static void csv_text(struct jr_out *o, const char *s) {
    jr_text(o, s);
    JR_LIT(o, ",");
}

static void csv_cell(struct jr_out *o, const char *s) {
    jr_csv(o, s);
    JR_LIT(o, ",");
}

static void csv_item(struct jr_out *o, const struct overflow_answer *r, size_t i) {
    const struct ovfrows_row *w = &r->rows.v[i];
    const struct ovf_entry *e = &r->l->v[w->entry];   /* a group: its earliest record */
    csv_text(o, overflow_answer_level(r, e));
    csv_num(o, (int)e->step);
    if (e->micro >= 0) jr_num(o, (int)e->micro);
    JR_LIT(o, ",");
    csv_num(o, (int)e->rank);
    csv_num(o, (unsigned)e->pos);
    csv_cell(o, e->name);
    csv_cell(o, e->what);
    csv_text(o, row_kind(w));
    csv_num(o, (long long)w->count);
    csv_num(o, (unsigned)w->nsteps);
    jr_num(o, (unsigned)w->nranks);
    JR_LIT(o, "\n");
}

static void print_csv(const struct overflow_answer *r) {
    char b[1 << 16];
    struct jr_out buf = {.b = b, .cap = sizeof b}, *o = &buf;
    JR_LIT(o, "level,step,micro_step,rank,pos,name,what,kind,records,steps,ranks\n");
    /* msProbe's anomaly reports first, in its order: name = tag_name, what
     * = message, pos = call_id (man/probetop.1, probetop overflow) */
    for (size_t i = 0; i < anomalies_listed(r); i++) {
        const struct anomaly *a = &r->ds->anomalies.v[i];
        csv_text(o, ovf_level_name((enum ovf_level)anomaly_gate_level(a)));
        csv_num(o, (int)a->step);
        csv_num(o, (int)a->micro_step);
        csv_num(o, (int)a->rank);
        csv_num(o, (int)a->call_id);
        csv_cell(o, a->tag_name);
        jr_csv(o, a->message);
        JR_LIT(o, ",anomaly,1,1,1\n");
    }
    out_rows(o, r, listed(r), csv_item);
    jr_flush(o);
}

/* ---- JSON ---- */

/* A JSON string (json_fput_str: control bytes escaped, invalid UTF-8 as
 * \u00XX of the byte, so the output always parses). */
static void json_str(const char *s) { json_fput_str(stdout, s ? s : ""); }

/* s as json_fput_str writes it, into a chunk's buffer */
static void jr_escaped(struct jr_out *o, const char *s) {
    char *m = NULL;
    size_t ml = 0;
    FILE *f = open_memstream(&m, &ml);
    if (!f) {
        o->oom = 1;
        return;
    }
    json_fput_str(f, s);
    if (fclose(f) != 0) o->oom = 1;
    else jr_mem(o, m, ml);
    free(m);
}

static void jr_str(struct jr_out *o, const char *s) {
    if (!s) s = "";
    /* json_fput_str writes printable ASCII other than '"' and '\' as it is */
    size_t n = strlen(s), k = util_ascii_run(s, n, '"', '\\');
    if (k < n) {
        if (o->grow) {
            jr_escaped(o, s);
            return;
        }
        jr_flush(o);
        json_str(s);
        return;
    }
    JR_LIT(o, "\"");
    jr_mem(o, s, k);
    JR_LIT(o, "\"");
}

/* An entry's members, without the braces. */
static void json_fields(struct jr_out *o, const struct overflow_answer *r, const struct ovf_entry *e) {
    JR_LIT(o, "\"step\": ");
    jr_num(o, e->step);
    JR_LIT(o, ", \"micro_step\": ");
    if (e->micro >= 0) jr_num(o, e->micro);
    else JR_LIT(o, "null");
    JR_LIT(o, ", \"rank\": ");
    jr_num(o, e->rank);
    JR_LIT(o, ", \"pos\": ");
    jr_num(o, e->pos);
    JR_LIT(o, ", \"name\": ");
    jr_str(o, e->name);
    JR_LIT(o, ", \"level\": \"");
    const char *lv = overflow_answer_level(r, e);
    jr_mem(o, lv, strlen(lv));
    JR_LIT(o, "\", \"what\": ");
    jr_str(o, e->what);
}

static void json_entry(struct jr_out *o, const struct overflow_answer *r, const struct ovf_entry *e) {
    JR_LIT(o, "{");
    json_fields(o, r, e);
    JR_LIT(o, "}");
}

/* A listed row: an entry with its kind; a group also has its records,
 * steps and ranks (its step, rank, pos and what are its earliest record's). */
static void json_row(struct jr_out *o, const struct overflow_answer *r, const struct ovfrows_row *w) {
    JR_LIT(o, "{");
    json_fields(o, r, &r->l->v[w->entry]);
    JR_LIT(o, ", \"kind\": \"");
    const char *k = row_kind(w);
    jr_mem(o, k, strlen(k));
    JR_LIT(o, "\"");
    if (w->section == OVFROWS_JUMP) {
        JR_LIT(o, ", \"records\": ");
        jr_num(o, (long long)w->count);
        JR_LIT(o, ", \"steps\": ");
        jr_num(o, w->nsteps);
        JR_LIT(o, ", \"ranks\": ");
        jr_num(o, w->nranks);
        JR_LIT(o, ", \"step_range\": [");
        jr_num(o, w->step_min);
        JR_LIT(o, ", ");
        jr_num(o, w->step_max);
        JR_LIT(o, "], \"rank_range\": [");
        jr_num(o, w->rank_min);
        JR_LIT(o, ", ");
        jr_num(o, w->rank_max);
        JR_LIT(o, "]");
    }
    JR_LIT(o, "}");
}

static void json_counts(const struct overflow_answer *r, const size_t *n) {
    if (r->levels)
        printf("\"critical\": %zu, \"high\": %zu, \"medium\": %zu", n[OVF_CRITICAL], n[OVF_HIGH], n[OVF_MEDIUM]);
    else
        printf("\"nonfinite\": %zu", n[OVF_NONE]);
}

static void json_origin(const struct overflow_answer *r);

/* "anomalies": msProbe's anomaly reports in its first-anomaly order, each
 * with its keys, what probetop derived, and its heat-map cell (or null). */
static void json_anomalies(const struct overflow_answer *r) {
    const struct anomaly_list *al = &r->ds->anomalies;
    const struct cube *c = r->ds->cube;
    size_t n = anomalies_listed(r);
    printf(", \"anomaly_source\": \"%s\", \"anomalies\": [", al->analyse ? "anomaly_analyse.json" : "anomaly.json");
    for (size_t i = 0; i < n; i++) {
        const struct anomaly *a = &al->v[i];
        printf("%s{\"rank\": %d, \"step\": %d, \"micro_step\": %d, \"pp_stage\": %d, \"vpp_stage\": %d, "
               "\"call_id\": %d, \"tag_name\": ", i ? ",\n  " : "\n  ", (int)a->rank, (int)a->step, (int)a->micro_step,
               (int)a->pp_stage, (int)a->vpp_stage, (int)a->call_id);
        json_str(a->tag_name);
        printf(", \"message\": ");
        json_str(a->message);
        printf(", \"group_mates\": ");
        json_str(a->group_mates);
        printf(", \"stage\": \"%s\", \"rule\": \"%s\", \"op\": ", anomaly_stage_name(a->stage),
               anomaly_rule_name((enum anomaly_rule)a->rule));
        json_str(a->op);
        printf(", \"level\": \"%s\", \"cell\": ", ovf_level_name((enum ovf_level)anomaly_gate_level(a)));
        if (a->metric >= 0 && c) {
            printf("{\"metric\": ");
            json_str(c->metrics[a->metric].name);
            printf(", \"stat\": ");
            if (a->stat >= 0) json_str(c->metrics[a->metric].stats[a->stat]);
            else printf("null");
            printf(", \"target\": ");
            json_str(names_str(c->names, a->target));
            printf(", \"step\": %d}", (int)c->steps[a->step_idx].value);
        } else {
            printf("null");
        }
        putchar('}');
    }
    printf("%s]", n ? "\n" : "");
}

static void json_item(struct jr_out *o, const struct overflow_answer *r, size_t i) {
    if (i) JR_LIT(o, ",\n  ");
    else JR_LIT(o, "\n  ");
    json_row(o, r, &r->rows.v[i]);
}

static void print_json(const struct overflow_answer *r) {
    char b[1 << 16];
    struct jr_out buf = {.b = b, .cap = sizeof b}, *o = &buf;
    printf("{\"path\": ");
    json_str(r->ds->path);
    printf(", \"input\": \"%s\", \"levels\": %s, \"first\": ", formats_name(r->ds->format),
           r->levels ? "true" : "false");
    if (r->first >= 0) {
        json_entry(o, r, &r->l->v[r->first]);
        jr_flush(o);
    } else
        printf("null");
    printf(", \"first_is_origin\": %s, \"first_by_position\": ", r->first_is_origin ? "true" : "false");
    if (r->by_pos >= 0) {
        json_entry(o, r, &r->l->v[r->by_pos]);
        jr_flush(o);
    } else
        printf("null");
    printf(", \"counts\": {");
    json_counts(r, r->counts);
    if (r->levels) printf(", \"%s\": %zu", "numeric_jump", r->jumps);
    printf(", \"anomalies\": %zu", r->ds->anomalies.n);
    printf("}, \"matched\": %zu, \"gate\": {\"fail_on\": \"%s\", \"failing\": %zu, \"exit\": %d}, \"rows\": %zu, \"per_step\": [",
           r->nmatch, ovf_level_name((enum ovf_level)r->fail_on), r->failing, overflow_answer_exit(r), r->rows.n);
    for (size_t i = 0; i < r->nsteps; i++) {
        printf("%s{\"step\": %d, ", i ? ", " : "", (int)r->steps[i].key);
        json_counts(r, r->steps[i].n);
        putchar('}');
    }
    printf("], \"per_rank\": [");
    for (size_t i = 0; i < r->nranks; i++) {
        printf("%s{\"rank\": %d, ", i ? ", " : "", (int)r->ranks[i].key);
        json_counts(r, r->ranks[i].n);
        putchar('}');
    }
    size_t n = listed(r);
    printf("], \"truncated\": %s, \"entries\": [", n < r->rows.n ? "true" : "false");
    out_rows(o, r, n, json_item);
    jr_flush(o);
    printf("%s]", n ? "\n" : "");
    json_anomalies(r);
    json_origin(r);
    /* the files the gate could not read whole (probetop(1), EXIT STATUS) */
    printf(", \"unread\": {\"skipped\": [");
    for (size_t i = 0; i < r->ds->nskipped; i++) {
        printf("%s", i ? ", " : "");
        json_str(r->ds->skipped[i]);
    }
    printf("], \"partial\": [");
    for (size_t i = 0; i < r->ds->npartial; i++) {
        printf("%s", i ? ", " : "");
        json_str(r->ds->partial[i]);
    }
    printf("], \"accepted\": %s}", r->partial_ok ? "true" : "false");
    printf("}\n");
}

/* ---- origin across ranks (model/overflow/origin.h) ---- */

static void origin_node_json(const struct ovf_origin_node *n) {
    printf("{\"step\": %d, \"micro_step\": ", (int)n->step);
    if (n->micro >= 0) printf("%d", (int)n->micro);
    else printf("null");
    printf(", \"rank\": %d, \"pos\": %u, \"name\": ", (int)n->rank, (unsigned)n->pos);
    json_str(n->name);
    putchar('}');
}

/* ", \"origin\": [...]": the object of the first step with an origin, if any. */
static void json_origin(const struct overflow_answer *r) {
    const struct ovf_origin_report *o = r->origin;
    printf(", \"origin\": [");
    for (size_t i = 0; o && i < o->n; i++) {
        const struct ovf_origin_step *s = &o->v[i];
        printf("%s\n  {\"step\": %d, \"phase\": \"%s\", \"origins\": [", i ? "," : "", (int)s->step,
               origin_phase_name(s->phase));
        for (size_t k = 0; k < s->norigins; k++) {
            if (k) printf(", ");
            origin_node_json(&s->origins[k]);
        }
        printf("], \"chain\": [");
        for (size_t k = 0; k < s->nchain; k++) {
            printf("%s{\"from\": ", k ? ", " : "");
            if (s->chain[k].has_from) origin_node_json(&s->chain[k].from);
            else printf("null");
            printf(", \"to\": ");
            origin_node_json(&s->chain[k].to);
            putchar('}');
        }
        printf("]}");
    }
    printf("%s]", o && o->n ? "\n" : "");
}

/* ---- the command ---- */

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "probetop overflow: ");
    fprintf(stderr, fmt, CMD_ESC(arg));
    fprintf(stderr, "\nusage: %s\n", cmd_overflow_entry.usage);
    return EXIT_USAGE;
}

/* "critical", "high", "medium" as enum ovf_level; -1 for anything else. */
static int level_arg(const char *v) {
    return !strcmp(v, "critical") ? OVF_CRITICAL : !strcmp(v, "high") ? OVF_HIGH : !strcmp(v, "medium") ? OVF_MEDIUM : -1;
}

/* The files the load could not read whole, named on stderr (the reasons
 * are the warnings above them). */
static void say_unread(const struct dataset *ds, int partial_ok) {
    size_t n = ds->nskipped + ds->npartial;
    if (!n) return;
    fprintf(stderr, "probetop overflow: %zu file%s could not be read whole%s:\n", n, n == 1 ? "" : "s",
            partial_ok ? " (accepted by --partial-ok)" : "; the gate cannot pass on them (--partial-ok accepts them)");
    char e[2048];
    for (size_t i = 0; i < n && i < 20; i++) {
        int sk = i < ds->nskipped;
        const char *f = sk ? ds->skipped[i] : ds->partial[i - ds->nskipped];
        fprintf(stderr, "  %s (%s)\n", pt_escape(f, strlen(f), e, sizeof e), sk ? "skipped" : "partial: last row cut");
    }
    if (n > 20) fprintf(stderr, "  ... and %zu more (probetop info PATH lists them)\n", n - 20);
}

static int run_overflow(int argc, char **argv) {
    const char *path = NULL, *v;
    enum out_fmt fmt = OUT_TEXT;
    int min_level = OVF_MEDIUM, fail_on = OVF_CRITICAL, level_given = 0, limit_given = 0, bad = 0, matched;
    int follow = 0, fmt_given = 0, partial_ok = 0, np = 0;
    double idle = 0;
    long limit = 0;
    struct load_opts lo;
    load_opts_init(&lo);
    lo.lazy = 1;   /* a .trend.db by queries within --mem, as the analyzer reads it */
    lo.origin_keep = 1;   /* a dump's origin search then reads each rank once */
    for (int i = 1; i < argc; i++) {
        if ((v = opt_value(argc, argv, &i, "--mem", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            if (util_parse_size(v, &lo.mem_budget) != 0)
                return usage_error("--mem wants a size such as 512M or 2G, not '%s'", v);
        } else if ((v = opt_value(argc, argv, &i, "--format", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            if (!strcmp(v, "text")) fmt = OUT_TEXT;
            else if (!strcmp(v, "csv")) fmt = OUT_CSV;
            else if (!strcmp(v, "json")) fmt = OUT_JSON;
            else return usage_error("--format must be text, csv or json, not '%s'", v);
            fmt_given = 1;
        } else if (!strcmp(argv[i], "--follow")) {
            follow = 1;
        } else if (!strcmp(argv[i], "--partial-ok")) {
            partial_ok = 1;
        } else if ((v = opt_value(argc, argv, &i, "--idle", &matched, &bad)) || matched) {
            long n;
            if (bad) return EXIT_USAGE;
            if (opt_int(v, 1, 1000000L, &n) != 0) return usage_error("--idle needs seconds >= 1, not '%s'", v);
            idle = (double)n;
        } else if ((v = opt_value(argc, argv, &i, "--level", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            if ((min_level = level_arg(v)) < 0)
                return usage_error("--level must be critical, high or medium, not '%s'", v);
            level_given = 1;
        } else if ((v = opt_value(argc, argv, &i, "--fail-on", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            if ((fail_on = level_arg(v)) < 0)
                return usage_error("--fail-on must be critical (any NaN/Inf), high or medium, not '%s'", v);
        } else if ((v = opt_value(argc, argv, &i, "--limit", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            if (opt_int(v, 0, 1000000000L, &limit) != 0)
                return usage_error("--limit needs a number >= 0 (0 = all), not '%s'", v);
            limit_given = 1;
        } else if (cmd_operand(&cmd_overflow_entry, argv[i], &path, &np) != 0) {
            return EXIT_USAGE;
        }
    }
    if (cmd_operands_done(&cmd_overflow_entry, np) != 0) return EXIT_USAGE;
    if (idle > 0 && !follow) return usage_error("%s", "--idle goes with --follow");
    if (follow) {
        if (fmt_given && fmt != OUT_TEXT) return usage_error("%s", "--follow prints text lines as entries appear");
        if (cmd_visdb_is(path)) return usage_error("%s", "--follow reads dumps, monitor trees and .trend.db files");
        struct ovf_follow_opts fo = {path, min_level, fail_on, idle, partial_ok};
        return ovf_follow_run(&fo, &lo);
    }
    if (!limit_given) limit = fmt == OUT_TEXT ? DEFAULT_TEXT_LIMIT : 0;
    lo.overflow_only = 1;   /* a dump's levels and origin come from its records, never the cube's cells */
    /* a graph database: the levels msProbe's overflow check stored */
    if (cmd_visdb_is(path))
        return cmd_visdb_overflow(path, fmt == OUT_JSON ? "json" : fmt == OUT_CSV ? "csv" : "text", min_level, limit,
                                  partial_ok);

    struct dataset *ds = NULL;
    struct pt_error err = { { 0 } };
    if (load_dataset(path, &lo, &ds, &err) != 0) {
        fprintf(stderr, "probetop overflow: %s\n", CMD_ESC(err.msg));
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < ds->nwarnings; i++) fprintf(stderr, "probetop overflow: warning: %s\n", CMD_ESC(ds->warnings[i]));
    say_unread(ds, partial_ok);

    struct ovf_list scanned = { 0 };
    int scan = !ds->ovf_levels && ds->cube ? ovf_scan_cube(ds->cube, &scanned, &err) : 0;
    if (!ds->ovf_levels && ds->cube && cube_lazy_changed(ds->cube)) {
        /* another process wrote the .trend.db meanwhile: from a private copy */
        ovf_list_free(&scanned);
        dataset_free(ds);
        lo.snapshot = 1;
        if (load_dataset(path, &lo, &ds, &err) != 0) {
            fprintf(stderr, "probetop overflow: %s\n", CMD_ESC(err.msg));
            return EXIT_USAGE;
        }
        scan = ds->cube ? ovf_scan_cube(ds->cube, &scanned, &err) : 0;
    }
    struct overflow_answer r = { .ds = ds, .l = &ds->ovf, .levels = ds->ovf_levels, .min_level = min_level, .limit = limit,
                        .fail_on = fail_on, .partial_ok = partial_ok };
    if (!ds->ovf_levels) {
        if (scan != 0) {
            fprintf(stderr, "probetop overflow: %s\n", CMD_ESC(err.msg));
            dataset_free(ds);
            return EXIT_USAGE;
        }
        r.l = &scanned;
        if (level_given)
            fprintf(stderr, "probetop overflow: --level ignored: levels are not available for %s input\n",
                    formats_name(ds->format));
    }
    struct ovf_origin_report origin = {0};
    if (ovf_origin_run(ds, &origin, &err) != 0) {
        fprintf(stderr, "probetop overflow: origin across ranks: %s\n", CMD_ESC(err.msg));
        ovf_list_free(&scanned);
        dataset_free(ds);
        return EXIT_USAGE;
    }
    if (origin.note[0]) fprintf(stderr, "probetop overflow: origin across ranks: %s\n", CMD_ESC(origin.note));
    r.origin = &origin;
    int rc = EXIT_USAGE;
    if (overflow_answer_build(&r) != 0) {
        fprintf(stderr, "probetop overflow: out of memory\n");
    } else {
        if (fmt == OUT_JSON) print_json(&r);
        else if (fmt == OUT_CSV) print_csv(&r);
        else print_text(&r);
        rc = overflow_answer_exit(&r);
    }
    /* text ends with the origin across ranks (its own block: see ovf_origin.h) */
    if (rc != EXIT_USAGE && fmt == OUT_TEXT && r.nmatch) ovf_origin_print_text(stdout, &origin);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "probetop overflow: cannot write the output\n");
        rc = EXIT_USAGE;
    }
    overflow_answer_free(&r);
    ovf_origin_report_free(&origin);
    ovf_list_free(&scanned);
    dataset_free(ds);
    return rc;
}

const struct cmd_entry cmd_overflow_entry = {
    .name = "overflow",
    .usage = "probetop overflow PATH [--format text|csv|json] [--level critical|high|medium] [--limit N]\n"
             "                         [--fail-on critical|high|medium] [--partial-ok] [--follow [--idle SECONDS]] [--mem SIZE]",
    .summary = "find where the first NaN/Inf appeared: step, rank, node, level (exit 1 on NaN/Inf)",
    .help = "  PATH                  a dump (root, step or rank folder, dump.json), a monitor\n"
            "                        output folder, a .trend.db file or folder, or a .vis.db\n"
            "                        (the nodes msProbe's overflow check flagged)\n"
            "  --format FMT          text (default), csv (one row per entry) or json (one object\n"
            "                        with first, counts, per_step, per_rank, entries, origin)\n"
            "                        origin (also at the end of text): the rank and node where\n"
            "                        the first step's NaN/Inf was born, and the communication\n"
            "                        ops that carried it to the other ranks (msProbe's\n"
            "                        overflow_check rules; man probetop, Origin across ranks)\n"
            "  --level LEVEL         only entries at LEVEL or above count and are listed:\n"
            "                        critical, high or medium (default: all)\n"
            "  --limit N             list at most N entries (default 20 for text, all for csv\n"
            "                        and json; 0 = all)\n"
            "  --fail-on LEVEL       exit 1 when a record counts at LEVEL or above (default\n"
            "                        critical): a record holding a NaN/Inf counts as critical\n"
            "                        whatever its level; a numeric-jump record (no NaN/Inf)\n"
            "                        counts as high, so only --fail-on high or medium fail on it.\n"
            "                        An msProbe monitor anomaly report counts as critical for\n"
            "                        the AnomalyNan rule, else as high.\n"
            "                        --level filters the listing only; --limit counts rows; json\n"
            "                        also has gate (fail_on, failing, exit) and rows\n"
            "  --partial-ok          accept input not read whole (a file skipped or cut short,\n"
            "                        a .vis.db without overflow levels): exit as if complete,\n"
            "                        the files still named on stderr\n"
            "  --follow              keep reading PATH while training writes it: each new\n"
            "                        NaN/Inf entry (and msProbe anomaly report) is printed as\n"
            "                        it appears, numeric-jump records are not; stops on\n"
            "                        Ctrl-C/SIGTERM or --idle with the origin across ranks\n"
            "                        and the gate's exit code for the data then\n"
            "  --idle SECONDS        with --follow: stop when PATH has not changed for SECONDS\n"
            "  --mem SIZE            a .trend.db is read by queries, and what is laid out in\n"
            "                        memory stays within SIZE (default: a quarter of the\n"
            "                        memory, at most 1G), as in the analyzer\n"
            "Levels (msProbe's overflow check): critical = born here (clean inputs, non-finite\n"
            "output); high = passed through, or an output Norm over 100x the input Norm;\n"
            "medium = non-finite input absorbed.  Monitor data and .trend.db files have no\n"
            "inputs/outputs per record: there every cell holding NaN or +-Inf is listed,\n"
            "without a level.\n"
            "Order: records holding a NaN/Inf first (critical, then high and medium), then the\n"
            "numeric-jump records, one row per name with its count of records, steps, ranks.\n"
            "A monitor tree's anomaly_detected/ reports (msProbe's alert rules) are listed\n"
            "first, in msProbe's first-anomaly order (csv kind anomaly; json anomalies).\n"
            "Exit: 0 nothing at or above --fail-on, 1 something, 2 bad usage or unreadable input,\n"
            "3 nothing found in what was read but some of it could not be read (named on stderr).\n",
    .run = run_overflow,
};
