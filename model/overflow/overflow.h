/* overflow: NaN/Inf levels of dump records (probetop-rules(7), OVERFLOW LEVELS).
 *
 * Pure functions over a compact summary of one dump record's I/O that the
 * dump reader fills while it parses (so triage is no second pass over the
 * JSON).  A record summary lists its top-level inputs (input_args, or
 * input for backward records), kwargs (input_kwargs values) and outputs. */
#ifndef PT_OVERFLOW_H
#define PT_OVERFLOW_H

#include <stddef.h>
#include <stdint.h>

enum ovf_level { OVF_NONE = 0, OVF_MEDIUM = 1, OVF_HIGH = 2, OVF_CRITICAL = 3 };

/* One top-level element of input_args / input_kwargs / output. */
struct ovf_elem {
    uint8_t anomalous;        /* probetop-rules(7), OVERFLOW LEVELS recursive test: own Max/Min/Mean is inf/-inf/nan,
                                 or (arrays) any element, recursively */
    uint8_t plain_anomalous;  /* probetop-rules(7), OVERFLOW LEVELS filter test: an object whose own Max/Min/Mean is
                                 non-finite; an array never counts */
    uint8_t is_torch_tensor;  /* "type" is exactly "torch.Tensor" */
    uint8_t has_norm;         /* is_torch_tensor and Norm is a non-NaN number */
    double norm;
    char what[32];            /* first anomalous statistic, e.g. "Max=inf" ("" if none) */
};

struct ovf_io {
    const struct ovf_elem *in;  size_t nin;
    const struct ovf_elem *kw;  const char *const *kwnames; size_t nkw;
    const struct ovf_elem *out; size_t nout;
    /* a forward module record's `parameters` (its weights); msProbe's
     * overflow check reads none of them */
    const struct ovf_elem *par; const char *const *parnames; size_t npar;
};

/* For the reader: records that statistic stat ("Max", "Min", "Mean") of
 * element e has the value v.  A non-finite v makes e anomalous (probetop-rules(7), OVERFLOW LEVELS); it
 * also makes e plain_anomalous unless the tensor was found nested inside an
 * array (nested != 0), and the first such statistic is kept in e->what
 * ("Max=inf", "Min=-inf", "Mean=nan").  Finite values change nothing, so
 * the reader may call it for every statistic it sees. */
void ovf_elem_stat(struct ovf_elem *e, const char *stat, double v, int nested);
/* "Max=inf" (stat, '=', nan, inf or -inf) into what (size bytes, cut as
 * snprintf cuts): the text an anomalous statistic is named by. */
void ovf_what(char *what, size_t size, const char *stat, double v);

/* The level of one record named name (the dump.json key): msProbe's,
 * from its inputs and outputs; a record whose only non-finite tensor is a
 * weight (par), which msProbe gives no level, is critical (probetop-rules(7),
 * OVERFLOW LEVELS). */
enum ovf_level ovf_classify(const char *name, const struct ovf_io *io);

/* 1 when a record is flagged by the numeric-jump heuristic alone (an
 * output Norm over 100x the input Norm, level high) and no element holds a
 * NaN or Inf.  msProbe marks healthy sum reductions this way (a known false
 * positive), so the listing groups such records and the CI gate does not
 * count them by default (man/probetop.1, "probetop overflow"). */
int ovf_heuristic(const struct ovf_io *io);

/* "in.0 Max=inf, kw.weight Min=-inf, out.0 Mean=nan": which elements are
 * non-finite; for a clean record flagged by the Norm jump, "Norm jump 2 ->
 * 1e+03".  At most size bytes, truncated with "..." (never inside a UTF-8
 * character). */
void ovf_describe(const struct ovf_io *io, char *buf, size_t size);

const char *ovf_level_name(enum ovf_level l);   /* "critical", "high", "medium", "" */

/* A flagged record, as the dataset keeps it. */
struct ovf_entry {
    int32_t step;        /* step directory number */
    int32_t micro;       /* micro step inside the step, -1 unknown */
    int32_t rank;
    uint32_t pos;        /* execution position: index of the record in dump.json data */
    uint8_t level;       /* enum ovf_level */
    uint8_t jump;        /* ovf_heuristic(): flagged by the Norm jump alone, no NaN/Inf */
    char *name;          /* dump.json key (in the list's strs) */
    char *what;          /* ovf_describe() text (in the list's strs) */
};

/* A block of the entries' strings. */
struct ovf_strs;

struct ovf_list {
    struct ovf_entry *v;
    size_t n, cap;
    /* the entries' names and texts, in blocks the list owns: a list of a
     * thousand ranks holds hundreds of thousands, whose malloc and free
     * each were a tenth of `probetop overflow`'s serial tail */
    struct ovf_strs *strs;
};

int ovf_list_add(struct ovf_list *l, const struct ovf_entry *e); /* copies strings; 0 ok */
/* Appends src's entries to dst, their strings moved, not copied (src is
 * left empty); 0, or -1 out of memory (both as they were). */
int ovf_list_take(struct ovf_list *dst, struct ovf_list *src);
void ovf_list_free(struct ovf_list *l);
/* Sorts by step, micro step, execution position, rank (the triage order).
 * An entry without a micro step (-1) sorts with the micro step of the
 * flagged entry before it in the same (step, rank) file, else the one after
 * it; its micro field stays -1.  Then level (highest first), name and what.
 * Stable: entries equal in all of these keep their order.  0, or -1 out of
 * memory (the list then as it was). */
int ovf_list_sort(struct ovf_list *l);
/* Index of the first occurrence of a NaN/Inf: the earliest critical
 * entry, else the earliest high, else the earliest medium, else (inputs
 * without levels, where every entry is OVF_NONE) the earliest entry;
 * numeric-jump entries (jump set) hold no NaN/Inf and never count.  -1 when
 * there is none.  The list must be sorted. */
long ovf_first(const struct ovf_list *l);

/* The level an entry counts at for `probetop overflow --fail-on`: every
 * entry holding a NaN/Inf counts as critical, whatever msProbe's level (a
 * NaN coming from outside the dump, from data, an optimizer step or an op
 * not dumped, has no critical record); a numeric-jump entry counts at its
 * own level (high).  The entry's level itself is left as msProbe gives it. */
enum ovf_level ovf_gate_level(const struct ovf_entry *e);

/* Inputs without per-record I/O (monitor CSV trees, .trend.db files): adds
 * one OVF_NONE entry per (metric, target, step, rank) cell of cube c where
 * a statistic is NaN or +-Inf (missing cells do not count), with step /
 * micro from the cube's step axis, pos = the target id (msProbe's target
 * order), name = the target's display name and what = "actv norm=nan,
 * max=inf".  The list is sorted afterwards.  0 ok, -1 no memory (err). */
struct cube;
struct pt_error;
int ovf_scan_cube(const struct cube *c, struct ovf_list *out, struct pt_error *err);

#endif
