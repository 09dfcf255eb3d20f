/* write_visdb: the file, its tables and rows (write_visdb.h).  The rows
 * of a graph go in node order (msProbe's post order), problem graph then
 * benchmark graph; tb_config and the indexes when the run ends, with the
 * communication links of each (side, step) across its ranks. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "model/overflow/overflow.h"
#include "model/util/util.h"
#include "src/io/visdb/write_visdb.h"
#include "src/io/visdb/write_visdb_int.h"

struct write_visdb {
    sqlite3 *db;
    sqlite3_stmt *node, *stack;
    char *final, *tmp;
    struct write_visdb_opts o;
    enum cmp_mode mode;
    int have_config;        /* the first graph's micro steps and mode are the config's */
    int micro_steps;
    int32_t *ranks, *steps;
    size_t nranks, nsteps, capranks, capsteps;
    struct write_visdb_comm *comm;
    size_t ncomm, capcomm;
    /* the rows go into SQLite on a thread of their own, a graph at a time,
     * while the next pair is read and compared */
    pthread_t th;
    int started, closing, dbfail;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct vbatch *head, *tail;
    struct vbatch *spare;   /* inserted batches kept for the next graph, with their memory */
    size_t queued, qbytes;  /* batches sent and not yet inserted, and their size */
    size_t batch_rows;      /* nodes per batch */
    char dberr[512];
};

/* ---- rows made here, inserted by the database thread ---- */

enum { VC_NULL, VC_TEXT, VC_INT, VC_REAL };
struct vcol { uint8_t kind; int64_t a, b; };   /* text: offset, length; int: a; real: bits in a */
struct vrec { uint8_t stack; struct vcol c[22]; };
struct vbatch {
    struct write_visdb_buf text;
    struct vrec *v;
    size_t n, cap;
    size_t bytes;             /* text and rows, while queued */
    struct vbatch *next;
};

/* A graph's rows go in batches of this many nodes (with their stack
 * rows): the problem graph's to the database thread as they are made, so
 * inserting starts a batch after the rows do, not a graph after; the order
 * of the rows, and so the file, is the same whatever the size
 * (PROBETOP_VISDB_BATCH sets it, for the test that shows it).  Smaller
 * batches (2048) left the malloc heap fragmented: 10-20% more peak RSS. */
#define VIS_BATCH_ROWS 8192
/* The rows sent and not yet inserted, at most (a batch more may wait):
 * about one and a half graphs of the 15 MB dumps, as the two whole graphs
 * of before, so the peak memory stays where it was. */
#define VIS_QUEUE_BYTES ((size_t)96 << 20)

static void vbatch_free(struct vbatch *b) {
    if (!b) return;
    free(b->text.b);
    free(b->v);
    free(b);
}

/* One graph's rows in the making: the batch they go into and a scratch
 * text.  The two graphs of a compare are made at once, each in its own. */
struct gjob {
    struct write_visdb *w;
    const struct tree *t;
    const struct cmp_graph *g;
    int bench;
    struct vbatch *cur;
    int stream;               /* full batches sent at once; else held (in order) for send_rows */
    struct vbatch *held, *held_tail;
    struct write_visdb_buf b;
    uint8_t *levels;          /* -oc: per record of t, for the links */
    int rc;                   /* 0, -1 out of memory, -2 the database failed (err) */
    struct pt_error err;
};

/* A new row of table stack (1) or tb_nodes (0) in the current batch; NULL out of memory. */
static struct vrec *vrow(struct gjob *w, int stack) {
    struct vbatch *b = w->cur;
    if (UTIL_PUSH(b->v, b->n, b->cap) != 0) return NULL;
    struct vrec *r = &b->v[b->n++];
    memset(r, 0, sizeof *r);
    r->stack = (uint8_t)stack;
    return r;
}

static void col_text(struct gjob *w, struct vrec *r, int i, const char *s, int n) {
    struct write_visdb_buf *t = &w->cur->text;
    size_t len = n < 0 ? strlen(s) : (size_t)n;
    r->c[i - 1] = (struct vcol){VC_TEXT, (int64_t)t->n, (int64_t)len};
    write_visdb_text_add(t, s, len);
    write_visdb_text_add(t, "", 0);
    if (!t->oom) t->n++;   /* keep the NUL between texts */
}
/* A text column made in place at the end of the batch's text: col_open,
 * then the text added to the returned buffer, then col_close. */
static struct write_visdb_buf *col_open(struct gjob *w, struct vrec *r, int i) {
    r->c[i - 1] = (struct vcol){VC_TEXT, (int64_t)w->cur->text.n, 0};
    return &w->cur->text;
}
static void col_close(struct gjob *w, struct vrec *r, int i) {
    struct write_visdb_buf *t = &w->cur->text;
    r->c[i - 1].b = (int64_t)t->n - r->c[i - 1].a;
    write_visdb_text_add(t, "", 0);
    if (!t->oom) t->n++;   /* keep the NUL between texts */
}
static void col_int(struct vrec *r, int i, int64_t x) { r->c[i - 1] = (struct vcol){VC_INT, x, 0}; }
static void col_real(struct vrec *r, int i, double x) {
    int64_t bits;
    memcpy(&bits, &x, sizeof bits);
    r->c[i - 1] = (struct vcol){VC_REAL, bits, 0};
}

static int vbatch_insert(struct write_visdb *w, struct vbatch *b) {
    for (size_t k = 0; k < b->n; k++) {
        const struct vrec *r = &b->v[k];
        sqlite3_stmt *st = r->stack ? w->stack : w->node;
        int ncol = r->stack ? 2 : 22;
        sqlite3_reset(st);
        for (int i = 0; i < ncol; i++) {
            const struct vcol *c = &r->c[i];
            double d;
            switch (c->kind) {
            case VC_NULL: sqlite3_bind_null(st, i + 1); break;
            case VC_TEXT: sqlite3_bind_text(st, i + 1, b->text.b + c->a, (int)c->b, SQLITE_STATIC); break;
            case VC_INT: sqlite3_bind_int64(st, i + 1, c->a); break;
            case VC_REAL: memcpy(&d, &c->a, sizeof d); sqlite3_bind_double(st, i + 1, d); break;
            }
        }
        if (sqlite3_step(st) != SQLITE_DONE) {
            snprintf(w->dberr, sizeof w->dberr, "%s: writing %s: %s", w->final, r->stack ? "tb_stack" : "tb_nodes",
                     sqlite3_errmsg(w->db));
            return -1;
        }
    }
    return 0;
}

static void *db_thread(void *arg) {
    struct write_visdb *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->head && !w->closing) pthread_cond_wait(&w->cv, &w->mu);
        struct vbatch *b = w->head;
        if (b) {
            w->head = b->next;
            if (!w->head) w->tail = NULL;
        }
        int fail_now = w->dbfail;
        pthread_mutex_unlock(&w->mu);
        if (!b) break;
        int rc = fail_now ? 0 : vbatch_insert(w, b);
        pthread_mutex_lock(&w->mu);
        /* kept for a later graph: its rows and text reused, not new pages
         * faulted in again for each graph's tens of MB */
        b->n = 0;
        b->text.n = 0;
        b->text.oom = 0;
        b->next = w->spare;
        w->spare = b;
        if (rc != 0) w->dbfail = 1;
        w->queued--;
        w->qbytes -= b->bytes;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
    return NULL;
}

/* A batch to the database thread (waiting while VIS_QUEUE_BYTES are
 * queued: a graph's rows are tens of MB); 0, -1 when inserting failed
 * (b freed). */
static int vbatch_send(struct write_visdb *w, struct vbatch *b, struct pt_error *err) {
    if (!b) return 0;
    b->bytes = b->text.n + b->n * sizeof *b->v;
    pthread_mutex_lock(&w->mu);
    while (w->queued && w->qbytes + b->bytes > VIS_QUEUE_BYTES && !w->dbfail) pthread_cond_wait(&w->cv, &w->mu);
    int failed = w->dbfail;
    if (!failed) {
        b->next = NULL;
        if (w->tail) w->tail->next = b;
        else w->head = b;
        w->tail = b;
        w->queued++;
        w->qbytes += b->bytes;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    if (failed) {
        vbatch_free(b);
        return pt_errorf(err, "%s", w->dberr);
    }
    return 0;
}

/* An empty batch for the next rows: an inserted one with its memory, else
 * a new one; NULL out of memory. */
static struct vbatch *vbatch_take(struct write_visdb *w) {
    pthread_mutex_lock(&w->mu);
    struct vbatch *b = w->spare;
    if (b) w->spare = b->next;
    pthread_mutex_unlock(&w->mu);
    if (!b) b = calloc(1, sizeof *b);
    if (b) b->next = NULL;
    return b;
}

/* The job's full batch sent (stream) or held, and a new one begun; 0, -1
 * out of memory, -2 the database failed (j->err). */
static int batch_next(struct gjob *j) {
    struct vbatch *b = j->cur;
    j->cur = NULL;
    if (j->stream) {
        if (vbatch_send(j->w, b, &j->err) != 0) return -2;
    } else {
        if (j->held_tail) j->held_tail->next = b;
        else j->held = b;
        j->held_tail = b;
    }
    return (j->cur = vbatch_take(j->w)) ? 0 : -1;
}

static int fail(struct write_visdb *w, struct pt_error *err, const char *what) {
    return pt_errorf(err, "%s: %s: %s", w->final, what, w->db ? sqlite3_errmsg(w->db) : "cannot open");
}

static int exec(struct write_visdb *w, const char *sql, struct pt_error *err) {
    return sqlite3_exec(w->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : fail(w, err, "writing");
}

/* msProbe's table text (db_utils.py), as sqlite_master keeps it. */
static const char schema[] =
    "CREATE TABLE tb_nodes (\n    id TEXT PRIMARY KEY,\n    graph_id TEXT NOT NULL,\n    node_order INTEGER NOT NULL,\n"
    "    node_name TEXT NOT NULL,\n    node_type TEXT NOT NULL,\n    up_node TEXT,\n    sub_nodes TEXT,\n"
    "    precision_index INTEGER,\n    overflow_level TEXT,\n    micro_step_id INTEGER NOT NULL,\n"
    "    matched_node_link TEXT,\n    stack_id TEXT,\n    parallel_merge_info TEXT,\n    matched_distributed TEXT,\n"
    "    modified INTEGER NOT NULL,\n    input_data TEXT,\n    output_data TEXT,\n    data_source TEXT,\n"
    "    dump_data_dir TEXT,\n    step INTEGER NOT NULL,\n    rank INTEGER NOT NULL,\n    is_distributed INTEGER\n);"
    "CREATE TABLE tb_stack (\n    id TEXT PRIMARY KEY,\n    stack_info TEXT\n);"
    "CREATE TABLE tb_config (\n    id TEXT PRIMARY KEY,\n    graph_type TEXT NOT NULL,\n    task TEXT,\n"
    "    tool_tip TEXT,\n    micro_steps INTEGER,\n    overflow_check INTEGER,\n    node_colors TEXT NOT NULL,\n"
    "    rank_list TEXT NOT NULL,\n    step_list TEXT NOT NULL\n);";

static const char indexes[] =
    "CREATE INDEX index1 ON tb_nodes (step, rank, data_source, up_node, node_order);"
    "CREATE INDEX index2 ON tb_nodes (step, rank, data_source, node_name);"
    "CREATE INDEX index3 ON tb_nodes (step, rank, data_source, node_order);"
    "CREATE INDEX index4 ON tb_nodes (step, rank, node_order);"
    "CREATE INDEX index5 ON tb_nodes (step, rank, micro_step_id, node_order);"
    "CREATE INDEX index6 ON tb_nodes (step, rank, modified, matched_node_link);"
    "CREATE INDEX index7 ON tb_nodes (is_distributed);";

int write_visdb_open(const char *path, const struct write_visdb_opts *o, struct write_visdb **out,
                     struct pt_error *err) {
    *out = NULL;
    struct write_visdb *w = calloc(1, sizeof *w);
    if (!w) return pt_errorf(err, "out of memory");
    w->o = *o;
    w->batch_rows = VIS_BATCH_ROWS;
    const char *env = getenv("PROBETOP_VISDB_BATCH");   /* probetop(1), ENVIRONMENT */
    if (env && atol(env) > 0) w->batch_rows = (size_t)atol(env);
    size_t l = strlen(path);
    w->final = strdup(path);
    w->tmp = malloc(l + 32);
    if (!w->final || !w->tmp) { write_visdb_close(w, 0, NULL); return pt_errorf(err, "out of memory"); }
    snprintf(w->tmp, l + 32, "%s.tmp.%ld", path, (long)getpid());
    unlink(w->tmp);
    /* no memory statistics: each of SQLite's allocations would take a
     * mutex (about 2% of the database thread).  Only honoured before
     * SQLite's first use in the process (else SQLITE_MISUSE, ignored):
     * compare --vis-db opens this before anything else, on one thread. */
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (sqlite3_open_v2(w->tmp, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        pt_errorf(err, "%s: cannot create: %s", w->tmp, w->db ? sqlite3_errmsg(w->db) : strerror(errno));
        write_visdb_close(w, 0, NULL);
        return -1;
    }
    /* ours alone until the rename: no journal; large pages: a row's JSON
     * columns are kilobytes (fewer overflow pages, fewer and larger
     * writes); the file mapped, so the index pages are read back without
     * a copy */
    if (exec(w, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-131072; PRAGMA mmap_size=4294967296; BEGIN",
             err) != 0 ||
        exec(w, schema, err) != 0 ||
        /* the indexes from the start: each row goes into them as it is
         * inserted, on the database thread, rather than seven scans of the
         * whole table at the end (its index columns sit behind the JSON) */
        exec(w, indexes, err) != 0 ||
        sqlite3_prepare_v2(w->db,
                           "INSERT INTO tb_nodes (id, graph_id, node_order, node_name, node_type, up_node, sub_nodes, "
                           "precision_index, overflow_level, micro_step_id, matched_node_link, stack_id, "
                           "parallel_merge_info, matched_distributed, modified, input_data, output_data, data_source, "
                           "dump_data_dir, step, rank, is_distributed) VALUES "
                           "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &w->node, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(w->db, "INSERT INTO tb_stack (id, stack_info) VALUES (?,?)", -1, &w->stack, NULL) !=
            SQLITE_OK) {
        fail(w, err, "creating the tables");
        write_visdb_close(w, 0, NULL);
        return -1;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->th, NULL, db_thread, w) != 0) {
        pt_errorf(err, "cannot start a thread");
        write_visdb_close(w, 0, NULL);
        return -1;
    }
    w->started = 1;
    *out = w;
    return 0;
}

static int add_num(int32_t **v, size_t *n, size_t *cap, int32_t x) {
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i] == x) return 0;
    if (UTIL_PUSH(*v, *n, *cap) != 0) return -1;
    (*v)[(*n)++] = x;
    return 0;
}

/* JSON array of the ids of n's ancestors, top first, then n. */
static void chain(struct write_visdb_buf *v, const struct tree *t, int n) {
    int depth = 0;
    for (int x = n; x >= 0; x = t->nodes[x].parent) depth++;
    write_visdb_text_add(v, "[", 1);
    for (int d = depth - 1; d >= 0; d--) {
        int x = n;
        for (int k = 0; k < d; k++) x = t->nodes[x].parent;
        write_visdb_text_json(v, tree_id(t, x));
        if (d) write_visdb_text_add(v, ", ", 2);
    }
    write_visdb_text_add(v, "]", 1);
}

/* The micro step of every benchmark node in a compare (msProbe's
 * paging_by_micro_step): the problem partner's for the partners of the
 * problem's top nodes, else a top node's last id segment when a number
 * (0 when not), else the parent's. */
static int32_t *bench_micro(const struct cmp_graph *g) {
    const struct tree *a = g->npu, *b = g->bench;
    int32_t *m = malloc((b->nnodes + 1) * sizeof *m);
    if (!m) return NULL;
    for (size_t i = 0; i < b->nnodes; i++) m[i] = INT32_MIN;
    if (b->megatron) {
        for (size_t i = 0; i < b->nnodes; i++) m[i] = b->nodes[i].micro;
        return m;
    }
    for (int c = a->nodes[a->root].first; c >= 0; c = a->nodes[c].next)
        if (g->nodes[c].bench >= 0) m[g->nodes[c].bench] = a->nodes[c].micro;
    for (int c = b->nodes[b->root].first; c >= 0; c = b->nodes[c].next)
        if (m[c] == INT32_MIN) {
            const char *id = tree_id(b, c), *dot = strrchr(id, '.');
            char *e;
            long x = dot ? strtol(dot + 1, &e, 10) : 0;
            m[c] = dot && *e == '\0' && e != dot + 1 ? (int32_t)x : 0;
        }
    /* down from the root, in pre order: a node's parent comes first */
    int32_t *stack = malloc((b->nnodes + 1) * sizeof *stack);
    if (!stack) { free(m); return NULL; }
    size_t sp = 0;
    stack[sp++] = b->root;
    while (sp) {
        int n = stack[--sp];
        if (m[n] == INT32_MIN) m[n] = n == b->root || b->nodes[n].parent < 0 ? 0 : m[b->nodes[n].parent];
        for (int c = b->nodes[n].first; c >= 0; c = b->nodes[c].next) stack[sp++] = c;
    }
    free(stack);
    /* the root holds none (stored 0) */
    return m;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s) {
    if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
}

/* The tb_stack number of node n's stack text (a new row when the text is
 * new to this graph) into *k; 0, -1 out of memory. */
static int new_stack(struct gjob *w, const struct tree *t, int n, const char *gid, struct util_smap *stacks,
                     int32_t *nst, int32_t *k) {
    w->b.n = 0;
    const uint32_t *lines;
    uint32_t nl = tree_stack_lines(t, n, &lines);
    write_visdb_text_add(&w->b, "[", 1);
    for (uint32_t j = 0; j < nl; j++) {
        if (j) write_visdb_text_add(&w->b, ", ", 2);
        write_visdb_text_json(&w->b, tree_s(t, lines[j]));
    }
    write_visdb_text_add(&w->b, "]", 1);
    if (w->b.oom) return -1;
    int32_t *slot = util_smap_slot(stacks, w->b.b, 1);
    if (!slot) return -1;
    if (*slot < 0) {
        *slot = (*nst)++;
        char sid[160];
        snprintf(sid, sizeof sid, "%s_%d", gid, (int)*slot);
        struct vrec *sr = vrow(w, 1);
        if (!sr) return -1;
        col_text(w, sr, 1, sid, -1);
        col_text(w, sr, 2, w->b.b, (int)w->b.n);
    }
    *k = *slot;
    return 0;
}

/* One graph's rows into w->cur (w->g: the compare, side w->bench; NULL
 * for a build); 0, -1 out of memory.  Reads w->t and w->g only: the
 * other graph's job runs at the same time. */
static int make_rows(struct gjob *w) {
    const struct tree *t = w->t;
    const struct cmp_graph *g = w->g;
    int bench = w->bench;
    const char *src = bench ? "Bench" : "NPU";
    char gid[96], id[64];
    snprintf(gid, sizeof gid, "%s_%d_%d", src, (int)t->step, (int)t->rank);
    int32_t *micro = NULL, *rowof = NULL, *stack_k = NULL;
    struct util_smap stacks = {0};
    int rc = -1;
    if (g && bench && !(micro = bench_micro(g))) goto oom;
    if (g && !bench) {
        if (!(rowof = malloc((t->nparams + 1) * sizeof *rowof))) goto oom;
        for (size_t i = 0; i < t->nparams; i++) rowof[i] = -1;
        for (size_t r = 0; r < g->nrows; r++) rowof[g->rows[r].np] = (int32_t)r;
    }
    uint8_t *levels = NULL;
    if (w->w->o.overflow) {
        if (!(levels = w->levels = calloc(t->nrecs + 1, 1))) goto oom;
        for (size_t r = 0; r < t->nrecs; r++)
            if (t->recs[r].node >= 0) levels[r] = (uint8_t)write_visdb_links_level(t, (int)r);
    }
    if (!(stack_k = malloc((t->nstacks + 1) * sizeof *stack_k))) goto oom;
    if (!(w->cur = vbatch_take(w->w))) goto oom;
    for (size_t i = 0; i <= t->nstacks; i++) stack_k[i] = -1;
    int32_t nst = 0;
    for (size_t i = 0; i < t->norder; i++) {
        int n = t->order[i];
        const struct tnode *nd = &t->nodes[n];
        /* between nodes: a node's row and its new stack row go together */
        if (w->cur->n >= w->w->batch_rows) {
            int brc = batch_next(w);
            if (brc != 0) { rc = brc; goto oom; }
        }
        struct vrec *st = vrow(w, 0);
        if (!st) goto oom;
        const char *name = tree_id(t, n);
        w->b.n = 0;
        write_visdb_text_cstr(&w->b, gid);
        write_visdb_text_add(&w->b, "_", 1);
        write_visdb_text_cstr(&w->b, name);
        if (w->b.oom) goto oom;
        col_text(w, st, 1, w->b.b, (int)w->b.n);
        col_text(w, st, 2, gid, -1);
        col_int(st, 3, (int64_t)i);
        col_text(w, st, 4, name, -1);
        snprintf(id, sizeof id, "%d", nd->kind);
        col_text(w, st, 5, id, -1);
        col_text(w, st, 6, nd->parent >= 0 ? tree_id(t, nd->parent) : "", -1);
        struct write_visdb_buf *tx = col_open(w, st, 7);
        if (nd->first >= 0) {
            write_visdb_text_add(tx, "[", 1);
            for (int c = nd->first; c >= 0; c = t->nodes[c].next) {
                write_visdb_text_json(tx, tree_id(t, c));
                if (t->nodes[c].next >= 0) write_visdb_text_add(tx, ", ", 2);
            }
            write_visdb_text_add(tx, "]", 1);
        }
        col_close(w, st, 7);
        /* precision index: problem side of a compare */
        int idx = g && !bench ? g->nodes[n].index : CL_NONE;
        if (idx == CL_PASS) col_int(st, 8, 0);
        else if (idx == CL_WARNING) col_real(st, 8, 0.5);
        else if (idx == CL_ERROR) col_int(st, 8, 1);
        else st->c[7].kind = VC_NULL;
        int lv = levels && nd->rec >= 0 ? levels[nd->rec] : OVF_NONE;
        if (lv != OVF_NONE) col_text(w, st, 9, ovf_level_name((enum ovf_level)lv), -1);
        int32_t ms = micro ? micro[n] : nd->micro;
        col_int(st, 10, n == t->root && !t->megatron ? 0 : ms);
        int other = -1;
        if (g) other = bench ? g->bmatch[n] : g->nodes[n].bench;
        tx = col_open(w, st, 11);
        if (other >= 0) chain(tx, bench ? g->npu : g->bench, other);
        else write_visdb_text_add(tx, "[]", 2);
        col_close(w, st, 11);
        /* stack: numbered by first appearance of its text in node order */
        int32_t *kk = nd->stack >= 0 ? &stack_k[nd->stack] : &stack_k[t->nstacks];
        if (*kk < 0) {
            size_t at = (size_t)(st - w->cur->v);
            if (new_stack(w, t, n, gid, &stacks, &nst, kk) != 0) goto oom;
            st = &w->cur->v[at];   /* the rows may have moved */
        }
        int32_t k = *kk;
        char sid[160];
        snprintf(sid, sizeof sid, "%s_%d", gid, (int)k);
        col_text(w, st, 12, sid, -1);
        col_text(w, st, 13, "", -1);
        col_text(w, st, 14, "{}", -1);
        /* a pair matched by hand (--match-config, the TUI's saved matches):
         * modified, as msProbe's plugin marks the rows it re-matches */
        int manual = g && ((!bench && g->nodes[n].manual) || (bench && other >= 0 && g->nodes[other].manual));
        col_int(st, 15, manual);
        const struct cmp_graph *rg = g && !bench && g->nodes[n].bench >= 0 ? g : NULL;
        write_visdb_text_params(col_open(w, st, 16), t, n, 0, rg, rg ? rowof : NULL, w->w->mode);
        col_close(w, st, 16);
        write_visdb_text_params(col_open(w, st, 17), t, n, 1, rg, rg ? rowof : NULL, w->w->mode);
        col_close(w, st, 17);
        col_text(w, st, 18, src, -1);
        /* the tensor folder of a tensor dump (msProbe: dump_data_dir, else the
         * rank folder's dump_tensor_data); statistics dumps have none */
        if (t->has_tensor_files && t->path) {
            w->b.n = 0;
            write_visdb_text_cstr(&w->b, t->path);
            write_visdb_text_cstr(&w->b, "/dump_tensor_data");
            if (w->b.oom) goto oom;
            col_text(w, st, 19, w->b.b, (int)w->b.n);
        } else st->c[18].kind = VC_NULL;
        col_int(st, 20, t->step);
        col_int(st, 21, t->rank);
        col_int(st, 22, !strncmp(name, "Distributed", 11));
        if (w->cur->text.oom) goto oom;
    }
    rc = 0;
oom:
    free(micro);
    free(rowof);
    free(stack_k);
    util_smap_free(&stacks);
    return w->rc = rc;
}

static void *rows_thread(void *arg) {
    make_rows(arg);
    return NULL;
}

/* A graph's rows made by make_rows to the database thread, and its
 * Distributed.* records kept for the links at the end; frees the job's
 * memory.  0, -1 with err. */
static int send_rows(struct write_visdb *w, struct gjob *j, struct pt_error *err) {
    const struct tree *t = j->t;
    int rc = -1;
    if (j->rc == -2) { *err = j->err; goto out; }
    if (j->rc != 0) { pt_errorf(err, "out of memory"); goto out; }
    while (j->held) {   /* in the order made, then the last */
        struct vbatch *h = j->held;
        if (!(j->held = h->next)) j->held_tail = NULL;
        if (vbatch_send(w, h, err) != 0) goto out;
    }
    struct vbatch *b = j->cur;
    j->cur = NULL;
    if (vbatch_send(w, b, err) != 0) goto out;
    int any = 0;
    for (size_t r = 0; r < t->nrecs && !any; r++) any = !strncmp(tree_s(t, t->recs[r].name), "Distributed", 11);
    if (any) {
        if (UTIL_PUSH(w->comm, w->ncomm, w->capcomm) != 0) { pt_errorf(err, "out of memory"); goto out; }
        struct write_visdb_comm *c = &w->comm[w->ncomm];
        int krc = write_visdb_links_keep(c, t, j->bench, j->g, j->levels);
        w->ncomm++;
        if (krc != 0) { pt_errorf(err, "out of memory"); goto out; }
    }
    rc = 0;
out:
    while (j->held) {
        struct vbatch *h = j->held;
        j->held = h->next;
        vbatch_free(h);
    }
    j->held_tail = NULL;
    vbatch_free(j->cur);
    j->cur = NULL;
    free(j->levels);
    j->levels = NULL;
    free(j->b.b);
    j->b = (struct write_visdb_buf){0};
    return rc;
}

static int note_graph(struct write_visdb *w, const struct tree *t, enum cmp_mode mode, struct pt_error *err) {
    if (!w->have_config) {
        w->have_config = 1;
        w->mode = mode;
        w->micro_steps = t->nmicro;
    }
    if (add_num(&w->ranks, &w->nranks, &w->capranks, t->rank) != 0 ||
        add_num(&w->steps, &w->nsteps, &w->capsteps, t->step) != 0)
        return pt_errorf(err, "out of memory");
    return 0;
}

int write_visdb_compare(struct write_visdb *w, const struct cmp_graph *g, struct pt_error *err) {
    if (note_graph(w, g->npu, g->mode, err) != 0) return -1;
    /* the benchmark graph's rows made on a second thread while this one
     * makes the problem graph's and sends them; then the benchmark's */
    struct gjob j[2] = {{.w = w, .t = g->npu, .g = g, .bench = 0, .stream = 1},
                        {.w = w, .t = g->bench, .g = g, .bench = 1}};
    pthread_t th;
    int threaded = pthread_create(&th, NULL, rows_thread, &j[1]) == 0;
    make_rows(&j[0]);
    int rc = send_rows(w, &j[0], err);
    if (threaded) pthread_join(th, NULL);
    else if (rc == 0) make_rows(&j[1]);
    if (rc != 0) j[1].rc = -1;   /* only freed */
    if (send_rows(w, &j[1], rc == 0 ? err : &(struct pt_error){0}) != 0) rc = -1;
    return rc;
}

int write_visdb_build(struct write_visdb *w, const struct tree *t, struct pt_error *err) {
    if (note_graph(w, t, CMP_SUMMARY, err) != 0) return -1;
    struct gjob j = {.w = w, .t = t, .g = NULL, .bench = 0, .stream = 1};
    make_rows(&j);
    return send_rows(w, &j, err);
}

/* ---- the end of the run ---- */

/* msProbe's texts (visualization/utils.py ToolTip, graph/node_colors.py). */
static const char *const tip_summary[][2] = {
    {"Max diff", "NPU与标杆API统计信息比对，最大值的差值"},
    {"Min diff", "NPU与标杆API统计信息比对，最小值的差值"},
    {"Mean diff", "NPU与标杆API统计信息比对，平均值的差值"},
    {"L2norm diff", "NPU与标杆API统计信息比对，2范数（平方根）的差值"},
    {NULL, NULL}};
static const char *const tip_md5[][2] = {{"md5", "数据MD5信息，用于比较两个数据信息是否完全一致"}, {NULL, NULL}};
static const char *const tip_tensor[][2] = {
    {"One Thousandth Err Ratio",
     "Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之一的比例占总元素个数的比例，比例越接近1越好"},
    {"Five Thousandths Err Ratio",
     "Tensor中的元素逐个与对应的标杆数据对比，相对误差小于千分之五的比例占总元素个数的比例，比例越接近1越好"},
    {"Cosine", "通过计算两个向量的余弦值来判断其相似度，数值越接近于1说明计算出的两个张量越相似，实际可接受阈值为大于0.99。"
               "在计算中可能会存在nan，主要由于可能会出现其中一个向量为0"},
    {"MaxAbsErr", "当最大绝对误差越接近0表示其计算的误差越小，实际可接受阈值为小于0.001"},
    {"MaxRelativeErr", "当最大相对误差越接近0表示其计算的误差越小。"
                       "当dump数据中存在0或Nan时，比对结果中最大相对误差则出现inf或Nan的情况，属于正常现象"},
    {NULL, NULL}};

static void config_colors(struct write_visdb_buf *v, enum cmp_mode mode) {
    static const char *const desc_summary = "此节点所有输入输出的统计量误差, 颜色越深代表调试侧与标杆侧的偏差越大";
    static const char *const desc_tensor = "此节点所有输入输出的 tensor 误差, 颜色越深代表调试侧与标杆侧的偏差越大";
    static const char *const md5_n = "与标杆相比, 此节点任意输入输出的md5值不同";
    static const char *const md5_y = "与标杆相比, 此节点所有输入输出的md5值相同";
    static const char *const hex[3] = {"#FFFCF3", "#FFDC7F", "#FF704D"};
    static const char *const range[3] = {"[0, 0.3]", "[0.3, 0.6]", "[0.6, 1]"};
    static const char *const level[3] = {"pass", "warning", "error"};
    write_visdb_text_add(v, "{", 1);
    if (mode != CMP_STRUCTURE)
        for (int i = 0; i < 3; i++) {
            const char *d = mode == CMP_MD5 ? (i ? md5_n : md5_y) : mode == CMP_TENSOR ? desc_tensor : desc_summary;
            write_visdb_text_json(v, hex[i]);
            write_visdb_text_cstr(v, ": {\"value\": ");
            write_visdb_text_cstr(v, range[i]);
            write_visdb_text_cstr(v, ", \"description\": ");
            write_visdb_text_json(v, d);
            write_visdb_text_cstr(v, ", \"accuracy_level\": ");
            write_visdb_text_json(v, level[i]);
            write_visdb_text_cstr(v, "}, ");
        }
    write_visdb_text_cstr(v, "\"#C7C7C7\": {\"value\": [], \"description\": ");
    write_visdb_text_json(v, "比对过程中节点未匹配上");
    write_visdb_text_cstr(v, ", \"accuracy_level\": \"unmatched node\"}}");
}

static void int_list(struct write_visdb_buf *v, int32_t *x, size_t n) {
    qsort(x, n, sizeof *x, util_cmp_i32);
    char num[24];
    write_visdb_text_add(v, "[", 1);
    for (size_t i = 0; i < n; i++) {
        snprintf(num, sizeof num, "%s%d", i ? ", " : "", (int)x[i]);
        write_visdb_text_cstr(v, num);
    }
    write_visdb_text_add(v, "]", 1);
}

static int write_config(struct write_visdb *w, struct pt_error *err) {
    static const char *const task[] = {"summary", "md5", "all", "structure"};
    struct write_visdb_buf tip = {0}, col = {0}, rk = {0}, sp = {0};
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (w->o.compare) {
        const char *const(*tips)[2] = w->mode == CMP_MD5 ? tip_md5 : w->mode == CMP_TENSOR ? tip_tensor : tip_summary;
        write_visdb_text_add(&tip, "{", 1);
        for (int i = 0; tips[i][0]; i++) {
            if (i) write_visdb_text_add(&tip, ", ", 2);
            write_visdb_text_json(&tip, tips[i][0]);
            write_visdb_text_add(&tip, ": ", 2);
            write_visdb_text_json(&tip, tips[i][1]);
        }
        write_visdb_text_add(&tip, "}", 1);
        config_colors(&col, w->mode);
    } else write_visdb_text_cstr(&col, "null");
    int_list(&rk, w->ranks, w->nranks);
    int_list(&sp, w->steps, w->nsteps);
    if (tip.oom || col.oom || rk.oom || sp.oom) { pt_errorf(err, "out of memory"); goto out; }
    if (sqlite3_prepare_v2(w->db, "INSERT INTO tb_config (id, graph_type, task, tool_tip, micro_steps, overflow_check, "
                                  "node_colors, rank_list, step_list) VALUES ('1',?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK) {
        fail(w, err, "writing tb_config");
        goto out;
    }
    sqlite3_bind_text(st, 1, w->o.compare ? "compare" : "build", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, w->o.compare ? task[w->mode] : "", -1, SQLITE_STATIC);
    bind_text(st, 3, w->o.compare ? tip.b : NULL);
    sqlite3_bind_int(st, 4, w->micro_steps);
    sqlite3_bind_int(st, 5, w->o.overflow ? 1 : 0);
    sqlite3_bind_text(st, 6, col.b, (int)col.n, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, rk.b, (int)rk.n, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, sp.b, (int)sp.n, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) { fail(w, err, "writing tb_config"); goto out; }
    rc = 0;
out:
    sqlite3_finalize(st);
    free(tip.b);
    free(col.b);
    free(rk.b);
    free(sp.b);
    return rc;
}

/* A link's source and position, to group a record's links in order. */
struct lk { int tree; int32_t rec; size_t at; };
static int by_from(const void *a, const void *b) {
    const struct lk *x = a, *y = b;
    if (x->tree != y->tree) return x->tree < y->tree ? -1 : 1;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The communication links of each (side, step) across its ranks, into
 * matched_distributed (msProbe's distributed_analyse, run on rank or
 * step folders). */
static int write_links(struct write_visdb *w, struct pt_error *err) {
    sqlite3_stmt *up = NULL;
    const struct tree **trees = calloc(w->ncomm + 1, sizeof *trees);
    size_t *which = calloc(w->ncomm + 1, sizeof *which);
    struct write_visdb_buf v = {0};
    int rc = -1;
    if (!trees || !which) { pt_errorf(err, "out of memory"); goto out; }
    if (sqlite3_prepare_v2(w->db, "UPDATE tb_nodes SET matched_distributed = ? WHERE id = ?", -1, &up, NULL) !=
        SQLITE_OK) {
        fail(w, err, "writing matched_distributed");
        goto out;
    }
    unsigned char *done = calloc(w->ncomm + 1, 1);
    if (!done) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < w->ncomm; i++) {
        if (done[i]) continue;
        size_t n = 0;
        for (size_t j = i; j < w->ncomm; j++)
            if (!done[j] && w->comm[j].bench == w->comm[i].bench && w->comm[j].step == w->comm[i].step) {
                done[j] = 1;
                which[n] = j;
                trees[n++] = w->comm[j].t;
            }
        struct comm_links l;
        if (comm_links_build(trees, n, &l, err) != 0) { free(done); goto out; }
        /* per record: its links, in the order found (grouped by a stable sort) */
        struct lk *g = malloc((l.n + 1) * sizeof *g);
        if (!g) { comm_links_free(&l); free(done); pt_errorf(err, "out of memory"); goto out; }
        for (size_t a = 0; a < l.n; a++) g[a] = (struct lk){l.v[a].from_tree, l.v[a].from_rec, a};
        qsort(g, l.n, sizeof *g, by_from);
        for (size_t a = 0, z; a < l.n; a = z) {
            for (z = a + 1; z < l.n && g[z].tree == g[a].tree && g[z].rec == g[a].rec; z++) {}
            const struct comm_link *e = &l.v[g[a].at];
            const struct write_visdb_comm *c = &w->comm[which[e->from_tree]];
            v.n = 0;
            write_visdb_text_cstr(&v, "{\"communications_type\": ");
            write_visdb_text_json(&v, comm_type_name(e->type));
            write_visdb_text_cstr(&v, ", \"nodes_info\": {");
            for (size_t b = a; b < z; b++) {
                const struct comm_link *f = &l.v[g[b].at];
                const struct write_visdb_comm *p = &w->comm[which[f->to_tree]];
                char rk[24];
                snprintf(rk, sizeof rk, "%d", (int)p->rank);
                if (b > a) write_visdb_text_add(&v, ", ", 2);
                write_visdb_text_json(&v, rk);
                write_visdb_text_cstr(&v, ": [");
                write_visdb_text_json(&v, p->index[f->to_rec]);
                write_visdb_text_add(&v, ", ", 2);
                write_visdb_text_json(&v, tree_s(p->t, p->t->recs[f->to_rec].name));
                write_visdb_text_cstr(&v, "]");
            }
            write_visdb_text_cstr(&v, "}}");
            char *nid = NULL;
            const char *name = tree_s(c->t, c->t->recs[e->from_rec].name);
            size_t nl = strlen(name) + 64;
            if (v.oom || !(nid = malloc(nl))) {
                free(g);
                comm_links_free(&l);
                free(done);
                pt_errorf(err, "out of memory");
                goto out;
            }
            snprintf(nid, nl, "%s_%d_%d_%s", c->bench ? "Bench" : "NPU", (int)c->step, (int)c->rank, name);
            sqlite3_reset(up);
            sqlite3_bind_text(up, 1, v.b, (int)v.n, SQLITE_STATIC);
            sqlite3_bind_text(up, 2, nid, -1, SQLITE_STATIC);
            int src = sqlite3_step(up);
            free(nid);
            if (src != SQLITE_DONE) {
                free(g);
                comm_links_free(&l);
                free(done);
                fail(w, err, "writing matched_distributed");
                goto out;
            }
        }
        free(g);
        comm_links_free(&l);
    }
    free(done);
    rc = 0;
out:
    sqlite3_finalize(up);
    free(trees);
    free(which);
    free(v.b);
    return rc;
}

int write_visdb_close(struct write_visdb *w, int ok, struct pt_error *err) {
    if (!w) return 0;
    int rc = 0;
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->closing = 1;
        if (!ok) w->dbfail = 1;   /* nothing more goes in */
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->th, NULL);
        while (w->spare) {
            struct vbatch *b = w->spare;
            w->spare = b->next;
            vbatch_free(b);
        }
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        if (ok && w->dbfail) rc = pt_errorf(err, "%s", w->dberr);
    }
    if (ok && rc == 0 && w->db) {
        /* a single folder (one graph) gets no links, as in msProbe */
        if ((w->nranks > 1 || w->nsteps > 1) && w->ncomm && write_links(w, err) != 0) rc = -1;
        if (rc == 0 && (write_config(w, err) != 0 || exec(w, "COMMIT", err) != 0))
            rc = -1;
    }
    sqlite3_finalize(w->node);
    sqlite3_finalize(w->stack);
    if (w->db && sqlite3_close(w->db) != SQLITE_OK && ok && rc == 0) rc = fail(w, err, "closing");
    w->db = NULL;
    if (ok && rc == 0 && w->tmp && rename(w->tmp, w->final) != 0) {
        rc = pt_errorf(err, "%s: cannot rename %s into place: %s", w->final, w->tmp, strerror(errno));
    }
    if ((!ok || rc != 0) && w->tmp) unlink(w->tmp);
    for (size_t i = 0; i < w->ncomm; i++) write_visdb_links_free(&w->comm[i]);
    free(w->comm);
    free(w->ranks);
    free(w->steps);
    free(w->final);
    free(w->tmp);
    free(w);
    return rc;
}
