/* compare: two runs side by side, msProbe's way (probetop-rules(7), MATCHING; probetop-rules(7), VERDICTS; probetop-rules(7), PRECISION INDEX AND COLOURS).
 *
 * Two products from the same rules:
 *  - the graph compare (cmp_graph): nodes of the problem ("NPU") tree
 *    matched to nodes of the benchmark tree (exact, fuzzy, name map or
 *    manual), every matched pair's params paired and compared, each row
 *    judged pass / warning / error (probetop-rules(7), VERDICTS), each node given msProbe's
 *    precision index (probetop-rules(7), PRECISION INDEX AND COLOURS), a continuous error magnitude (probetop-rules(7), PRECISION INDEX AND COLOURS) and the
 *    first-divergence query;
 *  - the table compare (cmp_table): `msprobe compare`, one row per flattened
 *    tensor of the problem dump in dump order, joined by name (probetop-rules(7), MATCHING: Table matching), with
 *    the table's own corner cases (probetop-rules(7), STATISTICS METRICS: Table values).
 * Cells are kept as small tagged values and printed as msProbe prints them
 * (Python float text, "N/A", "Nan", "12.5%"...) by cmp_cell_text(). */
#ifndef PT_COMPARE_H
#define PT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/graph/tree.h"

enum cmp_mode { CMP_SUMMARY = 0, CMP_MD5, CMP_TENSOR, CMP_STRUCTURE };
enum cmp_level { CL_PASS = 0, CL_WARNING = 1, CL_ERROR = 2 };
#define CL_NONE (-1)      /* no precision index (NULL): unmatched, or no data */

enum cval_kind { CV_BLANK = 0, CV_NUM, CV_INT, CV_PCT, CV_NA, CV_NAN, CV_INF, CV_NINF, CV_ZERO, CV_DIFF,
                 CV_UNSUP, CV_SHAPE };   /* tensor mode: "unsupported", "shape unmatched" */
/* v or i by kind (CV_INT: i): a row holds 8 of them and a large pair's
 * compare a few hundred thousand rows, so they are packed (9 bytes, not
 * 16: a row of 92, not 152); read the members by value, never by address */
struct cval { uint8_t kind; union { double v; int64_t i; }; } __attribute__((packed));

/* Messages, in the order msProbe's checkers run (bit i = message i). */
enum cmp_msg { MSG_INFNAN, MSG_NORM_ERR, MSG_RATIO_ERR, MSG_REQGRAD, MSG_SCALAR, MSG_DTYPE, MSG_SHAPE,
               MSG_NORM_WARN, MSG_COS_WARN, MSG_CRC_ERR, MSG_CRC_WARN, MSG_COUNT };
const char *cmp_msg_text(int msg);

struct crow {
    int32_t np;           /* NPU param index (into the NPU tree's params) */
    int32_t bp;           /* Bench param index, -1 none */
    int32_t rec;          /* NPU record */
    int32_t brec;         /* Bench record of bp (names composed without a search), -1 none */
    /* one word (the row stays 92 bytes with brec) */
    uint32_t placeholder : 1;    /* graph: extra NPU param, Bench side "Nan" */
    uint32_t output : 1;         /* NPU name contains ".output." */
    uint32_t level : 2;          /* enum cmp_level */
    uint32_t rg_consistent : 1;
    uint32_t msgs : 11;          /* 1 << enum cmp_msg (MSG_COUNT bits) */
    uint32_t tmsgs : 16;         /* tensor mode: 1 << enum tensorcmp_msg (model/compare/tensorcmp.h) */
    union {
        struct {
            struct cval diff[4];  /* Max, Min, Mean, L2norm diff */
            struct cval rel[4];   /* their relative errors */
        };
        struct cval metric[6];    /* tensor mode: Cosine ... Five Thousandths Err Ratio */
    };
};

struct tensorcmp_tensor;

/* Matching options. */
struct cmp_opts {
    int fuzzy;                  /* -fm */
    /* name map NPU id -> Bench id (layer mapping); NULL: none */
    const char *(*map)(void *ctx, const char *npu_id);
    void *map_ctx;
    /* Tensor mode: loads the real tensor of param p of tree t into *out
     * (out->v malloc'd; the model frees it right after the pair is
     * compared).  NULL: a tensor dump is compared on its statistics. */
    int (*tensor)(void *ctx, const struct tree *t, const struct tparam *p, struct tensorcmp_tensor *out,
                  struct pt_error *err);
    void *tensor_ctx;
    /* Graph rows not kept: each matched node's rows are judged, summed up
     * in its index, magnitude, worst error and md5 nondeterminism, and
     * their memory reused for the next node's, so the graph holds nodes
     * only (the compare command's summary; not for manual matches, the
     * .vis.db or anything that reads g->rows). */
    int summary_only;
};

/* ---- graph compare ---- */

struct cmp_node {
    int32_t bench;        /* matched Bench node, -1 none */
    int8_t index;         /* enum cmp_level, CL_NONE for NULL */
    uint8_t manual;       /* matched by hand */
    uint8_t nondet;       /* summary_only: cmp_node_nondeterministic from its rows before they went */
    uint32_t row0, nrows; /* rows of this node in cmp_graph.rows */
    double magnitude;     /* probetop-rules(7), PRECISION INDEX AND COLOURS continuous index in [0,1], -1 when none */
    double worst_rel;     /* largest relative error of any row (fraction; inf for nan/inf), -1 none */
    int32_t pre;          /* execution (pre-order) position */
};

struct cmp_graph {
    const struct tree *npu, *bench;
    enum cmp_mode mode;
    struct cmp_node *nodes;   /* one per NPU node */
    int32_t *bmatch;      /* one per Bench node: the NPU node, -1 */
    struct crow *rows;
    size_t nrows, caprows;
    size_t nmatched, nunmatched_npu, nunmatched_bench;
    struct cmp_opts opts; /* as given (manual matches load tensors too) */
    size_t tensor_failed; /* tensor mode: tensors that could not be read */
    char tensor_err[512]; /* the first such reader message, "" none */
};

/* The compare mode the two dumps call for (probetop-formats(5), DUMP.JSON), or -1 with a message
 * when they differ (task, md5 presence). */
int cmp_mode_of(const struct tree *npu, const struct tree *bench, struct pt_error *err);

int cmp_graph_new(const struct tree *npu, const struct tree *bench, const struct cmp_opts *o,
                  struct cmp_graph **out, struct pt_error *err);
void cmp_graph_free(struct cmp_graph *g);

/* Manual match of NPU node a with Bench node b (both unmatched, same
 * kind): links them and recomputes the pair's rows and index.  With twins
 * set, also the forward/backward twins when both exist and are unmatched. */
int cmp_manual_match(struct cmp_graph *g, int a, int b, int twins, struct pt_error *err);
int cmp_unmatch(struct cmp_graph *g, int a, struct pt_error *err);

/* First divergence: the earliest NPU node in msProbe's node_order (post
 * order: a module after everything inside it, so leaves in execution
 * order) whose index is error, else warning; API collections are skipped.
 * In md5 mode the earliest operator the determinism rule names comes
 * first (cmp_node_nondeterministic), the rest when there is none.
 * -1 when none. */
int cmp_first_divergence(const struct cmp_graph *g);
/* md5 mode, the determinism rule (probetop-rules(7), FIRST DIVERGENCE:
 * Determinism): an operator's rows (inputs and outputs of one call) whose
 * every input row passes (the same checksums as the benchmark's) while
 * some output row is at error level (both checksums there, different).
 * An operator without inputs (torch.randn) passes its inputs vacuously. */
int cmp_rows_nondeterministic(const struct crow *rows, size_t n);
/* The same for node n of an md5 graph: an operator (API or fused node),
 * matched; 0 in the other modes and for modules. */
int cmp_node_nondeterministic(const struct cmp_graph *g, int n);
/* Next / previous node at warning-or-worse after / before node n in the
 * same order (wrapping not done; n = -1 starts at the first / last); -1 none. */
int cmp_next_divergent(const struct cmp_graph *g, int n, int dir);

/* The node's colour level for display: CL_PASS/WARNING/ERROR, or -1 for
 * unmatched, -2 for "matched without data" (white). */
int cmp_node_level(const struct cmp_graph *g, int n);

/* ---- table compare ---- */

struct cmp_tjoin;

struct cmp_table {
    const struct tree *npu, *bench;
    enum cmp_mode mode;
    struct crow *rows;
    size_t nrows, caprows;
    int has_stack;        /* the NPU side had a stack.json: NPU_Stack_Info column */
    size_t counts[3];     /* rows per level (so far, when streamed) */
    size_t nall;          /* rows made (so far, when streamed) */
    struct cmp_tjoin *join; /* streamed: the join between blocks; NULL once whole */
    struct cmp_opts opts;
    size_t tensor_failed; /* tensor mode: tensors that could not be read */
    char tensor_err[512]; /* the first such reader message, "" none */
};

int cmp_table_new(const struct tree *npu, const struct tree *bench, const struct cmp_opts *o,
                  struct cmp_table **out, struct pt_error *err);
void cmp_table_free(struct cmp_table *t);
/* The same table a block at a time, for a table written as it is made
 * (`probetop compare --csv`): memory for one block, reused, instead of the
 * whole table.  cmp_table_open prepares the join; each cmp_table_next puts
 * the next rows in t->rows in place of the previous block's (whole dump
 * entries, so each entry is judged as in cmp_table_new; at least want rows
 * unless the table ends), adds them to t->counts and t->nall, and returns
 * how many: 0 at the end, -1 out of memory.  Fuzzy matching (a walk over
 * both sides) comes as one block.  Free with cmp_table_free. */
int cmp_table_open(const struct tree *npu, const struct tree *bench, const struct cmp_opts *o,
                   struct cmp_table **out, struct pt_error *err);
long cmp_table_next(struct cmp_table *t, size_t want, struct pt_error *err);

/* Column header of the table for a mode (NULL-terminated, without
 * NPU_Stack_Info and Data_name). */
const char *const *cmp_header(enum cmp_mode mode);
/* Every column of the table, header included: cmp_header's, then
 * NPU_Stack_Info when t->has_stack, then Data_name in tensor mode. */
int cmp_table_ncols(const struct cmp_table *t);
const char *cmp_table_colname(const struct cmp_table *t, int col);

/* Text of one cell of a table row (column index as cmp_table_colname)
 * into buf; returns buf. */
char *cmp_table_cell(const struct cmp_table *t, const struct crow *r, int col, char *buf, size_t size);
/* The same for a graph-compare row (msProbe's .vis.db text rules, probetop-formats(5), VIS.DB, are
 * not applied: this is the raw compare text). */
char *cmp_graph_cell(const struct cmp_graph *g, const struct crow *r, int col, char *buf, size_t size);

/* ---- text helpers ---- */

/* Python's repr of a float: shortest round trip, "1.0", "1e-05", "inf". */
char *cmp_pyfloat(double v, char *buf, size_t size);
/* Its digits for x > 0 (no trailing zeros) and the decimal exponent of the
 * first; with fast set, exact integer arithmetic where it fits, else
 * printf.  Returns 1 when the fast path answered (for tests). */
int cmp_pyfloat_digits(double x, int fast, char *digits, int *nd, int *dexp);
/* Python str() of a param value (None, 1, 1.0, True, text). */
char *cmp_tval_text(const struct tree *t, const struct tval *v, char *buf, size_t size);
/* Text of a compare cell. */
char *cmp_cval_text(const struct cval *c, int graph, char *buf, size_t size);
/* A relative error cell as a fraction (12.5% -> 0.125): 1 when it has one
 * (inf/nan included), 0 for N/A and blanks. */
int cmp_cval_fraction(const struct cval *c, double *out);
/* The largest relative error of a row as a fraction (statistics: the four
 * relative errors; tensor: MaxRelativeErr; inf for Nan/inf and for tensor
 * inf/nan positions that differ): 1 when the row has one. */
int cmp_row_worst(const struct crow *r, enum cmp_mode mode, double *out);
/* 1 when the row's tensor differs from the benchmark's: the row is at
 * error level or its largest relative error is above 50% (msProbe compare
 * -da's test).  What makes an input "already diverging" for the first
 * divergence and the origin (probetop-rules(7), FIRST DIVERGENCE). */
int cmp_row_differs(const struct crow *r, enum cmp_mode mode);

const char *cmp_level_name(int level);   /* "pass", "warning", "error" */

#endif
